"""A vault on a full disk or a read-only one, for the fault tests (tests/promises/test_disk_faults.py).

A full disk is a small tmpfs filled to the last block when `mount` works here (as root), else the
file size limit (RLIMIT_FSIZE: a write past it fails with EFBIG, which brain treats as a full
disk) set on the `brain` subprocess. A read-only vault is a read-only bind mount, which root
cannot write through either; where neither can be had the test says so and is skipped.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}


def brain(*args: str, input: str | None = None, file_limit: int | None = None) -> subprocess.CompletedProcess:
    """`brain ARGS` as a subprocess; with `file_limit`, no file may grow past that many bytes."""
    return subprocess.run(
        [sys.executable, "-m", "brain", *args],
        input=input,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
        preexec_fn=_limit(file_limit),
    )


def start_brain(*args: str, file_limit: int | None = None) -> subprocess.Popen[str]:
    """`brain ARGS` started as a subprocess (to be killed, or waited for)."""
    return subprocess.Popen(
        [sys.executable, "-m", "brain", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        preexec_fn=_limit(file_limit),
    )


def _limit(file_limit: int | None) -> Callable[[], None] | None:
    if file_limit is None:
        return None

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return limited


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` and its bytes, but SQLite's WAL and shared memory (a reader may
    touch those), empty lock files (taking a lock may create one) and the filler that fills a disk."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and not path.name.endswith(("-wal", "-shm"))
        and path.name != "filler"
        and not (path.suffix == ".lock" and path.stat().st_size == 0)
    }


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextmanager
def full_disk(vault: Path, tmp: Path) -> Iterator[tuple[Path, int | None]]:
    """A copy of `vault` on a disk with no room left: (its root, the file limit to run brain with).

    The limit is None on a real full tmpfs; else a copy in `tmp` and the file size limit that stands in."""
    disk = tmp / f"disk-{uuid.uuid4().hex[:6]}"
    disk.mkdir()
    if os.geteuid() == 0 and shutil.which("mount") and _mount("-t", "tmpfs", "-o", "size=64m", "tmpfs", str(disk)):
        try:
            shutil.copytree(vault, disk / "vault", symlinks=True)
            with open(disk / "filler", "wb", buffering=0) as filler:  # every free block taken
                block = b"\0" * 65536
                try:
                    while True:
                        filler.write(block)
                except OSError:
                    pass
                for size in (4096, 512, 1):
                    try:
                        while True:
                            filler.write(b"\0" * size)
                    except OSError:
                        pass
            yield disk / "vault", None
        finally:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True)
        return
    shutil.copytree(vault, disk / "vault", symlinks=True)
    yield disk / "vault", 1  # any file that grows fails: a note, the catalog, a journal


@contextmanager
def small_disk(tmp: Path, megabytes: int) -> Iterator[tuple[Path, int | None]]:
    """A folder on a disk of `megabytes`: (the folder, the file size limit to run brain with). A tmpfs of
    that size where `mount` works here (as root), else a folder in `tmp` and the size as every file's limit."""
    disk = tmp / f"small-{uuid.uuid4().hex[:6]}"
    disk.mkdir()
    if (
        os.geteuid() == 0
        and shutil.which("mount")
        and _mount("-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(disk))
    ):
        try:
            yield disk, None
        finally:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True)
        return
    yield disk, megabytes << 20


def read_only_vault(vault: Path, tmp: Path) -> Path | None:
    """`vault` seen through a read-only bind mount, or None where one cannot be made (the caller skips).

    Unmount with `unmount(path)`."""
    if not shutil.which("mount"):
        return None
    view = tmp / f"ro-{uuid.uuid4().hex[:6]}"
    view.mkdir()
    if not _mount("--bind", str(vault), str(view)):
        return None
    if not _mount("-o", "remount,ro,bind", str(view)):
        unmount(view)
        return None
    return view


def unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)
