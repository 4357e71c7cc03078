"""Issue 25 point 15: a write brain could not read back whole is refused in one line: a run or a
fact over the 5 MiB a note may hold was "recorded" and then read back cut (no decisions, no
longer a fact)."""

from __future__ import annotations

import json

import pytest

from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.index.engine import forget, open_index
from brain.note_files import MAX_NOTE_BYTES

LIMIT = f"over the {MAX_NOTE_BYTES // 2**20} MiB a note may hold (brain reads no more of a note back); nothing was written. Make it smaller"


@pytest.fixture
def lexical(vault):
    open_index(vault, embedder=LexicalFallbackEmbedder())
    yield vault
    forget(vault.root)


def one_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    return result.stderr.rstrip("\n")


def test_a_run_over_the_limit_is_refused(lexical, brain):
    snapshot = {
        "query": "a big run",
        "finalContent": "done",
        "decisions": [{"stageId": "s1", "chosen": "x"}],
        "narrative": "n" * (MAX_NOTE_BYTES + 10),
    }
    message = one_line(brain("run", "record", "-f", "-", "--tenant", "acme", input=json.dumps(snapshot)))
    assert message.endswith(LIMIT)
    assert not list((lexical.root / "runs").rglob("*.md"))


def test_a_fact_over_the_limit_is_refused(vault, brain):
    message = one_line(brain("fact", "record", "config", "blob", json.dumps("v" * (6 * 2**20))))
    assert message.endswith(LIMIT)
    assert not list((vault.root / "facts").glob("*.md"))


def test_a_note_edit_that_would_pass_the_limit_is_refused(vault, brain):
    assert brain("note", "write", "Grows", "-f", "-", input="start\n").exit_code == 0
    path = vault.root / "notes" / "Grows.md"
    before = path.read_bytes()
    message = one_line(brain("note", "edit", "Grows", "--append", "x" * (MAX_NOTE_BYTES + 1)))
    assert message.endswith(LIMIT) and path.read_bytes() == before
