"""The recall journal: one hash-chained JSON line per recall, in `.brain/journal/recall.jsonl`.

The journal is not derived from the notes (it records what was *returned*, and when), so it
lives outside the disposable `.brain/index/` and `brain reindex` never touches it. It is only
appended to, under a lock; the one exception is the retention sweeper, which replaces a swept
fact's value by nothing and keeps its hash.

Each record's `hash` is sha256 of the previous record's hash and the record's canonical JSON
without its `hash` and without the fact values: a value is covered by its `version` (the value's
own hash), checked separately. So an edit, a removed line or a reordering breaks the chain, an
edited value no longer matches its version, and a purged value leaves the chain intact. A
result marked `purged` verifies only when the sweep receipt it names lists that fact with that
version: a forger cannot hide an edited value by marking it purged.

The chain's end is anchored: `.brain/journal/sweeps/anchor.json`, beside the sweep receipts, holds
the newest record's seq and hash, rewritten with each append. Removing the newest records, or
the whole journal, leaves the anchor ahead of the file, which `verify` reports, and the next
record chains after the anchor (so the gap stays visible), never at #1 again.

A last line that is not a whole record (a write cut short by a crash or a full disk) never
stops a recall: the next append sets it aside in `.brain/journal/torn/` (kept, reported by
`brain doctor`) and chains after the last good record.

The appending, the lock and the rewrite are `brain.vault.append_log`'s; the chain, the anchor, the
torn end set aside and the end an open vault remembers (`JournalEnd`) are the journal's own.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput, UsageError, WriteFailed
from brain.memory.facts.note import parse_time
from brain.vault.append_log import AppendLog
from brain.vault.atomic import replace_file
from brain.vault.vault import Vault

JOURNAL_DIR = "journal"
JOURNAL_FILE = "recall.jsonl"
SWEEPS_DIR = "sweeps"  # the sweep receipts, and the journal's anchor
REDACTIONS_DIR = "redactions"  # the receipts of `brain redact`, which may purge values holding a secret
ANCHOR_FILE = "anchor.json"
TORN_DIR = "torn"
OLD_REWRITE_TEMPS = ".journal-*.tmp"  # the rewrite's temp file before `vault/atomic.py` named it
GENESIS = "0" * 64
_TAIL = 64 * 1024
LOCK_WAIT = 60  # seconds an append waits for another recall's append or a sweep's rewrite
_ANCHOR_WIDTH = 127  # the anchor is one line of fixed width, overwritten in place by one pwrite


def journal_dir(vault: Vault) -> Path:
    return vault.brain_dir / JOURNAL_DIR


def journal_path(vault: Vault) -> Path:
    return journal_dir(vault) / JOURNAL_FILE


def anchor_path(vault: Vault) -> Path:
    return journal_dir(vault) / SWEEPS_DIR / ANCHOR_FILE


def torn_dir(vault: Vault) -> Path:
    return journal_dir(vault) / TORN_DIR


def torn_files(vault: Vault) -> list[Path]:
    """The torn lines set aside so far (see the module doc), oldest first."""
    folder = torn_dir(vault)
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def _log(vault: Vault) -> AppendLog:
    """The journal as an append-only log: created 644 (a rewrite keeps its mode), under `journal.lock`."""
    folder = journal_dir(vault)
    return AppendLog(folder / JOURNAL_FILE, mode=0o644, lock=folder / "journal.lock")


@contextmanager
def _lock(vault: Vault) -> Iterator[AppendLog]:
    """The journal's lock, across threads and processes; a lock that cannot be made (a read-only
    vault) or had (LOCK_WAIT) is a `WriteFailed`, never a traceback."""
    log = _log(vault)
    with ExitStack() as held:
        try:
            held.enter_context(log.locked(LOCK_WAIT))
        except OSError as error:  # filelock.Timeout is one too
            raise _failed(vault, log.lock or log.path, error) from None
        yield log


@dataclass(frozen=True)
class _Tail:
    """The end of a journal as this process last wrote it: reused while the file is unchanged."""

    inode: int
    size: int
    mtime_ns: int
    seq: int
    hash: str


@dataclass
class JournalEnd:
    """Where an open vault last left its journal (kept in `corpus.kept`): its next append needs no
    read of the file while nobody else appended or rewrote it (see `_end`)."""

    tail: _Tail | None = None


def chain_hash(previous: str, record: dict[str, Any]) -> str:
    """What a record's `hash` must be: its content without values (see the module doc)."""
    content = {key: item for key, item in record.items() if key != "hash"}
    content["results"] = [
        {key: item for key, item in result.items() if key not in ("value", "purged")}
        for result in record.get("results", ())
    ]
    data = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((previous + "\n" + data).encode("utf-8")).hexdigest()


