"""The note tools basic-memory users expect, through a real MCP client session: list, recent,
move (links follow), delete to the history, history and restore; no MCP tool purges."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.mcp_harness import connect, make_vault, text_of


def test_note_tools_through_a_client_session(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "core") as client:
        tools = client.list_tools()
        for name in ("move_note", "delete_note", "list_notes", "recent_activity", "note_history", "restore_note"):
            assert "Use it" in (tools[name].description or ""), name
        assert set(tools["delete_note"].input_schema["properties"]) == {"name"}  # no purge through MCP

        listed = client.ok("list_notes", {"folder": "patterns", "note_type": "pattern"}).structured_content
        assert [row["path"] for row in listed["notes"]] == [
            "patterns/ANTIPATTERN-forgetful-first.md",
            "patterns/PATTERN-continuous-context.md",
            "patterns/PATTERN-serena-first-routing.md",
        ]
        tagged = client.ok("list_notes", {"tag": "adr"}).structured_content
        assert [row["path"] for row in tagged["notes"]] == ["decisions/ADR-007 Memory First Architecture.md"]

        client.ok("edit_note", {"name": "Memory Routing Strategy", "operation": "append", "content": "agent line"})
        recent = client.ok("recent_activity", {"since": "1h"}).structured_content
        assert recent["notes"][0]["path"] == "notes/Memory Routing Strategy.md" and recent["count"] == 7

        moved = client.ok("move_note", {"name": "Memory Routing Strategy", "destination": "notes/Routing.md"})
        assert moved.structured_content["links_updated"] == 3
        assert moved.structured_content["notes_updated"] == [
            "decisions/ADR-007 Memory First Architecture.md",
            "patterns/PATTERN-serena-first-routing.md",
        ]
        adr = (root / "decisions/ADR-007 Memory First Architecture.md").read_text()
        assert "See [[Routing]]." in adr and "- part_of [[Routing]]" in adr
        # issue 40, 4: onto a file that exists, refused with nothing changed; onto its own place, no move said
        client.bad(
            "move_note",
            {"name": "Routing", "destination": "decisions/ADR-007 Memory First Architecture.md"},
            "'decisions/ADR-007 Memory First Architecture.md' exists already",
        )
        assert (root / "decisions/ADR-007 Memory First Architecture.md").read_text() == adr
        same = client.ok("move_note", {"name": "Routing", "destination": "notes"})
        assert (text_of(same), same.structured_content["moved"]) == (
            "notes/Routing.md is there already; nothing moved",
            False,
        )

        history = client.ok("note_history", {"name": "Routing"}).structured_content
        assert [(row["version"], row["by"], row["command"]) for row in history["versions"]] == [
            (4, "mcp", "move_note"),  # the title followed the new name
            (3, "mcp", "move_note"),
            (2, "mcp", "edit_note"),
            (1, "editor", ""),
        ]
        first = client.ok("note_history", {"name": "Routing", "version": 1}).structured_content
        assert "agent line" not in first["text"] and first["by"] == "editor"

        client.ok("delete_note", {"name": "Routing"})
        assert not (root / "notes/Routing.md").exists()
        back = client.ok("restore_note", {"name": "Routing"})
        assert text_of(back) == "brought back notes/Routing.md at version 4"
        undone = client.ok("restore_note", {"name": "Routing", "version": 1})
        assert undone.structured_content == {
            "path": "notes/Routing.md",
            "version": 1,
            "written": True,
            "created": False,
        }
        assert (root / "notes/Routing.md").read_bytes() == first["text"].encode()

        client.bad("restore_note", {"name": "Routing", "version": 99}, "'notes/Routing.md' has no version 99")
        client.bad("recent_activity", {"since": "yesterday"}, "since 'yesterday' is neither a span")
        client.bad("recent_activity", {"since": "10000000w"}, "since '10000000w' reaches back before the year 1")


def test_every_tool_description_says_when_to_use_it() -> None:
    """Every MCP tool's description says when an agent should use it."""
    from brain.mcp.common import tools_in
    from brain.mcp.server import GROUPS

    tools = [fn for modules in GROUPS.values() for module in modules for fn in tools_in(module)]
    assert len(tools) == 35
    assert [fn.__name__ for fn in tools if "Use it" not in " ".join((fn.__doc__ or "").split())] == []
