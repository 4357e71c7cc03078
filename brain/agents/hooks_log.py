"""The hooks log, `.brain/logs/hooks.log`: one line `<UTC stamp> <event> <message>` per hook outcome,
kept to two files of at most ROTATE_BYTES each (and the lines being written as one is renamed).

An append that leaves the file past ROTATE_BYTES renames it to `hooks.log.1`, replacing the one
before (`os.replace`, atomic); the next append creates a new `hooks.log`. Appends wait for no other
append: each is one `write` to a file opened with O_APPEND, so lines never interleave, and a line
written to a file just renamed lands in `hooks.log.1`. The rotation holds a lock (`.hooks.log.lock`,
tried once, never waited for) and renames only while the path's file is still past the bound: two
appenders that cross it together rotate once, never the new `hooks.log` over the `hooks.log.1` just
made. `brain redact` rewrites the files holding that lock and the file's own (`brain.vault.append_log`):
a line appended meanwhile lands in the rewritten file. The only line that can be lost is one in
flight in a process that opened the file before a rotation and writes after a second one
(ROTATE_BYTES appended meanwhile by others).

Readers read `hooks.log.1` then `hooks.log`: the older lines first.
"""

from __future__ import annotations

from pathlib import Path

from brain.vault.append_log import AppendLog, lock_beside, rotated_path
from brain.vault.atomic import PRIVATE

# A line is 100 to 300 bytes: 1 MiB keeps the last 3,500 hook outcomes or more per file, months of
# failures and session ends; `brain hooks status` reads both whole (docs/benchmarks.md).
ROTATE_BYTES = 1024 * 1024


def log_path(root: Path | None) -> Path:
    """The vault's hooks log; without a vault, `brain-hooks.log` in the temporary folder."""
    if root is not None and (root / ".brain").is_dir():
        return root / ".brain" / "logs" / "hooks.log"
    import tempfile

    return Path(tempfile.gettempdir()) / "brain-hooks.log"


def append(path: Path, line: str) -> None:
    """Append one line (a line break added), then rotate the file if it is now past ROTATE_BYTES.
    The file is private: its lines name sessions and commands, and without a vault it lives in the
    shared temporary folder."""
    log = AppendLog(path, mode=PRIVATE, private=True, lock=lock_beside(path), rotate_at=ROTATE_BYTES, concurrent=True)
    log.append((line + "\n").encode("utf-8"))


def read_lines(path: Path) -> list[str]:
    """The lines of the rotated file then of the current one, oldest first (split at line feeds
    only: a carriage return or another break inside a message is part of its line)."""
    lines: list[str] = []
    for file in (rotated_path(path), path):
        if file.is_file():
            lines += file.read_bytes().decode("utf-8", "replace").removesuffix("\n").split("\n")
    return [line for line in lines if line]
