"""One line of a note's history log (an `Entry`, written as JSON, read back whole or skipped), and
what forgetting and counting versions report (`Purged`, `Usage`). Who wrote a version comes from
`acting_as` (a context variable the front ends set: cli, mcp, importer, hook).

A line cut short by a crash (or anything else that is not a whole entry) reads as None, never as
an error: the log's other lines still read, and `History.torn` reports it.
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass(frozen=True)
class Actor:
    """Who is writing: `by` is cli | mcp | importer | hook | brain, `command` what they ran."""

    by: str
    command: str = ""


_ACTOR: ContextVar[Actor | None] = ContextVar("brain_history_actor", default=None)
_NOBODY = Actor("brain")  # a library call no front end named


def current_actor() -> Actor:
    return _ACTOR.get() or _NOBODY


@contextmanager
def acting_as(by: str, command: str = "") -> Iterator[Actor]:
    """Name the writer of the versions written inside the block (an MCP tool call, an import)."""
    actor = Actor(by, command)
    token = _ACTOR.set(actor)
    try:
        yield actor
    finally:
        _ACTOR.reset(token)


@dataclass(frozen=True)
class Entry:
    """One line of a note's log: a version (with `sha256`) or a deletion (`sha256` None)."""

    v: int
    event: str
    path: str
    sha256: str | None
    size: int
    time: str
    by: str
    command: str = ""
    moved_from: str | None = None
    title: str | None = None  # on a deletion: the note's title, to find it by name later

    def line(self) -> bytes:
        data = {key: value for key, value in asdict(self).items() if value is not None}
        return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


@dataclass(frozen=True)
class Purged:
    """What a purge removed: versions (log lines), objects (stored bytes) and their hashes."""

    versions: int
    objects: int
    sha256: tuple[str, ...]


@dataclass(frozen=True)
class Usage:
    notes: int
    versions: int
    objects: int
    bytes: int


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def time_of(mtime_ns: int) -> str:
    return datetime.fromtimestamp(mtime_ns / 1e9, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def last_version(entries: list[Entry]) -> str | None:
    return next((entry.sha256 for entry in reversed(entries) if entry.sha256), None)


def next_number(last: Entry | None) -> int:
    return last.v + 1 if last is not None else 1


def read_entry(line: bytes) -> Entry | None:
    """One log line, or None for a line that is not a whole entry (cut short by a crash)."""
    try:
        data = json.loads(line)
        entry = Entry(**{key: data.get(key) for key in Entry.__dataclass_fields__ if key in data or key == "sha256"})
    except (ValueError, TypeError, AttributeError):
        return None
    if not isinstance(entry.v, int) or not isinstance(entry.path, str) or not isinstance(entry.time, str):
        return None
    return entry


def read_entries(data: bytes) -> tuple[list[Entry], int]:
    """A log's whole entries, and how many lines were not whole (skipped)."""
    entries: list[Entry] = []
    torn = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        entry = read_entry(line)
        if entry is None:
            torn += 1
        else:
            entries.append(entry)
    return entries, torn


def stem_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md").lower()


def folder_stamp(folder: Path) -> int | None:
    """When a folder last had a file added, renamed or removed (None: there is no folder)."""
    try:
        return folder.stat().st_mtime_ns
    except FileNotFoundError:
        return None


def note_present(root: Path, path: str) -> bool:
    """Whether the note file at `path` (NFC, as logs key it) exists, in whichever Unicode form it was named."""
    target = root / path
    if target.is_file():
        return True
    try:
        names = os.listdir(target.parent)
    except OSError:
        return False
    return any(unicodedata.normalize("NFC", name) == target.name and (target.parent / name).is_file() for name in names)
