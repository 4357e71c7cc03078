"""`brain import ai-agents` / `brain export ai-agents` on the real ai-agents data (v1, transitional, v2).

The fixtures are the files people have on disk, schema deviations included. Every test works on
real files in a temporary vault; the CLI is driven through typer's CliRunner.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from brain.importers.ai_agents.export import export_ai_agents
from brain.importers.ai_agents.importer import import_ai_agents
from brain.importers.ai_agents.verify import verify_ai_agents
from brain.markdown.parse import parse_note
from brain.vault.init import init_vault
from brain.vault.vault import Vault
from tests.conftest import AI_AGENTS as FIXTURES
from tests.conftest import run_brain

GENERATIONS = ("v1", "transitional", "v2")


def canonical(value) -> str:
    """JSON text that ignores key order but tells 1 from 1.0 and true from 1."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def without_updated(graph: dict) -> dict:
    return {key: value for key, value in graph.items() if key != "updated"}


brain = run_brain


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(path.relative_to(root)): (path.stat().st_mtime_ns, path.read_bytes())
        for path in root.rglob("*")
        if path.is_file()
    }


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """Each generation imported into its own vault and exported again (done once: v2 is 2,515 notes)."""
    done = {}
    for generation in GENERATIONS:
        root = tmp_path_factory.mktemp(generation)
        vault, _ = init_vault(root / "vault")
        result = import_ai_agents(vault, FIXTURES / generation)
        exported = export_ai_agents(vault, root / "out")
        done[generation] = (vault, result, root / "out", exported)
    return done


@pytest.fixture
def fresh(tmp_path) -> Vault:
    vault, _ = init_vault(tmp_path / "vault")
    return vault


# ---------------------------------------------------------------- round trip


@pytest.mark.parametrize("generation", GENERATIONS)
def test_import_then_export_gives_back_every_fixture_file(imported, generation):
    _vault, result, out, exported = imported[generation]
    assert result.skipped == ()
    files = sorted((FIXTURES / generation).rglob("*.json"))
    assert files
    for source in files:
        original = json.loads(source.read_text(encoding="utf-8"))
        if source.name == "causal-graph.json":
            back = json.loads((out / "causality" / "causal-graph.json").read_text(encoding="utf-8"))
            assert canonical(without_updated(back)) == canonical(without_updated(original)), source
            assert isinstance(back["updated"], str)
        else:
            back = json.loads((out / "episodes" / source.name).read_text(encoding="utf-8"))
            assert canonical(back) == canonical(original), source
    assert exported.warnings == ()


def test_counts_and_note_kinds(imported):
    vault, result, _, _ = imported["v2"]
    assert result.counts == {"episodes": 20, "graphs": 1, "nodes": 2515, "edges": 79, "patterns": 6, "kept_verbatim": 0}
    assert len(list((vault.root / "causal").glob("*.md"))) == 2515 + 1  # the nodes, and the graph note
    assert len(list((vault.root / "patterns").glob("*.md"))) == 6
    assert len(list((vault.root / "episodes").glob("*.md"))) == 20


def test_node_note_keeps_the_label_exactly_and_edges_as_causal_lines(imported):
    vault, *_ = imported["v2"]
    graph = json.loads((FIXTURES / "v2" / "causal-graph.json").read_text(encoding="utf-8"))
    edge = graph["edges"][0]
    source = next(node for node in graph["nodes"] if node["id"] == edge["source"])
    target = next(node for node in graph["nodes"] if node["id"] == edge["target"])
    texts = [p.read_text(encoding="utf-8") for p in (vault.root / "causal").glob("*.md")]
    note = parse_note(next(text for text in texts if f"\nnode_id: {source['id']}\n" in text))
    target_note = parse_note(next(text for text in texts if f"\nnode_id: {target['id']}\n" in text))
    assert note.type == "causal"
    assert note.frontmatter["label"] == source["label"]
    assert note.frontmatter["node_type"] == source["type"]
    assert note.frontmatter["episodes"] == source["episodes"]
    [relation] = [r for r in note.causal_relations if r.target == target_note.title]
    assert (relation.type, relation.weight, relation.evidence) == (edge["type"], edge["weight"], edge["evidence_count"])
    kept = note.frontmatter["ai_agents"]["edges"][f"{edge['type']} {edge['target']}"]
    assert kept["contributions"] == edge["contributions"]  # keys with NUL characters survive YAML
    assert any(key.startswith("\x00legacy:") for key in kept["contributions"])


