"""brain's own files beside the notes (logs, records of what was read): readable by their owner only
(they name sessions, commands and transcripts), and never a line lost when one process rewrites a
file others append to.

`append` writes a line with one `write` to a file opened with O_APPEND: appenders never interleave,
and take a shared lock (`flock`) on the file, which never waits for another appender. `rewrite`
replaces a file whole (a temp file renamed over it, `brain redact` scrubbing the hooks log) holding
the exclusive lock from its read to its rename: an appender either wrote before the read (its line
is in what is rewritten) or waits, then finds the file it opened replaced and appends to the new one.
The wait is bounded (APPEND_WAIT): past it the line is written anyway. Where `flock` is missing
(Windows) appends take no lock, and a line appended during a rewrite can be lost.

A log kept to two files (`append(..., rotate_at=N)`): an append that leaves the file past N bytes
renames it to `<name>.1`, replacing the one before, under `.<name>.lock` (tried once, never waited
for, and only while the file is still past the bound: appenders that cross it together rotate once).
A `rewrite` of the file or of its `.1` holds that lock too, so no rotation moves a file it rewrites.

`write_whole` writes a small record whole, mode 600 (through `vault/atomic.py`, the one way).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from brain.vault.atomic import replace_file

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

PRIVATE = 0o600
APPEND_WAIT = 2.0  # seconds an append waits for a rewrite (a rewrite of a log of a MiB takes milliseconds)
_ATTEMPTS = 3  # opens of the path: a rewrite meanwhile makes the one opened before it stale


def rotated_path(path: Path) -> Path:
    return path.with_name(path.name + ".1")


def _rotation_lock(path: Path) -> Path:
    """The lock of a log's rotation, one for the file and its `.1`."""
    return path.with_name(f".{path.name.removesuffix('.1')}.lock")


def append(path: Path, data: bytes, mode: int = PRIVATE, *, rotate_at: int | None = None) -> None:
    """Append `data` (one line, its line break included) to `path`, created with `mode`, then rotate
    the file if it is now past `rotate_at` bytes. A file that holds other permissions is given `mode`
    (an older version, or a process's redirected output, made it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    for attempt in range(_ATTEMPTS):
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, mode)
        try:
            locked = _shared(handle)
            info = os.fstat(handle)
            if locked and info.st_nlink == 0 and attempt < _ATTEMPTS - 1:
                continue  # rewritten while this append waited: append to the new file
            if info.st_mode & 0o777 != mode:
                _chmod(handle, mode)
            os.write(handle, data)
            size = os.fstat(handle).st_size
            break
        finally:
            os.close(handle)  # lets the shared lock go
    if rotate_at is not None and size > rotate_at:
        _rotate(path, rotate_at)


def _rotate(path: Path, bound: int) -> None:
    from filelock import FileLock, Timeout

    try:
        with FileLock(str(_rotation_lock(path)), timeout=0, mode=PRIVATE):
            if path.stat().st_size > bound:  # not rotated already by the appender that held the lock
                os.replace(path, rotated_path(path))
    except Timeout:
        return  # another appender is rotating it, or a rewrite holds it
    except FileNotFoundError:
        return  # rotated, and no line appended since


def rewrite(path: Path, change: Callable[[str], str], mode: int = PRIVATE, *, wait: float = 10.0) -> bool:
    """Replace the text of `path` with `change(text)` (read as UTF-8, undecodable bytes kept as they
    were), holding the exclusive lock appenders respect and the rotation's lock; whether it changed.
    A missing file: False. `filelock.Timeout` when a rotation holds its lock for `wait` seconds."""
    from filelock import FileLock

    with FileLock(str(_rotation_lock(path)), timeout=wait, mode=PRIVATE):
        try:
            handle = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_EX)  # appenders hold it for one write each
            with os.fdopen(os.dup(handle), "rb") as reading:
                text = reading.read().decode("utf-8", "surrogateescape")
            changed = change(text)
            if changed == text:
                return False
            write_whole(path, changed.encode("utf-8", "surrogateescape"), mode)
            return True
        finally:
            os.close(handle)


def write_whole(path: Path, data: bytes, mode: int = PRIVATE) -> None:
    """Write a small record whole, mode 600 unless told (`vault/atomic.py`: synced, then renamed)."""
    replace_file(path, data, mode=mode)


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
