"""`brain causal chain|why|stats`: ancestry over caused_by (DAGs, cycles, broken steps), answers from evidence, exact figures."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.causal.chains import build_chain, caused_by_graph
from brain.memory.causal.stats import causality_stats
from brain.memory.corpus import Corpus
from brain.vault.init import init_vault
from tests.conftest import write


def context(vault, title, kind, time, body, causes=(), rationale=None, project="auth"):
    cause = ""
    if len(causes) == 1:
        cause = f"caused_by: '[[{causes[0]}]]'\n"
    elif causes:
        cause = "caused_by:\n" + "".join(f"  - '[[{name}]]'\n" for name in causes)
    why = f"rationale: {rationale}\n" if rationale else ""
    kind_line = f"action_type: {kind}\n" if kind else ""
    write(
        vault,
        f"contexts/{title}.md",
        f"---\ntitle: {title}\ntype: context\nproject: {project}\n{kind_line}created: '{time}'\n{cause}{why}---\n\n# {title}\n\n{body}\n",
    )


EPISODE = """\
---
title: EPISODE-2026-03-03-session-02
type: episode
task: Move login to PKCE
date: '2026-03-03T09:00:00Z'
outcome: success
caused_by: "[[Decision]]"
---

# EPISODE-2026-03-03-session-02

## Decisions

### d001: Proof Method
- **Chosen**: S256 only
- **Rationale**: plain offers no protection
- **Outcome**: success
"""
FACT = """\
---
title: FACT-token-ttl
type: fact
subject: token-ttl
value: {seconds: 900}
valid_from: '2026-03-17T00:00:00Z'
---

# FACT-token-ttl

Tokens live 15 minutes.
"""


@pytest.fixture
def chain_vault(vault):
    context(
        vault, "Question", "conversation", "2026-03-01T10:00:00Z", "User asks how to log in.", rationale="Marco asked"
    )
    context(
        vault,
        "Research",
        "research",
        "2026-03-01T11:00:00Z",
        "Reading the RFCs.",
        ["Question"],
        "The password grant is out",
    )
    context(
        vault, "Decision", "decision", "2026-03-01T12:00:00Z", "Use PKCE.", ["Research"], "PKCE protects public clients"
    )
    context(
        vault,
        "Edit",
        "file_edit",
        "2026-03-02T09:00:00Z",
        "Edited the client config.",
        ["Decision", "Research"],
        "The decision needs it",
    )
    context(vault, "Run", "tool_use", "2026-03-02T10:00:00Z", "Ran the conformance suite.", ["Edit"])
    write(vault, "episodes/EPISODE-2026-03-03-session-02.md", EPISODE)
    write(vault, "facts/FACT-token-ttl.md", FACT)
    context(
        vault,
        "Shorten tokens",
        "decision",
        "2026-03-17T10:00:00Z",
        "Tokens now live 15 minutes, see [[FACT-token-ttl]].",
        ["EPISODE-2026-03-03-session-02"],
        "A leaked token is usable for its whole lifetime",
    )
    return vault


def test_chain_prints_the_whole_ancestry_root_first_with_depth(brain, chain_vault):
    result = brain("causal", "chain", "Run")
    assert result.exit_code == 0
    assert (
        result.output
        == """\
Causal chain of Run: 5 notes, root causes first

1. conversation (2026-03-01T10:00:00Z) Question  [depth 3]
   User asks how to log in.
  2. research (2026-03-01T11:00:00Z) Research  [depth 2]
     Reading the RFCs.
    3. decision (2026-03-01T12:00:00Z) Decision  [depth 2]
       Use PKCE.
      4. file_edit (2026-03-02T09:00:00Z) Edit  [depth 1]
         caused by: 2. Research, 3. Decision
         Edited the client config.
        5. tool_use (2026-03-02T10:00:00Z) Run  [depth 0]
           Ran the conformance suite.