def test_v2_episode_keeps_unknown_top_level_fields_in_frontmatter(imported):
    vault, *_ = imported["v2"]
    note = parse_note((vault.root / "episodes" / "EPISODE-2026-07-07-session-2608.md").read_text(encoding="utf-8"))
    assert note.frontmatter["ai_agents"]["fields"] == {
        "causal_order_version": 2,
        "migration_note": "relinked by migrate_causal_version.py on 2026-08-02: edges 0 -> 1",
    }
    assert note.frontmatter["date"] == "2026-07-07T00:00:00+00:00"
    assert "6. [2026-07-07T00:00:00+00:00] e006 (commit): Commit: 6720c1da61 (leads_to: [[e002]])" in note.text


# ---------------------------------------------------------------- re-import and updates


def test_reimport_changes_nothing(imported):
    vault, *_ = imported["v2"]
    before = snapshot(vault.root)
    result = brain("import", "ai-agents", str(FIXTURES / "v2"), "--vault", str(vault.root))
    assert result.exit_code == 0, result.output
    assert "0 note(s) created, 0 updated, 2542 unchanged" in result.stdout
    assert snapshot(vault.root) == before


def test_newer_data_updates_values_and_keeps_prose(tmp_path, fresh):
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / "v1", data)
    (data / "episodes" / "extra.json").write_bytes(
        (FIXTURES / "v2" / "episodes" / "episode-2026-07-07-session-2608.json").read_bytes()
    )
    assert brain("import", "ai-agents", str(data), "--vault", str(fresh.root)).exit_code == 0
    episode_path = fresh.root / "episodes" / "EPISODE-2026-07-07-session-2608.md"
    text = episode_path.read_text(encoding="utf-8")
    episode_path.write_text(
        text.replace("## Context\n", "## Context\nWhy this session mattered, in my words.\n"), encoding="utf-8"
    )
    graph = json.loads((data / "causal-graph.json").read_text(encoding="utf-8"))
    source = next(node for node in graph["nodes"] if node["id"] == graph["edges"][0]["source"])
    node_path = next(
        p for p in (fresh.root / "causal").glob("*.md") if f"node_id: {source['id']}\n" in p.read_text(encoding="utf-8")
    )
    node_path.write_text(
        node_path.read_text(encoding="utf-8") + "\n## Notes\nChecked this by hand on 2026-03-01.\n", encoding="utf-8"
    )

    episode = json.loads((data / "episodes" / "extra.json").read_text(encoding="utf-8"))
    episode["task"] = "A newer task text"
    episode["events"][0]["content"] = "Diagnosed again"
    episode["lessons"] = ["A lesson added later"]
    (data / "episodes" / "extra.json").write_text(json.dumps(episode), encoding="utf-8")
    graph["edges"][0]["weight"] = 0.9
    graph["edges"][0]["evidence_count"] = 7
    source["label"] = source["label"] + " (relabelled)"
    graph["patterns"][0]["success_rate"] = 0.25
    (data / "causal-graph.json").write_text(json.dumps(graph), encoding="utf-8")

    result = brain("import", "ai-agents", str(data), "--vault", str(fresh.root))
    assert result.exit_code == 0, result.output
    assert "0 note(s) created, 3 updated" in result.stdout  # the episode, the node, the pattern, and nothing else

    text = episode_path.read_text(encoding="utf-8")
    assert "## Context\nWhy this session mattered, in my words.\n" in text
    assert "task: A newer task text" in text and "Diagnosed again" in text and "- A lesson added later" in text
    node_text = node_path.read_text(encoding="utf-8")
    assert "## Notes\nChecked this by hand on 2026-03-01.\n" in node_text
    assert "(weight: 0.9, evidence: 7)" in node_text
    assert parse_note(node_text).frontmatter["label"] == source["label"]

    out = tmp_path / "out"
    assert brain("export", "ai-agents", str(out), "--vault", str(fresh.root)).exit_code == 0
    assert canonical(json.loads((out / "episodes" / "episode-2026-07-07-session-2608.json").read_text())) == canonical(
        episode
    )
    back = json.loads((out / "causality" / "causal-graph.json").read_text(encoding="utf-8"))
    assert canonical(without_updated(back)) == canonical(without_updated(graph))