def _is_record(data: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(data)
    except ValueError:
        return None
    if isinstance(record, dict) and isinstance(record.get("seq"), int) and isinstance(record.get("hash"), str):
        return record
    return None


def _last_record(path: Path, size: int) -> tuple[dict[str, Any] | None, int]:
    """The last whole record and where it ends (its newline included), reading backwards from the
    end (records can be long). What follows it is torn: no newline, or not a record."""
    with path.open("rb") as handle:
        end, window = size, _TAIL
        while end > 0:
            start = max(0, end - window)
            handle.seek(start)
            chunk = handle.read(end - start)
            cut = chunk.rfind(b"\n", 0, len(chunk) - 1) if chunk.endswith(b"\n") else chunk.rfind(b"\n")
            if cut < 0 and start > 0:
                window *= 4
                continue
            line = chunk[cut + 1 :]
            if line.endswith(b"\n") and line.strip():
                record = _is_record(line)
                if record is not None:
                    return record, end
            end, window = start + cut + 1, _TAIL  # this line is torn (or blank): look before it
    return None, 0


def _set_aside(vault: Vault, log: AppendLog, good: int) -> None:
    """Move the torn end of the journal (its bytes after `good`) into torn/ and cut it off."""

    def keep(torn: bytes) -> None:
        if torn.strip():
            folder = torn_dir(vault)
            kept = folder / f"recall-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}-{good}.jsonl"
            replace_file(kept, torn, mode=0o600)

    log.cut(good, keep)


def read_anchor(vault: Vault) -> tuple[int, str] | None:
    """(seq, hash) of the newest record as the anchor keeps it; None when there is none or it is unreadable."""
    try:
        data = json.loads(anchor_path(vault).read_bytes())
        return int(data["seq"]), str(data["hash"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_anchor(vault: Vault, seq: int, hashed: str) -> None:
    """Overwrite the anchor in place: one pwrite of a fixed-width line (no new block once it exists)."""
    path = anchor_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"seq": seq, "hash": hashed}, separators=(",", ":")).ljust(_ANCHOR_WIDTH).encode() + b"\n"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        if os.pwrite(descriptor, line, 0) != len(line):
            raise OSError(errno.ENOSPC, "short write", str(path))
        os.ftruncate(descriptor, len(line))
    finally:
        os.close(descriptor)


def _end(vault: Vault, log: AppendLog, end: JournalEnd | None = None) -> tuple[str, int, int]:
    """The hash and seq a new record chains to, and the journal's size (called under the lock).

    From the open vault's memory (`end`) when the file is as it left it (same inode, size and mtime:
    nobody appended or rewrote it since); else from the last whole record, after setting aside
    a torn end; and never before the anchor: records removed from the end (or the whole file)
    leave a gap the next record does not hide.
    """
    path = log.path
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    tail = end.tail if end is not None else None
    if info is not None and tail is not None:
        if (tail.inode, tail.size, tail.mtime_ns) == (info.st_ino, info.st_size, info.st_mtime_ns):
            return tail.hash, tail.seq, info.st_size
    last, good = _last_record(path, info.st_size) if info is not None and info.st_size else (None, 0)
    if info is not None and good < info.st_size:
        _set_aside(vault, log, good)
    hashed, seq = (str(last["hash"]), int(last["seq"])) if last is not None else (GENESIS, 0)
    anchor = read_anchor(vault)
    if anchor is not None and anchor[0] > seq:
        return anchor[1], anchor[0], good
    return hashed, seq, good


def append(vault: Vault, record: dict[str, Any], end: JournalEnd | None = None) -> dict[str, Any]:
    """Add a record (seq, prev and hash are set here); returns it as written. `end`: where this
    open vault last left the journal, updated here (without one, the end is read from the file).

    Durability: the line goes to the file in checked writes on an O_APPEND descriptor, under
    the lock, without an fsync (`brain.vault.append_log`'s policy), then the anchor is updated. A write the disk refuses (full,
    read-only) or cuts short is undone (the file is cut back to where it was) and raised as
    `WriteFailed`: a record is acknowledged only once all of it is in the file. A crash of the
    process loses nothing acknowledged (the kernel has the bytes); a power loss may lose the
    last records (the anchor then names a later one, which `verify` reports). An fsync per
    recall would cost more than the recall itself on a busy disk; the sweeper's rewrite does sync.
    """
    with _lock(vault) as log:
        path = log.path
        try:
            previous, last_seq, start = _end(vault, log, end)
        except OSError as error:  # the torn end could not be set aside
            raise _failed(vault, path, error) from None
        written = {"seq": last_seq + 1, **record, "prev": previous}
        written["hash"] = chain_hash(previous, written)
        line = (json.dumps(written, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            appended = log.append(line)
            write_anchor(vault, written["seq"], written["hash"])
        except OSError as error:
            with suppress(OSError):  # left torn if it fails: the next append sets it aside
                log.cut(start)  # what was written of the line, or the line whose anchor failed
            raise _failed(vault, path, error) from None
        if end is not None:
            end.tail = _Tail(appended.inode, appended.size, appended.mtime_ns, written["seq"], written["hash"])
    return written


def _failed(vault: Vault, path: Path, error: OSError) -> WriteFailed:
    where = path.relative_to(vault.root).as_posix() if path.is_relative_to(vault.root) else str(path)
    return WriteFailed(
        f"cannot write the recall journal {where} ({error.strerror or error}); nothing was recorded, "
        "so nothing is returned. Free space or make the vault writable, then try again"
    )


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        return
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        yield from _text_lines(handle)


def _text_lines(handle: io.TextIOBase) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(handle, start=1):
        if line.strip():
            yield number, line


def parse_record(line: str) -> dict[str, Any] | None:
    """A journal line as a record, or None when it is not one: not JSON, or JSON of another shape
    (`[]`, `{"results": [1]}`, `{"filters": 5}`), which every reader skips and `verify` reports."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    results = record.get("results")
    if results is not None and not (isinstance(results, list) and all(isinstance(item, dict) for item in results)):
        return None
    if record.get("filters") is not None and not isinstance(record.get("filters"), dict):
        return None
    return record


def records(vault: Vault, since: str | None = None) -> list[dict[str, Any]]:
    """Every record (or those at or after `since`), oldest first; unreadable lines are left to `verify`."""
    try:
        cutoff = parse_time(since, "--since") if since else None
    except InvalidInput as error:  # the caller's value, not the journal's
        raise UsageError(*error.args) from None
    found = []
    for _, line in _lines(journal_path(vault)):
        record = parse_record(line)
        if record is None:
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


def reanchor(vault: Vault) -> tuple[int, str] | None:
    """Write the anchor from the journal's last record as it is now (`brain doctor --fix`, once the
    journal was checked by a person); None when the journal has no record."""
    path = journal_path(vault)
    with _lock(vault):
        size = path.stat().st_size if path.is_file() else 0
        last, _ = _last_record(path, size) if size else (None, 0)
        if last is None:
            return None
        write_anchor(vault, int(last["seq"]), str(last["hash"]))
        return int(last["seq"]), str(last["hash"])


def remove_stale_temps(vault: Vault) -> list[str]:
    """Remove journal rewrites a killed sweep left (they hold purged values); their paths."""
    folder = journal_dir(vault)
    patterns = (OLD_REWRITE_TEMPS, f".{JOURNAL_FILE}.*.tmp")  # `vault/atomic.py` names its temp file so
    if not folder.is_dir() or not any(found for pattern in patterns for found in folder.glob(pattern)):
        return []
    with _lock(vault):
        found = sorted(path for pattern in patterns for path in folder.glob(pattern))
        for path in found:
            path.unlink(missing_ok=True)
    return [path.relative_to(vault.root).as_posix() for path in found]


def purge_values(vault: Vault, fact_ids: set[str], receipt: str) -> int:
    """Replace the values of these facts by nothing in every record (hashes kept); returns how many were removed.

    The journal is rewritten through a temp file (synced, then renamed over it), keeping its mode."""
    path = journal_path(vault)
    if not fact_ids or not path.is_file():
        return 0
    removed = 0

    def purged(data: bytes) -> bytes:
        nonlocal removed
        out: list[str] = []
        for _, line in _text_lines(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")):
            record = parse_record(line)
            if record is None:
                out.append(line if line.endswith("\n") else line + "\n")  # left for doctor to report
                continue
            touched = False
            for result in record.get("results") or ():
                if result.get("id") in fact_ids and "purged" not in result:
                    result["value"], result["purged"] = None, receipt
                    touched = True
                    removed += 1
            out.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" if touched else line)
        return "".join(out).encode("utf-8")

    with _lock(vault) as log:
        _end(vault, log)  # a torn last line is set aside first, not kept as a bad line in the middle
        log.rewrite(purged)  # a new file: an open vault's JournalEnd no longer matches it
    return removed
