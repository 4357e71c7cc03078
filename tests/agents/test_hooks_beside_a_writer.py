"""A hook never waits for the index: while another process holds the index lock (`brain index`
catching up on thousands of changed notes), the hook answers from the catalog as it was and says
in the hooks log that the index is catching up."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO, run_brain

NEW_ANTIPATTERN = """---
title: ANTIPATTERN-deploy-on-friday
type: pattern
trigger: A release is pushed late on a Friday
success_rate: 0.1
occurrences: 4
---

# ANTIPATTERN-deploy-on-friday

## Trigger
A release is pushed late on a Friday.
"""
HOLD_THE_LOCK = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1], thread_local=False)
lock.acquire()
print("held", flush=True)
time.sleep(600)
"""


def _session_start(root: Path) -> subprocess.CompletedProcess[str]:
    payload = json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup"})
    return subprocess.run(
        [sys.executable, "-m", "brain", "hooks", "run", "session-start", "--vault", str(root)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=20,  # the lock is held for 600 s: a hook that waited for it would fail here
        env=os.environ.copy(),
    )


def _wait_for_warm(root: Path) -> None:
    """Until the warm-up the first session start spawned has embedded the patterns and tips."""
    deadline = time.monotonic() + 60
    while not (root / ".brain" / "index" / "hooks-warm").is_file():
        assert time.monotonic() < deadline, "the spawned warm-up never finished"
        time.sleep(0.1)  # the marker is written once its reads (and their hold on the index lock) are over


def _context(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_session_start_answers_from_the_catalog_as_it_was_while_another_process_holds_the_index(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", root, ignore=shutil.ignore_patterns("index"))
    config = root / ".brain" / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    assert run_brain("index", "--vault", str(root)).exit_code == 0
    before = _context(_session_start(root))
    assert "- ANTIPATTERN-retry-without-idempotency (0% over 2):" in before
    _wait_for_warm(root)  # else the warm-up the first hook spawned could hold the lock when the last hook reads

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(root / ".brain" / "index" / "index.lock")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        (root / "patterns" / "ANTIPATTERN-deploy-on-friday.md").write_text(NEW_ANTIPATTERN)
        (root / "notes").mkdir(exist_ok=True)
        for number in range(400):  # the changes the writer is catching up on
            (root / "notes" / f"change-{number}.md").write_text(f"# Change {number}\n\nchanged while indexing\n")
        during = _session_start(root)
        assert _context(during) == before  # the last catalog a writer committed, without the new note
        log = (root / ".brain" / "logs" / "hooks.log").read_text()
        assert log.splitlines()[-1].endswith(
            "SessionStart the index is catching up (another brain process is writing it): "
            "the context came from the index as it was, without the changes still being indexed"
        )
    finally:
        holder.kill()
        holder.wait()
    after = _context(_session_start(root))  # the lock is free: the hook's read brings the catalog up to date
    assert "- ANTIPATTERN-deploy-on-friday (10% over 4): A release is pushed late on a Friday" in after
