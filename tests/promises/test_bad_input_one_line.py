"""Issue 25 point 18: bad input ends in one line, never a traceback: a 0xFF byte in an argument,
an over-long path, a 60,000-character folder filter, deeply nested values, journal lines that are
JSON but not records, and names holding a line break."""

from __future__ import annotations

import json

import pytest

from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.index.engine import forget, open_index
from tests.conftest import write


@pytest.fixture
def lexical(vault):
    open_index(vault, embedder=LexicalFallbackEmbedder())
    yield vault
    forget(vault.root)


def one_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr.rstrip("\n")


@pytest.mark.parametrize(
    "args",
    [
        ("note", "write", "A\udcffb"),
        ("fact", "record", "preference", "al\udcffice", "tea"),
        ("fact", "recall", "al\udcffice"),
        ("context", "save", "x\udcffy", "--project", "p", "--action-type", "decision"),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_a_byte_that_is_not_utf8_is_named(vault, brain, args):
    message = one_line(brain(*args))
    assert "\\xff" in message and message.endswith("is not UTF-8 text; give it in UTF-8")
    assert not list((vault.root / "notes").glob("*")) and not list((vault.root / "facts").glob("*"))


LONG = "/tmp/" + "a" * 300 + "/x"


@pytest.mark.parametrize(
    "args",
    [
        ("graph", "export", "-o", LONG),
        ("run", "record", "-f", LONG, "--tenant", "acme"),
        ("episode", "extract", LONG),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_an_over_long_path_is_one_line(vault, brain, args):
    message = one_line(brain(*args))
    assert "too long" in message, message


def test_a_huge_folder_filter_is_no_sqlite_error(lexical, brain):
    write(lexical, "notes/a%b/Note.md", "# Note\n\nabout payments\n")
    write(lexical, "notes/axb/Other.md", "# Other\n\nabout payments\n")
    done = brain("search", "payments", "--mode", "text", "--folder", "a%" * 30000)
    assert done.exit_code == 0 and done.output == "no notes match\n"
    only = brain("search", "payments", "--mode", "text", "--folder", "notes/a%b")
    assert "notes/a%b/Note.md" in only.output and "Other" not in only.output  # % means itself


def test_deeply_nested_values_are_refused_in_one_line(vault, brain):
    deep = "[" * 3000 + "]" * 3000
    assert one_line(brain("fact", "record", "config", "x", deep)).endswith(
        "the fact value nests more than 64 levels deep; brain does not read values nested that deeply"
    )
    assert one_line(brain("fact", "record", "config", "x", "a: " + "[" * 300 + "]" * 300)).endswith(
        "the fact value nests more than 64 levels deep; brain does not read values nested that deeply"
    )


def test_journal_lines_that_are_not_records(vault, brain):
    assert brain("fact", "record", "preference", "alice", "tea").exit_code == 0
    assert brain("fact", "recall", "alice").exit_code == 0
    journal = vault.brain_dir / "journal" / "recall.jsonl"
    first = journal.read_text()
    journal.write_text(first + "[]\n" + json.dumps({"results": [1]}) + "\n" + json.dumps({"filters": 5}) + "\n")
    doctor = brain("doctor")
    for line in (2, 3, 4):
        assert f".brain/journal/recall.jsonl:{line}: not a JSON record (edited or truncated)" in doctor.output
    listed = brain("fact", "journal")
    assert listed.exit_code == 0 and listed.output.startswith("#1 ")
    assert brain("fact", "replay", "1").exit_code in (0, 1)  # an answer, not a traceback


def test_a_name_with_a_line_break_is_echoed_on_one_line(vault, brain):
    message = one_line(brain("note", "read", "no such\nnote"))
    assert "no such\\nnote" in message
