"""The notes' names read straight from the catalog file, read-only, without the engine.

For shell completion, which must answer at once: nothing is created, migrated, locked or
refreshed (a catalog behind the files gives the names it holds), and a catalog that cannot be
read as it is gives None, for the caller to list the files instead.
"""

from __future__ import annotations

from pathlib import Path

from brain.index.catalog.read_only import read_rows


def catalog_names(index_dir: Path) -> list[tuple[str, str, str]] | None:
    """(path, title, type) of every note in the catalog, by path; None without a catalog of this schema."""
    rows = read_rows(index_dir, "SELECT path, title, type FROM notes ORDER BY path")
    if rows is None:
        return None
    return [(str(note_path), str(title), str(kind)) for note_path, title, kind in rows]
