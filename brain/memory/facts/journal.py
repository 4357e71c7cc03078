"""The recall journal: one hash-chained JSON line per recall, in `.brain/journal/recall.jsonl`.

The journal is not derived from the notes (it records what was *returned*, and when), so it
lives outside the disposable `.brain/index/` and `brain reindex` never touches it. It is only
appended to, under a lock; the one exception is the retention sweeper, which replaces a swept
fact's value by nothing and keeps its hash.

Each record's `hash` is sha256 of the previous record's hash and the record's canonical JSON
without its `hash` and without the fact values: a value is covered by its `version` (the value's
own hash), checked separately. So an edit, a removed line or a reordering breaks the chain, an
edited value no longer matches its version, and a purged value leaves the chain intact.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from brain.errors import InvalidInput
from brain.notes.fact import parse_time, value_hash
from brain.vault import Vault

JOURNAL_DIR = "journal"
JOURNAL_FILE = "recall.jsonl"
GENESIS = "0" * 64
_TAIL = 64 * 1024


@dataclass(frozen=True)
class JournalProblem:
    line: int
    message: str


@dataclass(frozen=True)
class JournalCheck:
    path: str
    records: int
    problems: tuple[JournalProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def journal_dir(vault: Vault) -> Path:
    return vault.brain_dir / JOURNAL_DIR


def journal_path(vault: Vault) -> Path:
    return journal_dir(vault) / JOURNAL_FILE


_file_locks: dict[Path, FileLock] = {}
_threads = threading.Lock()  # the FileLock is shared by the process's threads, so they queue here first


@contextmanager
def _lock(vault: Vault) -> Iterator[None]:
    folder = journal_dir(vault)
    file_lock = _file_locks.get(folder)
    if file_lock is None:
        folder.mkdir(parents=True, exist_ok=True)
        file_lock = _file_locks.setdefault(
            folder, FileLock(str(folder / "journal.lock"), timeout=60, thread_local=False)
        )
    with _threads, file_lock:
        yield


@dataclass(frozen=True)
class _Tail:
    """The end of a journal as this process last wrote it: reused while the file is unchanged."""

    inode: int
    size: int
    mtime_ns: int
    seq: int
    hash: str


_tails: dict[Path, _Tail] = {}


def chain_hash(previous: str, record: dict[str, Any]) -> str:
    """What a record's `hash` must be: its content without values (see the module doc)."""
    content = {key: item for key, item in record.items() if key != "hash"}
    content["results"] = [
        {key: item for key, item in result.items() if key not in ("value", "purged")}
        for result in record.get("results", ())
    ]
    data = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((previous + "\n" + data).encode("utf-8")).hexdigest()


def _last_line(path: Path) -> bytes | None:
    """The last non-empty line, reading backwards from the end (records can be long)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    with path.open("rb") as handle:
        window = _TAIL
        while True:
            start = max(0, size - window)
            handle.seek(start)
            lines = handle.read(size - start).rstrip(b"\n").split(b"\n")
            if len(lines) > 1 or start == 0:
                return lines[-1] if lines and lines[-1] else None
            window *= 4


def _end(path: Path) -> tuple[str, int]:
    """The hash and seq a new record chains to: from this process's memory when the file is as it
    left it (same inode, size and mtime: nobody appended or rewrote it since), else read from its end."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return GENESIS, 0
    tail = _tails.get(path)
    if tail is not None and (tail.inode, tail.size, tail.mtime_ns) == (info.st_ino, info.st_size, info.st_mtime_ns):
        return tail.hash, tail.seq
    last = _last_line(path)
    if last is None:
        return GENESIS, 0
    try:
        record = json.loads(last)
        return str(record["hash"]), int(record["seq"])
    except (ValueError, KeyError, TypeError):
        raise InvalidInput(
            f"the last line of {path} is not a journal record; `brain doctor` checks the journal"
        ) from None


