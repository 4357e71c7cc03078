"""The agent profile (`brain mcp --tools agent`, what `brain hooks install` registers): the few tools a
coding agent needs, listed in at most 12,000 characters, each served with the arguments it names."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp.types import Tool

from brain.mcp.common import tools_in
from brain.mcp.profiles import AGENT_PROFILE, PROFILES
from brain.mcp.server import GROUPS
from tests.helpers.mcp_harness import DEFAULT_TOOLS, MAINTENANCE_TOOLS, connect, make_vault, text_of

AGENT_TOOLS = {
    "search",
    "read_note",
    "build_context",
    "write_note",
    "query_episodes",
    "get_antipatterns",
    "recall_facts",
    "record_fact",
    "supersede_fact",
    "get_guidelines",
}
TOOL_LIST_LIMIT = 12_000


def listing_chars(tools: dict[str, Tool]) -> int:
    """The tools/list answer as a client receives it, as JSON: names, descriptions, input schemas,
    titles and annotations."""
    return len(json.dumps([tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools.values()]))


def test_the_agent_profile_lists_its_tools_within_12000_characters_and_all_keeps_every_tool(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", AGENT_PROFILE) as agent:
        tools = agent.list_tools()
        assert set(tools) == AGENT_TOOLS
        assert listing_chars(tools) <= TOOL_LIST_LIMIT
        search = tools["search"].input_schema
        assert list(search["properties"]) == ["query", "limit", "types", "since"]
        assert search["required"] == ["query"]
        assert search["properties"]["types"] == {
            "items": {"type": "string"},
            "type": "array",
            "description": "Only notes of these types (episode, pattern, note, ...).",
        }
        assert list(tools["record_fact"].input_schema["properties"]) == [
            "kind",
            "subject",
            "value",
            "namespace",
            "supersede",
        ]
        description = tools["query_episodes"].description or ""
        assert description.startswith("List past episodes (work sessions), newest first")
        assert "\n    " not in description  # the docstring's indentation is not sent
        for name, tool in tools.items():  # a description points only to tools served
            named = {
                other
                for other in DEFAULT_TOOLS | MAINTENANCE_TOOLS
                if re.search(rf"\b{other}\b", tool.description or "")
            }
            assert named <= AGENT_TOOLS, (name, named - AGENT_TOOLS)
        assert (tools["query_episodes"].description or "").endswith(
            "Returns one line per episode: date, outcome, title, task and number of decisions."
        )
        prompts = agent.list_prompts()
        assert set(prompts) == {"start_task", "end_session"}
    with connect(root, "--tools", "all") as everything:
        full = everything.list_tools()
        assert set(full) == DEFAULT_TOOLS | MAINTENANCE_TOOLS
        assert "mode" in full["search"].input_schema["properties"]
        assert listing_chars(full) > 4 * TOOL_LIST_LIMIT


def test_agent_profile_tools_work_and_refuse_the_arguments_they_do_not_take(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "agent") as agent:
        found = agent.ok("search", {"query": "memory routing", "limit": 3})
        assert found.structured_content is not None
        assert "Memory Routing Strategy" in [hit["title"] for hit in found.structured_content["hits"]]
        recorded = agent.ok("record_fact", {"kind": "config", "subject": "db-pool-size", "value": 20})
        fact = recorded.structured_content["fact"]["id"]  # type: ignore[index]
        recalled = agent.ok("recall_facts", {"subject": "db-pool-size"})
        assert [hit["id"] for hit in recalled.structured_content["facts"]] == [fact]
        changed = agent.ok("record_fact", {"kind": "config", "subject": "db-pool-size", "value": 25, "supersede": True})
        current = agent.ok("recall_facts", {"subject": "db-pool-size"}).structured_content["facts"]
        assert [(hit["id"], hit["value"]) for hit in current] == [(changed.structured_content["fact"]["id"], 25)]  # type: ignore[index]
        agent.bad(
            "search",
            {"query": "memory", "mode": "text"},
            "search: unknown argument 'mode'; it takes limit, query, since, types",
        )
        agent.bad("search", {"query": "memory", "since": None, "limit": 0}, "limit")
        episodes = agent.ok("query_episodes", {"outcome": "success"})
        assert text_of(episodes).startswith("1 episodes")


def test_the_agent_profile_tells_a_client_only_of_its_own_tools(tmp_path: Path) -> None:
    from brain.mcp.server import build_server
    from brain.vault.init import init_vault

    vault, _ = init_vault(tmp_path / "vault")
    instructions = build_server(vault.root, "agent").instructions or ""
    assert instructions.startswith("brain is the project's memory, a folder of markdown notes")
    named = {name for name in DEFAULT_TOOLS | MAINTENANCE_TOOLS if re.search(rf"\b{name}\b", instructions)}
    assert named == {
        "search",
        "get_guidelines",
        "query_episodes",
        "get_antipatterns",
        "record_fact",
        "supersede_fact",
        "write_note",
    }
    assert "store_episode" in (build_server(vault.root, "agent,facts").instructions or "")


def test_agent_profile_beside_a_group_serves_that_group_in_full(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "agent,facts") as client:
        tools = client.list_tools()
        assert set(tools) == AGENT_TOOLS | {"invalidate_fact"}
        assert "retention_days" in tools["record_fact"].input_schema["properties"]
        assert list(tools["search"].input_schema["properties"]) == ["query", "limit", "types", "since"]


def test_every_profile_names_served_tools_and_their_real_arguments() -> None:
    import inspect

    served = {fn.__name__: fn for modules in GROUPS.values() for module in modules for fn in tools_in(module)}
    for profile in PROFILES.values():
        for name, kept in profile.items():
            arguments = list(inspect.signature(served[name]).parameters)[1:]
            assert [argument for argument in arguments if argument in kept] == list(kept), name
