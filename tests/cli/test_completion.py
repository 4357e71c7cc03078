"""Shell completion of note names (by title and by path) and agent names, asked as a shell asks: the
`brain` program run with the completion variables of bash, zsh and fish, and a real bash running the
completion script brain gives it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain.vault.vault import Vault
from tests.conftest import run_brain, write
from tests.helpers.cli_probe import REPO

PROGRAM = "import sys; sys.argv[0] = 'brain'; from brain.cli import main; main()"  # as the console script


def brain_env(**extra: str) -> dict[str, str]:
    """The environment of a shell: no $BRAIN_VAULT unless given."""
    keep = {key: value for key, value in os.environ.items() if key != "BRAIN_VAULT"}
    return {**keep, "PYTHONPATH": str(REPO), **extra}


def complete(*words: str, shell: str = "bash", cwd: Path, **extra: str) -> str:
    """What `brain` answers the shell completing the last of `words` (an empty one: nothing typed yet),
    each word as typed on the line (`Memory\\ f`)."""
    if shell == "bash":
        asked = {"COMP_WORDS": "\n".join(words), "COMP_CWORD": str(len(words) - 1)}
    else:
        asked = {"_TYPER_COMPLETE_ARGS": " ".join(words)}
        if shell == "fish":
            asked["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=brain_env(_BRAIN_COMPLETE=f"complete_{shell}", **asked, **extra),
    )
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


@pytest.fixture
def notes(vault: Vault) -> Vault:
    write(vault, "notes/Memory first.md", "# Memory first\n\nQuery memory before acting.\n")
    write(vault, "notes/routing.md", "---\ntitle: Memory Routing Strategy\n---\nRoute by kind.\n")
    write(vault, "episodes/EPISODE-1.md", "---\ntitle: Ledger rollout\ntype: episode\n---\nShipped.\n")
    write(vault, "patterns/PATTERN-retry.md", "---\ntype: pattern\n---\n# PATTERN-retry\n")
    write(vault, "facts/FACT-timeout.md", "---\ntitle: Timeout is 900 s\ntype: fact\n---\n")
    write(vault, "tips/TIP-small-commits.md", "---\ntype: tip\n---\n# Small commits\n")
    write(vault, "runs/acme/run-7.md", "---\ntitle: run-7\ntype: run\n---\n")
    return vault


def test_without_an_index_note_names_come_from_the_files(notes: Vault):
    root = notes.root
    assert complete("brain", "note", "read", "", cwd=root) == (
        "EPISODE-1\nFACT-timeout\nMemory\\ first\nPATTERN-retry\nrouting\nrun-7\nTIP-small-commits\n"
        "episodes/EPISODE-1.md\nfacts/FACT-timeout.md\nnotes/Memory\\ first.md\nnotes/routing.md\n"
        "patterns/PATTERN-retry.md\nruns/acme/run-7.md\ntips/TIP-small-commits.md\n"
    )
    assert complete("brain", "note", "edit", "notes/", cwd=root) == "notes/Memory\\ first.md\nnotes/routing.md\n"
    # a type's notes are those in its folder
    assert complete("brain", "episode", "show", "", cwd=root) == "EPISODE-1\nepisodes/EPISODE-1.md\n"
    assert not (notes.index_dir / "catalog.sqlite3").exists()  # completion never builds an index


def test_with_an_index_titles_and_types_come_from_the_catalog(notes: Vault, tmp_path: Path):
    assert run_brain("index", "--no-embed", "--vault", str(notes.root)).exit_code == 0
    root = notes.root
    assert complete("brain", "note", "read", "Mem", cwd=root) == "Memory\\ first\nMemory\\ Routing\\ Strategy\n"
    assert complete("brain", "causal", "why", "Memory\\ R", cwd=root) == "Memory\\ Routing\\ Strategy\n"
    assert complete("brain", "pattern", "path", "'Memory first'", "", cwd=root).startswith(
        "Ledger\\ rollout\nMemory\\ first\n"
    )
    by_type = {
        ("episode", "show"): "Ledger\\ rollout\nepisodes/EPISODE-1.md\n",
        ("episode", "decisions"): "Ledger\\ rollout\nepisodes/EPISODE-1.md\n",
        ("tip", "learn"): "Ledger\\ rollout\nepisodes/EPISODE-1.md\n",
        ("pattern", "add"): "PATTERN-retry\npatterns/PATTERN-retry.md\n",
        ("pattern", "evidence"): "PATTERN-retry\npatterns/PATTERN-retry.md\n",
        ("fact", "hold"): "Timeout\\ is\\ 900\\ s\nfacts/FACT-timeout.md\n",
        ("fact", "supersede"): "Timeout\\ is\\ 900\\ s\nfacts/FACT-timeout.md\n",
        ("tip", "feedback"): "Small\\ commits\ntips/TIP-small-commits.md\n",
        ("run", "show"): "run-7\nruns/acme/run-7.md\n",
    }
    for (group, command), expected in by_type.items():
        assert complete("brain", group, command, "", cwd=root) == expected, (group, command)
    assert complete("brain", "pattern", "evidence", "PATTERN-retry", "--episode", "L", cwd=root) == "Ledger\\ rollout\n"
    assert complete("brain", "fact", "record", "config", "timeout", "--source", "Memory\\ f", cwd=root) == (
        "Memory\\ first\n"
    )
    # the vault the command would open: --vault on the line, else $BRAIN_VAULT, else the current folder upwards
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert complete("brain", "note", "read", "--vault", str(root), "T", cwd=elsewhere) == "Timeout\\ is\\ 900\\ s\n"
    assert complete("brain", "note", "read", "T", cwd=elsewhere, BRAIN_VAULT=str(root)) == "Timeout\\ is\\ 900\\ s\n"
    assert complete("brain", "note", "read", "T", cwd=root / "notes") == "Timeout\\ is\\ 900\\ s\n"


def test_zsh_and_fish_get_the_title_as_it_is_with_its_path_beside_it(notes: Vault):
    assert complete("brain", "note", "read", "Memory", shell="zsh", cwd=notes.root) == (
        '_arguments \'*: :(("Memory first":"notes/Memory first.md"))\'\n'
    )
    assert complete("brain", "note", "read", "Memory", shell="fish", cwd=notes.root) == (
        "Memory first\tnotes/Memory first.md\n"
    )


def test_completion_offers_nothing_rather_than_fail(notes: Vault, tmp_path: Path):
    nothing = "\n"  # what typer's bash completion prints without a candidate
    assert complete("brain", "note", "read", "", cwd=tmp_path) == nothing  # no vault here
    assert complete("brain", "note", "read", "--vault", str(tmp_path / "gone"), "", cwd=tmp_path) == nothing
    (notes.index_dir / "catalog.sqlite3").write_bytes(b"not a database")  # the files are listed instead
    assert complete("brain", "note", "read", "M", cwd=notes.root) == "Memory\\ first\n"


def test_agent_names_complete_for_hooks_install_and_uninstall(tmp_path: Path):
    assert complete("brain", "hooks", "install", "", cwd=tmp_path) == "claude-code\ncodex\ngemini\n"
    assert complete("brain", "hooks", "uninstall", "co", cwd=tmp_path) == "codex\n"
    assert complete("brain", "hooks", "install", "", shell="zsh", cwd=tmp_path) == (
        '_arguments \'*: :(("claude-code"\n"codex"\n"gemini"))\'\n'
    )


def test_a_real_bash_completes_a_title_into_one_word(notes: Vault, tmp_path: Path):
    """bash sources the script brain gives it, completes, and the completed line runs as one argument."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "brain"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} -c "{PROGRAM}" "$@"\n')
    program.chmod(0o755)
    script = """
        eval "$(_BRAIN_COMPLETE=source_bash brain)"
        COMP_WORDS=(brain note read 'Memory f'); COMP_CWORD=3
        _brain_completion brain
        printf '%s\\n' "${COMPREPLY[@]}"
        eval "brain note read ${COMPREPLY[0]}"
    """
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        capture_output=True,
        text=True,
        cwd=notes.root,
        env=brain_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "Memory\\ first\n# Memory first\n\nQuery memory before acting.\n"
