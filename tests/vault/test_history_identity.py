"""A note's history is the note's, whatever paths it had: renames outside brain are followed, a
purge reaches every version, one version can be purged alone, and a torn log line is skipped."""

from __future__ import annotations

import json
import os

from brain.vault.vault import Vault
from tests.conftest import holding, write

SECRET = "sk-live-quokka-4417"  # a value that occurs nowhere else


def history_of(brain, name: str) -> list[tuple[int, str, str]]:
    listed = json.loads(brain("note", "history", name, "--json").stdout)
    return [(row["version"], row["event"], row["path_then"]) for row in listed["versions"]]


def test_a_note_renamed_outside_brain_keeps_its_versions_and_a_purge_reaches_them_all(brain, vault: Vault) -> None:
    assert brain("note", "write", "Plan", "--file", "-", input=f"token {SECRET}\n").exit_code == 0
    assert brain("note", "edit", "Plan", "--find", SECRET, "--replace", "[removed]").exit_code == 0
    (vault.root / "archive").mkdir()
    os.rename(vault.root / "notes/Plan.md", vault.root / "archive/Final.md")  # mv, or a rename in Obsidian
    # Its history follows it, the rename logged as a move by "editor".
    assert history_of(brain, "Final") == [
        (3, "move", "archive/Final.md"),
        (2, "edit", "notes/Plan.md"),
        (1, "create", "notes/Plan.md"),
    ]
    assert brain("note", "edit", "Final", "--append", "more").exit_code == 0
    assert [e.v for e in vault.history.entries("archive/Final.md")] == [1, 2, 3, 4]
    purged = brain("note", "delete", "Final", "--purge")
    assert purged.output.startswith("deleted and purged archive/Final.md: 4 versions gone for good (receipt ")
    assert holding(vault.root, SECRET) == []
    missing = brain("note", "restore", "Plan")
    assert (missing.exit_code, missing.stderr.startswith("error: no note named 'Plan'")) == (1, True)
    assert vault.history.deleted() == []


def test_the_old_name_of_a_note_renamed_outside_brain_finds_the_note_and_never_restores_a_copy(brain, vault) -> None:
    write(vault, "notes/Old.md", "# Old\nfirst\n")
    assert brain("note", "edit", "Old", "--append", "second").exit_code == 0
    (vault.root / "archive").mkdir()
    os.rename(vault.root / "notes/Old.md", vault.root / "archive/Renamed.md")
    refused = brain("note", "restore", "notes/Old.md")
    assert (refused.exit_code, refused.stderr) == (
        1,
        "error: 'archive/Renamed.md' exists; give the version to restore (its history lists 3 versions)\n",
    )
    assert not (vault.root / "notes/Old.md").exists()
    assert history_of(brain, "Renamed")[0] == (3, "move", "archive/Renamed.md")


def test_a_note_renamed_outside_brain_and_then_edited_by_brain_keeps_one_history(brain, vault: Vault) -> None:
    write(vault, "notes/Old.md", "# Old\nfirst\n")
    assert brain("note", "edit", "Old", "--append", "second").exit_code == 0
    os.rename(vault.root / "notes/Old.md", vault.root / "notes/New.md")
    assert brain("note", "edit", "New", "--append", "third").exit_code == 0  # no history command in between
    assert [(e.v, e.event, e.path, e.by) for e in vault.history.entries("notes/New.md")] == [
        (1, "outside", "notes/Old.md", "editor"),
        (2, "edit", "notes/Old.md", "cli"),
        (3, "move", "notes/New.md", "editor"),
        (4, "edit", "notes/New.md", "cli"),
    ]
    assert vault.history.deleted() == []  # no note is left behind as deleted


def test_one_leaked_version_is_purged_alone(brain, vault: Vault) -> None:
    write(vault, "notes/Keys.md", "# Keys\nnone yet\n")
    assert brain("note", "edit", "Keys", "--append", f"aws {SECRET}").exit_code == 0
    assert brain("note", "edit", "Keys", "--find", f"aws {SECRET}", "--replace", "see the vault").exit_code == 0
    assert holding(vault.root, SECRET) != []
    refused = brain("note", "delete", "Keys", "--purge", "--version", "3")
    assert (refused.exit_code, refused.stderr) == (
        1,
        "error: version 3 is what notes/Keys.md holds now; edit the note first, then purge the version\n",
    )
    usage = brain("note", "delete", "Keys", "--version", "2")
    assert (usage.exit_code, usage.stderr) == (
        2,
        "error: --version goes with --purge: `brain note delete NAME --purge --version N`\n",
    )
    result = brain("note", "delete", "Keys", "--purge", "--version", "2", "--json")
    body = json.loads(result.stdout)
    assert (body["version"], body["versions_purged"], body["objects_purged"], body["file_deleted"]) == (2, 1, 1, False)
    assert holding(vault.root, SECRET) == []
    assert [(e.v, e.event) for e in vault.history.entries("notes/Keys.md")] == [(1, "outside"), (3, "edit")]
    assert (vault.root / "notes/Keys.md").read_text() == "# Keys\nnone yet\n\nsee the vault\n"
    receipt = json.loads((vault.root / body["receipt"]).read_text())
    assert (receipt["path"], receipt["version"], receipt["stores_purged"]) == ("notes/Keys.md", 2, ["history"])
    text = brain("note", "delete", "Keys", "--purge", "--version", "1").output
    assert text.startswith(
        "purged version 1 of notes/Keys.md: 1 version of those bytes gone for good; the note and its other versions "
        "stay (receipt .brain/journal/purges/PURGE-"
    )


def test_a_torn_last_line_of_a_history_log_is_skipped_reported_and_repaired(brain, vault: Vault) -> None:
    write(vault, "notes/Torn.md", "# Torn\nfirst\n")
    assert brain("note", "edit", "Torn", "--append", "second").exit_code == 0
    log = vault.history.log_path("notes/Torn.md")
    whole = log.read_bytes()
    log.write_bytes(whole + b'{"v":3,"event":"edit","pa')  # a crash in the middle of an append
    where = log.relative_to(vault.root).as_posix()
    assert brain("index").exit_code == 0
    assert history_of(brain, "Torn") == [(2, "edit", "notes/Torn.md"), (1, "outside", "notes/Torn.md")]
    assert brain("note", "edit", "Torn", "--append", "third").exit_code == 0  # its entry goes on a line of its own
    assert [e.v for e in vault.history.entries("notes/Torn.md")] == [1, 2, 3]
    doctor = brain("doctor")
    assert (
        f"history-torn    {where}: 1 line of this note's history log is not a whole entry (a write cut short by a "
        "crash or a full disk); brain reads the other lines\n" in doctor.stdout
    )
    fixed = brain("doctor", "--fix")
    assert f"fixed: dropped 1 torn line of {where}\n" in fixed.stdout
    assert "history-torn" not in fixed.stdout
    assert log.read_bytes().count(b"\n") == 3 and b'"pa\n' not in log.read_bytes()
    assert [e.v for e in vault.history.entries("notes/Torn.md")] == [1, 2, 3]