def test_edits_in_markdown_reach_the_export(tmp_path, fresh):
    source = FIXTURES / "v2" / "episodes" / "episode-2026-07-07-session-2608.json"
    assert brain("import", "ai-agents", str(source), "--vault", str(fresh.root)).exit_code == 0
    path = fresh.root / "episodes" / "EPISODE-2026-07-07-session-2608.md"
    text = path.read_text(encoding="utf-8")
    text = text.replace("- **Rationale**:\n", "- **Rationale**: the owner asked for it\n")
    path.write_text(
        text.replace("## Lessons Learned\n", "## Lessons Learned\n- Check the working tree first\n"), encoding="utf-8"
    )
    assert brain("export", "ai-agents", str(tmp_path / "out"), "--vault", str(fresh.root)).exit_code == 0
    back = json.loads((tmp_path / "out" / "episodes" / "episode-2026-07-07-session-2608.json").read_text())
    assert back["decisions"][0]["rationale"] == "the owner asked for it"
    assert back["lessons"] == ["Check the working tree first"]
    assert back["causal_order_version"] == 2


def test_null_lists_and_plain_string_decisions_come_back_as_they_were(imported):
    vault, _, out, _ = imported["v1"]
    note = parse_note((vault.root / "episodes" / "EPISODE-2026-01-05-session-318.md").read_text(encoding="utf-8"))
    assert note.frontmatter["ai_agents"] == {"decisions": {"d001": {"plain": True}, "d002": {"plain": True}}}
    assert "- **Chosen**: Adopted a Draft PR policy" in note.text
    back = json.loads((out / "episodes" / "episode-2026-01-03-session-356.json").read_text())
    assert back["decisions"] is None and back["lessons"] is None


def test_export_of_an_unchanged_vault_rewrites_nothing(imported, tmp_path):
    vault, *_ = imported["v1"]
    first = export_ai_agents(vault, tmp_path / "out", now="2026-01-01T00:00:00+00:00")
    before = snapshot(tmp_path / "out")
    second = export_ai_agents(vault, tmp_path / "out", now="2027-01-01T00:00:00+00:00")
    assert (first.episodes_written, second.episodes_written, second.episodes_unchanged) == (18, 0, 18)
    assert not second.graph_written
    assert snapshot(tmp_path / "out") == before  # the graph's `updated` moves only when the graph changed


# ---------------------------------------------------------------- verify


@pytest.mark.parametrize("generation", ("v1", "transitional"))
def test_verify_finds_no_difference_on_the_fixtures(fresh, generation):
    result = brain("import", "ai-agents", str(FIXTURES / generation), "--verify", "--vault", str(fresh.root))
    assert result.exit_code == 0, result.output
    assert "verify: no differences" in result.stdout
    assert "difference:" not in result.stdout


def test_verify_v2_graph_and_episodes(imported):
    vault, result, *_ = imported["v2"]
    assert verify_ai_agents(vault, result.sources) == []


