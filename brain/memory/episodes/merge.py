"""Storing an episode again: the parts given change, everything else in the note stays.

An agent stores an episode at the end of a session and often again later with only what it
learned since (lessons, or one more decision). Arguments left out leave the stored parts alone:
a frontmatter key that was not given keeps its value, a section that was not given keeps its
text. What was given is merged by identity, never by wiping:

- decisions by id: a stored `### d002: ...` block is replaced by the given d002, a new id is
  added after the last one; prose a person wrote around the blocks stays;
- events by id (an event without id is added unless the same event is already there);
- lessons by text: a lesson not listed yet is added below the section's last line, so lines a
  person added under "Lessons Learned" stay;
- metrics by key.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from brain.markdown.edit import append_to_section, replace_section, set_frontmatter
from brain.markdown.lines import line_ending, split_lines
from brain.markdown.model import Decision, Episode, Event
from brain.markdown.parse import parse_note
from brain.memory.episodes.note import episode_from_note, managed_frontmatter, managed_sections

# The ai-agents key that carries each frontmatter key brain manages.
_SOURCE_KEY = {
    "episode_id": "id",
    "session": "session",
    "date": "timestamp",
    "outcome": "outcome",
    "task": "task",
    "duration_minutes": "duration_minutes",
    "metrics": "metrics",
}
PARTS = frozenset({*_SOURCE_KEY.values(), "decisions", "events", "lessons"})
_ANCHORS = {
    "Decisions": ("Observations", "Context"),
    "Events Timeline": ("Decisions",),
    "Lessons Learned": ("Events Timeline",),
}


def given_parts(data: dict[str, Any]) -> frozenset[str]:
    """The parts of ai-agents episode data that were given (a key holding null was not)."""
    given = {key for key in PARTS if data.get(key) is not None}
    metrics = data.get("metrics")
    if isinstance(metrics, dict) and metrics.get("duration_minutes") is not None:
        given.add("duration_minutes")
    return frozenset(given)


def merge_episode_text(
    text: str, episode: Episode, given: frozenset[str], extra_frontmatter: dict[str, Any] | None = None
) -> str:
    """`text` with the `given` parts of `episode` merged in; every other part as it was."""
    stored = episode_from_note(parse_note(text))
    values = managed_frontmatter(episode)
    updates = {key: value for key, value in values.items() if _SOURCE_KEY[key] in given and value is not None}
    if "metrics" in updates:
        updates["metrics"] = {**stored.metrics, **updates["metrics"]}
    updates.update(extra_frontmatter or {})
    text = set_frontmatter(text, updates)
    if "decisions" in given:
        text = _merge_decisions(text, stored.decisions, episode.decisions)
    if "events" in given:
        merged = _merge_events(stored.events, episode.events)
        if merged != stored.events:
            content = managed_sections(replace(episode, events=merged))["Events Timeline"]
            text = replace_section(text, "Events Timeline", content, after=_ANCHORS["Events Timeline"])
    if "lessons" in given:
        new = tuple(dict.fromkeys(lesson for lesson in episode.lessons if lesson not in stored.lessons))
        if new:
            addition = managed_sections(replace(episode, lessons=new))["Lessons Learned"]
            text = append_to_section(text, "Lessons Learned", addition, after=_ANCHORS["Lessons Learned"])
    return text


def _merge_events(stored: tuple[Event, ...], given: tuple[Event, ...]) -> tuple[Event, ...]:
    merged = list(stored)
    for event in given:
        same = next((n for n, old in enumerate(merged) if event.id and old.id == event.id), None)
        if same is not None:
            merged[same] = event
        elif event not in merged:
            merged.append(event)
    return tuple(merged)


def _merge_decisions(text: str, stored: tuple[Decision, ...], given: tuple[Decision, ...]) -> str:
    """Replace the `### id:` block of each given decision stored already, add the others after the last."""
    known = {decision.id: decision for decision in stored}
    if all(known.get(decision.id) == decision for decision in given):
        return text
    note = parse_note(text)
    section = note.section("Decisions")
    if section is None:
        content = managed_sections(_with_decisions(given))["Decisions"]
        return replace_section(text, "Decisions", content, after=_ANCHORS["Decisions"])
    eol = line_ending(text)
    lines = split_lines(text)
    blocks = [s for s in note.sections if s.level == 3 and section.start < s.start < section.end]
    prose = "".join(lines[section.start + 1 : blocks[0].start if blocks else section.end]).rstrip("\r\n")
    wanted = {decision.id: decision for decision in given}
    parts: list[str] = []
    for block in blocks:
        block_id = block.heading.split(":", 1)[0].strip()
        decision = wanted.pop(block_id, None)
        if decision is not None:
            parts.append(_render(decision))
        else:
            parts.append("".join(lines[block.start : min(block.end, section.end)]).strip("\r\n"))
    parts += [_render(decision) for decision in wanted.values()]
    blocks_text = (eol + eol).join(part.replace("\r\n", "\n").replace("\n", eol) for part in parts)
    content = (prose + eol if prose.strip() else "") + eol + blocks_text + eol
    return replace_section(text, "Decisions", content)


def _render(decision: Decision) -> str:
    return managed_sections(_with_decisions((decision,)))["Decisions"].strip("\n")


def _with_decisions(decisions: tuple[Decision, ...]) -> Episode:
    return Episode(title="", outcome=None, decisions=decisions)
