"""Which names the notes answer to, for completing them as they are typed (the shell's completion).

From the catalog when the vault is indexed (titles, paths, types), else from the files (paths and
file stems, a type's notes being those in its folder): an index is never built for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from brain.index.catalog.names import catalog_names
from brain.vault.vault import TYPE_FOLDERS, Vault


@dataclass(frozen=True)
class NoteName:
    path: str
    title: str


def note_names(vault: Vault, note_type: str | None = None) -> list[NoteName]:
    """Every note's path and title (its file stem when the vault has no index), by path; only the
    notes of `note_type` when given."""
    rows = catalog_names(vault.index_dir)
    if rows is not None:
        return [NoteName(path, title) for path, title, kind in rows if note_type in (None, kind)]
    folder = f"{TYPE_FOLDERS[note_type]}/" if note_type else ""
    return [NoteName(path, PurePosixPath(path).stem) for path in vault.iter_files() if path.startswith(folder)]
