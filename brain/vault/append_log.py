"""One append-only log: the one way brain appends to a file, shared by the notes' history logs
(`vault/history.py`), the facts' recall journal (`memory/facts/journal.py`), the hooks' ledger
(`agents/ledger.py`) and the hooks log (`agents/hooks_log.py`). Each keeps its own line format.

Appending. `append` writes one line (its line break included), every byte or an error, to a file
opened with O_APPEND, holding a shared `flock` on it: appenders never wait for one another and lines
never interleave. The shared lock waits (at most APPEND_WAIT) for a `rewrite`, which holds the
exclusive one from its read to its rename: an appender either wrote before the read (its line is in
what is rewritten) or finds the file it opened replaced and appends to the new one. Past the wait
the line is written anyway; where `flock` is missing (Windows) appends take no lock, and a line
appended during a rewrite can be lost.

Durability, one policy: an append is not fsynced unless the caller asks (`sync=True`, the history's
versions written by an editor). A crash of the process loses nothing (the kernel has the bytes); a
power cut may lose the last lines, which is the price of an append that costs microseconds. A
rewrite is always synced (`vault/atomic.py`: a temp file, synced, renamed over the log).

Torn lines. A last line without its line break was cut short (a crash, a full disk). The next
append starts on a line of its own (a line break first), so the torn line stays the only one lost
and readers skip it as they skip any line that is not a whole record. `repair` rewrites the log
with its whole lines only; `cut` sets a torn end aside (the journal keeps it in `torn/`). A log
whose appenders hold no common lock (`concurrent=True`, the hooks log) is not mended by appends:
while another process writes a line that spans two pages, the file's size can stop in its middle,
and the last byte read there is no line break although the line will be whole.

The log's lock (`lock=`, a lock file): `locked()` holds it across threads and processes, reentrant
in one thread. What a log does between reading its end and appending holds it (the journal's
sequence numbers, the ledger's compaction), and so do `rewrite` and rotation. A log whose writers
another lock keeps apart (a note's history log: the vault's write lock) has none.

Rotation (`rotate_at=N`): an append that leaves the file past N bytes renames it to `<name>.1`,
replacing the one before, holding the log's lock (tried once, never waited for, and only while the
file is still past the bound: appenders that cross it together rotate once).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from brain.vault.atomic import PRIVATE, replace_file

if TYPE_CHECKING:
    from filelock import FileLock

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

APPEND_WAIT = 2.0  # seconds an append waits for a rewrite (a rewrite of a log of a MiB takes milliseconds)
REWRITE_WAIT = 10.0  # seconds a rewrite waits for the log's lock (a rotation, another rewrite)
_ATTEMPTS = 3  # opens of the path: a rewrite meanwhile makes the one opened before it stale


def rotated_path(path: Path) -> Path:
    return path.with_name(path.name + ".1")


def lock_beside(path: Path) -> Path:
    """`.<name>.lock` beside a log, one for the file and its `.1`."""
    return path.with_name(f".{path.name.removesuffix('.1')}.lock")


def as_text(change: Callable[[str], str]) -> Callable[[bytes], bytes]:
    """A change of a log's text as a change of its bytes (undecodable bytes kept as they were)."""
    return lambda data: change(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Appended:
    """The file as one append left it: its size before the line (exact under the log's lock),
    after it, its inode and its modification time."""

    start: int
    size: int
    inode: int
    mtime_ns: int


# One lock per lock file in a process: a thread lock (threads queue there, and one thread may take
# it again) over the file lock (processes), so that every AppendLog of one path shares them.
_locks: dict[Path, tuple[threading.RLock, FileLock]] = {}
_locks_made = threading.Lock()


class AppendLog:
    """The log at `path`. `mode`: a new file's mode (the umask narrows it, as `open` does; a rewrite
    keeps the file's own). `private`: the file is kept at exactly `mode`, an existing file with other
    permissions given it (an older version, or a process's redirected output, made it). `concurrent`:
    appenders hold no lock that keeps them apart, so an append does not mend a torn last line (see
    the module doc)."""

    def __init__(
        self,
        path: Path,
        *,
        mode: int = 0o666,
        private: bool = False,
        lock: Path | None = None,
        rotate_at: int | None = None,
        concurrent: bool = False,
    ):
        if rotate_at is not None and lock is None:
            raise ValueError("a log that rotates needs a lock")
        self.path = path
        self.mode = mode
        self.private = private
        self.lock = lock
        self.rotate_at = rotate_at
        self.concurrent = concurrent

    # ------------------------------------------------------------ the lock

    @contextmanager
    def locked(self, wait: float = -1) -> Iterator[None]:
        """Hold the log's lock, waiting at most `wait` seconds (-1: for ever; 0: tried once);
        `filelock.Timeout` past it, an `OSError` when the lock file cannot be made."""
        threads, file_lock = self._lock_pair()
        if not threads.acquire(blocking=wait != 0, timeout=wait if wait > 0 else -1):
            from filelock import Timeout

            raise Timeout(str(self.lock))
        try:
            file_lock.acquire(timeout=wait)
            try:
                yield
            finally:
                file_lock.release()
        finally:
            threads.release()

    def _lock_pair(self) -> tuple[threading.RLock, FileLock]:
        from filelock import FileLock

        assert self.lock is not None
        with _locks_made:
            pair = _locks.get(self.lock)
            if pair is None:
                self.lock.parent.mkdir(parents=True, exist_ok=True)
                lock_mode = PRIVATE if self.private else 0o644
                pair = (threading.RLock(), FileLock(str(self.lock), mode=lock_mode, thread_local=False))
                _locks[self.lock] = pair
            return pair

    def _held(self, wait: float) -> AbstractContextManager[None]:
        return self.locked(wait) if self.lock is not None else nullcontext()

    # ------------------------------------------------------------ appending

    def append(self, line: bytes, *, sync: bool = False) -> Appended:
        """Append `line` (one line, its line break included; after a line break when the last line
        is torn, unless `concurrent`), then rotate the file if it is now past `rotate_at` bytes. An `OSError` when the
        disk refuses it (full, read-only): what was written of it is then a torn line."""
        for attempt in range(_ATTEMPTS):
            handle = self._open()
            try:
                shared = _shared(handle)
                info = os.fstat(handle)
                if shared and info.st_nlink == 0 and attempt < _ATTEMPTS - 1:
                    continue  # rewritten while this append waited: append to the new file
                if self.private and stat.S_IMODE(info.st_mode) != self.mode:
                    _chmod(handle, self.mode)
                start = info.st_size
                torn = start > 0 and not self.concurrent and os.pread(handle, 1, start - 1) != b"\n"
                _write_all(handle, b"\n" + line if torn else line)
                if sync:
                    os.fsync(handle)
                after = os.fstat(handle)
                break
            finally:
                os.close(handle)  # lets the shared lock go
        if self.rotate_at is not None and after.st_size > self.rotate_at:
            self._rotate(self.rotate_at)
        return Appended(start, after.st_size, after.st_ino, after.st_mtime_ns)

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND
        try:
            return os.open(self.path, flags, self.mode)
        except FileNotFoundError:  # its folder is not there yet
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, flags, self.mode)

    def _rotate(self, bound: int) -> None:
        from filelock import Timeout

        try:
            with self.locked(wait=0):
                if self.path.stat().st_size > bound:  # not rotated already by the appender that held the lock
                    os.replace(self.path, rotated_path(self.path))
        except Timeout:
            return  # another appender is rotating it, or a rewrite holds it
        except FileNotFoundError:
            return  # rotated, and no line appended since

    # ------------------------------------------------------------ mending and rewriting

    def cut(self, at: int, keep: Callable[[bytes], None] | None = None) -> None:
        """Cut the log back to its first `at` bytes (a torn end, or a line whose record could not be
        kept); `keep` is given the bytes cut off first. Hold the log's lock: no append may follow."""
        with self.path.open("r+b") as handle:
            if keep is not None:
                handle.seek(at)
                keep(handle.read())
            handle.truncate(at)

    def repair(self, whole: Callable[[bytes], bool], *, wait: float = REWRITE_WAIT) -> int:
        """Rewrite the log with the lines `whole` accepts (given without their line break), each
        ending with one; how many lines were dropped (blank lines are dropped, not counted)."""
        dropped = 0

        def kept(data: bytes) -> bytes:
            nonlocal dropped
            lines = [line for line in data.split(b"\n") if line.strip()]
            good = [line + b"\n" for line in lines if whole(line)]
            dropped = len(lines) - len(good)
            return b"".join(good)

        self.rewrite(kept, wait=wait, drop_empty=True)
        return dropped

    def rewrite(
        self, change: Callable[[bytes], bytes], *, wait: float = REWRITE_WAIT, drop_empty: bool = False
    ) -> bool:
        """Replace the log's bytes with `change(bytes)`, holding the log's lock (`filelock.Timeout`
        past `wait` seconds) and the exclusive flock appenders respect; whether it changed. A missing
        file: False. `drop_empty`: a log left with nothing is removed."""
        with self._held(wait):
            try:
                handle = os.open(self.path, os.O_RDWR)
            except FileNotFoundError:
                return False
            try:
                if fcntl is not None:
                    fcntl.flock(handle, fcntl.LOCK_EX)  # appenders hold it for one write each
                with os.fdopen(os.dup(handle), "rb") as reading:
                    data = reading.read()
                changed = change(data)
                if changed == data:
                    return False
                if drop_empty and not changed:
                    self.path.unlink()
                else:
                    mode = self.mode if self.private else stat.S_IMODE(os.fstat(handle).st_mode)
                    replace_file(self.path, changed, mode=mode)
                return True
            finally:
                os.close(handle)


def _write_all(handle: int, data: bytes) -> None:
    """Write every byte or raise: a short write is retried, and no progress is an error."""
    view = memoryview(data)
    while view:
        written = os.write(handle, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        view = view[written:]


def _shared(handle: int) -> bool:
    """Take the shared lock, waiting at most APPEND_WAIT for a rewrite; whether it was had."""
    if fcntl is None:
        return False
    deadline = time.monotonic() + APPEND_WAIT
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        except OSError:  # a file system without flock
            return False


def _chmod(handle: int, mode: int) -> None:
    try:
        os.fchmod(handle, mode)
    except OSError:  # another user's file: left as it is
        pass
