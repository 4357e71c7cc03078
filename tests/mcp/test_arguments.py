"""An argument of the wrong type, a missing one, an unknown one or one too long is a one-line tool
error naming the argument and what is wrong (pydantic's text was several lines ending in a URL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.mcp_harness import McpClient, connect, make_vault, snapshot


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[McpClient]:
    with connect(make_vault(tmp_path_factory.mktemp("mcp") / "vault")) as connected:
        yield connected


@pytest.mark.parametrize(
    "tool, arguments, message",
    [
        ("read_note", {"name": 5}, "read_note: argument 'name' should be a valid string (got 5)"),
        ("read_note", {}, "read_note: argument 'name' is required"),
        (
            "write_note",
            {"title": "x", "tags": "notalist"},
            "write_note: argument 'tags' should be a valid list (got 'notalist')",
        ),
        (
            "edit_note",
            {"name": "x", "operation": "append", "expected_count": "many"},
            "edit_note: argument 'expected_count' should be a valid integer, unable to parse string as an integer (got 'many')",
        ),
        (
            "search",
            {"limit": "x\ny"},
            "search: argument 'query' is required; argument 'limit' should be a valid integer, unable to parse string as an integer (got 'x\\ny')",
        ),
    ],
)
def test_wrong_arguments_are_one_line_errors(client: McpClient, tool: str, arguments: dict, message: str) -> None:
    before = snapshot(client.root)
    assert client.bad(tool, arguments) == message
    assert snapshot(client.root) == before


def test_a_long_wrong_value_is_cut_short(client: McpClient) -> None:
    message = client.bad("read_note", {"name": ["a" * 500]})
    assert message == "read_note: argument 'name' should be a valid string (got ['" + "a" * 58 + "...)"


def test_mcp_refuses_unknown_and_oversized_arguments(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "core") as client:
        client.bad("read_note", {"name": "Memory Routing Strategy", "nmae": "x"}, "read_note: unknown argument 'nmae'")
        client.bad("search", {"query": "x" * 120_000}, "argument 'query'", "at most 2000 characters")
        client.bad("write_note", {"title": "t" * 100_000}, "argument 'title'", "at most 300 characters")
        found = client.ok("search", {"query": "memory " * 200, "mode": "text"})
        assert len(found.content[0].text.splitlines()[0]) < 120
