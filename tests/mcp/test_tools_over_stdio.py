"""The MCP server driven as a client drives it: `brain mcp` as a subprocess, the SDK's stdio client.

Every tool is called on its happy path and with one bad input; a bad input must give a tool
error naming what was wrong, change nothing on disk, and leave the server serving.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_brain
from tests.helpers.mcp_harness import (
    CAUSAL_TOOLS,
    CORE_TOOLS,
    EPISODIC_TOOLS,
    FACT_TOOLS,
    LEARNING_TOOLS,
    RUN_TOOLS,
    McpClient,
    cli,
    connect,
    make_vault,
    snapshot,
    text_of,
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    """One server for the whole module, as a real client keeps one session: tests use their own notes."""
    with connect(make_vault(tmp_path_factory.mktemp("mcp") / "vault")) as connected:
        yield connected


# ---------------------------------------------------------------- listing and schemas


def test_lists_every_tool_with_typed_described_arguments(client: McpClient) -> None:
    tools = client.list_tools()
    assert set(tools) == CORE_TOOLS | EPISODIC_TOOLS | RUN_TOOLS | CAUSAL_TOOLS | LEARNING_TOOLS | FACT_TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.annotations is not None and tool.annotations.title
        schema = tool.input_schema
        assert schema["type"] == "object"
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
            assert "type" in prop or "anyOf" in prop, f"{tool.name}.{name} has no type"

    def required(name: str) -> set[str]:
        return set(tools[name].input_schema.get("required", []))

    assert required("write_note") == {"title"}
    assert required("read_note") == {"name"}
    assert required("edit_note") == {"name", "operation"}
    assert required("search") == {"query"}
    assert required("build_context") == {"name"}
    assert required("store_episode") == {"task", "outcome"}
    assert required("get_decision_sequence") == {"episode"}
    assert required("add_pattern") == {"name"}
    assert required("get_causal_path") == {"source", "target"}
    assert required("query_episodes") == required("query_patterns") == required("get_antipatterns") == set()

    props = {name: tool.input_schema["properties"] for name, tool in tools.items()}
    assert props["edit_note"]["operation"]["enum"] == [
        "append",
        "prepend",
        "replace_section",
        "find_replace",
        "set_frontmatter",
    ]
    assert props["store_episode"]["outcome"]["enum"] == ["success", "partial", "failure"]
    assert props["search"]["mode"]["enum"] == ["hybrid", "text", "vector"]
    assert props["build_context"]["budget"]["type"] == "integer"
    assert props["build_context"]["depth"]["maximum"] == 5
    assert props["store_episode"]["decisions"]["anyOf"][0]["type"] == "array"
    assert props["query_patterns"]["min_success_rate"]["maximum"] == 1
    assert tools["read_note"].annotations.read_only_hint is True
    assert tools["edit_note"].annotations.destructive_hint is True


def test_tools_profile_limits_the_groups(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "episodic") as episodic_only:
        assert set(episodic_only.list_tools()) == EPISODIC_TOOLS

    refused = subprocess.run(
        [sys.executable, "-m", "brain", "mcp", "--vault", str(root), "--tools", "core,bogus"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2  # a bad option value is a usage error
    assert "unknown tool group(s) bogus" in refused.stderr and "core, episodic" in refused.stderr


# ---------------------------------------------------------------- notes


def test_note_tools_happy_paths_and_visible_to_the_cli(client: McpClient) -> None:
    root = client.root
    written = client.ok(
        "write_note",
        {
            "title": "Cache decision",
            "content": "## Context\nWe need a cache.\n",
            "tags": ["cache"],
            "fields": {"status": "draft"},
        },
    )
    assert written.structured_content == {"path": "notes/Cache decision.md", "title": "Cache decision", "created": True}
    assert "We need a cache." in cli(root, "note", "read", "Cache decision")  # a file on disk: the CLI sees it at once

    read = client.ok("read_note", {"name": "Cache decision"})
    assert "We need a cache." in text_of(read)
    assert read.structured_content["frontmatter"]["status"] == "draft"
    assert read.structured_content["tags"] == ["cache"]

    client.ok(
        "edit_note",
        {"name": "Cache decision", "operation": "append", "section": "Context", "content": "- [fact] Reads dominate"},
    )
    client.ok("edit_note", {"name": "Cache decision", "operation": "prepend", "content": "Summary: add a cache."})
    client.ok(
        "edit_note",
        {"name": "Cache decision", "operation": "replace_section", "section": "Decision", "content": "Use Redis."},
    )
    replace = {"operation": "find_replace", "find": "Redis", "content": "Valkey", "expected_count": 1}
    client.ok("edit_note", {"name": "Cache decision", **replace})
    edited = client.ok(
        "edit_note", {"name": "Cache decision", "operation": "set_frontmatter", "frontmatter": {"status": "accepted"}}
    )
    assert edited.structured_content["path"] == "notes/Cache decision.md"
    text = (root / "notes" / "Cache decision.md").read_text(encoding="utf-8")
    assert "status: accepted" in text and "status: draft" not in text
    assert "Summary: add a cache." in text
    assert "- [fact] Reads dominate" in text
    assert "## Decision\nUse Valkey." in text

    context = client.ok("build_context", {"name": "ADR-007 Memory First Architecture", "depth": 2, "budget": 800})
    data = context.structured_content
    paths = [note["path"] for note in data["items"]]
    assert paths[0] == "decisions/ADR-007 Memory First Architecture.md"
    assert "notes/Memory Routing Strategy.md" in paths
    assert "patterns/PATTERN-serena-first-routing.md" in paths  # two hops away, and a causal edge back
    assert data["used_tokens"] <= 800
    assert "Memory Routing Strategy" in text_of(context)


def test_edits_made_in_an_editor_are_seen_by_the_next_call(client: McpClient) -> None:
    note = client.root / "notes" / "Editor note.md"
    note.write_text("# Editor note\n\nFirst draft.\n", encoding="utf-8")
    assert "First draft." in text_of(client.ok("read_note", {"name": "Editor note"}))
    note.write_text("# Editor note\n\nEdited in Obsidian: prefer local search.\n", encoding="utf-8")
    assert "Edited in Obsidian: prefer local search." in text_of(client.ok("read_note", {"name": "Editor note"}))
    context = client.ok("build_context", {"name": "Editor note", "depth": 0})
    assert "Edited in Obsidian" in text_of(context)


def test_note_tools_bad_inputs_are_tool_errors_and_change_nothing(client: McpClient) -> None:
    root = client.root
    (root / "notes" / "Taken.md").write_text("---\ntitle: Taken\n---\n\nFirst.\n", encoding="utf-8")
    before = snapshot(root)
    client.bad("read_note", {"name": "No Such Note"}, "no note named 'No Such Note'")
    client.bad("write_note", {"title": "Escape", "folder": "../outside"}, "'..'", "inside the vault")
    client.bad("write_note", {"title": "Taken"}, "already exists")
    client.bad(
        "edit_note",
        {"name": "Taken", "operation": "find_replace", "find": "absent text", "content": "x"},
        "does not occur",
    )
    client.bad("edit_note", {"name": "Taken", "operation": "rewrite"}, "operation")
    client.bad("build_context", {"name": "Nowhere"}, "no note named 'Nowhere'")
    client.bad("build_context", {"name": "Taken", "budget": 5}, "budget")
    assert "First." in text_of(client.ok("read_note", {"name": "Taken"}))  # still serving
    assert snapshot(root) == before
    assert not (root.parent / "outside").exists()


def test_the_cli_and_the_tools_render_alike(client: McpClient) -> None:
    root = client.root
    adr = "ADR-007 Memory First Architecture"
    assert (
        json.loads(cli(root, "note", "read", adr, "--json")) == client.ok("read_note", {"name": adr}).structured_content
    )
    context = client.ok("build_context", {"name": adr, "depth": 1})
    assert json.loads(cli(root, "context", "build", adr, "--depth", "1", "--json")) == context.structured_content
    assert text_of(context) == cli(root, "context", "build", adr, "--depth", "1")
    episode = "EPISODE-2026-01-21-session-42"
    assert text_of(client.ok("get_decision_sequence", {"episode": episode})) + "\n" == cli(
        root, "episode", "decisions", episode
    )
    path = {"source": "PATTERN-serena-first-routing", "target": "Better decisions"}
    assert text_of(client.ok("get_causal_path", path)) + "\n" == cli(root, "pattern", "path", *path.values())
    reverse = run_brain("pattern", "path", "Better decisions", "PATTERN-serena-first-routing", "--vault", str(root))
    assert (
        text_of(client.ok("get_causal_path", {"source": "Better decisions", "target": "PATTERN-serena-first-routing"}))
        + "\n"
        == reverse.output
    )
    anti = text_of(client.ok("get_antipatterns", {})).splitlines()
    assert anti[0] == "1 antipatterns" and anti[1:] == cli(root, "pattern", "antipatterns").splitlines()
    found = text_of(client.ok("query_episodes", {"outcome": "success"})).splitlines()
    assert found[1:] == cli(root, "episode", "list", "--outcome", "success").splitlines()


def test_results_are_json_structured(client: McpClient) -> None:
    data = client.ok("read_note", {"name": "EPISODE-2026-01-21-session-42"}).structured_content
    assert data["type"] == "episode"
    assert data["frontmatter"]["metrics"]["tool_calls"] == 23
    assert "ADR-018 Episodic Memory Architecture" in data["links"]
    json.dumps(data)


# ---------------------------------------------------------------- episodic and causal memory

EPISODE = {
    "task": "Add a cache in front of the catalog",
    "outcome": "partial",
    "session": "2026-02-03-session-07",
    "timestamp": "2026-02-03T10:00:00Z",
    "decisions": [
        {
            "id": "d001",
            "timestamp": "2026-02-03T10:05:00Z",
            "type": "design",
            "context": "Reads dominate",
            "options": ["Redis", "in-process LRU"],
            "chosen": "in-process LRU",
            "rationale": "no new service",
            "outcome": "success",
            "effects": ["d002"],
        },
        {
            "id": "d002",
            "timestamp": "2026-02-03T10:02:00Z",
            "type": "test",
            "chosen": "Load test first",
            "outcome": "partial",
        },
    ],
    "events": [{"id": "e001", "timestamp": "2026-02-03T10:01:00Z", "type": "milestone", "content": "Profiled reads"}],
    "lessons": ["Measure before caching"],
    "metrics": {"tool_calls": 12, "errors": 1},
    "duration_minutes": 40,
}


def test_episodic_tools_happy_paths(client: McpClient) -> None:
    root = client.root
    stored = client.ok("store_episode", EPISODE)
    assert stored.structured_content["status"] == "created"
    assert stored.structured_content["path"] == "episodes/EPISODE-2026-02-03-session-07.md"
    assert "EPISODE-2026-02-03-session-07" in cli(root, "episode", "list")
    assert client.ok("store_episode", EPISODE).structured_content["status"] == "unchanged"

    found = client.ok("query_episodes", {"outcome": "partial"})
    assert [row["title"] for row in found.structured_content["episodes"]] == ["EPISODE-2026-02-03-session-07"]
    recent = client.ok("query_episodes", {"since": "2026-01-01", "limit": 5})
    assert len(recent.structured_content["episodes"]) == 2

    sequence = client.ok("get_decision_sequence", {"episode": "EPISODE-2026-02-03-session-07"})
    assert [d["id"] for d in sequence.structured_content["decisions"]] == ["d002", "d001"]  # time order
    assert "why: no new service" in text_of(sequence)

    created = client.ok(
        "add_pattern",
        {
            "name": "measure before caching",
            "outcome": "success",
            "trigger": "Slow reads",
            "action": "Profile first",
            "episode": "EPISODE-2026-02-03-session-07",
        },
    )
    assert created.structured_content["created"] is True
    assert created.structured_content["path"] == "patterns/PATTERN-measure-before-caching.md"
    updated = client.ok("add_pattern", {"name": "PATTERN-measure-before-caching", "outcome": "failure"})
    assert updated.structured_content["occurrences"] == 2
    assert updated.structured_content["success_rate"] == pytest.approx(0.5)
    text = (root / "patterns" / "PATTERN-measure-before-caching.md").read_text(encoding="utf-8")
    assert "[[EPISODE-2026-02-03-session-07]] - success" in text and "occurrences: 2" in text

    patterns = client.ok("query_patterns", {"min_success_rate": 0.5, "trigger": "memory"})
    assert [row["title"] for row in patterns.structured_content["patterns"]] == ["PATTERN-serena-first-routing"]

    path = client.ok("get_causal_path", {"source": "PATTERN-serena-first-routing", "target": "Better decisions"})
    assert path.structured_content["found"] is True
    assert path.structured_content["path"]["titles"] == [
        "PATTERN-serena-first-routing",
        "PATTERN-continuous-context",
        "Better decisions",
    ]
    assert "--enables-->" in text_of(path)
    no_path = client.ok("get_causal_path", {"source": "Better decisions", "target": "PATTERN-serena-first-routing"})
    assert no_path.structured_content == {"found": False, "reverse_exists": True}

    anti = client.ok("get_antipatterns", {})
    assert [row["title"] for row in anti.structured_content["antipatterns"]] == ["ANTIPATTERN-forgetful-first"]
    assert text_of(anti) == "1 antipatterns\n 20% x3    ANTIPATTERN-forgetful-first  Memory query needed during session"


def test_episodic_tools_bad_inputs_are_tool_errors_and_change_nothing(client: McpClient) -> None:
    before = snapshot(client.root)
    client.bad(
        "store_episode",
        {**EPISODE, "outcome": "great"},
        "argument 'outcome': 'great' is not one of: success, partial, failure",
    )
    malformed = {key: value for key, value in EPISODE.items() if key != "session"}
    client.bad("store_episode", malformed, "needs an 'id' or a 'session'")
    client.bad("query_episodes", {"since": "last tuesday"}, "since")
    client.bad("get_decision_sequence", {"episode": "Memory Routing Strategy"}, "not an episode")
    client.bad(
        "add_pattern", {"name": "brand new pattern", "outcome": "success"}, "give trigger and action to create it"
    )
    client.bad("query_patterns", {"min_success_rate": 1.5}, "min_success_rate")
    client.bad(
        "get_causal_path",
        {"source": "PATTERN-serena-first-routing", "target": "Nothing Here"},
        "no note named 'Nothing Here'",
    )
    client.bad("get_antipatterns", {"min_occurrences": -1}, "min_occurrences")
    assert "ANTIPATTERN-forgetful-first" in text_of(client.ok("get_antipatterns", {}))
    assert snapshot(client.root) == before


# ---------------------------------------------------------------- search


def test_search_finds_notes_written_through_mcp_at_once(client: McpClient) -> None:
    first = client.ok("search", {"query": "routing", "mode": "text"})
    assert first.structured_content["hits"], text_of(first)
    client.ok(
        "write_note", {"title": "Zebra striping", "content": "Quokka tables need zebra striping for readability."}
    )
    fresh = client.ok("search", {"query": "quokka", "mode": "text", "limit": 5})
    assert [hit["path"] for hit in fresh.structured_content["hits"]][:1] == ["notes/Zebra striping.md"]
    assert "Zebra striping" in text_of(fresh)
    (client.root / "notes" / "Typed in an editor.md").write_text(
        "# Typed in an editor\n\nWombat sightings.\n", encoding="utf-8"
    )
    edited = client.ok("search", {"query": "wombat", "mode": "text"})
    assert [hit["path"] for hit in edited.structured_content["hits"]] == ["notes/Typed in an editor.md"]
    filtered = client.ok("search", {"query": "memory", "mode": "text", "types": ["pattern"]})
    assert filtered.structured_content["hits"] and {hit["type"] for hit in filtered.structured_content["hits"]} == {
        "pattern"
    }
    hybrid = client.ok("search", {"query": "which memory source to query first"})
    assert hybrid.structured_content["mode"] == "hybrid" and hybrid.structured_content["hits"]


def test_search_bad_input_is_a_tool_error(client: McpClient) -> None:
    before = {path: data for path, data in snapshot(client.root).items() if path.endswith(".md")}
    client.bad("search", {"query": "memory", "mode": "fuzzy"}, "mode")
    client.bad("search", {"query": "memory", "limit": 0}, "limit")
    client.bad("search", {"query": "   "}, "the search query is empty")
    client.ok("search", {"query": "memory", "mode": "text"})
    assert {path: data for path, data in snapshot(client.root).items() if path.endswith(".md")} == before
