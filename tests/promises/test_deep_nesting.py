"""Issue 25 point 14 (and the nested-JSON part of 18): a value nested hundreds of levels deep is
refused where it is parsed, reported by `doctor`, and never stops a command (a RecursionError
did, in every command that read the note, and in every tenant's run commands)."""

from __future__ import annotations

import json

import pytest

from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.index.engine import forget, open_index
from brain.notes.depth import MAX_DEPTH, deeper_than, load_json
from brain.notes.parse import parse_note
from tests.conftest import write

DEEP_FRONTMATTER = "---\ntitle: Deep\nnest: " + "[" * 600 + "]" * 600 + "\n---\n\n# Deep\n\nA body about payments.\n"
MESSAGE = f"frontmatter not read: the frontmatter nests more than {MAX_DEPTH} levels deep"


@pytest.fixture
def lexical(vault):
    open_index(vault, embedder=LexicalFallbackEmbedder())
    yield vault
    forget(vault.root)


def test_depth_is_measured_without_recursion():
    value: list = []
    for _ in range(100_000):
        value = [value]
    assert deeper_than(value) and not deeper_than([[[]]])
    looped: list = []
    looped.append(looped)
    assert deeper_than(looped)
    with pytest.raises(ValueError, match="nests more than 64 levels"):
        load_json("[" * 5000 + "]" * 5000, "x")


def test_a_deep_frontmatter_is_a_problem_of_its_note():
    note = parse_note(DEEP_FRONTMATTER, "notes/Deep.md")
    assert note.frontmatter == {} and note.problems[0].startswith(MESSAGE)
    assert note.title == "Deep"
    ok = parse_note("---\nnest: " + "[" * 60 + "]" * 60 + "\n---\n", "notes/Ok.md")
    assert ok.problems == () and "nest" in ok.frontmatter


def test_every_command_works_beside_a_deeply_nested_note(lexical, brain):
    write(lexical, "notes/Deep.md", DEEP_FRONTMATTER)
    write(lexical, "notes/Plain.md", "# Plain\n\nAlso about payments.\n")
    assert brain("index").exit_code == 0
    doctor = brain("doctor")
    assert f"notes/Deep.md: {MESSAGE}" in doctor.output
    found = brain("search", "payments", "--mode", "text")
    assert found.exit_code == 0 and "notes/Deep.md" in found.output and "notes/Plain.md" in found.output
    assert brain("episode", "list").output == "no episodes match\n"
    assert "A body about payments." in brain("note", "read", "Deep").output


def test_a_deep_run_snapshot_stops_no_tenant(lexical, brain):
    snapshot = {"query": "loan for acme", "finalContent": "yes", "decisions": []}
    for tenant in ("acme", "other"):
        done = brain("run", "record", "-f", "-", "--tenant", tenant, input=json.dumps(snapshot))
        assert done.exit_code == 0, done.output
    (path,) = (lexical.root / "runs" / "acme").glob("*.md")
    text = path.read_text()
    start = text.index("```json\n") + len("```json\n")
    path.write_text(text[:start] + '{"query": "x", "deep": ' + "[" * 3000 + "]" * 3000 + "}\n```\n")
    listed = brain("run", "list", "--tenant", "other")
    assert listed.exit_code == 0 and "loan for acme" in listed.output
    assert brain("run", "list", "--tenant", "acme").exit_code == 0
    assert "the Snapshot JSON nests more than 64 levels deep" in brain("doctor").output


def test_a_deep_snapshot_is_refused_when_recorded(lexical, brain):
    deep = '{"query": "q", "finalContent": "a", "x": ' + "[" * 3000 + "]" * 3000 + "}"
    done = brain("run", "record", "-f", "-", "--tenant", "acme", input=deep)
    assert done.exit_code == 1 and done.output.endswith(
        "nests more than 64 levels deep; brain does not read values nested that deeply\n"
    )
    assert not list((lexical.root / "runs").rglob("*.md"))
