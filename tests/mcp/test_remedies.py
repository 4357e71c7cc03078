"""An error's remedy is worded by each front end: the CLI names a `brain` command or `--option`,
the MCP server the tool or argument an agent can use (MCP errors told agents to run CLI
commands). Each message below named a CLI command or option over MCP before. The library names a
remedy by its key (`brain.errors.Remedy`); brain/cli/remedies.py and brain/mcp/remedies.py word it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from brain.cli.remedies import CLI_WORDINGS
from brain.errors import PLAIN, IndexMismatch, Remedy
from brain.mcp.remedies import MAINTENANCE_GROUP, MCP_WORDINGS, wordings_for
from brain.memory.search.view import pending_line
from tests.conftest import REPO
from tests.helpers.mcp_harness import cli, connect, make_vault

BRAIN = REPO / "brain"


def _commands() -> str:
    import typer.main

    from brain.cli import app

    return "|".join(sorted(typer.main.get_command(app).list_commands(None)))  # type: ignore[attr-defined]


# A CLI command or option in a message: `brain fact supersede`, brain index, --valid-from.
NAMES_THE_CLI = re.compile(rf"\bbrain (?:{_commands()})\b|(?<![\w-])--[a-z]")


def test_mcp_errors_name_tools_and_arguments_not_cli_commands(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    fact = json.loads(cli(root, "fact", "record", "preference", "theme", "dark", "--json"))["fact"]["id"]
    messages: list[str] = []
    with connect(root) as client:
        calls = [
            (
                "add_pattern",
                {"name": "brand new pattern", "outcome": "success"},
                "give trigger and action to create it",
            ),
            (
                "supersede_fact",
                {"fact": fact, "value": "light", "valid_from": "2001-01-01T00:00:00Z"},
                "give a later valid_from",
            ),
            ("delete_note", {"name": fact}, "close it with invalidate_fact;"),
            (
                "edit_note",
                {"name": fact, "operation": "set_frontmatter", "frontmatter": {"value": "light"}},
                "Record a new value with supersede_fact, close it with invalidate_fact",
            ),
            ("recall_runs", {"query": "loan", "tenant": " "}, "recall needs a tenant (tenant)"),
            ("explain_run", {"run": "X", "tenant": "bank"}, "recall_runs finds a tenant's runs by their query"),
            (
                "save_context",
                {"project": " ", "content": "x", "action_type": "research"},
                "a context needs a project (e.g. project: refactor-auth)",
            ),
            ("search", {"query": "memory", "rerank": True}, "or search without rerank"),
        ]
        for tool, arguments, expected in calls:
            messages.append(client.bad(tool, arguments, expected))
    assert [m for m in messages if NAMES_THE_CLI.search(m)] == []


def test_the_cli_still_names_its_commands(brain, vault) -> None:
    fact = json.loads(brain("fact", "record", "preference", "theme", "dark", "--json").output)["fact"]["id"]
    refused = brain("note", "delete", fact)
    assert "close it with `brain fact invalidate`; only the retention sweep" in refused.stderr
    new = brain("pattern", "add", "brand new pattern", "--outcome", "success")
    assert "give --trigger and --action to create it" in new.stderr


def test_each_front_end_words_a_remedy_once() -> None:
    error = IndexMismatch("vectors of another embedder; ", Remedy("reindex"), " to rebuild them")
    assert error.worded(CLI_WORDINGS) == "vectors of another embedder; run `brain reindex` to rebuild them"
    assert error.worded(MCP_WORDINGS) == (
        "vectors of another embedder; the vault's owner must reindex the vault (no tool served here does) to rebuild them"
    )
    assert str(error) == "vectors of another embedder; reindex the vault to rebuild them"  # the library's own words
    assert error.remedies == (Remedy("reindex"),)
    moved = Remedy("restore_note", path="notes/Plan.md")
    assert moved.worded(CLI_WORDINGS) == "`brain note restore 'notes/Plan.md'`"
    assert moved.worded(MCP_WORDINGS) == "restore_note"
    assert pending_line(3, CLI_WORDINGS) == (
        "3 notes are not in vector search yet (found by their words only); `brain index` (or `brain watch`) embeds them"
    )
    assert not NAMES_THE_CLI.search(pending_line(3, MCP_WORDINGS))


def _remedies_in_the_library() -> list[tuple[str, str, set[str]]]:
    """Each `Remedy(key, **arguments)` written in brain/: where, its key, the names of its arguments."""
    found = []
    for path in sorted(BRAIN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if _is_remedy(node):
                assert isinstance(node, ast.Call) and isinstance(node.args[0], ast.Constant), ast.unparse(node)
                where = f"{path.relative_to(BRAIN).as_posix()}:{node.lineno}"
                found.append((where, node.args[0].value, {keyword.arg or "" for keyword in node.keywords}))
    return found


def test_every_remedy_key_has_a_wording_in_both_front_ends_and_the_library() -> None:
    assert set(CLI_WORDINGS) == set(MCP_WORDINGS) == set(PLAIN)
    used = _remedies_in_the_library()
    assert {key for _, key, _ in used} == set(PLAIN)  # no key unused, none unworded
    for where, key, arguments in used:
        for wordings in (CLI_WORDINGS, MCP_WORDINGS, PLAIN):
            assert Remedy(key, **dict.fromkeys(arguments, "x")).worded(wordings), where  # every placeholder filled
    maintained = wordings_for([MAINTENANCE_GROUP])  # a server serving reindex words the index's steps as that tool
    assert set(maintained) == set(MCP_WORDINGS) and maintained["reindex"] == "call reindex with full: true"
    assert [w for w in [*MCP_WORDINGS.values(), *maintained.values(), *PLAIN.values()] if NAMES_THE_CLI.search(w)] == []


# Modules only the CLI reaches (maintenance, hooks, imports, the server's own start-up): their
# messages may name CLI commands plainly.
CLI_ONLY = {
    "cli",
    "importers",
    "agents",
    "ui",
    "memory/doctor/service.py",
    "memory/facts/health.py",
    "memory/facts/journal.py",
    "memory/facts/sweep.py",
    "memory/sessions/transcripts/files.py",
    "memory/tips/language_model.py",
    "mcp/server.py",
    "index/watch/watch.py",  # raised only where a second watcher starts (brain watch; the server warns at start)
}
CLI_ONLY_MESSAGES = {"lifting a legal hold needs --reason"}  # no MCP tool lifts a hold


def test_every_error_naming_a_cli_command_goes_through_remedy() -> None:
    """A raised message that names `brain ...` or `--option` as text, not as a `Remedy(...)`, would reach an agent as is."""
    found = []
    for path in sorted(BRAIN.rglob("*.py")):
        relative = path.relative_to(BRAIN).as_posix()
        if any(relative == part or relative.startswith(part + "/") for part in CLI_ONLY):
            continue
        if path.stem == "cli" or path.stem.endswith("_cli"):  # a domain's commands: read by a person at a shell
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            inside = {id(n) for call in ast.walk(node.exc) if _is_remedy(call) for n in ast.walk(call)}
            for part in ast.walk(node.exc):
                if id(part) in inside or not isinstance(part, ast.Constant) or not isinstance(part.value, str):
                    continue
                if NAMES_THE_CLI.search(part.value) and not any(m in part.value for m in CLI_ONLY_MESSAGES):
                    found.append(f"{relative}:{part.lineno}: {part.value}")
    assert found == []


def _is_remedy(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Remedy"