def test_verify_reports_a_note_edited_afterwards(fresh):
    assert brain("import", "ai-agents", str(FIXTURES / "v1"), "--vault", str(fresh.root)).exit_code == 0
    node = next(p for p in (fresh.root / "causal").glob("*.md") if "node_id: n012\n" in p.read_text(encoding="utf-8"))
    node.write_text(
        node.read_text(encoding="utf-8").replace("(weight: 0.8, evidence: 1)", "(weight: 0.5, evidence: 1)"),
        encoding="utf-8",
    )
    pattern = fresh.root / "patterns" / "PATTERN-good-pattern.md"
    pattern.write_text(
        pattern.read_text(encoding="utf-8").replace("success_rate: 0.9", "success_rate: 0.7"), encoding="utf-8"
    )
    # --dry-run leaves the edits in place, so verify compares the JSON with the edited notes
    result = brain("import", "ai-agents", str(FIXTURES / "v1"), "--dry-run", "--verify", "--vault", str(fresh.root))
    assert result.exit_code == 1
    assert "edge n012 -causes-> n013 weight: JSON has 0.8, the computed graph has 0.5" in result.stdout
    assert "pattern p001 success_rate: JSON has 0.9, the computed graph has 0.7" in result.stdout
    assert "verify: 2 difference(s)" in result.stdout


# ---------------------------------------------------------------- messy input


def test_files_that_are_not_episodes_or_graphs_are_skipped_and_the_rest_imported(tmp_path, fresh):
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(FIXTURES / "v1" / "episodes" / "episode-2026-01-05-session-318.json", data)
    (data / "broken.json").write_text('{"id": "episode-x", ', encoding="utf-8")
    (data / "settings.json").write_text('{"theme": "dark"}', encoding="utf-8")
    result = brain("import", "ai-agents", str(data), "--vault", str(fresh.root))
    assert result.exit_code == 1
    assert f"skipped {data / 'broken.json'}: not JSON (" in result.stderr
    assert f"skipped {data / 'settings.json'}: a JSON object, neither an ai-agents episode" in result.stderr
    assert "2 file(s) skipped" in result.stdout
    assert (fresh.root / "episodes" / "EPISODE-2026-01-05-session-318.md").is_file()


def test_schema_deviations_of_v1_are_warnings_naming_file_and_field(fresh):
    result = brain("import", "ai-agents", str(FIXTURES / "v1" / "episodes"), "--vault", str(fresh.root))
    assert result.exit_code == 0
    episodes = FIXTURES / "v1" / "episodes"
    assert (
        f"warning: {episodes / 'episode-2026-01-03-session-356.json'}: decisions: null where a list is expected"
        in result.stderr
    )
    assert (
        f"warning: {episodes / 'episode-2026-01-03-session-356.json'}: lessons: null where a list is expected"
        in result.stderr
    )
    assert (
        f"warning: {episodes / 'episode-2026-01-05-session-318.json'}: decisions[0]: a plain string, not an object"
        in result.stderr
    )
    flagged = {
        line.split(": ")[1] for line in result.stderr.splitlines() if ": decisions" in line or ": lessons" in line
    }
    assert len(flagged) == 13  # the 13 of 18 that fail episode.schema.v1.json, as the fixtures' README says
    assert len(list((fresh.root / "episodes").glob("*.md"))) == 18


def test_transitional_graph_deviations_are_reported(fresh):
    result = brain("import", "ai-agents", str(FIXTURES / "transitional"), "--vault", str(fresh.root))
    assert result.exit_code == 0
    assert "nodes: ids of both schema generations in one file (1 sequential, 704 content hashes)" in result.stderr
    assert (
        "patterns[4].id, patterns[5].id, patterns[6].id (and 1 more): missing (the schema requires it)" in result.stderr
    )


