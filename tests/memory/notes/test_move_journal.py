"""A move is written down before any file changes; one killed part-way is finished by the next
brain command that opens the vault (or `brain doctor --fix`), and running it again changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import brain as brain_package
from brain.vault.vault import Vault
from tests.conftest import write
from tests.helpers import crash_driver

DRIVER = Path(crash_driver.__file__)
CODE = Path(brain_package.__file__).resolve().parents[1]  # the brain under test, for the subprocess
LINKING = 40
PENDING = ".brain/journal/moves/PENDING.json"


def killed(vault: Vault, target: str, count: int, *args: str) -> None:
    """Run `brain ARGS --vault V` in a subprocess killed before the `count`th call of `target`."""
    env = {**os.environ, "PYTHONPATH": str(CODE)}
    done = subprocess.run(
        [sys.executable, "-B", str(DRIVER), target, str(count), "before", "--", *args, "--vault", str(vault.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, f"the process was not killed where the test meant: {done.stdout}{done.stderr}"


def linked_vault(vault: Vault) -> None:
    write(vault, "notes/Old Plan.md", "# Old Plan\nsteps\n")
    for number in range(LINKING):
        write(vault, f"notes/Link {number:02}.md", f"# Link {number}\nsee [[Old Plan]] and [x](Old%20Plan.md)\n")


def linking_texts(vault: Vault) -> set[str]:
    return {(vault.root / f"notes/Link {number:02}.md").read_text() for number in range(LINKING)}


OLD = "see [[Old Plan]] and [x](Old%20Plan.md)\n"
NEW = "see [[New Plan]] and [x](New%20Plan.md)\n"


@pytest.mark.parametrize("finish", [("note", "list"), ("doctor", "--fix"), ("note", "move", "Old Plan", "archive")])
def test_a_move_killed_after_some_rewrites_is_finished_by_the_next_command(brain, vault: Vault, finish) -> None:
    linked_vault(vault)
    killed(vault, "brain.vault.vault:Vault.update", 15, "note", "move", "Old Plan", "archive/New Plan.md")
    assert (vault.root / "archive/New Plan.md").exists() and not (vault.root / "notes/Old Plan.md").exists()
    texts = [text.split("\n", 1)[1] for text in linking_texts(vault)]
    assert (texts.count(NEW), texts.count(OLD)) == (14, LINKING - 14)
    plan = json.loads((vault.root / PENDING).read_text())
    assert (plan["source"], plan["target"]) == ("notes/Old Plan.md", "archive/New Plan.md")
    assert sorted(plan["wikilinks"]) == [f"notes/Link {number:02}.md" for number in range(LINKING)]
    assert plan["wikilinks"]["notes/Link 00.md"] == {"Old Plan": "New Plan"}
    assert plan["paths"]["notes/Link 00.md"] == {"Old Plan.md": "New Plan.md"}

    result = brain(*finish)
    assert "Traceback" not in result.output
    assert {text.split("\n", 1)[1] for text in linking_texts(vault)} == {NEW}
    assert not (vault.root / PENDING).exists()
    if finish[0] == "doctor":
        assert result.stdout.startswith(
            "fixed: finished the interrupted move: moved notes/Old Plan.md to archive/New Plan.md; "
            "52 links in 26 notes updated\n"
        )
    if finish[1] == "move":  # the move again (its heading still names it): already there, nothing more changes
        assert result.output == "archive/New Plan.md is there already; nothing moved\n"
    assert "broken-link" not in brain("doctor").stdout
    again = brain("note", "move", "New Plan", "archive/New Plan.md")
    assert again.output == "archive/New Plan.md is there already; nothing moved\n"
    assert [e.event for e in vault.history.entries("notes/Link 00.md")] == ["outside", "edit"]


def test_the_plan_is_written_before_any_file_changes(brain, vault: Vault) -> None:
    linked_vault(vault)
    before = {path: path.read_bytes() for path in (vault.root / "notes").glob("*.md")}
    killed(vault, "brain.vault.vault:Vault.move", 1, "note", "move", "Old Plan", "archive/New Plan.md")
    assert {path: path.read_bytes() for path in (vault.root / "notes").glob("*.md")} == before
    assert json.loads((vault.root / PENDING).read_text())["target"] == "archive/New Plan.md"
    listed = brain("note", "list", "--folder", "archive")
    assert listed.stdout.endswith("  note  archive/New Plan.md\n")
    assert {text.split("\n", 1)[1] for text in linking_texts(vault)} == {NEW}
    assert not (vault.root / PENDING).exists()


def test_a_move_that_cannot_be_finished_now_is_reported_by_doctor(brain, vault: Vault) -> None:
    linked_vault(vault)
    killed(vault, "brain.vault.vault:Vault.update", 3, "note", "move", "Old Plan", "archive/New Plan.md")
    (vault.root / PENDING).write_text("{not json", encoding="utf-8")
    doctor = brain("doctor")
    assert (
        f"interrupted-move {PENDING}: a note move was interrupted and could not be finished yet: links may still "
        "name the old path\n" in doctor.stdout
    )


def test_a_plain_folder_used_as_a_vault_gets_no_brain_folder_from_a_move(tmp_path: Path) -> None:
    from tests.conftest import run_brain

    (tmp_path / "A.md").write_text("# A\n")
    (tmp_path / "B.md").write_text("[[A]]\n")
    result = run_brain("note", "move", "A", "C.md", "--vault", str(tmp_path))
    assert result.output == "moved A.md to C.md; 1 link in 1 note updated\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["B.md", "C.md"]
    assert (tmp_path / "B.md").read_text() == "[[C]]\n"
