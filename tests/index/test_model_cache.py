"""The embedding model: its optimized graph saved once (same vectors, less memory), loaded once per process."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from brain.index.embedders import model_cache
from brain.index.embedders.embedders import OnnxMiniLMEmbedder
from brain.index.embedders.model_files import resolve
from brain.index.engine import open_index, shared_embedder
from brain.memory.similarity import vault_embedder
from brain.vault.vault import Vault

TEXTS = ["phone app sign-in security", "Retries need an idempotency key per write.", "x", "Ledger " * 200]


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "brain" / "models"


def test_the_optimized_model_is_saved_once_and_gives_the_same_vectors(cache_home):
    files = resolve(None).files
    assert files is not None, "the real model must be installed for this test"
    first = OnnxMiniLMEmbedder.from_files(files)
    assert first.loaded  # optimizes, and saves the result
    (folder,) = [p for p in cache_home.iterdir() if p.is_dir()]  # beside hashes.json, the files' sha256 memo
    assert sorted(p.name for p in folder.iterdir()) == ["model.data", "model.onnx"]
    second = OnnxMiniLMEmbedder.from_files(files)
    assert second.loaded  # reads the saved graph: nothing optimized again
    assert second.dim == first.dim == 384
    # the reference: onnxruntime optimizing the original file at load, as brain did before the cache
    reference = OnnxMiniLMEmbedder.from_files(files)
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads, options.log_severity_level = 1, 1, 3
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    reference.loaded.query_session = ort.InferenceSession(
        str(files.model_path), options, providers=["CPUExecutionProvider"]
    )
    for text in TEXTS:
        assert np.array_equal(second.embed_array([text]), reference.embed_array([text]))
    assert np.array_equal(second.embed_array(TEXTS), first.embed_array(TEXTS))  # batches: the bulk session


def test_naming_an_embedder_loads_no_model_once_its_dimension_is_known(cache_home):
    """`brain status` and the vector store need the embedder's id, source and dimension: the model
    loads at the first text embedded, and its dimension is remembered per model file."""
    files = resolve(None).files
    first = OnnxMiniLMEmbedder.from_files(files)
    assert first.dim == 384 and first._loaded is not None  # the first time, the model is asked
    second = OnnxMiniLMEmbedder.from_files(files)
    assert (second.id, second.dim) == (first.id, 384)
    assert second._loaded is None
    assert second.embed_array(["x"]).shape == (1, 384) and second._loaded is not None


def test_a_damaged_saved_model_is_optimized_again(cache_home):
    files = resolve(None).files
    assert OnnxMiniLMEmbedder.from_files(files).loaded
    (folder,) = [p for p in cache_home.iterdir() if p.is_dir()]  # beside hashes.json, the files' sha256 memo
    (folder / "model.onnx").write_bytes(b"not a model")
    embedder = OnnxMiniLMEmbedder.from_files(files)
    assert embedder.embed_array(["x"]).shape == (1, 384)
    assert (folder / "model.onnx").stat().st_size > 1000  # saved again


def test_an_unwritable_cache_still_loads_the_model(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert model_cache.cache_root().parent.parent == blocked
    assert OnnxMiniLMEmbedder.from_files(resolve(None).files).embed_array(["x"]).shape == (1, 384)


def test_the_model_is_loaded_once_per_process(vault: Vault):
    index = open_index(vault)
    assert index.embedder is vault_embedder(vault) is shared_embedder("default", None)
