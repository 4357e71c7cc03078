"""The failures the episodes hold, looked up by signature straight from the catalog file, read-only.

For the tool-failure hook, which answers while the agent waits: nothing is created, migrated,
locked or refreshed. The `failures` rows are written with their episode's row (`Catalog.put`), so
`brain index`, `brain watch` and brain's own writes (a session's extraction) keep them current; a
catalog that is missing, of another schema, or cannot be read gives None (nothing to look in).

One query answers for a project: the failures of the episodes whose frontmatter `project` is the
one asked for come first (read from the episode's row, so the `failures` rows need no project of
their own), then the others, each part newest first.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION

BUSY_SECONDS = 0.2  # a writer holding the catalog longer: the hook says nothing rather than wait
_FRONTMATTER = "COALESCE(CAST(json_extract(n.frontmatter, '$.{key}') AS TEXT), {default})"
_SEEN = (
    "SELECT n.path, n.title, {date}, {session}, f.error, f.fix, f.commit_text, {project} "
    "FROM failures f JOIN notes n ON n.id = f.note_id "
    "WHERE f.signature = :signature AND f.fix != '' AND (:session = '' OR {session} != :session) "
    "ORDER BY (:project != '' AND {project} = :project) DESC, 3 DESC, n.path LIMIT :limit"
).format(
    date=_FRONTMATTER.format(key="date", default="n.date"),
    session=_FRONTMATTER.format(key="session", default="''"),
    project=_FRONTMATTER.format(key="project", default="''"),
)


@dataclass(frozen=True)
class FailureSeen:
    """One earlier failure of a signature, in the episode that holds it ('' for a project not recorded)."""

    path: str
    title: str
    date: str
    session: str
    error: str
    fix: str
    commit: str
    project: str = ""


def failures_seen(
    index_dir: Path, signature: str, *, project: str | None = None, session: str = "", limit: int = 20
) -> list[FailureSeen] | None:
    """The recovered failures of this signature outside `session`: those of `project`'s episodes
    first, then the others, each newest first (at most `limit`). None when the catalog cannot be read."""
    path = Path(index_dir) / CATALOG_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return None
            asked = {"signature": signature, "session": session, "project": project or "", "limit": limit}
            rows = db.execute(_SEEN, asked).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return [FailureSeen(*(str(value or "") for value in row)) for row in rows]
