"""Issue 10 item 12: an argument of the wrong type, or a missing one, is a one-line tool error
naming the argument and what is wrong (pydantic's text was several lines ending in a URL)."""

from __future__ import annotations

from collections.abc import Iterator

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
