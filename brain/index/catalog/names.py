"""The notes' names read straight from the catalog file, read-only, without the engine.

For shell completion, which must answer at once: nothing is created, migrated, locked or
refreshed (a catalog behind the files gives the names it holds), and a catalog that cannot be
read as it is gives None, for the caller to list the files instead.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION

BUSY_SECONDS = 0.2  # a writer holding the catalog longer: the caller lists the files instead


def catalog_names(index_dir: Path) -> list[tuple[str, str, str]] | None:
    """(path, title, type) of every note in the catalog, by path; None without a catalog of this schema."""
    path = Path(index_dir) / CATALOG_FILE
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return None
            rows = db.execute("SELECT path, title, type FROM notes ORDER BY path").fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return [(str(note_path), str(title), str(kind)) for note_path, title, kind in rows]
