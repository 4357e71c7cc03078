"""Causal paths (fewest hops and most reliable), cycles, broken and ambiguous names, export."""

import io
import json

import networkx as nx
import pytest

from brain.memory.causal.graph import find_path
from brain.memory.corpus import Corpus
from tests.conftest import write


def pattern(vault, title, rate, occurrences, *edges, extra=""):
    lines = "\n".join(
        f"- {kind} [[{target}]]" + (f" (weight: {weight})" if weight is not None else "")
        for kind, target, weight in edges
    )
    write(
        vault,
        f"patterns/{title}.md",
        f"---\ntitle: {title}\ntype: pattern\nsuccess_rate: {rate}\noccurrences: {occurrences}\n---\n# {title}\n\n## Causal Relationships\n{lines}\n{extra}",
    )


@pytest.fixture
def graph_vault(vault):
    pattern(
        vault,
        "PATTERN-a",
        0.9,
        10,
        ("enables", "PATTERN-b", 0.9),
        ("causes", "PATTERN-x", 0.1),
        ("correlates", "Nowhere", None),
    )
    pattern(vault, "PATTERN-b", 0.9, 10, ("causes", "PATTERN-c", 0.9))
    pattern(vault, "PATTERN-c", 0.9, 10, ("prevents", "PATTERN-d", 0.9))
    pattern(vault, "PATTERN-x", 0.2, 5, ("causes", "PATTERN-d", 0.3))
    pattern(vault, "PATTERN-d", 0.5, 2, ("causes", "PATTERN-a", 0.5))  # closes a cycle
    write(vault, "contexts/c1.md", "---\ntitle: Question\ntype: context\naction_type: conversation\n---\nUser asks.\n")
    write(vault, "contexts/c2.md", '---\ntitle: Research\ntype: context\ncaused_by: "[[Question]]"\n---\nReading.\n')
    write(vault, "contexts/c3.md", '---\ntitle: Decision\ntype: context\ncaused_by: "[[contexts/c2]]"\n---\nDecided.\n')
    return vault


def test_fewest_hops_and_most_reliable_paths(brain, graph_vault):
    short = json.loads(brain("pattern", "path", "PATTERN-a", "PATTERN-d", "--json").output)["path"]
    assert short["titles"] == ["PATTERN-a", "PATTERN-x", "PATTERN-d"]
    reliable = json.loads(brain("pattern", "path", "PATTERN-a", "PATTERN-d", "--weighted", "--json").output)["path"]
    assert reliable["titles"] == ["PATTERN-a", "PATTERN-b", "PATTERN-c", "PATTERN-d"]
    assert [hop["type"] for hop in reliable["hops"]] == ["enables", "causes", "prevents"]
    assert reliable["reliability"] > short["reliability"]
    text = brain("pattern", "path", "PATTERN-a", "PATTERN-d", "--weighted").output
    assert "--enables (weight 0.9)--> PATTERN-b" in text and "3 hops" in text


def test_weighted_path_respects_max_depth(graph_vault):
    corpus = Corpus(graph_vault)
    bounded = find_path(corpus, "PATTERN-a", "PATTERN-d", max_depth=2, weighted=True)
    assert bounded.titles == ("PATTERN-a", "PATTERN-x", "PATTERN-d")
    assert find_path(corpus, "PATTERN-b", "PATTERN-d", max_depth=1) is None


def test_caused_by_frontmatter_makes_a_chain(brain, graph_vault):
    found = json.loads(brain("pattern", "path", "Question", "Decision", "--json").output)
    assert found["path"]["titles"] == ["Question", "Research", "Decision"]


def test_no_path_says_so_and_exits_1(brain, graph_vault):
    result = brain("pattern", "path", "Decision", "Question")
    assert result.exit_code == 1
    assert "no causal path" in result.output and "the other way round" in result.output
    too_deep = brain("pattern", "path", "PATTERN-a", "PATTERN-d", "--max-depth", "11")
    assert too_deep.exit_code == 2 and too_deep.stderr == "error: --max-depth: 11 is out of range; give 1 to 10\n"


def test_unknown_and_ambiguous_names(brain, graph_vault):
    unknown = brain("pattern", "path", "PATTERN-zzz", "PATTERN-d")
    assert unknown.exit_code == 1 and "no note named 'PATTERN-zzz'" in unknown.output
    write(graph_vault, "notes/dup1.md", "---\ntitle: Twin\n---\n")
    write(graph_vault, "other/dup2.md", "---\ntitle: Twin\n---\n")
    ambiguous = brain("pattern", "path", "Twin", "PATTERN-d")
    assert ambiguous.exit_code == 1
    assert "'Twin' matches 2 notes" in ambiguous.output and "notes/dup1.md" in ambiguous.output


def test_paths_to_missing_notes_and_broken_links_reported(brain, graph_vault):
    found = json.loads(brain("pattern", "path", "PATTERN-d", "Nowhere", "--json").output)
    assert found["path"]["titles"] == ["PATTERN-d", "PATTERN-a", "Nowhere"]
    doctor = brain("doctor", "--json")
    findings = json.loads(doctor.output)["findings"]
    assert {"kind": "broken-link", "path": "patterns/PATTERN-a.md"}.items() <= next(
        f for f in findings if f["kind"] == "broken-link"
    ).items()
    assert any(f["kind"] == "cycle" for f in findings)


def test_big_cycle_does_not_hang(vault):
    for number in range(300):
        pattern(vault, f"P{number}", 0.5, 2, ("causes", f"P{(number + 1) % 300}", 0.5))
    corpus = Corpus(vault)
    assert find_path(corpus, "P0", "P150", max_depth=10) is None
    assert find_path(corpus, "P0", "P150", max_depth=10, weighted=True) is None
    assert len(find_path(corpus, "P0", "P9", max_depth=10).hops) == 9


def test_graph_export_formats(brain, graph_vault):
    mermaid = brain("graph", "export").output
    assert mermaid.startswith("```mermaid\nflowchart LR\n")
    assert "|enables 0.9|" in mermaid and "Nowhere" in mermaid
    graphml = brain("graph", "export", "--format", "graphml").output
    graph = nx.read_graphml(io.BytesIO(graphml.encode()))
    assert graph.has_edge("patterns/PATTERN-a.md", "patterns/PATTERN-b.md")
    data = json.loads(brain("graph", "export", "--format", "json").output)
    edges = {(e["source"], e["target"], e["type"]) for e in data["edges"]}
    assert ("contexts/c1.md", "contexts/c2.md", "causes") in edges
    dot = brain("graph", "export", "--format", "dot")
    assert dot.exit_code == 2 and dot.stderr == "error: --format: 'dot' is not one of: mermaid, graphml, json\n"
