"""What a note becomes in the catalog: its row (file facts plus what is derived from the parse).

Rows are made where files are parsed (in process-pool workers for a cold index), so this module
imports little and runs no SQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from brain.index.catalog import codec
from brain.markdown.model import Note
from brain.memory.episodes.note import episode_from_note
from brain.memory.episodes.signature import recorded_failures
from brain.vault.note_files import Skip, SkipKind

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")
DATE_KEYS = ("date", "created", "valid_from", "last_validated")  # what dates a note for search filters, first first
_NOT_META = {"title", "type", "tags", "permalink"}


class Stamp(NamedTuple):
    """A file as the catalog last saw it (a tuple: a stat scan makes one per note, 50,000 at once)."""

    id: int
    path: str
    mtime_ns: int
    size: int
    sha256: str


@dataclass(frozen=True)
class Row:
    """A note ready to store: the file facts and everything derived from its parsed form.

    Made where the file is parsed (a pool worker, for a cold index), so the writer only runs SQL.
    """

    path: str
    mtime_ns: int
    size: int
    sha256: str
    searchable: bool  # False for binary files: kept for doctor, left out of FTS and vectors
    type: str
    title: str
    date: str
    frontmatter: str  # JSON
    parsed: str  # JSON, see codec
    text: str
    body: str
    meta: str  # frontmatter text for full-text search
    tags: tuple[str, ...]
    links: tuple[tuple[str, str | None, str], ...]  # (target, heading, kind)
    skip: Skip | None = None  # set for a file kept out of search (binary)
    # an episode's: (signature, event, error, fix, commit, kind, program, terms (one a line), fix_command, change, retry)
    failures: tuple[tuple[str, str, str, str, str, str, str, str, str, str, bool], ...] = ()

    @classmethod
    def of(cls, path: str, mtime_ns: int, size: int, sha256: str, note: Note, searchable: bool = True) -> Row:
        links = [(link.target, link.heading, "link") for link in note.links]
        links += [(r.target, None, f"relation:{r.type}") for r in note.relations]
        links += [(r.target, None, f"causal:{r.type}") for r in note.causal_relations]
        return cls(
            path,
            mtime_ns,
            size,
            sha256,
            searchable,
            note.type,
            note.title,
            note_date(note, mtime_ns),
            codec.encode_frontmatter(note.frontmatter),
            codec.encode(note),
            note.text,
            note.body,
            meta_text(note),
            tuple(note_tags(note)),
            tuple(links),
            None if searchable else _binary(note),
            _failures(note),
        )


def _failures(note: Note) -> tuple[tuple[str, str, str, str, str, str, str, str, str, str, bool], ...]:
    if note.type != "episode":
        return ()
    return tuple(
        (
            found.signature,
            found.event,
            found.error,
            found.fix,
            found.commit,
            found.key.kind if found.key else "",
            found.key.program if found.key else "",
            "\n".join(found.key.terms) if found.key else "",
            found.fix_command,
            found.change,
            found.retry,
        )
        for found in recorded_failures(episode_from_note(note))
    )


def note_date(note: Note, mtime_ns: int) -> str:
    """The date search filters use: the first ISO date among date, created, valid_from,
    last_validated; else the file's modification day (UTC)."""
    for key in DATE_KEYS:
        value = note.frontmatter.get(key)
        if isinstance(value, str) and _DATE.match(value.strip()):
            return value.strip()[:10]
    return datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).strftime("%Y-%m-%d")


def note_tags(note: Note) -> list[str]:
    return list(dict.fromkeys(tag.lower() for tag in note.all_tags))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def meta_text(note: Note, *, instants: bool = True) -> str:
    """Frontmatter text worth finding by words: task, trigger, subject, aliases ... `instants=False`
    leaves out the values that are only a date or a time (what a note is about, for its vectors:
    the second a note was written moved its similarity to a query by as much as 0.04)."""
    return "\n".join(
        s
        for key, value in note.frontmatter.items()
        if key not in _NOT_META
        for s in _strings(value)
        if instants or not _INSTANT.fullmatch(s.strip())
    )


def folder_of(path: str) -> str:
    parent = PurePosixPath(path).parent.as_posix()
    return "" if parent == "." else parent


def _binary(note: Note) -> Skip:
    return Skip(
        SkipKind.BINARY, "binary file (NUL bytes); kept out of search" if "\x00" in note.text else "not searchable"
    )


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]
