"""A vault shared through git: a note git could not merge (its conflict markers in the file) is reported
by `brain index` and `brain doctor` as a merge conflict, and the index keeps the note's last indexed
version until the conflict is resolved (a note it never indexed stays out), never a broken episode
indexed as a plain note. Real git: two clones of one repository, an add/add conflict on an episode."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from brain.vault.note_files import conflict_line
from tests.conftest import lexical_vault, run_brain

EPISODE = "episodes/EPISODE-2026-01-21-session-42.md"


def episode(outcome: str, task: str) -> str:
    return (
        "---\n"
        "title: EPISODE-2026-01-21-session-42\n"
        "type: episode\n"
        f"outcome: {outcome}\n"
        f"task: {task}\n"
        "session: session-42\n"
        "date: '2026-01-21'\n"
        "---\n"
        "\n"
        "# EPISODE-2026-01-21-session-42\n"
        "\n"
        "## Context\n"
        "\n"
        f"{task}.\n"
    )


OURS = episode("failure", "Fix the flaky login test")
THEIRS = episode("success", "Add the export button")


def git(where: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=check,
    )


def two_clones(tmp_path: Path) -> tuple[Path, Path]:
    """A vault in git (`brain init`, pushed from the first clone) and a second clone of it; each clone has
    its own `.brain/` (kept out of git by brain's own .gitignore), with the lexical embedder."""
    git(tmp_path, "init", "--bare", "-b", "main", "origin.git")
    first, second = tmp_path / "first", tmp_path / "second"
    git(tmp_path, "clone", "origin.git", str(first))
    lexical_vault(first)
    git(first, "add", "-A")
    git(first, "commit", "-m", "a vault")
    git(first, "push", "origin", "main")
    git(tmp_path, "clone", "origin.git", str(second))
    lexical_vault(second)
    return first, second


def commit_episode(clone: Path, text: str) -> None:
    (clone / EPISODE).write_text(text, encoding="utf-8")
    git(clone, "add", EPISODE)
    git(clone, "commit", "-m", "an episode")


def conflicted(tmp_path: Path, *, indexed_before: bool) -> Path:
    """The second clone after a pull that left the episode both clones added in conflict (its own
    version indexed before the pull, or the clone never indexed)."""
    first, second = two_clones(tmp_path)
    commit_episode(first, THEIRS)
    git(first, "push", "origin", "main")
    commit_episode(second, OURS)
    if indexed_before:
        assert run_brain("index", "--vault", str(second)).exit_code == 0
    pulled = git(second, "pull", "--no-rebase", "origin", "main", check=False)
    assert pulled.returncode == 1
    assert f"CONFLICT (add/add): Merge conflict in {EPISODE}" in pulled.stdout
    text = (second / EPISODE).read_text(encoding="utf-8")
    assert text.splitlines()[3:9] == [
        "<<<<<<< HEAD",
        "outcome: failure",
        "task: Fix the flaky login test",
        "=======",
        "outcome: success",
        "task: Add the export button",
    ]
    return second


def index_lines(root: Path) -> list[str]:
    result = run_brain("index", "--vault", str(root))
    assert result.exit_code == 0
    return [re.sub(r"in \d+\.\d s\)", "in S s)", line) for line in result.output.splitlines()]


def doctor_lines(root: Path) -> list[str]:
    result = run_brain("doctor", "--vault", str(root))
    assert result.exit_code == 0
    return result.output.splitlines()


def episodes(root: Path) -> list[tuple[str, str]]:
    import json

    result = run_brain("episode", "list", "--json", "--vault", str(root))
    return [(found["title"], found["outcome"]) for found in json.loads(result.output)]


KEPT = (
    f"{EPISODE}: git merge conflict (markers from line 4); the index keeps its last indexed version until it is "
    "resolved"
)
FIX = "resolve the conflict (keep one side, or join both), then run `brain index`"


def test_a_conflicted_episode_keeps_its_last_indexed_version_and_is_reported(tmp_path: Path) -> None:
    vault = conflicted(tmp_path, indexed_before=True)
    assert index_lines(vault) == [
        "1 note: 0 added, 0 changed, 0 moved, 0 removed (0 parsed in S s); vectors: 0 chunks embedded, "
        "0 unchanged, 0 deleted (lexical-hash-v1:384)",
        f"warning: {KEPT}; resolve the conflict, then run `brain index`",
    ]
    assert index_lines(vault)[1] == f"warning: {KEPT}; resolve the conflict, then run `brain index`"  # until resolved
    assert episodes(vault) == [("EPISODE-2026-01-21-session-42", "failure")]  # this clone's, as indexed
    doctor = doctor_lines(vault)
    assert doctor[:3] == [f"merge-conflict  {KEPT}", f"{'':15} fix: {FIX}", "1 finding in 1 note"]

    (vault / EPISODE).write_text(THEIRS, encoding="utf-8")  # resolved: their side taken
    git(vault, "commit", "-am", "merged")
    assert index_lines(vault) == [
        "1 note: 0 added, 1 changed, 0 moved, 0 removed (1 parsed in S s); vectors: 1 chunk embedded, "
        "0 unchanged, 1 deleted (lexical-hash-v1:384)"
    ]
    assert episodes(vault) == [("EPISODE-2026-01-21-session-42", "success")]
    assert doctor_lines(vault)[0] == "no problems found in 1 note"


def test_a_conflicted_note_never_indexed_stays_out_and_doctor_names_it_with_or_without_an_index(tmp_path: Path) -> None:
    vault = conflicted(tmp_path, indexed_before=False)
    left_out = f"{EPISODE}: git merge conflict (markers from line 4); left out of the index until it is resolved"
    read_as_is = f"{EPISODE}: git merge conflict (markers from line 4); read as a plain note until it is resolved"
    assert doctor_lines(vault)[:3] == [f"merge-conflict  {read_as_is}", f"{'':15} fix: {FIX}", "1 finding in 1 note"]
    assert index_lines(vault)[1:] == [f"warning: {left_out}; resolve the conflict, then run `brain index`"]
    assert episodes(vault) == []
    assert doctor_lines(vault)[:3] == [f"merge-conflict  {left_out}", f"{'':15} fix: {FIX}", "1 finding in 0 notes"]

    (vault / EPISODE).write_text(OURS, encoding="utf-8")  # resolved as the version the index never had
    assert index_lines(vault)[1:] == []
    assert episodes(vault) == [("EPISODE-2026-01-21-session-42", "failure")]


def test_conflict_markers_are_found_as_git_writes_them_and_not_in_a_note_about_git() -> None:
    assert conflict_line("---\n<<<<<<< HEAD\ntitle: a\n=======\ntitle: b\n>>>>>>> 1f2e3d4\n---\n") == 2
    assert conflict_line("a\r\n<<<<<<< HEAD\r\nb\r\n=======\r\nc\r\n>>>>>>> theirs\r\n") == 2
    diff3 = "a\n<<<<<<< ours\nb\n||||||| base\nx\n=======\nc\n>>>>>>> theirs\n"
    assert conflict_line(diff3) == 2
    assert conflict_line("a\n<<<<<<< HEAD\nb\n") is None  # no middle, no end: not what git writes
    assert conflict_line("a\n======= \n>>>>>>> x\n") is None
    about_git = "# Resolving conflicts\n\n```text\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main\n```\n"
    assert conflict_line(about_git) is None
    assert conflict_line(about_git + "\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> main\n") == 11


def test_a_vault_without_an_index_reads_the_file_and_doctor_names_the_conflict(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    lexical_vault(root)
    text = OURS.replace("outcome: failure\n", "<<<<<<< HEAD\noutcome: failure\n=======\noutcome: success\n>>>>>>> x\n")
    (root / EPISODE).write_text(text, encoding="utf-8")
    assert doctor_lines(root)[:2] == [
        f"merge-conflict  {EPISODE}: git merge conflict (markers from line 4); read as a plain note until it is resolved",
        f"{'':15} fix: {FIX}",
    ]
