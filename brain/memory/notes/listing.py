"""Which notes there are (`brain note list`, MCP list_notes) and which changed lately (`brain recent`,
MCP recent_activity), as basic-memory users look for them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from brain.errors import InvalidInput, Remedy, UsageError
from brain.markdown.model import Note
from brain.memory.corpus import Corpus
from brain.memory.timeutil import parse_instant

_SPAN = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w)\s*$", re.IGNORECASE)
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}
DEFAULT_RECENT = "7d"


@dataclass(frozen=True)
class Listed:
    path: str
    title: str
    type: str
    tags: tuple[str, ...]
    modified: datetime  # the file's modification time


def list_notes(
    corpus: Corpus, *, folder: str | None = None, note_type: str | None = None, tag: str | None = None
) -> list[Listed]:
    """Every note, by path, optionally only under `folder`, of `note_type`, with `tag`."""
    prefix = folder.strip().strip("/") + "/" if folder and folder.strip().strip("/") else ""
    wanted_tag = tag.strip().lstrip("#").casefold() if tag else None
    found = []
    for note in corpus.notes():
        path = note.path or ""
        if prefix and not path.startswith(prefix):
            continue
        if note_type and note.type != note_type:
            continue
        if wanted_tag and not any(has_tag(item, wanted_tag) for item in note.all_tags):
            continue
        listed = _listed(corpus, note)
        if listed is not None:
            found.append(listed)
    return sorted(found, key=lambda item: item.path)


def has_tag(tag: str, wanted: str) -> bool:
    """Whether a note's `tag` is the `wanted` one (casefolded), or nested under it, as Obsidian's tag
    search finds `#project/mobile` for `project`."""
    found = tag.casefold()
    return found == wanted or found.startswith(wanted + "/")


def recent(
    corpus: Corpus, *, since: str = DEFAULT_RECENT, note_type: str | None = None, now: datetime | None = None
) -> tuple[datetime, list[Listed]]:
    """Notes changed since `since` (a span such as 30m, 12h, 1d, 2w, or an ISO date), newest first."""
    start = since_instant(since, now)
    found = [
        listed
        for note in corpus.notes()
        if (not note_type or note.type == note_type)
        and (listed := _listed(corpus, note)) is not None
        and listed.modified >= start
    ]
    return start, sorted(found, key=lambda item: (item.modified, item.path), reverse=True)


def since_instant(since: str, now: datetime | None = None) -> datetime:
    match = _SPAN.match(since or "")
    if match:
        now = now or datetime.now(UTC)
        digits, unit = match.group(1), match.group(2).lower()
        step = timedelta(**{_UNITS[unit]: 1})
        longest = (now - datetime.min.replace(tzinfo=UTC)) // step  # back to the year 1, the first Python knows
        # compared as digits first: int() refuses a string of thousands of digits
        if len(digits.lstrip("0")) > len(str(longest)) or int(digits) > longest:
            raise UsageError(
                Remedy("since"),
                f" '{since}' reaches back before the year 1; give a span from 0 to {longest}{unit}, or an ISO date",
            )
        return now - int(digits) * step
    try:
        return parse_instant(since, Remedy("since"))
    except InvalidInput:
        raise UsageError(
            Remedy("since"), f" '{since}' is neither a span (30m, 12h, 1d, 2w) nor an ISO date (2026-01-21)"
        ) from None


def _listed(corpus: Corpus, note: Note) -> Listed | None:
    try:
        info = os.stat(corpus.vault.root / (note.path or ""))
    except OSError:
        return None
    modified = datetime.fromtimestamp(info.st_mtime, UTC)  # exact: notes changed in one second keep their order
    return Listed(note.path or "", note.title, note.type or "note", note.all_tags, modified)
