"""Notes as MCP resources, through a client session to `brain mcp`: the listing, a page at a time,
names every note by `memory://notes/<path>`; reading one gives its markdown as on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from brain.mcp.resources import PAGE_SIZE, note_uri
from brain.vault.init import init_vault
from tests.helpers.mcp_harness import connect, make_vault, snapshot


def test_every_note_is_listed_and_read_as_its_markdown(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    (root / "notes" / "Odd #1? 100% sure.md").write_text("# Odd\n\nA name to encode.\n", encoding="utf-8")
    before = snapshot(root)
    with connect(root) as client:
        listed = client.list_resources()
        assert listed.next_cursor is None
        assert [(item.uri, item.name, item.title, item.mime_type) for item in listed.resources] == [
            (
                "memory://notes/causal/Better%20decisions.md",
                "causal/Better decisions.md",
                "Better decisions",
                "text/markdown",
            ),
            (
                "memory://notes/decisions/ADR-007%20Memory%20First%20Architecture.md",
                "decisions/ADR-007 Memory First Architecture.md",
                "ADR-007 Memory First Architecture",
                "text/markdown",
            ),
            (
                "memory://notes/episodes/EPISODE-2026-01-21-session-42.md",
                "episodes/EPISODE-2026-01-21-session-42.md",
                "EPISODE-2026-01-21-session-42",
                "text/markdown",
            ),
            (
                "memory://notes/notes/Memory%20Routing%20Strategy.md",
                "notes/Memory Routing Strategy.md",
                "Memory Routing Strategy",
                "text/markdown",
            ),
            (
                "memory://notes/notes/Odd%20%231%3F%20100%25%20sure.md",
                "notes/Odd #1? 100% sure.md",
                "Odd",
                "text/markdown",
            ),
            (
                "memory://notes/patterns/ANTIPATTERN-forgetful-first.md",
                "patterns/ANTIPATTERN-forgetful-first.md",
                "ANTIPATTERN-forgetful-first",
                "text/markdown",
            ),
            (
                "memory://notes/patterns/PATTERN-continuous-context.md",
                "patterns/PATTERN-continuous-context.md",
                "PATTERN-continuous-context",
                "text/markdown",
            ),
            (
                "memory://notes/patterns/PATTERN-serena-first-routing.md",
                "patterns/PATTERN-serena-first-routing.md",
                "PATTERN-serena-first-routing",
                "text/markdown",
            ),
        ]
        adr = listed.resources[1]
        assert adr.description == "note: Agents forget between sessions; memory must be consulted before work starts."
        assert listed.resources[2].description == "episode: Implement episodic memory architecture"
        for item in listed.resources:  # each reads back as its file, byte for byte
            on_disk = (root / item.name).read_text(encoding="utf-8")
            assert client.read_resource(item.uri) == on_disk
            assert item.size == len(on_disk.encode("utf-8"))

        # a title (or stem, or permalink) reads the note as read_note does
        strategy = (root / "notes" / "Memory Routing Strategy.md").read_text(encoding="utf-8")
        assert client.read_resource("memory://notes/Memory%20Routing%20Strategy") == strategy

        (template,) = client.portal.call(client.session.list_resource_templates).resource_templates
        assert (template.uri_template, template.mime_type) == ("memory://notes/{+name}", "text/markdown")

        with pytest.raises(MCPError) as missing:
            client.read_resource("memory://notes/No%20Such%20Note")
        assert (missing.value.code, missing.value.message) == (
            INVALID_PARAMS,
            "no note named 'No Such Note'; check the name or use its path",
        )
        # an edit in an editor is what the next read returns
        (root / "notes" / "Memory Routing Strategy.md").write_text(
            "# Memory Routing Strategy\n\nRewritten.\n", encoding="utf-8"
        )
        assert client.read_resource(listed.resources[3].uri) == "# Memory Routing Strategy\n\nRewritten.\n"
    (root / "notes" / "Memory Routing Strategy.md").write_text(strategy, encoding="utf-8")
    assert snapshot(root) == before  # listing and reading write nothing


def test_a_large_vault_is_listed_a_page_at_a_time(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    count = 2 * PAGE_SIZE + 50
    (vault.root / "notes").mkdir(exist_ok=True)
    for number in range(count):
        (vault.root / "notes" / f"Note {number:04}.md").write_text(f"# Note {number:04}\n\nBody.\n", encoding="utf-8")
    with connect(vault.root) as client:
        first = client.list_resources()
        assert len(first.resources) == PAGE_SIZE and first.next_cursor == "notes/Note 0099.md"
        # a note added between two pages is listed once, in its place; none repeats, none is skipped
        (vault.root / "notes" / "Note 0150a.md").write_text("# Note 0150a\n\nAdded meanwhile.\n", encoding="utf-8")
        second = client.list_resources(first.next_cursor)
        third = client.list_resources(second.next_cursor)
        assert len(second.resources) == PAGE_SIZE and third.next_cursor is None
    names = [item.name for page in (first, second, third) for item in page.resources]
    expected = sorted([f"notes/Note {number:04}.md" for number in range(count)] + ["notes/Note 0150a.md"])
    assert names == expected
    assert [item.uri for item in third.resources][-1] == note_uri(f"notes/Note {count - 1:04}.md")
