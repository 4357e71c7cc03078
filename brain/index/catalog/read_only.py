"""A query straight on the catalog file, read-only, without the engine.

For the readers that must answer at once (shell completion, the tool-failure hook): nothing is
created, migrated, locked or refreshed. A catalog that is missing, of another schema, busy past
BUSY_SECONDS or unreadable gives None, for the caller to do without it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION

BUSY_SECONDS = 0.2  # a writer holding the catalog longer: the reader does without it rather than wait
T = TypeVar("T")


def read_rows(index_dir: Path, query: str, parameters: Sequence[Any] | Mapping[str, Any] = ()) -> list[Any] | None:
    """The rows of `query` on the catalog of `index_dir`, or None when it cannot be read as it is."""
    return read_with(index_dir, lambda db: db.execute(query, parameters).fetchall())


def read_with(index_dir: Path, reading: Callable[[sqlite3.Connection], T]) -> T | None:
    """What `reading` reads from the catalog of `index_dir` (several queries on one connection, in
    one read transaction), or None when it cannot be read as it is."""
    path = Path(index_dir) / CATALOG_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return None
            with db:
                db.execute("BEGIN")
                return reading(db)
        finally:
            db.close()
    except sqlite3.Error:
        return None