def append(vault: Vault, record: dict[str, Any]) -> dict[str, Any]:
    """Add a record (seq, prev and hash are set here); returns it as written.

    Durability: the line goes to the file in one write(2) on an O_APPEND descriptor, under the
    lock, without an fsync. A crash of the process loses nothing (the kernel has the bytes); a
    power loss may lose the last records, and the chain then ends earlier and still verifies (a
    torn last line is reported by `brain doctor`). An fsync per recall would cost more than the
    recall itself on a busy disk; the sweeper's rewrite, which must not lose the file, does sync.
    """
    path = journal_path(vault)
    with _lock(vault):
        previous, last_seq = _end(path)
        written = {"seq": last_seq + 1, **record, "prev": previous}
        written["hash"] = chain_hash(previous, written)
        line = (json.dumps(written, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, line)
            info = os.fstat(descriptor)
        finally:
            os.close(descriptor)
        _tails[path] = _Tail(info.st_ino, info.st_size, info.st_mtime_ns, written["seq"], written["hash"])
    return written


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        return
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, line


def records(vault: Vault, since: str | None = None) -> list[dict[str, Any]]:
    """Every record (or those at or after `since`), oldest first; unreadable lines are left to `verify`."""
    cutoff = parse_time(since, "--since") if since else None
    found = []
    for _, line in _lines(journal_path(vault)):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if cutoff is not None:
            try:
                if parse_time(record.get("time"), "time") < cutoff:
                    continue
            except InvalidInput:
                continue
        found.append(record)
    return found


def find(vault: Vault, reference: str) -> dict[str, Any]:
    """A record by its sequence number or a prefix (8+ characters) of its hash."""
    wanted = reference.strip().lstrip("#")
    for record in records(vault):
        if str(record.get("seq")) == wanted or (len(wanted) >= 8 and str(record.get("hash", "")).startswith(wanted)):
            return record
    raise InvalidInput(
        f"no journal record '{reference}'; `brain fact journal` lists them (give a seq number or a hash prefix)"
    )


def verify(vault: Vault) -> JournalCheck:
    """Check the chain: every line a record, seq consecutive, prev and hash right, every value matching its version."""
    path = journal_path(vault)
    problems: list[JournalProblem] = []
    previous, expected_seq, count = GENESIS, 1, 0
    for number, line in _lines(path):
        count += 1
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError
        except ValueError:
            problems.append(JournalProblem(number, "not a JSON record (edited or truncated)"))
            continue
        if record.get("seq") != expected_seq:
            problems.append(
                JournalProblem(
                    number, f"seq {record.get('seq')} where {expected_seq} was expected (a record is missing or moved)"
                )
            )
        if record.get("prev") != previous:
            problems.append(
                JournalProblem(
                    number,
                    "prev does not match the hash of the record before it (a record was removed, added or reordered)",
                )
            )
        if chain_hash(str(record.get("prev")), record) != record.get("hash"):
            problems.append(JournalProblem(number, "hash does not match the record's content (the record was edited)"))
        for result in record.get("results") or ():
            if result.get("purged"):
                continue
            try:
                matches = value_hash(result.get("value")) == result.get("version")
            except InvalidInput:
                matches = False
            if not matches:
                problems.append(
                    JournalProblem(number, f"the value of {result.get('id')} does not match its version hash (edited)")
                )
        previous = str(record.get("hash"))
        seq = record.get("seq")
        expected_seq = (seq if isinstance(seq, int) else expected_seq) + 1
    return JournalCheck(str(path), count, tuple(problems))


def purge_values(vault: Vault, fact_ids: set[str], receipt: str) -> int:
    """Replace the values of these facts by nothing in every record (hashes kept); returns how many were removed."""
    path = journal_path(vault)
    if not fact_ids or not path.is_file():
        return 0
    removed = 0
    with _lock(vault):
        out: list[str] = []
        for _, line in _lines(path):
            try:
                record = json.loads(line)
            except ValueError:
                out.append(line if line.endswith("\n") else line + "\n")  # left for doctor to report
                continue
            touched = False
            for result in record.get("results") or ():
                if result.get("id") in fact_ids and not result.get("purged"):
                    result["value"], result["purged"] = None, receipt
                    touched = True
                    removed += 1
            out.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" if touched else line)
        descriptor, temp = tempfile.mkstemp(prefix=".journal-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.writelines(out)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    return removed
