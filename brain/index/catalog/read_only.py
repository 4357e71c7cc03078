"""A query straight on the catalog file, read-only, without the engine.

For the readers that must answer at once (shell completion, the tool-failure hook): nothing is
created, migrated, locked or refreshed. A catalog that is missing, of another schema, busy past
BUSY_SECONDS or unreadable gives None, for the caller to do without it. On a disk where the reader
cannot make SQLite's `-shm` file (read-only, or full) the catalog is read as the file holds it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION

BUSY_SECONDS = 0.2  # a writer holding the catalog longer: the reader does without it rather than wait
# What SQLite says when a reader cannot make the write-ahead log's shared memory (`-shm`): a
# read-only disk (CANTOPEN, READONLY) or a full one (IOERR_SHMSIZE). Such a catalog is read
# `immutable`, as it is on disk, as the engine reads one on a read-only disk (`Catalog`).
_NO_SHARED_MEMORY = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_IOERR_SHM", "SQLITE_FULL")
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
    uri = path.resolve().as_uri()
    try:
        return _read(f"{uri}?mode=ro", reading)
    except sqlite3.Error as error:
        if not str(getattr(error, "sqlite_errorname", "")).startswith(_NO_SHARED_MEMORY):
            return None
    try:  # a read-only disk or a full one: the file as it is, without the write-ahead log's shared memory
        return _read(f"{uri}?mode=ro&immutable=1", reading)
    except sqlite3.Error:
        return None


def _read(uri: str, reading: Callable[[sqlite3.Connection], T]) -> T | None:
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return None
        with db:
            db.execute("BEGIN")
            return reading(db)
    finally:
        db.close()
