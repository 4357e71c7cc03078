"""Swap two paths atomically (Linux `renameat2(RENAME_EXCHANGE)`), for `Vault` writes.

`os.replace` destroys whatever is at the target at the instant of the rename, so an editor's save
that lands between brain's last re-check and its rename would be lost without a trace. An exchange
instead leaves what was there under the temp file's name, where brain can compare it with what it
read and, if it differs, swap it back. Where the call is missing (not Linux, an old libc, a file
system without the flag) `exchange` says so and the caller falls back to `os.replace`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import sys
from functools import cache
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV, errno.EPERM}


@cache
def _renameat2():
    if not sys.platform.startswith("linux"):
        return None
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
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(second))
