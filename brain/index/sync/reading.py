"""Read, hash and parse note files. Kept apart from scan.py so process-pool workers import little."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from brain.index.catalog.rows import Row, is_binary
from brain.vault.note_files import Skip, conflict_line, parse_bytes, unreadable


@dataclass(frozen=True)
class Read:
    path: str
    mtime_ns: int = 0
    size: int = 0
    sha256: str = ""
    row: Row | None = None  # parsed, unless only the hash was wanted
    skip: Skip | None = None  # why the file cannot be indexed
    conflict: int | None = None  # the line where git's merge-conflict markers begin (no row then)


def read_one(root: str, relative: str, known_sha256: str | None = None) -> Read:
    """Read and hash a file; parse it unless its hash is `known_sha256` (bytes unchanged)."""
    try:
        with open(os.path.join(root, relative), "rb") as handle:
            info = os.fstat(handle.fileno())  # the stat that goes with these bytes
            data = handle.read()
    except OSError as error:
        return Read(relative, skip=unreadable(error))
    digest = hashlib.sha256(data).hexdigest()
    row = None
    if digest != known_sha256:
        note = parse_bytes(data, relative)
        conflict = conflict_line(note.text)
        if conflict is not None:
            return Read(relative, info.st_mtime_ns, info.st_size, digest, conflict=conflict)
        row = Row.of(relative, info.st_mtime_ns, info.st_size, digest, note, not is_binary(data))
    return Read(relative, info.st_mtime_ns, info.st_size, digest, row)


def read_many(root: str, paths: list[str], known: dict[str, str]) -> list[Read]:
    return [read_one(root, path, known.get(path)) for path in paths]
