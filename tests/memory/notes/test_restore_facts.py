"""A restore goes through the same check as an edit: it never reopens a fact or brings back a
withdrawn value (CLI and MCP alike), and doctor reports a fact that was reopened anyway."""

from __future__ import annotations

import json
from pathlib import Path

from brain.vault.vault import Vault

SECRET = "walrus-7719"


def recorded_then_invalidated(brain) -> str:
    result = brain("fact", "record", "preference", "theme", json.dumps(SECRET), "--namespace", "user:alice", "--json")
    assert result.exit_code == 0, result.output
    title: str = json.loads(result.stdout)["fact"]["id"]
    assert brain("fact", "invalidate", title, "--reason", "withdrawn").exit_code == 0
    return title


def recalled(brain) -> str:
    return brain("fact", "recall", "--namespace", "user:alice", "--subject", "theme").stdout


def test_restoring_the_open_version_of_an_invalidated_fact_is_refused(brain, vault: Vault) -> None:
    title = recorded_then_invalidated(brain)
    path = vault.root / f"facts/{title}.md"
    closed = path.read_bytes()
    refused = brain("note", "restore", title, "--version", "1")
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == (
        f"error: version 1 of facts/{title}.md would change the fact's valid_until, closed_at, closed_by, "
        "closed_reason; a restore never reopens a fact or brings back a withdrawn value. Record the value again "
        "with `brain fact supersede`\n"
    )
    assert path.read_bytes() == closed
    assert SECRET not in recalled(brain)


def test_mcp_restore_note_refuses_it_too(vault: Vault, brain) -> None:
    from tests.helpers.mcp_harness import connect

    title = recorded_then_invalidated(brain)
    closed = (vault.root / f"facts/{title}.md").read_bytes()
    with connect(vault.root) as client:
        message = client.bad(
            "restore_note", {"name": title, "version": 1}, "a restore never reopens a fact", "supersede_fact"
        )
        assert "\n" not in message
    assert (vault.root / f"facts/{title}.md").read_bytes() == closed
    assert SECRET not in recalled(brain)


def test_doctor_reports_a_fact_reopened_by_hand_and_its_closed_version_can_come_back(brain, vault: Vault) -> None:
    title = recorded_then_invalidated(brain)
    path: Path = vault.root / f"facts/{title}.md"
    opened = brain("note", "history", title, "--version", "1").stdout_bytes
    path.write_bytes(opened)  # put back by hand (a file copy, an editor's undo)
    assert SECRET in recalled(brain)
    doctor = brain("doctor").stdout
    assert (
        f"reopened-fact   facts/{title}.md: {title} was closed (version 2 of its history) and is open again: "
        "recall returns a value that was withdrawn\n" in doctor
    )
    assert brain("note", "restore", title, "--version", "2").exit_code == 0  # the closed version: allowed
    assert SECRET not in recalled(brain)
    assert "reopened-fact" not in brain("doctor").stdout