root causes: Question
"""
    )


def test_chain_json_has_every_step_once_with_its_causes(brain, chain_vault):
    data = json.loads(brain("causal", "chain", "contexts/Run.md", "--json").output)
    assert data["direction"] == "backward" and data["start"] == "contexts/Run.md" and data["max_depth"] == 20
    assert [(step["title"], step["depth"], step["level"]) for step in data["steps"]] == [
        ("Question", 3, 0),
        ("Research", 2, 1),
        ("Decision", 2, 2),
        ("Edit", 1, 3),
        ("Run", 0, 4),
    ]
    edit = data["steps"][3]
    assert edit["caused_by"] == ["contexts/Decision.md", "contexts/Research.md"]
    assert (
        edit["action_type"] == "file_edit"
        and edit["rationale"] == "The decision needs it"
        and edit["time"] == "2026-03-02T09:00:00Z"
    )
    assert (
        data["roots"] == ["contexts/Question.md"]
        and data["cycles"] == []
        and data["broken"] == []
        and data["cut"] == []
    )


def test_forward_gives_what_a_note_led_to_across_note_types(brain, chain_vault):
    data = json.loads(brain("causal", "chain", "Decision", "--forward", "--json").output)
    assert data["direction"] == "forward"
    assert [step["title"] for step in data["steps"]] == [
        "Decision",
        "Edit",
        "EPISODE-2026-03-03-session-02",
        "Run",
        "Shorten tokens",
    ]
    text = brain("causal", "chain", "Decision", "--forward").output
    assert text.startswith(
        "What Decision led to: 5 notes, in order\n\n1. decision (2026-03-01T12:00:00Z) Decision  [depth 0]\n"
    )
    assert "  2. file_edit (2026-03-02T09:00:00Z) Edit  [depth 1]\n" in text
    assert (
        "  3. episode (2026-03-03T09:00:00Z) EPISODE-2026-03-03-session-02  [depth 1]\n     caused by: 1. Decision\n"
        in text
    )


def test_broken_causes_are_steps_and_the_walk_goes_on(brain, chain_vault):
    context(chain_vault, "Follow-up", "decision", "2026-03-05T10:00:00Z", "Next steps.", ["Nowhere", "Decision"])
    result = brain("causal", "chain", "Follow-up")
    assert (
        "\n1. broken: [[Nowhere]] is not a note (depth 1)\n2. conversation (2026-03-01T10:00:00Z) Question  [depth 3]\n"
        in result.output
    )  # the rest of the ancestry is there
    assert (
        "broken: caused_by 'Nowhere' in contexts/Follow-up.md matches no note; the walk went on with the causes that exist\n"
        in result.output
    )
    data = json.loads(brain("causal", "chain", "Follow-up", "--json").output)
    missing = [step for step in data["steps"] if step["broken"]]
    assert missing == [
        {
            "node": "missing:Nowhere",
            "path": None,
            "title": "Nowhere",
            "type": "missing",
            "action_type": None,
            "time": None,
            "summary": "",
            "rationale": None,
            "depth": 1,
            "level": 0,
            "caused_by": [],
            "broken": True,
        }
    ]
    assert data["steps"][-1]["caused_by"] == ["contexts/Decision.md", "missing:Nowhere"]
    assert data["roots"] == ["contexts/Question.md"]


def test_a_cycle_stops_the_walk_and_is_named(brain, vault):
    context(vault, "A", "decision", "2026-03-01T10:00:00Z", "a", ["C"])
    context(vault, "B", "research", "2026-03-01T11:00:00Z", "b", ["A"])
    context(vault, "C", "file_edit", "2026-03-01T12:00:00Z", "c", ["B"])
    context(vault, "D", "tool_use", "2026-03-01T13:00:00Z", "d", ["C"])
    result = brain("causal", "chain", "D")
    assert result.exit_code == 0
    assert result.output.endswith("cycle: A -> B -> C -> A (the walk stopped where it closes)\n")
    data = json.loads(brain("causal", "chain", "D", "--json").output)
    assert [step["title"] for step in data["steps"]] == ["A", "B", "C", "D"]
    assert data["cycles"] == [["contexts/A.md", "contexts/B.md", "contexts/C.md"]]
    assert data["roots"] == []
    itself = brain("causal", "chain", "A", "--forward", "--json")
    assert json.loads(itself.output)["cycles"] == [["contexts/A.md", "contexts/B.md", "contexts/C.md"]]


def test_self_cause_is_a_cycle_of_one(brain, vault):
    context(vault, "Selfish", "decision", "2026-03-01T10:00:00Z", "me", ["Selfish"])
    assert brain("causal", "chain", "Selfish").output.endswith(
        "cycle: Selfish -> Selfish (the walk stopped where it closes)\n"
    )
    assert json.loads(brain("causal", "stats", "--json").output)["cycles"] == [["contexts/Selfish.md"]]


def test_max_depth_bounds_the_walk_and_says_where(brain, chain_vault):
    result = brain("causal", "chain", "Run", "--max-depth", "2")
    assert result.output.startswith(
        "Causal chain of Run: 4 notes, root causes first\n\n1. research (2026-03-01T11:00:00Z) Research  [depth 2]\n"
    )
    assert result.output.endswith("cut at the maximum depth (2): further causes of Research not shown\n")
    assert "  2. decision (2026-03-01T12:00:00Z) Decision  [depth 2]\n" in result.output
    assert brain("causal", "chain", "Run", "--max-depth", "0").exit_code == 2
    with pytest.raises(Exception, match="max depth must be between 1 and 1000"):
        build_chain(Corpus(chain_vault), "Run", max_depth=1001)


def test_deep_branching_chain(vault):
    """Depth 60 with a second parent at every step: every note once, levels follow the longest run."""
    context(vault, "n0", "conversation", "2026-01-01T00:00:00Z", "start")
    context(vault, "n1", "research", "2026-01-01T00:01:00Z", "one", ["n0"])
    for number in range(2, 61):
        context(
            vault,
            f"n{number}",
            "decision",
            f"2026-01-01T{number // 60:02d}:{number % 60:02d}:30Z",
            "x",
            [f"n{number - 1}", f"n{number - 2}"],
        )
    corpus = Corpus(vault)
    chain = build_chain(corpus, "n60", max_depth=100)
    assert [step.title for step in chain.steps] == [f"n{number}" for number in range(61)]
    assert [step.level for step in chain.steps] == list(range(61))
    assert chain.steps[0].depth == 30  # the shortest way back takes the second parent each time
    assert build_chain(corpus, "n60", max_depth=100) is chain  # cached until a note changes
    assert len(build_chain(corpus, "n60", max_depth=20).steps) == 41


def test_unknown_note_is_a_one_line_error(brain, chain_vault):
    for command in (("causal", "chain", "Nope"), ("causal", "why", "Nope"), ("causal", "chain", "Nope", "--forward")):
        result = brain(*command)
        assert result.exit_code == 1
        assert result.output == "error: no note named 'Nope'; check the name or use its path\n"


def test_why_answers_from_the_notes_with_evidence(brain, chain_vault):
    result = brain("causal", "why", "Shorten tokens")
    assert (
        result.output
        == """\
