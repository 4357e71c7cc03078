"""Which vault and embedder a Chroma collection belongs to, and when its files last changed: names and stamps, no Chroma."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from pathlib import Path
from urllib.parse import urlparse

from brain.errors import Remedy, UsageError
from brain.vault.atomic import replace_file

SHARED_SUFFIX = "-shared"  # a collection on a server whose records are chunk ids (see `shared_collection_name`)


def collection_name(vault_root: Path, embedder_id: str, vault_id: str | None = None) -> str:
    """Stable, Chroma-valid (3-512 chars of [a-zA-Z0-9._-]) and distinct per vault and embedder;
    `vault_id` is the id the vault's config gives it (the same in every clone), else `.brain/vault-id`'s."""
    model = re.sub(r"[^a-zA-Z0-9]+", "-", embedder_id).strip("-")[:60]
    return f"brain-{vault_id or vault_identity(Path(vault_root))}-{model}"


def shared_collection_name(vault_root: Path, embedder_id: str, vault_id: str | None = None) -> str:
    """The chunk collection on a Chroma server: one record per chunk text, named by the chunk's id
    alone, so every clone that names the server and the same `vault_id` reads and writes the same
    records. The suffix keeps it apart from the collection of `<note id>:<chunk id>` records brain
    kept on a server before (`collection_name`), which it replaces."""
    return collection_name(vault_root, embedder_id, vault_id) + SHARED_SUFFIX


def vault_identity(vault_root: Path) -> str:
    """The vault's id, kept in `.brain/vault-id` so that it survives moving or renaming the vault.

    A vault without the file gets the id its path gave before the file existed (folder name
    and a hash of the path), so the vectors of an existing vault keep their collection.
    """
    path = vault_root / ".brain" / "vault-id"
    try:
        stored = path.read_text(encoding="utf-8").strip()
        if re.fullmatch(r"[a-zA-Z0-9-]{1,60}", stored):
            return stored
    except OSError:
        pass
    slug = re.sub(r"[^a-zA-Z0-9]+", "-", vault_root.name).strip("-")[:40] or "vault"
    identity = f"{slug}-{hashlib.sha256(str(vault_root.resolve()).encode()).hexdigest()[:10]}"
    if path.parent.is_dir():
        replace_file(path, identity + "\n")
    return identity


def renew_vault_identity(vault_root: Path) -> str:
    """Give the vault a new id (a copy found sharing its original's collection on a server)."""
    slug = re.sub(r"[^a-zA-Z0-9]+", "-", vault_root.name).strip("-")[:40] or "vault"
    identity = f"{slug}-{secrets.token_hex(5)}"
    path = vault_root / ".brain" / "vault-id"
    replace_file(path, identity + "\n")
    return identity


def is_copy(claimed_root: str | None, vault_root: Path) -> bool:
    """Whether the vault at `vault_root` is a copy of the vault that claimed its collection.

    A collection on a Chroma server is shared by every folder with the same `.brain/vault-id`,
    and `cp -r` copies that file. The collection records the root of the vault that last used
    it: another folder that still exists and still holds the same id is the original, so this
    one is a copy. A plain move leaves no such folder (or the id there changed), so the moved
    vault takes the collection over, vectors and all.
    """
    if not claimed_root:
        return False
    claimed = Path(claimed_root)
    try:
        if claimed == vault_root or os.path.samefile(claimed, vault_root):
            return False
        theirs = (claimed / ".brain" / "vault-id").read_text(encoding="utf-8").strip()
    except OSError:  # the claimed folder is gone (the vault moved) or has no id
        return False
    return theirs == vault_identity(vault_root)


def files_stamp(chroma_dir: Path) -> str | None:
    """What changes whenever the embedded store's data changes, read without opening Chroma; None
    when there is no store.

    Chroma keeps every record in `chroma.sqlite3` (a write lands there at once; the vector
    segment folders are rewritten later, when some process next loads them). So the stamp is that
    file's inode, size and mtime and the change counter in its header (SQLite adds to it at every
    commit, so two writes within one mtime tick still differ), and the name, inode and file names
    of each segment folder: a store deleted, replaced or written by another process differs.
    Opening a client commits too, so any process that opens the store changes the stamp.
    """
    try:
        with open(chroma_dir / "chroma.sqlite3", "rb") as file:
            info = os.fstat(file.fileno())
            counter = file.read(28)[24:28].hex()
        parts = [f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{counter}"]
        for entry in sorted(os.scandir(chroma_dir), key=lambda entry: entry.name):
            if entry.is_dir(follow_symlinks=False):
                parts.append(f"{entry.name}:{entry.inode()}:{','.join(sorted(os.listdir(entry.path)))}")
    except OSError:
        return None
    return "|".join(parts)


def parse_url(url: str) -> tuple[str, int, bool]:
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise UsageError(Remedy("chroma_url"), f" '{url}' is not an http(s) URL such as http://127.0.0.1:8000")
    return parsed.hostname, parsed.port or (443 if parsed.scheme == "https" else 8000), parsed.scheme == "https"
