"""build_context: a breadth-first walk over links, relations, causal edges and backlinks, packed to a budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.errors import InvalidInput, NoteNotFound
from brain.memory.causal.neighbourhood import CHARS_PER_TOKEN, build_context
from brain.memory.corpus import Corpus
from brain.vault.init import init_vault
from tests.conftest import DATA, run_brain

NOTES = {
    "notes/Hub.md": "---\ntitle: Hub\ntags: [start]\nstatus: active\n---\n\n# Hub\n\nThe hub links to [[Linked]] and [[Not Written Yet]].\n\n"
    "## Relations\n- part_of [[Program]]\n",
    "notes/Linked.md": "# Linked\n\nLinked from the hub. It mentions [[Far]].\n",
    "notes/Far.md": "# Far\n\nTwo hops away.\n",
    "notes/Program.md": "# Program\n\nThe program.\n",
    "notes/Fan.md": "# Fan\n\nA note that links to [[Hub]] but is not linked back.\n",
    "patterns/PATTERN-cause.md": "---\ntitle: PATTERN-cause\ntype: pattern\ntrigger: Something starts\nsuccess_rate: 0.9\n"
    "occurrences: 5\n---\n\n# PATTERN-cause\n\n## Trigger\nSomething starts\n\n## Action\nDo the thing.\n\n"
    "## Causal Relationships\n- causes [[Hub]] (weight: 0.8)\n",
    "contexts/Followup.md": '---\ntitle: Followup\ntype: context\ncaused_by: "[[Hub]]"\naction_type: decision\n---\n\nDecided after the hub.\n',
}


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    vault, _ = init_vault(tmp_path / "vault")
    for relative, text in NOTES.items():
        path = vault.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Corpus(vault)


def test_walks_links_relations_causal_edges_and_backlinks_nearest_first(corpus: Corpus) -> None:
    built = build_context(corpus, "Hub", depth=2, budget=4000)
    order = [item.title for item in built.items]
    assert order[0] == "Hub"
    distance = {item.title: item.distance for item in built.items}
    assert distance == {"Hub": 0, "PATTERN-cause": 1, "Followup": 1, "Program": 1, "Linked": 1, "Fan": 1, "Far": 2}
    # causal edges first, then typed relations, then plain links, then backlinks
    assert order[1:6] == ["Followup", "PATTERN-cause", "Program", "Linked", "Fan"]
    via = {item.title: item.via for item in built.items}
    assert via["PATTERN-cause"] == "causes (inverse)"
    assert via["Followup"] == "causes"
    assert via["Program"] == "part_of"
    assert via["Linked"] == "links to"
    assert via["Fan"] == "linked from"
    assert built.missing == ("Not Written Yet",)
    assert built.omitted == ()
    assert "status: active" in built.text
    assert "Action: Do the thing." in built.text
    assert "reached: causes (inverse) from Hub (distance 1)" in built.text


def test_depth_limits_the_walk(corpus: Corpus) -> None:
    assert [item.title for item in build_context(corpus, "Hub", depth=0).items] == ["Hub"]
    assert "Far" not in [item.title for item in build_context(corpus, "Hub", depth=1).items]


@pytest.mark.parametrize("budget", [100, 150, 300, 600, 2000])
def test_the_text_fits_the_budget_and_what_did_not_fit_is_listed(corpus: Corpus, budget: int) -> None:
    built = build_context(corpus, "Hub", depth=2, budget=budget)
    assert len(built.text) <= budget * CHARS_PER_TOKEN
    assert built.used_tokens <= budget
    assert built.items[0].title == "Hub"
    found = {item.path for item in built.items} | set(built.omitted)
    assert len(found) == 7  # everything within two hops is either packed or named
    if built.omitted:
        assert built.budget_tokens < 2000


def test_a_small_budget_truncates_and_omits(corpus: Corpus) -> None:
    long_body = "# Hub\n\n" + "A long paragraph about the hub. " * 400 + "\n\nSee [[Linked]].\n"
    (corpus.vault.root / "notes" / "Hub.md").write_text(long_body, encoding="utf-8")
    built = build_context(corpus, "Hub", depth=1, budget=200)
    assert built.items[0].truncated
    assert built.items[0].text.endswith("...")
    assert len(built.text) <= 200 * CHARS_PER_TOKEN


def test_episode_summary_lists_decisions_and_skips_local_ids(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    source = DATA / "EPISODE-2026-01-21-session-42.md"
    (vault.root / "episodes" / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    built = build_context(Corpus(vault), "EPISODE-2026-01-21-session-42", depth=1, budget=1000)
    assert "- decision d001: Episode Storage Format -> Markdown notes (success)" in built.text
    assert "outcome: success; task: Implement episodic memory architecture" in built.text
    assert "d002" not in built.missing  # [[d002]] is the episode's own decision, not a broken link
    assert "ADR-018 Episodic Memory Architecture" in built.missing


def test_an_untitled_decision_shows_what_it_chose(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    (vault.root / "episodes" / "EPISODE-x.md").write_text(
        "---\ntitle: EPISODE-x\ntype: episode\noutcome: success\n---\n\n## Decisions\n\n### d001:\n- **Chosen**: Retry once\n"
        "- **Outcome**: success\n",
        encoding="utf-8",
    )
    built = build_context(Corpus(vault), "EPISODE-x", depth=0, budget=1000)
    assert "- decision d001: Retry once (success)" in built.text and "->" not in built.text


def test_sees_edits_made_on_disk(corpus: Corpus) -> None:
    assert "Program" in [item.title for item in build_context(corpus, "Far", depth=3).items]
    (corpus.vault.root / "notes" / "Linked.md").write_text(
        "# Linked\n\nNo links any more, longer text now.\n", encoding="utf-8"
    )
    assert [item.title for item in build_context(corpus, "Far", depth=3).items] == ["Far"]


def test_bad_input_is_refused(corpus: Corpus) -> None:
    with pytest.raises(NoteNotFound, match="no note named 'Nowhere'"):
        build_context(corpus, "Nowhere")
    with pytest.raises(InvalidInput, match="depth must be between 0 and 5"):
        build_context(corpus, "Hub", depth=6)
    with pytest.raises(InvalidInput, match="budget must be between 100 and"):
        build_context(corpus, "Hub", budget=10)


def test_cli_context_build(corpus: Corpus) -> None:
    root = str(corpus.vault.root)
    text = run_brain("context", "build", "Hub", "--depth", "1", "--vault", root)
    assert text.exit_code == 0, text.output
    assert text.output.startswith("Context for Hub (notes/Hub.md)")
    as_json = run_brain("context", "build", "Hub", "--budget", "300", "--json", "--vault", root)
    data = json.loads(as_json.stdout)
    assert data["start"] == "notes/Hub.md" and data["budget_tokens"] == 300
    assert data["items"][0]["title"] == "Hub"
    refused = run_brain("context", "build", "Hub", "--depth", "9", "--vault", root)
    assert refused.exit_code == 2 and refused.stderr == "error: --depth: 9 is out of range; give 0 to 5\n"
