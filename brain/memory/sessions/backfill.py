"""Backfill: the sessions an agent already keeps on disk, turned into episodes once each.

An agent's transcript store (Claude Code's `~/.claude/projects/`, Codex's `~/.codex/sessions/`) holds
every session it still has; Claude Code deletes them after 30 days by default. A backfill reads the
store, oldest session first, and extracts each session the vault does not hold yet. What was read is
remembered in `.brain/sessions/backfilled.json`, keyed by session id with the sha256 of the
session's files (its transcript and its subagents'): a second run reads no transcript again, and a
session that grew since (resumed) is extracted again, updating its episode.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.errors import InvalidInput, UsageError
from brain.memory.sessions.extract import Extracted
from brain.memory.sessions.ingest import extract_transcript, store_extracted
from brain.memory.sessions.redact import redactor_for
from brain.memory.sessions.transcripts.files import TranscriptReader, obj, transcript_files
from brain.vault.atomic import PRIVATE, write_json

if TYPE_CHECKING:
    from brain.memory.corpus import Corpus

STATE = Path("sessions") / "backfilled.json"
_PEEK_LINES = 50  # the first records say when and where a session started


@dataclass(frozen=True)
class Session:
    """A session found in an agent's store: its transcript, id, start and working folder."""

    file: Path
    session: str
    started: str
    cwd: str | None


@dataclass(frozen=True)
class Backfilled:
    """One session of a backfill: what was stored (`verb`: created, updated, unchanged), or why not."""

    session: Session
    item: Extracted | None
    path: str | None
    verb: str  # created | updated | unchanged | skipped
    reason: str = ""


def sessions_in(store: Path, project: Path | None = None) -> list[Session]:
    """The sessions of an agent's transcript store, oldest first; with `project`, only those whose
    working folder is that folder or inside it."""
    if not store.is_dir():
        raise UsageError(f"'{store}' does not exist; the agent has kept no sessions there (or keeps them elsewhere)")
    try:
        files = transcript_files([store])
    except InvalidInput:
        return []
    found = [peek(file) for file in files if file.suffix == ".jsonl"]
    if project is not None:
        root = project.expanduser().resolve()
        found = [item for item in found if item.cwd and _within(Path(item.cwd), root)]
    return sorted(found, key=lambda item: (item.started, item.file.as_posix()))


def peek(file: Path) -> Session:
    """A session's id, start and working folder, from its first records (Claude Code's `sessionId`,
    `timestamp` and `cwd`; Codex's `session_meta` payload)."""
    session = started = cwd = None
    for record in _first_records(file):
        payload = obj(record.get("payload"))
        session = session or _text(record.get("sessionId")) or _text(payload.get("id"))
        started = started or _text(record.get("timestamp")) or _text(payload.get("timestamp"))
        cwd = cwd or _text(record.get("cwd")) or _text(payload.get("cwd"))
        if session and started and cwd:
            break
    fallback = _modified(file)
    return Session(file=file, session=session or file.stem, started=started or fallback, cwd=cwd)


def backfill(
    corpus: Corpus,
    sessions: Sequence[Session],
    reader: TranscriptReader,
    *,
    dry_run: bool = False,
    progress: Callable[[Session], None] = lambda session: None,
) -> Iterator[Backfilled]:
    """Extract each session the vault does not hold as read (by session id and content hash), oldest
    first, read as the store's agent writes them. The record is saved after every session, so a backfill cut short goes on where it stopped."""
    state_path = corpus.vault.brain_dir / STATE
    seen = _load(state_path)
    redactor = redactor_for(corpus.vault.brain_dir)
    for session in sessions:
        progress(session)
        digest = _digest(session.file)
        if seen.get(session.session) == digest:
            continue
        try:
            item = extract_transcript(session.file, reader.format, redactor, readers=[reader])
        except InvalidInput as error:  # a transcript with nothing to extract is not retried either
            result = Backfilled(session, None, None, "skipped", str(error))
        else:
            [(stored, path, verb)] = store_extracted(corpus, [item], dry_run=dry_run)
            result = Backfilled(session, stored, path, verb)
        if not dry_run:
            seen[session.session] = digest
            _save(state_path, seen)
        yield result


def _first_records(file: Path) -> Iterator[dict[str, Any]]:
    try:
        with file.open(encoding="utf-8", errors="replace") as lines:
            for _, line in zip(range(_PEEK_LINES), lines, strict=False):
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
                    continue
                if isinstance(record, dict):
                    yield record
    except OSError:
        return


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _modified(file: Path) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(file.stat().st_mtime, UTC).isoformat().replace("+00:00", "Z")


def _within(folder: Path, root: Path) -> bool:
    try:
        folder.resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True


def _digest(file: Path) -> str:
    """sha256 of a transcript and of its subagents' transcripts (Claude Code's `<session>/subagents/`)."""
    hashed = hashlib.sha256(file.read_bytes())
    subagents = file.with_suffix("") / "subagents"
    if subagents.is_dir():
        for part in sorted(subagents.glob("*.jsonl")):
            hashed.update(part.name.encode() + b"\0" + part.read_bytes())
    return hashed.hexdigest()


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no record yet, or a torn one: sessions are read again, and stored unchanged
    return {str(key): str(value) for key, value in data.items()} if isinstance(data, dict) else {}


def _save(path: Path, seen: dict[str, str]) -> None:
    """The record, whole and readable by its owner only (it names every session read)."""
    write_json(path, dict(sorted(seen.items())), indent=0, mode=PRIVATE)
