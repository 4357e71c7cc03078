"""Replace one file without losing a save made meanwhile, for `Vault` writes (under its write lock).

`read_whole` reads a file once it has settled: an editor that rewrites a file in place leaves it
empty or cut short for a moment. `install` writes the new bytes to a temp file beside the file,
re-checks that the file still holds what was read, and swaps the temp file in.

`os.replace` destroys whatever is at the target at the instant of the rename, so an editor's save
that lands between brain's last re-check and its rename would be lost without a trace. An exchange
(Linux `renameat2(RENAME_EXCHANGE)`) instead leaves what was there under the temp file's name,
where brain can compare it with what it read and, if it differs, swap it back. Where the call is
missing (not Linux, an old libc, a file system without the flag) `exchange` says so and `install`
falls back to `os.replace`.

The temp file has one fixed name per folder (`TEMP_NAME`): every write holds the vault's write
lock, so a temp file found there is what a write killed mid-way left (it can hold a whole note,
a hard-deleted fact's value too). The next write in that folder removes it before making its own;
`stale_temps` finds them all (and those of older versions, with a random name) for `brain
index`, `brain doctor` and the retention sweep.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import sys
import time
import unicodedata
from collections.abc import Callable
from functools import cache
from pathlib import Path

from brain.errors import InvalidInput, NoteExists, WriteConflict, storage_error
from brain.markdown.frontmatter_yaml import locate
from brain.markdown.lines import split_lines, strip_ending
from brain.vault.note_files import MAX_NOTE_BYTES

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV, errno.EPERM}
RETRY_HINT = "Re-run the command to apply it to the new version"
_SETTLE_PAUSES = (0.01, 0.03, 0.06, 0.1, 0.2)  # about 0.4 s in all for a save in progress to finish
TEMP_NAME = ".brain-write.tmp"
# This version's name, and the random names older versions gave (`.brain-<12 hex>.tmp`).
_TEMP = re.compile(r"^\.brain-(write|[0-9a-f]{12})\.tmp$")


@cache
def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes.util  # at the first write: ctypes.util alone imports subprocess and shutil

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):  # no libc found, or glibc older than 2.28
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange(first: Path, second: Path) -> bool:
    """Atomically swap the files at two existing paths. False when the system cannot (nothing
    changed then); other failures raise OSError."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(second))


def read_whole(relative: str, path: Path) -> tuple[bytes, int]:
    """The whole file and its mode, from one open; retried while it looks like a save in progress.

    A read is suspect when the file's size changed while it was read, when it is empty, or
    when its frontmatter opens and never closes: that is what an editor that rewrites a file
    in place leaves for a moment. Acting on it would replace the note with a fragment.
    """
    for pause in (*_SETTLE_PAUSES, None):
        try:
            with open(path, "rb") as handle:
                info = os.fstat(handle.fileno())
                if info.st_size > MAX_NOTE_BYTES:
                    raise InvalidInput(
                        f"'{relative}' is {info.st_size / 2**20:.1f} MiB, too large to edit (the limit is "
                        f"{MAX_NOTE_BYTES // 2**20} MiB); brain reads its start only, so edit it in an editor"
                    )
                data = handle.read()
                settled = os.fstat(handle.fileno())
        except FileNotFoundError:
            raise WriteConflict(f"'{relative}' was deleted after brain read it; nothing was written") from None
        except IsADirectoryError:
            raise InvalidInput(f"'{relative}' is a folder, not a note") from None
        changing = len(data) != settled.st_size or settled.st_mtime_ns != info.st_mtime_ns
        if not changing and not _looks_truncated(data):
            return data, stat.S_IMODE(info.st_mode)
        if pause is None:
            break
        time.sleep(pause)
    raise WriteConflict(
        f"'{relative}' looks truncated ({len(data)} bytes{', empty' if not data else ', frontmatter never closed'}); "
        "another program may be saving it. Nothing was written; try again once it is saved"
    )


def _looks_truncated(data: bytes) -> bool:
    if not data.strip():
        return True
    lines = split_lines(data[:65536].decode("utf-8", "replace"))
    return locate(lines) is None and strip_ending(lines[0]).lstrip("\ufeff").rstrip(" \t") == "---"


def install(
    relative: str,
    path: Path,
    data: bytes,
    *,
    expected: bytes | None,
    create: bool = False,
    mode: int | None,
    sync: bool,
) -> None:
    """Put `data` at `path` through a temp file; called with the write lock held.

    `expected` is what the file held when it was read: the file is compared with it once
    more right before the rename. `create` links instead of renaming, which fails if a file
    appeared meanwhile. A full or read-only disk raises brain's error for it (`storage_error`),
    with the temp file removed and the note as it was. Bytes over MAX_NOTE_BYTES are refused:
    brain reads only that much of a note back, so such a write would be acknowledged and then
    read back as something else.
    """
    if len(data) > MAX_NOTE_BYTES:
        raise InvalidInput(
            f"'{relative}' would be {len(data) / 2**20:.1f} MiB, over the {MAX_NOTE_BYTES // 2**20} MiB a note may hold "
            "(brain reads no more of a note back); nothing was written. Make it smaller"
        )
    try:
        _install(relative, path, data, expected=expected, create=create, mode=mode, sync=sync)
    except OSError as error:
        translated = storage_error(error, relative)
        if translated is None:
            raise
        raise translated from error


