"""A query straight on the catalog file, read-only, without the engine.

For the readers that must answer at once (shell completion, the tool-failure hook): nothing is
created, migrated, locked or refreshed. A catalog that is missing, of another schema, busy past
BUSY_SECONDS or unreadable gives None, for the caller to do without it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION

BUSY_SECONDS = 0.2  # a writer holding the catalog longer: the reader does without it rather than wait


def read_rows(index_dir: Path, query: str, parameters: Sequence[Any] | Mapping[str, Any] = ()) -> list[Any] | None:
    """The rows of `query` on the catalog of `index_dir`, or None when it cannot be read as it is."""
    path = Path(index_dir) / CATALOG_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return None
            return db.execute(query, parameters).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return None
