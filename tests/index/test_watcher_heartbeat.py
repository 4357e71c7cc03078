"""Issue 25 point 19: a watcher that holds its lock but does not work makes no reader stale.

Readers trust the catalog only while the watcher's heartbeat is recent and says it has applied
every event it saw. A watcher suspended with SIGSTOP (Ctrl-Z) stops beating: `note read` then
checks the files itself and finds a note saved in an editor meanwhile (it answered "no note
named" for as long as the watcher stayed stopped)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from brain.index.heartbeat import BEAT_FILE, STALE_SECONDS, Beat, current, write_beat
from brain.vault_init import init_vault
from tests.conftest import REPO, run_brain


def test_only_a_recent_idle_beat_is_current(tmp_path: Path) -> None:
    now = time.time()
    write_beat(tmp_path, Beat(1, now, True, now))
    assert current(tmp_path, now + 0.5)
    assert not current(tmp_path, now + STALE_SECONDS + 0.1)  # suspended or hung
    write_beat(tmp_path, Beat(1, now, False, now))
    assert not current(tmp_path, now)  # busy: events seen and not yet applied
    (tmp_path / BEAT_FILE).write_text("[]")
    assert not current(tmp_path, now)


def test_a_suspended_watcher_leaves_reads_exact(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    (vault.root / "notes").mkdir(exist_ok=True)
    (vault.root / "notes" / "Before.md").write_text("# Before\n\nold body\n")
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    watcher = subprocess.Popen(
        [sys.executable, "-m", "brain", "watch", "--vault", str(vault.root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        beat = vault.index_dir / BEAT_FILE
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (beat.exists() and json.loads(beat.read_text())["idle"]):
            time.sleep(0.05)
        assert beat.exists(), "the watcher never beat"
        os.kill(watcher.pid, signal.SIGSTOP)
        time.sleep(STALE_SECONDS + 0.5)
        (vault.root / "notes" / "Saved in an editor.md").write_text("# Saved in an editor\n\nnew note\n")
        (vault.root / "notes" / "Before.md").write_text("# Before\n\nedited body\n")
        read = run_brain("note", "read", "Saved in an editor", "--vault", str(vault.root))
        assert read.exit_code == 0 and "new note" in read.output, read.output
        edited = run_brain("note", "read", "Before", "--vault", str(vault.root))
        assert "edited body" in edited.output
        found = run_brain("search", "editor", "--mode", "text", "--vault", str(vault.root))
        assert "notes/Saved in an editor.md" in found.output
    finally:
        os.kill(watcher.pid, signal.SIGCONT)
        watcher.terminate()
        watcher.wait(timeout=30)
