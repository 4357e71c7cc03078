"""`brain index`, `reindex`, `status`, `search`, `watch` and `doctor` through the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from brain.index.engine import open_index
from tests.conftest import REPO, lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(
        vault,
        "episodes/e1.md",
        note_text(
            "E1",
            "## Context\nThe deploy failed because the cache expired at once.",
            type="episode",
            outcome="failure",
            tags="[ops]",
        ),
    )
    put(
        vault,
        "episodes/e2.md",
        note_text("E2", "## Context\nA calm deploy with a canary.", type="episode", outcome="success"),
    )
    put(vault, "patterns/p.md", note_text("PATTERN-jitter", "## Action\nAdd jitter to cache expiry.", type="pattern"))
    yield vault


@pytest.fixture
def brain(vault):
    def run(*args: str):
        return run_brain(*args, "--vault", str(vault.root))

    return run


def test_index_then_nothing_to_do(brain):
    first = brain("index")
    assert first.exit_code == 0, first.output
    assert first.output.startswith("3 notes: 3 added, 0 changed, 0 moved, 0 removed (3 parsed in ")
    assert "vectors: 3 chunks embedded, 0 unchanged, 0 deleted (lexical-hash-v1:384)" in first.output
    again = brain("index")
    assert "0 added, 0 changed, 0 moved, 0 removed (0 parsed" in again.output and "0 chunks embedded" in again.output
    assert (
        "\r" not in first.output and "█" not in first.output and "#" not in first.output
    )  # no progress bar when piped
    no_embed = brain("reindex", "--no-embed")
    assert no_embed.exit_code == 0 and "3 added" in no_embed.output and "embeddings skipped" in no_embed.output


def test_status_counts_freshness_and_embedder(brain, vault):
    before = brain("status")
    assert "index     none yet; run `brain index`" in before.output
    brain("index")
    data = json.loads(brain("status", "--json").output)
    assert data["by_type"] == {"episode": 2, "pattern": 1} and data["fresh"] is True
    assert data["embedder"] == "lexical-hash-v1:384" and "fallback" in data["embedder_source"]
    put(vault, "episodes/e2.md", note_text("E2", "changed", type="episode"))
    text = brain("status").output
    assert (
        "notes     by type: episode 2, pattern 1" in text and "1 file changed" in text and "run `brain index`" in text
    )
    assert "embedder  lexical-hash-v1:384" in text and "model     lexical fallback" in text


def test_search_text_json_and_filters(brain):
    brain("index")
    result = brain("search", "cache expiry jitter", "--limit", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(" 1. PATTERN-jitter  [pattern]  patterns/p.md  score ")
    assert lines[1] == "    § Action" and "jitter" in lines[2]
    hits = json.loads(brain("search", "deploy", "--json", "--type", "episode", "--field", "outcome=failure").output)
    assert [hit["path"] for hit in hits] == ["episodes/e1.md"]
    assert set(hits[0]) == {"path", "title", "type", "section", "snippet", "score", "similarity", "words"}
    assert (
        json.loads(brain("search", "deploy", "--json", "--tag", "ops", "--mode", "text").output)[0]["path"]
        == "episodes/e1.md"
    )
    in_folder = json.loads(brain("search", "deploy", "--json", "--folder", "patterns").output)
    assert in_folder and all(hit["path"].startswith("patterns/") for hit in in_folder)
    assert brain("search", "zzzqqq", "--mode", "text").output == "no note matches 'zzzqqq'\n"
    bad = brain("search", "x", "--field", "novalue")
    assert bad.exit_code == 2 and "key=value" in bad.output
    assert "is not one of" in brain("search", "x", "--mode", "fuzzy").output
    url = brain("search", "x", "--chroma-url", "ftp://nowhere")
    assert url.exit_code == 2 and url.stderr == (
        "error: --chroma-url 'ftp://nowhere' is not an http(s) URL such as http://127.0.0.1:8000\n"
    )


def test_search_refuses_impossible_dates(brain) -> None:
    for option, value in (("--since", "2026-13-45"), ("--until", "2026-02-30"), ("--since", "2026-13")):
        result = brain("search", "anything", option, value)
        assert (result.exit_code, result.stderr) == (
            2,
            f"error: {option} '{value}' is not a real date (no such month or day)\n",
        )


def test_cli_writes_update_the_index_at_once(brain, vault):
    brain("index")
    assert brain("note", "write", "Fresh Note", "--folder", "notes").exit_code == 0
    assert "notes/Fresh Note.md" in open_index(vault).catalog.stamps()


def test_doctor_lists_skipped_files_and_a_stale_index(brain, vault, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("x")
    (vault.root / "episodes/link.md").symlink_to(outside)
    brain("index")
    put(vault, "episodes/e3.md", note_text("E3", "new"))
    result = brain("doctor")
    assert "skipped         episodes/link.md: symlink leads outside the vault" in result.output
    assert "fix: move the note into the vault, or replace the link with a copy" in result.output  # the fix of its kind
    assert "stale-index     .brain/index: 1 note file changed since the last index" in result.output
    assert "fix: run `brain index`" in result.output
    findings = json.loads(brain("doctor", "--json").output)["findings"]
    assert {f["kind"] for f in findings} >= {"skipped"}


def test_doctor_finds_attachments_where_obsidian_does_and_reports_only_missing_ones(brain, vault):
    """`![[diagram.png]]` embeds a file Obsidian finds by its name anywhere in the vault (or by its
    path): no broken link while the file is there; a file that is not anywhere still is one."""
    (vault.root / "Attachments" / "2026").mkdir(parents=True)
    (vault.root / "Attachments" / "2026" / "Diagram.png").write_bytes(b"\x89PNG\r\n")
    (vault.root / "Attachments" / "spec.pdf").write_bytes(b"%PDF-1.4")
    text = (
        "![[diagram.png]] ![[Attachments/spec.pdf#page=3]] [[spec.pdf|the spec]] ![[2026/Diagram.png|300]]\n"
        "![[missing.png]] ![[Elsewhere/spec.pdf]]\n"
    )
    put(vault, "notes/Design.md", text)
    (vault.root / ".brain" / "hidden.png").write_bytes(b"x")
    put(vault, "notes/Hidden.md", "![[hidden.png]]\n")
    brain("index")
    findings = json.loads(brain("doctor", "--json").output)["findings"]
    broken = sorted((f["path"], f["message"]) for f in findings if f["kind"] == "broken-link")
    assert broken == [
        ("notes/Design.md", "[[Elsewhere/spec.pdf]] matches no note or file"),
        ("notes/Design.md", "[[missing.png]] matches no note or file"),
        ("notes/Hidden.md", "[[hidden.png]] matches no note or file"),
    ]


def test_watch_runs_until_interrupted(vault):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "watch", "--vault", str(vault.root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # a shell's background job ignores SIGINT and a child inherits that: give the watcher Ctrl-C back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    said: list[str] = []  # stderr lines as they come ("watching" is printed once the catch-up index run is over)
    reader = threading.Thread(target=lambda: [said.append(line) for line in process.stderr], daemon=True)
    reader.start()
    try:
        index = open_index(vault)
        deadline = time.monotonic() + 60
        while not any(line.startswith("watching") for line in said):
            assert process.poll() is None and time.monotonic() < deadline, "".join(said) or "slow start"
            time.sleep(0.1)
        assert index.watcher_alive()
        put(vault, "episodes/live.md", note_text("Live", "watched words arrive"))
        deadline = time.monotonic() + 30
        while "episodes/live.md" not in index.catalog.stamps():
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)  # Ctrl-C lands between two model calls: a loaded machine may take a while
        except subprocess.TimeoutExpired:
            process.kill()  # never leave a watcher behind the test
            raise
        reader.join(timeout=10)
    err = "".join(said)
    assert process.returncode == 0, err
    assert "watching" in err and "updated 1 note" in err
    assert not index.watcher_alive()
