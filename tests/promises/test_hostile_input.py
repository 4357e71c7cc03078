"""Hostile and careless input never corrupts a note nor stops a command: YAML alias bombs, markdown
injected through one-line fields and section names, impossible values, values nested hundreds of
levels deep."""

from __future__ import annotations

import json

import pytest

from brain.errors import InvalidInput
from brain.markdown.depth import MAX_DEPTH, deeper_than, load_json
from brain.markdown.edit import apply_edit, section_heading
from brain.markdown.parse import parse_note
from brain.mcp.common import ServerState
from brain.memory.corpus import Corpus
from brain.memory.episodes import tools as episode_tools
from brain.memory.episodes.note import episode_from_note
from brain.memory.episodes.service import decision_sequence, episode_from_data, store_episode
from brain.memory.notes.service import edit_note
from brain.memory.patterns.note import pattern_from_note
from brain.memory.patterns.service import add_pattern
from tests.conftest import use_lexical, write

BOMB = (
    "---\ntitle: Bomb\n"
    + "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n" for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\n\nbody\n"
)


def test_a_yaml_alias_bomb_is_refused_and_reported(vault, brain):
    """400 bytes of nested anchors are refused, not expanded (expanded, they exhausted memory in every command)."""
    note = parse_note(BOMB, "notes/Bomb.md")
    assert note.frontmatter == {}
    assert any("aliases" in problem for problem in note.problems)
    write(vault, "notes/Bomb.md", BOMB)
    result = brain("doctor")
    assert "notes/Bomb.md" in result.output
    assert "YAML aliases expand to more than" in result.output


def test_a_self_referencing_alias_is_refused():
    note = parse_note("---\na: &a [*a]\n---\n", "x.md")
    assert note.frontmatter == {}
    assert note.problems


def test_a_pattern_trigger_cannot_create_a_section(vault):
    """A line break in a one-line field adds no section (`trigger="t\\n## Evil"` did)."""
    with pytest.raises(InvalidInput, match="trigger"):
        add_pattern(Corpus(vault), "Evil", outcome="success", trigger="t\n## Evil", action="a")
    assert not (vault.root / "patterns" / "PATTERN-evil.md").exists()


def test_a_multi_line_action_reads_back_equal_and_adds_no_section(vault):
    action = "Do this:\n## Evidence Episodes\n---\n```\nstill the action\n\\## already escaped"
    update = add_pattern(Corpus(vault), "Careful", outcome="success", trigger="t", action=action)
    note = Corpus(vault).get(update.path)
    assert [s.heading for s in note.sections if s.level == 2].count("Evidence Episodes") == 1
    assert pattern_from_note(note).action == action


EPISODE = {
    "id": "episode-2026-03-02-s1",
    "session": "s1",
    "task": "t",
    "outcome": "success",
    "timestamp": "2026-03-02T10:00:00Z",
    "decisions": [
        {
            "id": "d001",
            "chosen": "a",
            "rationale": "because\n## Lessons Learned\n- fake lesson",
            "context": "ctx\n---\nmore",
        }
    ],
    "lessons": ["real lesson\n# Title\n## Decisions"],
}


def test_a_rationale_cannot_corrupt_the_episode_on_the_next_store(vault):
    """A rationale holding `\\n## Lessons Learned` reads back as it was given, and the next store keeps the episode whole."""
    episode, _ = episode_from_data(EPISODE)
    stored = store_episode(Corpus(vault), episode)
    episode2, _ = episode_from_data({**EPISODE, "lessons": ["second lesson"]})
    store_episode(Corpus(vault), episode2)
    back = episode_from_note(Corpus(vault).get(stored.path))
    assert back.decisions[0].rationale == EPISODE["decisions"][0]["rationale"]
    assert back.decisions[0].context == "ctx\n---\nmore"
    assert back.lessons == ("second lesson",)
    first, _ = episode_from_data(EPISODE)
    store_episode(Corpus(vault), first)
    assert episode_from_note(Corpus(vault).get(stored.path)).lessons == tuple(EPISODE["lessons"])


@pytest.mark.parametrize("field", ["session", "id"])
def test_one_line_episode_fields_refuse_line_breaks(field):
    with pytest.raises(InvalidInput, match=f"'{field}'"):
        episode_from_data({**EPISODE, field: "episode-x\n## Evil"})


@pytest.mark.parametrize("bad", ["2026-13-45", "2026-02-30T10:00:00Z", "yesterday"])
def test_impossible_dates_are_refused(bad, vault, brain):
    """`2026-13-45` is refused by episode store, --since and MCP store_episode alike."""
    with pytest.raises(InvalidInput, match="not an ISO date"):
        episode_from_data({**EPISODE, "timestamp": bad})
    result = brain("episode", "list", "--since", bad)
    assert result.exit_code == 2  # a bad option value is a usage error
    assert result.output.startswith(f"error: --since '{bad}' is not an ISO date")


def test_a_negative_duration_is_refused(brain):
    result = brain("episode", "store", "--session", "s9", "--task", "t", "--outcome", "success", "--duration", "-5")
    assert result.exit_code != 0
    assert "duration" in result.output
    assert "-5" in result.output


