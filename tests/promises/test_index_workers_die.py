"""Issue 25 point 12: `kill -9` of `brain index` takes its parse workers with it (they lived on
for hours, about 41 MB each)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain.vault_init import init_vault
from tests.conftest import REPO


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc") or (os.cpu_count() or 1) < 2, reason="needs /proc and 2 cores")
def test_parse_workers_die_with_a_killed_indexer(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    (vault.root / "notes").mkdir()
    for number in range(6000):
        (vault.root / "notes" / f"Note {number}.md").write_text(
            f"---\ntitle: Note {number}\ntags: [a, b]\n---\n\n# Note {number}\n\n" + "Some words. " * 200
        )
    indexer = subprocess.Popen(
        [sys.executable, "-m", "brain", "index", "--no-embed", "--vault", str(vault.root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(workers) < 2 and indexer.poll() is None:
        workers = [pid for pid in children(indexer.pid) if alive(pid)]
        time.sleep(0.01)
    assert len(workers) >= 2, "the indexer finished before its pool started; give it more notes"
    time.sleep(0.3)  # the workers are parsing
    os.kill(indexer.pid, signal.SIGKILL)
    indexer.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(pid) for pid in workers):
        time.sleep(0.05)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []
