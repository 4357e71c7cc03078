"""The ledger of what the hooks hand an agent: one JSON line per injection in `.brain/hooks/ledger.jsonl`.

Each line holds the session, the hook event, the time, the estimated tokens (characters / 4, as every
budget in brain counts them), the notes the text names and the session's transcript. `brain hooks
status` sums it per session over the last days, and tells for each injected note whether the agent
then used it: named it in its own text or in a tool call's input (a read, a search, a command)
after the injection, in the session's transcript as it is when status runs. A transcript that is
gone leaves the use unknown.

The ledger keeps the last KEEP_DAYS days, at most KEEP_BYTES of them: an append that finds the
file past COMPACT_BYTES, or its first line older than KEEP_DAYS + 1 days, rewrites it with only
those (a temp file renamed over it). Appends and that rewrite hold one lock (`ledger.lock`), so a
line another hook appends meanwhile waits for the rewrite and lands in the new file. Readers take
no lock: the rename shows them the old file or the new one, whole. The appending, the lock and the
rewrite are `brain.vault.append_log`'s.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from brain.agents.settings import json_object_or_none
from brain.vault.append_log import AppendLog
from brain.vault.atomic import PRIVATE

CHARS_PER_TOKEN = 4  # as brain.memory.causal.neighbourhood counts them (not imported: hooks load little)
DEFAULT_DAYS = 7
KEEP_DAYS = 30  # the most `brain hooks status --days` reads back: a month, the default week four times over
# A line is under 1 KB (a session id, a time, the notes named, a transcript's path): 8 MiB holds
# 8,000 injections or more, a month of 250 a day. Compacting at twice that size rewrites the file
# once per 8 MiB appended, not at every append of a busy month.
KEEP_BYTES = 8 * 1024 * 1024
COMPACT_BYTES = 2 * KEEP_BYTES
# Seconds an append waits for another hook's append or compaction before it gives up its line (the
# hooks log says so): the agents give a whole hook 10 s, and its answer is out before the ledger.
LOCK_WAIT = 2
_LINK = re.compile(r"\[\[([^\]|#]+)")
_ITEM = re.compile(r"^- (.+?) [(\[]")


def ledger_path(root: Path) -> Path:
    return root / ".brain" / "hooks" / "ledger.jsonl"


def _log(path: Path) -> AppendLog:
    """The ledger at `path`, private (it names sessions and transcripts), under `ledger.lock`."""
    return AppendLog(path, mode=PRIVATE, private=True, lock=path.with_suffix(".lock"))


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def notes_named(text: str) -> list[str]:
    """The notes a context text names: its wiki links, else each list item's leading name (every
    section of a hook's context is a list of `- NAME (...)` or `- NAME [...]` lines)."""
    found: list[str] = []
    for line in text.splitlines():
        links = _LINK.findall(line)
        if links:
            found += [link.strip() for link in links]
            continue
        item = _ITEM.match(line)
        if item:
            found.append(item.group(1).strip())
    return list(dict.fromkeys(found))


