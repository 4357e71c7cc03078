"""Processes a test starts and watches: whether one is blocked (waiting on a lock the test holds)."""

from __future__ import annotations

import time


def cpu_ticks(pid: int) -> int | None:
    """The CPU time (clock ticks, user and system) the process has used; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else int(fields[11]) + int(fields[12])


def wait_until_idle(pid: int, quiet: float = 1.0, timeout: float = 120.0) -> None:
    """Return once the process has used no CPU for `quiet` seconds (it waits on something: a lock the
    test holds), or has ended."""
    deadline = time.monotonic() + timeout
    last, since = cpu_ticks(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = cpu_ticks(pid)
        if now is None:
            return
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise AssertionError(f"process {pid} kept working for {timeout:g} s")
