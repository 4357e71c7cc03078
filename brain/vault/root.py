"""Which folder is the vault: the path given, else $BRAIN_VAULT, else the first folder upwards holding `.brain/`.

When none is found the error says where the path came from and what to do: a relative
$BRAIN_VAULT exported in one folder names nothing from another, and the message says so.
"""

from __future__ import annotations

import os
from pathlib import Path

from brain.errors import Remedy, VaultNotFound, VaultPathMissing
from brain.vault.note_files import BRAIN_DIR


def vault_root(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """The vault's folder; a path given that names no folder is a `VaultPathMissing` (a usage error)."""
    if explicit:
        root = _from(cwd, explicit)
        if root.is_file():
            raise VaultPathMissing(
                Remedy("vault_path"), f" '{explicit}' is a file, not a vault folder; give the vault's folder"
            )
        if not root.is_dir():
            raise VaultPathMissing(
                Remedy("vault_path"),
                f" '{explicit}' does not exist; create the vault with ",
                Remedy("init_vault", path=str(explicit)),
            )
        return root
    from_env = os.environ.get("BRAIN_VAULT")
    if from_env:
        root = _from(cwd, from_env)
        if not root.is_dir():
            what = "is a file, not a folder" if root.is_file() else "does not exist"
            relative = not Path(from_env).expanduser().is_absolute()
            where = f" in '{_from(cwd, '.')}' (a relative path is read from the current folder)" if relative else ""
            raise VaultPathMissing(
                f"$BRAIN_VAULT is '{from_env}', which {what}{where}; set $BRAIN_VAULT to an existing vault "
                "(an absolute path works from any folder) or unset it, or give ",
                Remedy("vault"),
            )
        return root
    here = _from(cwd, ".")
    for folder in (here, *here.parents):
        if (folder / BRAIN_DIR).is_dir():
            return folder
    raise VaultNotFound(
        f"no vault found in '{here}' or above it; create one with ",
        Remedy("init_vault", path="PATH"),
        ", give ",
        Remedy("vault"),
        ", or set $BRAIN_VAULT",
    )


def _from(cwd: Path | None, path: str | os.PathLike[str]) -> Path:
    """`path` read from `cwd` (default: the current folder), as the user who typed it means it."""
    given = Path(path).expanduser()
    return given if given.is_absolute() else (cwd or Path.cwd()).resolve() / given
