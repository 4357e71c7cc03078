"""Replace a file whole or not at all: the one way brain writes a file it owns outside the notes.

The bytes go to a temporary file beside the target, are flushed and fsynced, and the temporary file
is renamed over the target: a reader (or brain after a crash) finds the old file or the new one,
never a mix, and an acknowledged write survives a power cut. A failed write leaves the target as it
was and no temporary file behind. Notes themselves go through `Vault` (`vault/fileswap.py`), which
also keeps an editor's save made meanwhile.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

Content = bytes | str | Callable[[BinaryIO], None]
PRIVATE = 0o600  # brain's own files that name sessions, commands and transcripts: their owner reads them


def replace_file(path: Path, content: Content, *, mode: int | None = None) -> None:
    """Write `content` (bytes, text as UTF-8, or a function writing to the open file) to `path`.

    `mode` is the file's mode, exactly (the umask does not narrow it); without it a new file takes
    the umask's default, as `open` gives. Through a symlink, the link's target is replaced (the link
    stays)."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if callable(content):
                content(handle)
            else:
                handle.write(content.encode("utf-8") if isinstance(content, str) else content)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any, *, indent: int | None = 2, mode: int | None = None) -> None:
    """`data` as JSON (UTF-8, a final newline), replacing `path` whole."""
    separators = None if indent else (",", ":")
    replace_file(path, json.dumps(data, indent=indent, ensure_ascii=False, separators=separators) + "\n", mode=mode)