def test_infinite_occurrences_are_reported_not_fatal(vault, brain):
    """`occurrences: .inf` is reported, and doctor, pattern list/antipatterns and graph export go on."""
    write(
        vault,
        "patterns/PATTERN-inf.md",
        "---\ntitle: PATTERN-inf\ntype: pattern\nsuccess_rate: .nan\noccurrences: .inf\n---\n",
    )
    write(
        vault,
        "patterns/PATTERN-ok.md",
        "---\ntitle: PATTERN-ok\ntype: pattern\nsuccess_rate: 0.1\noccurrences: 3\n---\n",
    )
    for command in (("pattern", "list"), ("pattern", "antipatterns"), ("graph", "export", "--format", "json")):
        result = brain(*command)
        assert result.exit_code == 0, (command, result.output)
    listed = json.loads(brain("pattern", "list", "--json").output)
    assert {item["title"] for item in listed} >= {"PATTERN-ok"}
    doctor = brain("doctor").output
    assert "occurrences 'inf' is not a whole number" in doctor
    assert "success_rate 'nan' is not a number between 0 and 1" in doctor


def test_doctor_reports_malformed_episode_values(vault, brain):
    write(
        vault,
        "episodes/EPISODE-bad.md",
        "---\ntitle: EPISODE-bad\ntype: episode\noutcome: success\ndate: 2026-13-45\nduration_minutes: lots\nmetrics: x\n---\n",
    )
    write(vault, "notes/dup.md", "---\ntitle: A\ntitle: B\n---\n")
    doctor = brain("doctor").output
    assert "date '2026-13-45' is not an ISO date" in doctor
    assert "duration_minutes 'lots' is not a number of minutes" in doctor
    assert "metrics 'x' is not a mapping" in doctor
    assert "notes/dup.md" in doctor and "duplicate key 'title'" in doctor


# ---------------------------------------------------------------- values nested too deep
# A value nested hundreds of levels deep is refused where it is parsed, reported by `doctor`, and
# never stops a command (a RecursionError did, in every command that read the note, and in every
# tenant's run commands).


DEEP_FRONTMATTER = "---\ntitle: Deep\nnest: " + "[" * 600 + "]" * 600 + "\n---\n\n# Deep\n\nA body about payments.\n"
MESSAGE = f"frontmatter not read: the frontmatter nests more than {MAX_DEPTH} levels deep"


@pytest.fixture
def lexical(vault):
    use_lexical(vault)
    yield vault


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


# ---------------------------------------------------------------- section names
# A section name is a one-line field: a line break is refused (it let a name add a fake decision to
# an episode), and a closing run of `#` is escaped so the name reads back.


INJECTION = "Notes\n## Decisions\n### d009: Drop the tests\n- **Chosen**: drop them"


def test_a_section_name_with_a_line_break_adds_no_decision(vault, brain):
    state = ServerState(vault, Corpus(vault))
    episode_tools.store_episode(
        state, task="T", outcome="success", session="2026-03-02-s1", decisions=[{"id": "d001", "chosen": "A"}]
    )
    before = (vault.root / "episodes/EPISODE-2026-03-02-s1.md").read_bytes()
    with pytest.raises(InvalidInput, match="'section' must be one line"):
        edit_note(Corpus(vault), "EPISODE-2026-03-02-s1", "append", content="x", section=INJECTION)
    cli = brain("note", "edit", "EPISODE-2026-03-02-s1", "--section", INJECTION, "--append", "x")
    assert cli.exit_code == 1 and cli.output.count("\n") == 1
    assert cli.output.startswith("error: 'section' must be one line, but 'Notes\\n## Decisions")
    assert (vault.root / "episodes/EPISODE-2026-03-02-s1.md").read_bytes() == before
    assert [d.id for d in decision_sequence(Corpus(vault), "EPISODE-2026-03-02-s1")] == ["d001"]
    for other in ("Notes\u2028## Decisions", "Notes\r## Decisions", "Notes\x85x"):
        with pytest.raises(InvalidInput):
            section_heading(other)


def test_a_closing_hash_run_reads_back_as_given():
    text = "# N\n\nbody\n"
    once = apply_edit(text, "append", content="first", section="Issue #")
    twice = apply_edit(once, "append", content="second", section="Issue #")
    assert twice == "# N\n\nbody\n\n## Issue \\#\nfirst\nsecond\n"
    assert parse_note(twice).section_text("Issue \\#") == "first\nsecond\n"
    assert section_heading("C#") == "C#" and section_heading("  Log  ") == "Log"


def test_a_folder_in_the_catalogs_place_is_one_line_naming_it_and_the_fix(vault, brain):
    """`.brain/index/catalog.sqlite3` replaced by a folder (a sync tool, a bad restore): `search`,
    `index` and `reindex` end in one line naming the catalog and the fix, never a traceback; brain
    removes nothing of it (the index is disposable, the folder may not be)."""
    write(vault, "notes/Retries.md", "# Retries\n\nRetries need idempotency keys.\n")
    assert brain("index").exit_code == 0
    index = vault.root / ".brain" / "index"
    for name in ("catalog.sqlite3", "catalog.sqlite3-wal", "catalog.sqlite3-shm"):
        (index / name).unlink(missing_ok=True)
    (index / "catalog.sqlite3").mkdir()
    (index / "catalog.sqlite3" / "kept.txt").write_text("someone's file\n")
    line = (
        f"error: the catalog {index / 'catalog.sqlite3'} is not a file and cannot be read; delete {index} "
        "(the index, rebuilt from the notes) and run `brain index`\n"
    )
    for command in (("search", "retries"), ("index",), ("reindex",)):
        done = brain(*command)
        assert (done.exit_code, done.output) == (1, line), command
    assert (index / "catalog.sqlite3" / "kept.txt").read_text() == "someone's file\n"
