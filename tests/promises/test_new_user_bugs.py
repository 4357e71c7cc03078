"""Small things a new user trips on (issue 22, part 4); each test failed before its fix."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.index.engine import forget, open_index
from brain.vault import Vault
from tests.conftest import DATA, write
from tests.helpers.mcp_harness import connect, make_vault

LOAN = json.loads((DATA / "runs" / "loan-42.json").read_text(encoding="utf-8"))


@pytest.fixture
def lexical(vault: Vault):
    open_index(vault, embedder=LexicalFallbackEmbedder())
    yield vault
    forget(vault.root)


def test_completing_a_run_in_flight_keeps_its_labels_and_ttl(lexical: Vault, brain) -> None:
    first = brain(
        "run", "record", "-f", "-", "--tenant", "lending", "--id", "RUN-7", "--accepted", "--score", "0.8",
        "--ttl", "2099-01-01", input=json.dumps({**LOAN, "finalContent": None}),
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    done = brain("run", "record", "-f", "-", "--tenant", "lending", "--id", "RUN-7", input=json.dumps(LOAN))
    assert done.output == "updated runs/lending/RUN-7.md\n"
    shown = json.loads(brain("run", "show", "RUN-7", "--json").output)
    assert (shown["outcome"], shown["expires"], shown["in_flight"]) == (
        {"accepted": True, "score": 0.8},
        "2099-01-01T00:00:00Z",
        False,
    )


def test_search_refuses_impossible_dates(brain) -> None:
    for option, value in (("--since", "2026-13-45"), ("--until", "2026-02-30"), ("--since", "2026-13")):
        result = brain("search", "anything", option, value)
        assert (result.exit_code, result.stderr) == (
            1,
            f"error: {option} '{value}' is not a real date (no such month or day)\n",
        )


@pytest.mark.parametrize(
    "args",
    [
        ("note", "edit", "U"),
        ("note", "edit", "U", "--append", "a", "--prepend", "b"),
        ("context", "save", "text", "--action-type", "research"),
        ("run", "record", "-f", "-"),
        ("run", "recall", "loan"),  # no tenant
        ("episode", "store"),  # neither --file nor --session, --task and --outcome
        ("fact", "record", "preference", "theme", "dark", "--file", "-"),  # the value twice
    ],
)
def test_usage_errors_exit_2(brain, vault, args) -> None:
    write(vault, "notes/U.md", "# U\n")
    result = brain(*args, input=json.dumps(LOAN))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert (vault.root / "notes/U.md").read_text() == "# U\n"


def test_episode_store_names_a_missing_outcome_and_dates_the_episode(brain, vault) -> None:
    missing = brain("episode", "store", "--task", "x")
    assert (missing.exit_code, missing.stderr) == (
        1,
        "error: an episode needs an outcome: one of success, partial, failure\n",
    )
    assert (
        brain("episode", "store", "--session", "2026-03-02-session-01", "--task", "t", "--outcome", "success").exit_code
        == 0
    )
    dated = json.loads(brain("episode", "list", "--json").output)
    assert [row["date"] for row in dated] == ["2026-03-02"]
    assert brain("episode", "store", "--session", "nightly", "--task", "t", "--outcome", "partial").exit_code == 0
    today = datetime.now(UTC).date().isoformat()
    assert sorted(row["date"] for row in json.loads(brain("episode", "list", "--json").output)) == ["2026-03-02", today]


def test_fact_source_must_be_a_note(brain, vault) -> None:
    refused = brain("fact", "record", "preference", "theme", "dark", "--source", "No Such Note")
    assert refused.exit_code == 1 and refused.stderr.startswith("error: no note named 'No Such Note'")
    assert not any((vault.root / "facts").iterdir())
    write(vault, "notes/Chat 12.md", "# Chat 12\n")
    assert brain("fact", "record", "preference", "theme", "dark", "--source", "[[Chat 12]]").exit_code == 0


def test_find_replace_replaces_one_and_refuses_several_unless_told(brain, vault) -> None:
    write(vault, "notes/F.md", "# F\nred, red and red\n")
    several = brain("note", "edit", "F", "--find", "red", "--replace", "blue")
    assert several.exit_code == 1 and "'red' occurs 3 times in notes/F.md; nothing was changed" in several.stderr
    assert (vault.root / "notes/F.md").read_text() == "# F\nred, red and red\n"
    assert brain("note", "edit", "F", "--find", "red,", "--replace", "blue,").exit_code == 0
    assert (vault.root / "notes/F.md").read_text() == "# F\nblue, red and red\n"
    assert brain("note", "edit", "F", "--find", "red", "--replace", "green", "--count", "2").exit_code == 0
    write(vault, "notes/G.md", "a a a\n")
    assert brain("note", "edit", "G", "--find", "a", "--replace", "b", "--all").exit_code == 0
    assert (vault.root / "notes/G.md").read_text() == "b b b\n"


def test_note_write_refuses_a_title_another_folder_has(brain, vault) -> None:
    assert brain("note", "write", "Plan", "--folder", "a").exit_code == 0
    second = brain("note", "write", "Plan", "--folder", "b")
    assert (second.exit_code, second.stderr) == (
        1,
        "error: 'a/Plan.md' already exists; use overwrite to replace its body, or edit it\n",
    )
    assert not (vault.root / "b").exists()


def test_mcp_refuses_unknown_and_oversized_arguments(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root, "--tools", "core") as client:
        client.bad("read_note", {"name": "Memory Routing Strategy", "nmae": "x"}, "read_note: unknown argument 'nmae'")
        client.bad("search", {"query": "x" * 120_000}, "argument 'query'", "at most 2000 characters")
        client.bad("write_note", {"title": "t" * 100_000}, "argument 'title'", "at most 300 characters")
        found = client.ok("search", {"query": "memory " * 200, "mode": "text"})
        assert len(found.content[0].text.splitlines()[0]) < 120


def test_mcp_help_names_every_tool_group(brain) -> None:
    from brain.mcp.server import GROUPS

    shown = brain("mcp", "--help").output
    assert "core, episodic, runs, causal, learning, facts (default: all)" in " ".join(shown.split())
    from brain.cli.mcp import TOOL_GROUPS

    assert set(TOOL_GROUPS) == set(GROUPS)