def test_dry_run_writes_nothing(fresh):
    before = snapshot(fresh.root)
    result = brain("import", "ai-agents", str(FIXTURES / "v1"), "--dry-run", "--vault", str(fresh.root))
    assert result.exit_code == 0
    assert snapshot(fresh.root) == before
    assert "would create episodes/EPISODE-2026-01-05-session-318.md" in result.stdout
    assert "would create patterns/PATTERN-bad-pattern.md" in result.stdout
    assert "dry run, nothing written" in result.stdout and "54 new note(s)" in result.stdout
    assert "reading" not in result.output and "writing" not in result.output  # no progress bar when piped


def test_hostile_and_clashing_labels_give_safe_unique_names(tmp_path, fresh):
    labels = [
        "../../etc/passwd",
        "CON",
        "con",
        "Foo: bar",
        "foo: BAR",
        "Foo- bar",
        "",
        "...",
        "a|b#c^d[[e]]",
        "x\ny",
        "日本語" * 40,
    ]
    graph = {
        "version": "1.0",
        "updated": "2026-01-01T00:00:00Z",
        "nodes": [{"id": f"n{i:03d}", "type": "decision", "label": label} for i, label in enumerate(labels, 1)],
        "edges": [{"source": "n001", "target": "n002", "type": "causes", "weight": 0.8, "evidence_count": 2}],
        "patterns": [],
    }
    (tmp_path / "causal-graph.json").write_text(json.dumps(graph), encoding="utf-8")
    result = brain("import", "ai-agents", str(tmp_path / "causal-graph.json"), "--verify", "--vault", str(fresh.root))
    assert result.exit_code == 0, result.output
    files = [p for p in (fresh.root / "causal").glob("*.md") if p.stem != "ai-agents causal graph"]
    assert len(files) == len(labels)
    assert len({p.name.lower() for p in files}) == len(labels)
    for path in files:
        assert path.resolve().parent == (fresh.root / "causal").resolve()
        assert path.stem.lower() not in ("con", "prn", "aux", "nul") and not path.name.startswith(".")
        assert len(path.name.encode("utf-8")) <= 200
    by_id = {
        parse_note(p.read_text(encoding="utf-8")).frontmatter["node_id"]: parse_note(p.read_text(encoding="utf-8"))
        for p in files
    }
    assert [by_id[f"n{i:03d}"].frontmatter["label"] for i in range(1, len(labels) + 1)] == labels
    assert brain("export", "ai-agents", str(tmp_path / "out"), "--vault", str(fresh.root)).exit_code == 0
    back = json.loads((tmp_path / "out" / "causality" / "causal-graph.json").read_text(encoding="utf-8"))
    assert canonical(without_updated(back)) == canonical(without_updated(graph))


