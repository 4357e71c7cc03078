"""Search scores: every mode shows each hit's relevance relative to the best hit (1.00), the same
number in the CLI's text and JSON and in MCP (they printed as `2e-06` in text mode, a small vault's
BM25, and `0` in hybrid); the mode's own measure stays in `raw_score`; the ranking is unchanged."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from brain.index.engine import forget, open_index
from brain.index.search import relative_scores, search
from tests.conftest import lexical_vault, note_text, put, run_brain
from tests.helpers.mcp_harness import connect, make_vault


@pytest.fixture
def small(tmp_path: Path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/quokka.md", note_text("Quokka", "The quokka lives on Rottnest Island; quokka quokka."))
    put(vault, "notes/island.md", note_text("Islands", "Rottnest is an island off Perth."))
    for number, animal in enumerate(("Wombat", "Numbat", "Bilby", "Dingo", "Emu", "Echidna")):
        put(vault, f"notes/other{number}.md", note_text(animal, f"The {animal.lower()} lives in forests."))
    open_index(vault)
    yield vault
    forget(vault.root)


def test_every_mode_scores_hits_relative_to_the_best_without_changing_the_ranking(small) -> None:
    index = open_index(small)
    for mode in ("text", "vector", "hybrid"):
        hits = search(index, "quokka rottnest", mode=mode, limit=5)
        assert hits[0].score == 1.0, mode
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True), mode
        assert all(0.0 <= h.score <= 1.0 for h in hits), mode
        best = hits[0].raw_score
        if mode != "hybrid":  # relative to the best, from the unrounded measure
            assert [h.score for h in hits] == [pytest.approx(h.raw_score / best, abs=2e-4) for h in hits], mode
    text = search(index, "quokka rottnest", mode="text", limit=5)
    assert [h.path for h in text] == ["notes/quokka.md", "notes/island.md"]
    assert text[1].score == round(text[1].raw_score / text[0].raw_score, 4) and 0.1 < text[1].score < 0.5


def test_the_cli_and_mcp_show_the_same_two_decimal_relevance(small) -> None:
    shown = run_brain("search", "quokka rottnest", "--mode", "text", "--vault", str(small.root)).output
    scores = [line.rsplit("score ", 1)[1] for line in shown.splitlines() if "  score " in line]
    data = json.loads(
        run_brain("search", "quokka rottnest", "--mode", "text", "--json", "--vault", str(small.root)).output
    )
    assert scores[0] == "1.00" and scores == [f"{hit['score']:.2f}" for hit in data]
    assert set(data[0]) >= {"score", "raw_score"}


def test_mcp_search_scores_are_relative_too(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "core") as client:
        found = client.ok("search", {"query": "memory routing", "mode": "text"})
    hits = found.structured_content["hits"]
    assert hits[0]["score"] == 1.0 and all(0.0 <= hit["score"] <= 1.0 for hit in hits)
    first = found.content[0].text.splitlines()[1]
    assert first.endswith("score 1.00"), first


def test_relative_scores_of_logits_and_of_nothing() -> None:
    assert relative_scores([]) == []
    assert relative_scores([0.0, 0.0]) == [1.0, 1.0]
    logits = relative_scores([2.0, -1.0], logits=True)
    assert logits[0] == 1.0 and logits[1] == pytest.approx((1 / (1 + math.e)) / (1 / (1 + math.exp(-2))))
