"""The failures the episodes hold, looked up by signature straight from the catalog file, read-only.

For the tool-failure hook, which answers while the agent waits: nothing is created, migrated,
locked or refreshed. The `failures` rows are written with their episode's row (`Catalog.put`), so
`brain index`, `brain watch` and brain's own writes (a session's extraction) keep them current; a
catalog of another schema, or one that cannot be read, gives nothing.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION

BUSY_SECONDS = 0.2  # a writer holding the catalog longer: the hook says nothing rather than wait


@dataclass(frozen=True)
class FailureSeen:
    """One earlier failure of a signature, in the episode that holds it."""

    path: str
    title: str
    date: str
    session: str
    error: str
    fix: str
    commit: str


def failures_seen(index_dir: Path, signature: str, limit: int = 20) -> list[FailureSeen]:
    """The recovered failures of this signature, newest episode first (at most `limit`)."""
    path = Path(index_dir) / CATALOG_FILE
    if not path.is_file():
        return []
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return []
            rows = db.execute(
                "SELECT n.path, n.title, COALESCE(json_extract(n.frontmatter, '$.date'), n.date), "
                "COALESCE(json_extract(n.frontmatter, '$.session'), ''), f.error, f.fix, f.commit_text "
                "FROM failures f JOIN notes n ON n.id = f.note_id WHERE f.signature = ? AND f.fix != '' "
                "ORDER BY 3 DESC, n.path LIMIT ?",
                (signature, limit),
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    return [FailureSeen(*(str(value or "") for value in row)) for row in rows]
