"""An argument of the wrong type, a missing one, an unknown one, one out of range or too long is a
one-line tool error naming the argument and what is wrong, in brain's words as the CLI says it for
an option (pydantic's text was several lines ending in a URL, then pydantic's phrases:
"should be a valid integer, unable to parse string as an integer")."""

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
        ("read_note", {"name": 5}, "read_note: argument 'name': 5 is not text"),
        ("read_note", {}, "read_note: argument 'name' is required"),
        (
            "write_note",
            {"title": "x", "tags": "notalist"},
            "write_note: argument 'tags': 'notalist' is not a list",
        ),
        (
            "edit_note",
            {"name": "x", "operation": "append", "expected_count": "many"},
            "edit_note: argument 'expected_count': 'many' is not a whole number",
        ),
        (
            "search",
            {"limit": "x\ny"},
            "search: argument 'query' is required; argument 'limit': 'x\\ny' is not a whole number",
        ),
        (
            "search",
            {"query": "x", "mode": "bogus", "limit": 0},
            "search: argument 'mode': 'bogus' is not one of: hybrid, text, vector; "
            "argument 'limit': 0 is out of range; give 1 to 50",
        ),
        ("search", {"query": "x", "rerank": "maybe"}, "search: argument 'rerank': 'maybe' is not true or false"),
    ],
)
def test_wrong_arguments_are_one_line_errors(client: McpClient, tool: str, arguments: dict, message: str) -> None:
    before = snapshot(client.root)
    assert client.bad(tool, arguments) == message
    assert snapshot(client.root) == before


def test_a_long_wrong_value_is_cut_short(client: McpClient) -> None:
    message = client.bad("read_note", {"name": ["a" * 500]})
    assert message == "read_note: argument 'name': ['" + "a" * 56 + "... is not text"


def test_mcp_refuses_unknown_and_oversized_arguments(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "core") as client:
        client.bad("read_note", {"name": "Memory Routing Strategy", "nmae": "x"}, "read_note: unknown argument 'nmae'")
        client.bad("search", {"query": "x" * 120_000}, "argument 'query'", "at most 2000 characters")
        client.bad("write_note", {"title": "t" * 100_000}, "argument 'title'", "at most 300 characters")
        found = client.ok("search", {"query": "memory " * 200, "mode": "text"})
        assert len(found.content[0].text.splitlines()[0]) < 120


LIBRARY_WORDS = ("Traceback", "Value error", "Input should be", "pydantic", "validation error", "errors.pydantic.dev")


def _wrong_values(schema: dict) -> list[object]:
    """Values an argument's schema refuses: the wrong type, and just outside its choices and bounds."""
    kinds = {option.get("type") for option in schema.get("anyOf", [schema])}
    if kinds == {None} or {"object", "integer"} <= kinds:  # any JSON value
        values: list[object] = []
    else:
        values = [{"not": "this"}] if "object" not in kinds else [5]
    if "enum" in schema:
        values.append("bogus")
    if "minimum" in schema:
        values.append(schema["minimum"] - 1)
    if "maximum" in schema:
        values.append(schema["maximum"] + 1)
    if kinds & {"integer", "number"} and "string" not in kinds:
        values.append("x")
    return values


def test_every_tool_words_every_wrong_argument_in_one_line_of_its_own(client: McpClient) -> None:
    """Every argument of every tool, given the wrong type, a value outside its choices or its bounds:
    one line naming the argument, in brain's words, and no file changed."""
    before = snapshot(client.root)
    checked = 0
    for name, found in client.list_tools().items():
        for argument, schema in found.input_schema.get("properties", {}).items():
            for value in _wrong_values(schema):
                message = client.bad(name, {argument: value}, f"argument '{argument}'")
                assert message.startswith(f"{name}: ") and "\n" not in message, message
                assert not [words for words in LIBRARY_WORDS if words in message], message
                checked += 1
    assert checked > 150
    assert snapshot(client.root) == before
