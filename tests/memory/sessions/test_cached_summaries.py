"""The per-note values kept in `.brain/index/summaries/` are checked on read: a value of another shape
under the right hash is computed again, and what an agent is handed does not change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, run_brain

TASK = "Shorten the mobile access token TTL for the ledger apps"
WRONG_SHAPES = ["a string", 7, [], [None, None], [{"x": 1}, 2, 3, 4, 5, 6], [True, "a", "b", 1, False, 0.5]]


def _hook(root: Path, event: str, session: str) -> subprocess.CompletedProcess[str]:
    payload = json.dumps({"session_id": session, "prompt": TASK, "hook_event_name": "UserPromptSubmit"})
    return subprocess.run(
        [sys.executable, "-m", "brain", "hooks", "run", event, "--vault", str(root), "--namespace", "ledger-auth"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )


def _answers(root: Path, session: str) -> tuple[str, str, str]:
    bootstrap = run_brain("context", "bootstrap", TASK, "--namespace", "ledger-auth", "--vault", str(root))
    tips = run_brain("tip", "guidelines", TASK, "--vault", str(root))
    hook = _hook(root, "first-prompt", session)
    assert (bootstrap.exit_code, tips.exit_code, hook.returncode, hook.stderr) == (0, 0, 0, "")
    return bootstrap.output, tips.output, hook.stdout


def test_values_of_another_shape_under_the_right_hash_are_computed_again(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", root, ignore=shutil.ignore_patterns("index"))
    config = root / ".brain" / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    assert run_brain("index", "--vault", str(root)).exit_code == 0
    assert _hook(root, "warm", "warm").returncode == 0  # the first prompt compares with every pattern and tip
    before = _answers(root, "session-1")
    assert "TIP-key-writes-before-enabling-retries" in before[1]
    assert "- mobile-access-token-ttl (config, ledger-auth, since 2026-03-17)" in before[0]
    handed = json.loads(before[2])["hookSpecificOutput"]["additionalContext"]
    assert "## Facts valid now\n- mobile-access-token-ttl (config, ledger-auth, since 2026-03-17)" in handed

    folder = root / ".brain" / "index" / "summaries"
    names = sorted(path.name for path in folder.iterdir())
    assert names == ["bootstrap-pattern-candidates-2.json", "fact-subjects-1.json", "tip-match-2.json"]
    for path in folder.iterdir():
        stored = json.loads(path.read_text())
        wrong = {key: [sha, WRONG_SHAPES[n % len(WRONG_SHAPES)]] for n, (key, (sha, _)) in enumerate(stored.items())}
        path.write_text(json.dumps(wrong))

    after = _answers(root, "session-2")
    assert after == before
    log = (root / ".brain" / "logs" / "hooks.log").read_text()
    assert "error" not in log
    for path in folder.iterdir():  # the files hold the right values again
        assert all(value not in WRONG_SHAPES for _, value in json.loads(path.read_text()).values())