def _install(
    relative: str, path: Path, data: bytes, *, expected: bytes | None, create: bool, mode: int | None, sync: bool
) -> None:
    if expected is None:  # a file brain read has its folder already
        path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / TEMP_NAME
    try:
        descriptor = _create(temp)
    except FileNotFoundError:  # its folder went since brain read the file
        raise WriteConflict(f"'{relative}' was deleted after brain read it; nothing was written") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:  # after the write, which would clear a setuid or setgid bit
                os.fchmod(handle.fileno(), mode)
            if sync:
                os.fsync(handle.fileno())
        if create:
            rename_new(temp, path, relative)
        elif expected is None:
            os.replace(temp, path)
        else:
            _recheck(relative, path, expected)
            _swap_in(relative, temp, path, expected, data)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _create(temp: Path) -> int:
    """Open the folder's temp file, new. One already there was left by a write that was killed
    (writes hold the vault's write lock, so no other write is using it): it goes first."""
    # os.open with 0o666 lets the umask decide a new file's mode, as an editor's save would.
    try:
        return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        temp.unlink(missing_ok=True)
        return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)


def is_temp_name(name: str) -> bool:
    return _TEMP.match(name) is not None


def stale_temps(root: Path, skipped: set[str]) -> list[Path]:
    """Every temp file a killed write left under `root` (call with the write lock held), in note
    folders: folders named in `skipped` and hidden ones are not walked."""
    found: list[Path] = []
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if name not in skipped and not name.startswith(".")]
        found += [Path(folder, name) for name in files if is_temp_name(name)]
    return sorted(found)


def _swap_in(relative: str, temp: Path, path: Path, expected: bytes, data: bytes) -> None:
    """Replace the note with `temp`, noticing an editor's save made after the re-check.

    The temp file and the note are exchanged atomically, so what was replaced is still there
    under the temp name: if it is not what brain read, an editor saved in the microseconds
    since the re-check, and it is swapped back (WriteConflict). Without an exchange call
    (not Linux, see `exchange`) this is the plain rename, and that window stays open.
    """
    if not exchange(temp, path):
        os.replace(temp, path)
        return
    if temp.read_bytes() == expected:
        temp.unlink()
        return
    exchange(temp, path)  # the editor's version goes back in place
    if temp.read_bytes() != data:
        # A third save in the same microseconds: keep it rather than guess (never lose it).
        kept = temp.with_name(f"{path.name}.brain-conflict-{secrets.token_hex(3)}")
        os.replace(temp, kept)
        raise WriteConflict(
            f"'{relative}' was saved twice while brain wrote it; nothing of brain's was written, another version is kept in '{kept.name}'"
        )
    temp.unlink()
    raise WriteConflict(f"'{relative}' changed on disk while brain wrote it; nothing was written. {RETRY_HINT}")


def _recheck(relative: str, path: Path, expected: bytes) -> None:
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        if not expected:
            return
        raise WriteConflict(f"'{relative}' was deleted after brain read it; nothing was written") from None
    if current != expected:
        raise WriteConflict(f"'{relative}' changed on disk after brain read it; nothing was written. {RETRY_HINT}")


def rename_new(source: Path, target: Path, relative: str) -> None:
    """Rename `source` to `target`, failing if `target` exists: a hard link never overwrites."""
    try:
        os.link(source, target)
    except FileExistsError:
        if os.path.samefile(source, target):  # only the case changes, on a case-insensitive disk
            os.replace(source, target)
            return
        raise NoteExists(f"'{relative}' already exists; edit it instead, or choose another name") from None
    except OSError:  # a file system without hard links: check, then rename (under the write lock)
        if target.exists():
            raise NoteExists(f"'{relative}' already exists; edit it instead, or choose another name") from None
        os.replace(source, target)
        return
    source.unlink()


def refuse_twin(path: Path, relative: str) -> None:
    """Refuse to create a file (or folder) whose name differs from one beside it only by Unicode
    normalisation (`Café` typed as NFC and as NFD): two names that look like one. Only new files
    pay for this (one listing of a folder): the first part of the path that does not exist yet is
    compared with its neighbours."""
    while not path.parent.exists():
        path = path.parent
    wanted = unicodedata.normalize("NFC", path.name)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        if name != path.name and unicodedata.normalize("NFC", name) == wanted:
            raise NoteExists(
                f"'{relative}' already exists as '{name}' (the same name in another Unicode form); edit that note instead"
            )


def not_utf8(relative: str, error: UnicodeDecodeError) -> InvalidInput:
    return InvalidInput(
        f"'{relative}' is not valid UTF-8 (byte {error.start}); brain does not edit it, so its bytes stay as they are. "
        "Convert it to UTF-8 in an editor first"
    )