def test_unknown_fields_odd_values_and_orphan_items_survive(tmp_path, fresh):
    episode = {
        "session": "2026-02-02-session-7",
        "timestamp": "2026-02-02T10:00:00",
        "outcome": "done",
        "task": 42,
        "decisions": [
            {
                "id": "d001",
                "type": "design",
                "context": "c",
                "options": ["a, b", "c"],
                "chosen": "a, b",
                "effects": ["e001"],
            }
            | {"confidence": "high", "score": 0.9},
            {"id": "d001", "chosen": "same id", "context": None},
            "a plain decision",
            {"chosen": "## not a heading", "context": "  leading spaces"},
        ],
        "events": [
            {
                "id": "e001",
                "content": "two\nlines\n```",
                "caused_by": [],
                "leads_to": ["e002"],
                "_source_session": "s",
                "extra": {"k": 1},
            },
            "a plain event",
        ],
        "metrics": {"duration_minutes": None, "tool_calls": None, "errors": 1},
        "lessons": ["# heading-like", 2],
        "unknown": None,
    }
    graph = {
        "version": "1.0",
        "updated": "x",
        "top": [1],
        "nodes": [
            {"id": "n001", "type": "odd", "label": "A", "frequency": None, "weird": {"x": [None]}},
            {"id": "n001", "type": "milestone", "label": "duplicate id"},
            {"type": "milestone", "label": "no id"},
            {"id": "n002", "type": "decision", "label": "B"},
        ],
        "edges": [
            {"source": "n001", "target": "n002", "type": "causes", "weight": 1e-7, "evidence_count": 2.5},
            {"source": "n001", "target": "n002", "type": "causes", "weight": 1},
            {"source": "n001", "target": "nowhere", "type": "causes"},
            {"source": "n002", "target": "p001", "type": "blocks"},
            "not an edge",
        ],
        "patterns": [
            {"id": "p001", "name": "!!!", "trigger": None, "action": "  spaced  ", "description": "x\n## Heading\ny"},
            {"name": "no id", "trigger": "t", "action": "a", "success_rate": 1 / 3},
        ],
    }
    (tmp_path / "episode-odd.json").write_text(json.dumps(episode), encoding="utf-8")
    (tmp_path / "causal-graph.json").write_text(json.dumps(graph), encoding="utf-8")
    first = brain("import", "ai-agents", str(tmp_path), "--vault", str(fresh.root))
    assert first.exit_code == 0, first.output
    assert "kept verbatim" in first.stderr
    again = brain("import", "ai-agents", str(tmp_path), "--vault", str(fresh.root))
    assert "0 updated" in again.stdout  # even the odd notes are stable
    assert brain("export", "ai-agents", str(tmp_path / "out"), "--vault", str(fresh.root)).exit_code == 0
    back = json.loads((tmp_path / "out" / "episodes" / "episode-2026-02-02-session-7.json").read_text())
    assert canonical(back) == canonical(episode)
    back = json.loads((tmp_path / "out" / "causality" / "causal-graph.json").read_text())
    assert canonical(without_updated(back)) == canonical(without_updated(graph))
    note = (fresh.root / "episodes" / "EPISODE-2026-02-02-session-7.md").read_text(encoding="utf-8")
    assert [s.heading for s in parse_note(note).sections if s.level == 2] == [
        "Context",
        "Decisions",
        "Events Timeline",
        "Lessons Learned",
        "Relations",
    ]


def test_a_path_that_does_not_exist_is_an_error(fresh, tmp_path):
    result = brain("import", "ai-agents", str(tmp_path / "nowhere"), "--vault", str(fresh.root))
    assert result.exit_code == 2  # a path given that names nothing is a usage error
    assert "does not exist" in result.stderr


def test_an_indexed_vault_gets_the_imported_notes_into_its_catalog(fresh):
    from brain.index.engine import open_index
    from brain.index.sync.scan import scan

    assert brain("index", "--no-embed", "--vault", str(fresh.root)).exit_code == 0
    result = brain("import", "ai-agents", str(FIXTURES / "v1"), "--vault", str(fresh.root))
    assert result.exit_code == 0, result.output
    assert scan(open_index(fresh)).changes == 0  # the import indexed its 54 notes in one batch already


def test_verify_reports_an_edge_whose_end_is_not_a_string(tmp_path, fresh):
    graph = {
        "version": "1.0",
        "updated": "2026-01-01T00:00:00Z",
        "nodes": [{"id": "n001", "type": "decision", "label": "a"}, {"id": "n002", "type": "decision", "label": "b"}],
        "edges": [
            {"source": "n001", "target": "n002", "type": "causes"},
            {"source": ["n001"], "target": "n002", "type": "causes"},
        ],
        "patterns": [],
    }
    (tmp_path / "causal-graph.json").write_text(json.dumps(graph), encoding="utf-8")
    result = brain("import", "ai-agents", str(tmp_path / "causal-graph.json"), "--verify", "--vault", str(fresh.root))
    assert result.exit_code == 1, result.output
    source = tmp_path / "causal-graph.json"
    assert f"difference: {source}: edge ['n001'] -causes-> n002: source has no note" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1] == "verify: 1 difference(s) in 0 episode(s), 1 graph(s)"
