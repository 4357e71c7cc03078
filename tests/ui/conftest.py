"""The vaults the viewer's tests look at: vault-example, and a vault filled from real transcripts by
the real hooks (a failure seen before, answered by the failure hook, then the later session
extracted). Both indexed with the lexical embedder: the pages' tests need no model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.agents.test_hooks import brain_process
from tests.agents.test_tool_failure import FIRST, SECOND, failure_input
from tests.conftest import REPO, TRANSCRIPTS, lexical_vault, run_brain

SPOTTER = TRANSCRIPTS / "public" / "spotter" / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SIGNATURE = "shell|git|fatal: Unable to create <q>: File exists."  # the quoted path blanked


def lexical_copy(source: Path, root: Path) -> Path:
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".brain"))
    lexical_vault(root)
    return root


@pytest.fixture(scope="module")
def example_vault(tmp_path_factory) -> Path:
    """vault-example, indexed (lexical embedder)."""
    root = lexical_copy(REPO / "vault-example", tmp_path_factory.mktemp("ui-example") / "vault-example")
    assert run_brain("index", "--vault", str(root)).exit_code == 0
    yield root


@pytest.fixture(scope="module")
def lived_vault(tmp_path_factory) -> Path:
    """A vault that lived: a Claude Code session (cipher-box) failed on git's index.lock and recovered;
    two hours later the next session hit the same failure, the failure hook handed it the earlier fix
    (the ledger records it), and that session's transcript became an episode too (which did not
    recover from it: its next call was another command). Plus a 53-minute
    session of another project (marot/spotter) with decisions, failures and recoveries."""
    root = tmp_path_factory.mktemp("ui-lived") / "vault"
    lexical_vault(root)
    assert run_brain("index", "--vault", str(root)).exit_code == 0
    for transcript in (FIRST, SPOTTER):
        done = run_brain("episode", "extract", str(transcript), "--vault", str(root))
        assert done.exit_code == 0, done.output
    answered = brain_process("hooks", "run", "tool-failure", "--vault", str(root), stdin=json.dumps(failure_input()))
    assert "this failure was seen before" in answered.stdout, answered.stderr
    done = run_brain("episode", "extract", str(SECOND), "--vault", str(root))
    assert done.exit_code == 0, done.output
    assert run_brain("index", "--vault", str(root)).exit_code == 0
    yield root


def viewer_client(root: Path, *, token: str | None = None, host: str = "127.0.0.1", port: int = 8777) -> TestClient:
    """The viewer's app on `root`, as a browser at http://127.0.0.1:<port> reaches it."""
    from brain.ui.app import build_app
    from brain.ui.viewer import open_viewer

    app = build_app(open_viewer(root), host=host, port=port, token=token)
    return TestClient(app, base_url=f"http://127.0.0.1:{port}")
