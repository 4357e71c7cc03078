"""Issue 10, hostile and careless input: alias bombs, markdown injection, impossible values."""

from __future__ import annotations

import json

import pytest

from brain.errors import InvalidInput
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import episode_from_data, store_episode
from brain.memory.patterns.service import add_pattern
from brain.notes.episode import episode_from_note
from brain.notes.parse import parse_note
from brain.notes.pattern import pattern_from_note
from tests.conftest import write

BOMB = (
    "---\ntitle: Bomb\n"
    + "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n" for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\n\nbody\n"
)


def test_a_yaml_alias_bomb_is_refused_and_reported(vault, brain):
    """Item 8: 400 bytes of nested anchors exhausted memory in every command."""
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
    """Item 9: `trigger="t\\n## Evil"` created a section."""
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
    """Item 9: a rationale holding `\\n## Lessons Learned` corrupted the episode on the next store."""
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
    """Item 10: `2026-13-45` was accepted by episode store, --since and MCP store_episode."""
    with pytest.raises(InvalidInput, match="not an ISO date"):
        episode_from_data({**EPISODE, "timestamp": bad})
    result = brain("episode", "list", "--since", bad)
    assert result.exit_code == 1
    assert result.output.startswith(f"error: since '{bad}' is not an ISO date")


def test_a_negative_duration_is_refused(brain):
    result = brain("episode", "store", "--session", "s9", "--task", "t", "--outcome", "success", "--duration", "-5")
    assert result.exit_code != 0
    assert "duration" in result.output
    assert "-5" in result.output


def test_infinite_occurrences_are_reported_not_fatal(vault, brain):
    """Item 10: `occurrences: .inf` broke doctor, pattern list/antipatterns and graph export."""
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
