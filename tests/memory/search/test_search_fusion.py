"""How hybrid search orders its hits: weighted reciprocal rank fusion of its two halves, while each
hit keeps its absolute score (the rule is in brain/memory/search/service.py, `fused`; chosen by
benchmarks/studies/fusion_select.py).

A small vault of chat sessions, indexed for real (SQLite catalog, FTS5, Chroma, all-MiniLM-L6-v2).
Each query's order in the three modes is asserted exactly, and so is the hybrid order's agreement
with the rule worked out here from the hits' own evidence (`words`, `similarity`)."""

from __future__ import annotations

import pytest

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search.relevance import TEXT, calibration
from brain.memory.search.service import RRF_K, TEXT_WEIGHT, search
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
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-rows-onnx", "the real model must be installed for this test"
    index_vault(index)
    yield index


def titles(index, query: str, mode: str) -> list[str]:
    return [hit.title for hit in search(index, query, mode=mode, limit=8, min_score=0)]


def by_the_rule(index, query: str) -> list[str]:
    """The rule, worked out here from each hit's own evidence: every candidate ranked by its word
    score and by its similarity (ties to the higher score); each half weighs TEXT_WEIGHT or
    1 - TEXT_WEIGHT times its confidence (its own curve's relevance for its best candidate), over
    RRF_K + rank."""
    hits = search(index, query, limit=len(SESSIONS), min_score=0)
    assert len(hits) == len(SESSIONS)  # every note is a candidate here
    confidence = {
        "words": TEXT.relevance(None, max(hit.words for hit in hits)),
        "similarity": calibration("vector", index.embedder.id).relevance(max(hit.similarity for hit in hits), None),
    }
    order = dict.fromkeys((hit.title for hit in hits), 0.0)
    for weight, evidence in ((TEXT_WEIGHT, "words"), (1 - TEXT_WEIGHT, "similarity")):
        ranking = sorted(hits, key=lambda hit: (-getattr(hit, evidence), -hit.score))
        for rank, hit in enumerate(ranking, start=1):
            order[hit.title] += weight * confidence[evidence] / (RRF_K + rank)
    return sorted(order, key=lambda title: -order[title])


# Text mode lists only the notes holding a query word. "Moving to Berlin" holds two of the pastry
# query's words ("did", "Maya") by chance: the words half is not confident (best word score 0.15),
# so the dense half's places count for more there.
EXPECTED = {
    "what did Noah buy for running": {
        "text": ["Marathon training", "Moving to Berlin", "Lisbon trip"],
        "vector": [
            "Marathon training",
            "Leash laws in the park",
            "Kitchen renovation",
            "Piano lessons",
            "Vegetable garden",
            "Lisbon trip",
            "Puppy school",
            "Moving to Berlin",
        ],
        "hybrid": [
            "Marathon training",
            "Leash laws in the park",
            "Kitchen renovation",
            "Piano lessons",
            "Lisbon trip",
            "Moving to Berlin",
            "Vegetable garden",
            "Puppy school",
        ],
    },
    "where did Maya eat pastries": {
        "text": ["Moving to Berlin", "Lisbon trip"],
        "vector": [
            "Vegetable garden",
            "Lisbon trip",
            "Puppy school",
            "Kitchen renovation",
            "Moving to Berlin",
            "Marathon training",
            "Piano lessons",
            "Leash laws in the park",
        ],
        "hybrid": [
            "Vegetable garden",
            "Lisbon trip",
            "Puppy school",
            "Moving to Berlin",
            "Kitchen renovation",
            "Marathon training",
            "Piano lessons",
            "Leash laws in the park",
        ],
    },
    "teaching my dog to walk nicely": {
        "text": ["Puppy school", "Leash laws in the park", "Piano lessons", "Marathon training"],
        "vector": [
            "Puppy school",
            "Leash laws in the park",
            "Marathon training",
            "Piano lessons",
            "Lisbon trip",
            "Moving to Berlin",
            "Kitchen renovation",
            "Vegetable garden",
        ],
        "hybrid": [  # the words' best two agree with the similarity's: the dense half orders the rest
            "Puppy school",
            "Leash laws in the park",
            "Marathon training",
            "Piano lessons",
            "Lisbon trip",
            "Moving to Berlin",
            "Kitchen renovation",
            "Vegetable garden",
        ],
    },
}


@pytest.mark.parametrize("query", list(EXPECTED))
def test_hybrid_orders_by_the_fusion_of_its_halves(sessions, query):
    expected = EXPECTED[query]
    for mode in ("text", "vector", "hybrid"):
        assert titles(sessions, query, mode) == expected[mode], mode
    assert titles(sessions, query, "hybrid") == by_the_rule(sessions, query)


def test_a_hit_keeps_its_absolute_score_whatever_its_place(sessions):
    """The order is the fusion's, the score each hit shows its own relevance: here the note placed
    second shows a higher score than the one above it, and the same score with any limit or floor."""
    query = "where did Maya eat pastries"
    hits = search(sessions, query, limit=8, min_score=0)
    scores = {hit.title: hit.score for hit in hits}
    assert [hit.title for hit in hits][:2] == ["Vegetable garden", "Lisbon trip"]
    assert scores["Lisbon trip"] > scores["Vegetable garden"]
    for limit, floor in ((1, 0.0), (3, 0.0), (8, 0.15)):
        for hit in search(sessions, query, limit=limit, min_score=floor):
            assert hit.score == scores[hit.title]
    # the floor hides hits and never reorders the others
    kept = [hit.title for hit in search(sessions, query, limit=8, min_score=0.15)]
    assert kept == [title for title in scores if scores[title] >= 0.15]
