"""What a search does before it ranks: bounded embedding, the vectors snapshot, following file events.

Lexical embedder throughout (these are about plumbing, not meaning).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.watch.watch import follow
from brain.memory.search.service import search, search_report
from tests.conftest import REPO, lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


def test_a_search_after_a_large_change_answers_with_what_is_indexed(vault):
    put(vault, "n/small.md", note_text("Small", "apples and pears"))
    index_vault(open_index(vault))
    big = "\n".join(
        f"line {i} about apples orchards harvest" for i in range(2000)
    )  # ~80 KB: too much to embed in a search
    put(vault, "n/big.md", note_text("Big", big))
    started = time.perf_counter()
    report = search_report(open_index(vault), "apples", mode="vector")
    assert time.perf_counter() - started < 5
    assert report.pending == 1  # the big note waits for `brain index`
    assert [hit.path for hit in report.hits] == ["n/small.md"]
    assert [hit.path for hit in search(open_index(vault), "orchards harvest", mode="text")] == [
        "n/big.md"
    ]  # the catalog has it
    result = run_brain("search", "apples", "--mode", "vector", "--vault", str(vault.root))
    assert result.exit_code == 0
    assert (
        "1 notes are not in vector search yet (found by their words only); `brain index` (or `brain watch`) embeds them"
        in result.output
    )
    index_vault(open_index(vault))
    after = search_report(open_index(vault), "orchards harvest", mode="vector")
    assert after.pending == 0 and after.hits[0].path == "n/big.md"


def test_a_small_change_is_embedded_by_the_search_itself(vault):
    put(vault, "n/a.md", note_text("A", "apples"))
    index_vault(open_index(vault))
    put(vault, "n/b.md", note_text("B", "bananas"))
    report = search_report(open_index(vault), "bananas", mode="vector", limit=1)
    assert report.pending == 0 and [hit.path for hit in report.hits] == ["n/b.md"]


def test_a_one_shot_search_reads_the_snapshot_without_importing_chromadb(vault):
    put(vault, "n/a.md", note_text("A", "apples grow on trees"))
    put(vault, "n/b.md", note_text("B", "bananas are yellow"))
    index_vault(open_index(vault))
    assert open_index(vault).vectors.snapshot_path.is_file()
    script = (
        "import sys, json; from brain.vault.vault import Vault; from brain.index.engine import open_index; "
        "from brain.memory.search.service import search; "
        f"hits = search(open_index(Vault({str(vault.root)!r})), 'yellow bananas', mode='vector', limit=1); "
        "print(json.dumps([[h.path for h in hits], 'chromadb' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert json.loads(done.stdout) == [["n/b.md"], False]


def test_a_stale_snapshot_is_rebuilt_from_chroma(vault):
    put(vault, "n/a.md", note_text("A", "apples grow on trees"))
    index_vault(open_index(vault))
    index = open_index(vault)
    snapshot = index.vectors.snapshot_path
    stale = snapshot.read_bytes()
    put(vault, "n/b.md", note_text("B", "bananas are yellow"))
    index_vault(open_index(vault))
    snapshot.write_bytes(stale)  # as if another process wrote vectors after this snapshot
    assert [hit.path for hit in search(open_index(vault), "yellow bananas", mode="vector", limit=1)] == ["n/b.md"]


def test_rerank_without_a_model_is_a_one_line_error(vault, monkeypatch):
    monkeypatch.delenv("BRAIN_RERANKER_MODEL", raising=False)
    put(vault, "n/a.md", note_text("A", "apples"))
    result = run_brain("search", "apples", "--rerank", "--vault", str(vault.root))
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: no reranker model is configured: set reranker_model under [search] in .brain/config.toml or "
        "$BRAIN_RERANKER_MODEL to a folder with an ONNX cross-encoder and its tokenizer.json, or search without --rerank"
    ]


def test_a_long_lived_process_follows_file_events_and_skips_the_stat_scan(vault, monkeypatch):
    put(vault, "n/a.md", note_text("A", "apples"))
    index = open_index(vault)
    index_vault(index)
    watcher = follow(index)
    assert watcher is not None
    assert watcher.caught_up.wait(timeout=20)  # its catch-up scan of the whole vault is over
    other = open_index(vault)
    try:
        assert index.watcher_alive() and follow(other) is None  # one follower per vault
        scans = []
        from brain.index.sync import sync

        real_scan = sync.scan
        monkeypatch.setattr(sync, "scan", lambda *a, **k: scans.append(k) or real_scan(*a, **k))
        put(vault, "n/b.md", note_text("B", "bananas from the editor"))
        assert watcher.wait_idle(timeout=20)
        assert [hit.path for hit in search(index, "bananas", mode="text")] == ["n/b.md"]
        assert all(call.get("paths") is not None for call in scans)  # only the watcher's per-path updates
    finally:
        watcher.stop()
        other.close()
        index.close()


def test_a_model_that_is_not_a_cross_encoder_is_refused(vault, tmp_path, monkeypatch):
    from brain.index.embedders.model_files import resolve

    files = resolve().files
    assert files is not None, "the real model must be installed for this test"
    folder = tmp_path / "not-a-reranker"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(files.model_path)  # a sentence embedder: token states, not a score
    (folder / "tokenizer.json").symlink_to(files.tokenizer_path)
    monkeypatch.setenv("BRAIN_RERANKER_MODEL", str(folder))
    put(vault, "n/a.md", note_text("A", "apples"))
    result = run_brain("search", "apples", "--rerank", "--vault", str(vault.root))
    assert result.exit_code == 1
    assert result.output.startswith(
        f"error: reranker model '{folder / 'model.onnx'}' is not a cross-encoder: its first output has shape ["
    )