def record(
    root: Path, payload_text: str, event: str, context: str, at: datetime | None = None, signature: str = ""
) -> None:
    """Append one injection (nothing when the hook handed the agent nothing); `payload_text` is the
    agent's hook JSON, which names the session and its transcript; `signature`, the failure's
    (`brain.memory.episodes.signature`) when the failure hook handed an earlier fix."""
    if not context:
        return
    payload = json_object_or_none(payload_text or "{}") or {}
    entry = {
        "session": str(payload.get("session_id") or payload.get("thread-id") or ""),
        "event": event,
        "at": (at or datetime.now(UTC)).isoformat(),
        "tokens": estimate_tokens(context),
        "notes": notes_named(context),
        "transcript": str(payload.get("transcript_path") or ""),
        **({"signature": signature} if signature else {}),
    }
    path = ledger_path(root)
    log = _log(path)
    with log.locked(LOCK_WAIT):
        size = log.append((json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")).size
        if size > COMPACT_BYTES or _first_is_stale(path, datetime.now(UTC)):
            compact(path, datetime.now(UTC))


def _first_is_stale(path: Path, now: datetime) -> bool:
    """Whether the ledger's first line is older than KEEP_DAYS + 1 days, or no entry at all (the
    day's slack makes that rewrite daily at most)."""
    with path.open("rb") as lines:
        first = lines.readline()
    try:
        at = _instant(json.loads(first).get("at"))
    except (ValueError, AttributeError):
        return True
    return at is None or at < now - timedelta(days=KEEP_DAYS + 1)


def compact(path: Path, now: datetime) -> None:
    """Rewrite the ledger with its lines of the last KEEP_DAYS days, the newest that fit in
    KEEP_BYTES; torn and foreign lines go. It holds the ledger's lock (see the module doc)."""
    since = now - timedelta(days=KEEP_DAYS)

    def recent(data: bytes) -> bytes:
        kept: list[bytes] = []
        for line in io.BytesIO(data):  # split at line feeds only, as the file reads
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            at = _instant(entry.get("at")) if isinstance(entry, dict) else None
            if at is not None and at >= since:
                kept.append(line if line.endswith(b"\n") else line + b"\n")
        size = 0
        first = len(kept)
        while first > 0 and size + len(kept[first - 1]) <= KEEP_BYTES:
            first -= 1
            size += len(kept[first])
        return b"".join(kept[first:])

    _log(path).rewrite(recent, wait=LOCK_WAIT)


@dataclass(frozen=True)
class Injection:
    """One line of the ledger: what one hook handed the agent (`signature`: the failure's, when the
    failure hook handed an earlier fix; '' otherwise, and in lines written before it was recorded)."""

    event: str
    at: str
    tokens: int
    notes: tuple[str, ...]
    signature: str = ""


@dataclass
class SessionTokens:
    """One session's injections over the period: tokens, notes named, and which of them were used
    (`used` is None when the transcript cannot be read); `handed`, each injection, oldest first."""

    session: str
    first: str
    injections: int = 0
    tokens: int = 0
    events: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    used: list[str] | None = None
    transcript: str = ""
    handed: list[Injection] = field(default_factory=list)


@dataclass(frozen=True)
class LedgerSummary:
    days: int
    sessions: list[SessionTokens]

    @property
    def tokens(self) -> int:
        return sum(session.tokens for session in self.sessions)

    @property
    def notes(self) -> int:
        return sum(len(session.notes) for session in self.sessions if session.used is not None)

    @property
    def used(self) -> int:
        return sum(len(session.used or ()) for session in self.sessions)


def summary(
    root: Path,
    *,
    days: int = DEFAULT_DAYS,
    now: datetime | None = None,
    uses: dict[tuple[Any, ...], list[str] | None] | None = None,
) -> LedgerSummary:
    """The injections of the last `days` days, per session (oldest first), with each note's use.
    `uses` remembers what each transcript said of the notes asked about, for a caller that asks
    again (the viewer): a transcript unchanged since is not read again."""
    since = (now or datetime.now(UTC)) - timedelta(days=days)
    sessions: dict[str, SessionTokens] = {}
    injected_at: dict[str, dict[str, str]] = {}
    for entry in _entries(ledger_path(root)):
        at = _instant(entry.get("at"))
        if at is None or at < since:
            continue
        name = str(entry.get("session") or "")
        found = sessions.setdefault(name, SessionTokens(name, at.isoformat(timespec="seconds")))
        found.injections += 1
        tokens = int(entry.get("tokens") or 0)
        found.tokens += tokens
        event = str(entry.get("event") or "")
        found.events[event] = found.events.get(event, 0) + tokens
        named = tuple(note for note in entry.get("notes") or [] if isinstance(note, str))
        for note in named:
            if note not in found.notes:
                found.notes.append(note)
                injected_at.setdefault(name, {})[note] = at.isoformat()
        signature = str(entry.get("signature") or "")
        found.handed.append(Injection(event, at.isoformat(timespec="seconds"), tokens, named, signature))
        found.transcript = str(entry.get("transcript") or found.transcript)
    for found in sessions.values():
        found.used = _remembered(Path(found.transcript), injected_at.get(found.session, {}), uses)
    return LedgerSummary(days, list(sessions.values()))


REMEMBERED = 10_000  # transcripts' answers `uses` holds before it starts afresh


def _remembered(
    transcript: Path,
    notes: dict[str, str],
    uses: dict[tuple[Any, ...], list[str] | None] | None,
) -> list[str] | None:
    """`_used`, remembered in `uses` by the transcript's path, size and time and the notes asked about."""
    if uses is None or not notes or not transcript.name or not transcript.is_file():
        return _used(transcript, notes)
    stat = transcript.stat()
    key = (str(transcript), stat.st_mtime_ns, stat.st_size, tuple(notes.items()))
    if key not in uses:
        if len(uses) >= REMEMBERED:
            uses.clear()
        uses[key] = _used(transcript, notes)
    found = uses[key]
    return None if found is None else list(found)


# Each field of a line as `record` writes it: a line with a field of another type was not written by
# brain (or not whole), and is skipped like a line cut short.
_FIELDS: dict[str, tuple[type, ...]] = {
    "session": (str,),
    "event": (str,),
    "at": (str,),
    "tokens": (int,),
    "notes": (list,),
    "transcript": (str,),
    "signature": (str,),
}


def _entries(path: Path) -> Iterable[dict[str, Any]]:
    if not path.is_file():
        return
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                continue  # a line cut short by a crash
            if _well_formed(entry):
                yield entry


def _well_formed(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and all(
            isinstance(entry[key], kinds) and not isinstance(entry[key], bool)
            for key, kinds in _FIELDS.items()
            if key in entry
        )
        and all(isinstance(note, str) for note in entry.get("notes") or ())
    )


def _instant(value: Any) -> datetime | None:
    try:
        found = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def _used(transcript: Path, notes: dict[str, str]) -> list[str] | None:
    """The notes named after their injection by the agent's text or a tool call's input."""
    if not notes:
        return []
    if not transcript.name or not transcript.is_file():
        return None
    from brain.errors import BrainError
    from brain.memory.sessions.transcripts.files import ReadStats, detect_format
    from brain.memory.sessions.transcripts.readers import READERS

    try:
        chosen = detect_format(transcript, READERS)
        reader = next(reader for reader in READERS if reader.format == chosen)
        said: list[tuple[datetime | None, str]] = [
            (_instant(act.timestamp) if act.timestamp else None, (act.text + json.dumps(act.args)).lower())
            for act in reader.read(transcript, ReadStats())
            if act.kind in ("agent", "call")
        ]
    except (BrainError, OSError, ValueError, StopIteration):  # unreadable, or not an agent's transcript
        return None
    used = []
    for note, at in notes.items():
        after = _instant(at)
        wanted = note.lower()
        if any(wanted in text for when, text in said if when is None or after is None or when >= after):
            used.append(note)
    return used


SESSION_TAIL = 1024 * 1024  # bytes of the ledger's end read for one session's injections (1,000 or more)


def injected(root: Path, session: str) -> frozenset[str]:
    """The notes the hooks already handed this session (the first prompt leaves them out, so a fact
    given at session start is not given again). Only the ledger's last SESSION_TAIL bytes are read:
    a session's own start was moments ago, and the hook must answer at once."""
    path = ledger_path(root)
    if not session or not path.is_file():
        return frozenset()
    with path.open("rb") as source:
        size = source.seek(0, os.SEEK_END)
        source.seek(max(0, size - SESSION_TAIL))
        tail = source.read().decode("utf-8", errors="replace").splitlines()
    found: set[str] = set()
    for line in tail[1:] if size > SESSION_TAIL else tail:  # the first may be cut: not read
        entry = json_object_or_none(line)
        if entry is not None and entry.get("session") == session and isinstance(entry.get("notes"), list):
            found.update(note for note in entry["notes"] if isinstance(note, str))
    return frozenset(found)