Why Shorten tokens (contexts/Shorten tokens.md)

Action type: decision
Rationale: A leaked token is usable for its whole lifetime
Summary: Tokens now live 15 minutes, see [[FACT-token-ttl]].

Caused by (root first):
- conversation Question (contexts/Question.md): Marco asked
- research Research (contexts/Research.md): The password grant is out
- decision Decision (contexts/Decision.md): PKCE protects public clients
- episode EPISODE-2026-03-03-session-02 (episodes/EPISODE-2026-03-03-session-02.md): Move login to PKCE

Decisions behind it (nearest first):
- EPISODE-2026-03-03-session-02 d001: Proof Method -> S256 only (success)  [on the chain]
    why: plain offers no protection

Facts cited:
- FACT-token-ttl (facts/FACT-token-ttl.md): token-ttl = {seconds: 900} (valid from 2026-03-17T00:00:00Z)  [cited by Shorten tokens]
"""
    )


def test_why_invents_nothing(brain, chain_vault):
    """Every value in the answer is a value of a note; what a note does not say is reported as missing."""
    context(chain_vault, "Bare", None, "2026-03-09T10:00:00Z", "No metadata here.")
    text = brain("causal", "why", "Bare").output
    assert "Action type: none recorded (context note)\nRationale: none recorded\nSummary: No metadata here.\n" in text
    assert "Caused by: nothing recorded (a root cause)" in text
    data = json.loads(brain("causal", "why", "Run", "--json").output)
    sources = {path.name: path.read_text() for path in (chain_vault.root / "contexts").glob("*.md")}
    assert data["rationale"] is None and data["action_type"] == "tool_use"
    for step in data["chain"]["steps"]:
        text = sources[step["path"].split("/")[-1]]
        for value in (step["summary"], step["rationale"], step["time"], step["action_type"]):
            assert value is None or value in text
    assert data["decisions"] == [] and data["facts"] == []


def test_stats_are_exact_over_every_note(brain, chain_vault):
    context(chain_vault, "Orphan decision", "decision", "2026-03-08T10:00:00Z", "Nobody said why.")
    context(chain_vault, "Odd", "deploy", "2026-03-08T11:00:00Z", "Shipped.", ["Nowhere"], project="ops")
    data = json.loads(brain("causal", "stats", "--json").output)
    assert data == {
        "project": None,
        "notes": 10,
        "with_caused_by": 7,
        "causes": 5,
        "linked": 8,
        "roots": 1,
        "action_types": {"conversation": 1, "decision": 3, "file_edit": 1, "tool_use": 1, "research": 1, "deploy": 1},
        "unknown_action_types": ["deploy"],
        "orphans": ["contexts/Orphan decision.md"],
        "chains": 3,
        "average_chain_length": 3.67,
        "longest_chain": 5,
        "longest_chain_end": "contexts/Run.md",
        "cycles": [],
        "broken": [{"source": "contexts/Odd.md", "name": "Nowhere", "problem": "matches no note"}],
    }
    scoped = json.loads(brain("causal", "stats", "ops", "--json").output)
    assert (scoped["notes"], scoped["with_caused_by"], scoped["roots"], scoped["chains"], scoped["longest_chain"]) == (
        1,
        1,
        0,
        1,
        1,
    )
    text = brain("causal", "stats", "auth").output
    assert text.startswith("Causality in project auth: 7 notes\n  with caused_by:       5\n")
    assert "  action types:         conversation 1, decision 3, file_edit 1, tool_use 1, research 1\n" in text
    assert "    orphan: contexts/Orphan decision.md\n" in text
    unknown = brain("causal", "stats", "nope")
    assert (
        unknown.exit_code == 1 and unknown.output == "error: no note belongs to project 'nope'; projects: auth, ops\n"
    )


def test_doctor_reports_broken_causes_unknown_action_types_and_cycles(brain, vault):
    context(vault, "A", "decision", "2026-03-01T10:00:00Z", "a", ["B"])
    context(vault, "B", "research", "2026-03-01T11:00:00Z", "b", ["A"])
    context(vault, "Odd", "deploy", "2026-03-01T12:00:00Z", "c", ["Nowhere"])
    findings = json.loads(brain("doctor", "--json").output)["findings"]
    kinds = sorted((item["kind"], item["path"], item["message"]) for item in findings)
    assert ("broken-caused-by", "contexts/Odd.md", "caused_by 'Nowhere' matches no note") in kinds
    assert (
        "unknown-action-type",
        "contexts/Odd.md",
        "action_type 'deploy' is not one of conversation, decision, file_edit, tool_use, research",
    ) in kinds
    assert next(kind for kind in kinds if kind[0] == "cycle")[2] in (
        "causal cycle: A -> B -> A",
        "causal cycle: B -> A -> B",
    )
    assert not [kind for kind in kinds if kind[0] == "broken-link"]  # the broken cause is reported once, as a cause


def test_graph_export_includes_caused_by_edges(brain, chain_vault):
    data = json.loads(brain("graph", "export", "--format", "json").output)
    edges = {(edge["source"], edge["target"], edge["origin"]) for edge in data["edges"]}
    assert ("contexts/Research.md", "contexts/Edit.md", "caused_by") in edges
    assert ("contexts/Decision.md", "episodes/EPISODE-2026-03-03-session-02.md", "caused_by") in edges
    assert "Question" in brain("graph", "export").output


def test_chains_come_from_the_catalog_and_follow_edits(chain_vault):
    index_vault(open_index(chain_vault), embed=False)
    corpus = Corpus(chain_vault)
    assert next(step.title for step in build_chain(corpus, "Run").steps) == "Question"
    graph = caused_by_graph(corpus)
    assert caused_by_graph(corpus) is graph  # cached while nothing changes
    before = causality_stats(corpus)
    assert causality_stats(corpus) is before
    context(chain_vault, "Research", "research", "2026-03-01T11:00:00Z", "Reading the RFCs.", [], "No cause any more")
    chain = build_chain(corpus, "Run")
    assert [step.title for step in chain.steps] == ["Research", "Decision", "Edit", "Run"]
    after = causality_stats(corpus)
    assert (before.roots, before.with_caused_by, before.linked) == (1, 6, 7)
    assert (after.roots, after.with_caused_by, after.linked) == (
        1,
        5,
        6,
    )  # Research is the root now; Question is linked to nothing
    assert caused_by_graph(corpus) is not graph


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), size=st.integers(min_value=1, max_value=9))
def test_any_graph_gives_every_ancestor_once_causes_first(tmp_path_factory, data, size):
    """Random caused_by links, cycles and missing names included: the chain is the exact ancestry,
    each step once, every cause printed before what it caused, depth the fewest hops, cycles named."""
    vault, _ = init_vault(tmp_path_factory.mktemp("graph") / "vault")
    names = [f"n{number}" for number in range(size)]
    parents = {name: data.draw(st.lists(st.sampled_from([*names, "ghost"]), max_size=3, unique=True)) for name in names}
    for name, causes in parents.items():
        context(vault, name, "decision", "2026-01-01T00:00:00Z", name, causes)
    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    graph.add_edges_from((cause, name) for name, causes in parents.items() for cause in causes)
    start = data.draw(st.sampled_from(names))
    chain = build_chain(Corpus(vault), start, max_depth=50)
    titles = [step.title for step in chain.steps]
    assert sorted(titles) == sorted(nx.ancestors(graph, start) | {start})
    place = {step.node: index for index, step in enumerate(chain.steps)}
    for step in chain.steps:
        assert step.depth == nx.shortest_path_length(graph, step.title, start)
        for cause in step.caused_by:
            assert place[cause] < place[step.node] and chain.steps[place[cause]].level < step.level
    reachable = graph.subgraph(nx.ancestors(graph, start) | {start})
    assert bool(chain.cycles) == (not nx.is_directed_acyclic_graph(reachable))
    for cycle in chain.cycles:
        loop = [node.removeprefix("contexts/").removesuffix(".md") for node in cycle]
        assert all(reachable.has_edge(a, b) for a, b in zip(loop, loop[1:] + loop[:1], strict=True))
    assert any(step.broken for step in chain.steps) == ("ghost" in reachable)


def test_a_root_is_a_chain_of_one(brain, chain_vault):
    assert brain("causal", "chain", "Question").output == (
        "Causal chain of Question: 1 note, root causes first\n\n"
        "1. conversation (2026-03-01T10:00:00Z) Question  [depth 0]\n   User asks how to log in.\n\nroot causes: Question\n"
    )
    assert brain("causal", "chain", "Run", "--forward").output.startswith("What Run led to: 1 note, in order\n")
