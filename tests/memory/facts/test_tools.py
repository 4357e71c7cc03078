"""The fact tools through a real MCP client session: record, supersede, recall now and as of a past
time, invalidate; bad input is a tool error that changes nothing; no tool can hard-delete."""

from __future__ import annotations

import json
import re
from pathlib import Path

from brain.memory.facts.note import TIERS
from brain.vault.init import init_vault
from tests.helpers.mcp_harness import FACT_TOOLS, cli, connect, snapshot, text_of


def test_fact_tools_through_a_client_session(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    root = vault.root
    with connect(root, "--tools", "facts") as client:
        tools = client.list_tools()
        assert set(tools) == FACT_TOOLS  # nothing sweeps or deletes: only `brain fact sweep` does
        assert not any("sweep" in name or "delete" in name for name in tools)
        assert tools["record_fact"].input_schema["properties"]["tier"]["anyOf"][0]["enum"] == list(TIERS)
        assert set(tools["record_fact"].input_schema["required"]) == {"kind", "subject", "value"}

        recorded = client.ok(
            "record_fact",
            {
                "kind": "preference",
                "subject": "theme",
                "value": "dark",
                "namespace": "user:alice",
                "valid_from": "2026-01-01T00:00:00Z",
            },
        )
        first = recorded.structured_content["fact"]["id"]
        path = recorded.structured_content["path"]
        assert (
            text_of(recorded)
            == f"recorded {path}: preference theme = dark (user:alice, valid from 2026-01-01T00:00:00Z)"
        )
        assert (root / path).is_file()

        superseded = client.ok(
            "supersede_fact",
            {
                "fact": first,
                "value": {"mode": "light"},
                "reason": "asked for light",
                "valid_from": "2026-02-01T01:00:00+01:00",
            },
        )
        second = superseded.structured_content["fact"]["id"]
        assert superseded.structured_content["closed"]["id"] == first
        assert text_of(superseded).splitlines()[1] == (
            f"closed {path}: valid until 2026-02-01T00:00:00Z, superseded by {second}"
        )

        now = client.ok("recall_facts", {"subject": "theme", "namespaces": ["user:alice"]}).structured_content
        assert [(row["id"], row["status"]) for row in now["facts"]] == [(second, "valid")]
        assert now["journal"]["seq"] == 1
        then = client.ok(
            "recall_facts", {"subject": "theme", "namespaces": ["user:alice"], "as_of": "2026-01-15T00:00:00Z"}
        )
        assert [row["id"] for row in then.structured_content["facts"]] == [first]
        assert re.fullmatch(
            r"1 of 1 facts valid at 2026-01-15T00:00:00Z as known at \S+Z in user:alice", text_of(then).splitlines()[0]
        )
        assert text_of(then).splitlines()[-1] == "journal record #2"
        journal = (root / ".brain/journal/recall.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(line)["caller"] for line in journal] == ["mcp", "mcp"]

        before = snapshot(root)
        client.bad(
            "supersede_fact", {"fact": "FACT-nothing-like-it", "value": "x"}, "no fact is named 'FACT-nothing-like-it'"
        )
        client.bad(
            "supersede_fact",
            {"fact": first, "value": "blue"},
            f"{first} is already closed",
            f"supersede the current fact {second}",
        )
        client.bad("invalidate_fact", {"fact": second, "at": "2026-03-01T00:00:00"}, "has no time zone")
        client.bad("recall_facts", {"as_of": "2026-03-01 10:00"}, "has no time zone")
        client.bad(
            "record_fact",
            {"kind": "preference", "subject": "theme", "value": "x", "valid_from": "yesterday"},
            "valid from 'yesterday' is not an ISO 8601 time",
        )
        assert snapshot(root) == before  # not even a journal record for a refused recall

        closed = client.ok(
            "invalidate_fact", {"fact": second, "reason": "account closed", "at": "2026-03-01T00:00:00Z"}
        )
        assert (
            text_of(closed) == f"invalidated {superseded.structured_content['path']}: valid until 2026-03-01T00:00:00Z"
        )
        after = client.ok("recall_facts", {"subject": "theme", "namespaces": ["user:alice"]}).structured_content[
            "facts"
        ]
        assert after == []
        kept = client.ok(
            "recall_facts", {"subject": "theme", "namespaces": ["user:alice"], "history": True}
        ).structured_content["facts"]
        assert sorted(row["id"] for row in kept) == sorted([first, second])  # closed, never deleted
    assert "account closed" in cli(root, "fact", "history", "theme", "--namespace", "user:alice")


def test_a_fresh_server_recalls_a_fact_recorded_a_moment_before_by_meaning(tmp_path: Path) -> None:
    """A fact's vectors are not made the moment it is recorded: its similarity counted as 0 and a
    fact about something else ranked above it, with nothing said. Recall now waits for the few
    facts it compares (as search embeds a small change), and says how many it could not."""
    vault, _ = init_vault(tmp_path / "vault")
    root = vault.root
    cli(root, "fact", "record", "preference", "editor", "vim keybindings")
    cli(root, "index")  # the vault has vectors; the next fact is written after them
    new = json.loads(cli(root, "fact", "record", "preference", "theme", "dark mode", "--json"))["fact"]["id"]
    with connect(root, "--tools", "facts") as client:
        found = client.ok("recall_facts", {"query": "dark colour scheme", "limit": 1}).structured_content
    assert [row["id"] for row in found["facts"]] == [new]
    assert found["facts"][0]["parts"]["similarity"] > 0.3
    assert found["pending"] == 0
