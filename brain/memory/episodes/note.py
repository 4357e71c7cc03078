"""Episodes: read the typed parts of an episode note, and render a new one.

Grammar (the episode layout of the ai-agents episodic memory): `### d001: Title` blocks of `- **Field**: value` bullets under
`## Decisions`, and one numbered line per event under `## Events Timeline`:

    3. [2026-03-02T10:05:00Z] e003 (commit): Fix rotation (caused_by: [[e002]]; leads_to: [[e004]])

A value spanning lines continues on lines indented by two spaces. Options are a comma list,
or a nested bullet list when an option holds a comma.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from brain.markdown import frontmatter_yaml
from brain.markdown.lines import escape_block, line_texts, unescape_block
from brain.markdown.model import OUTCOMES, Decision, Episode, Event, Note, NoteHeader
from brain.markdown.parse import find_wikilinks

DECISION_FIELDS = ("Timestamp", "Type", "Context", "Options", "Chosen", "Rationale", "Outcome", "Effects")
DECISION_TYPES = ("design", "implementation", "test", "recovery", "routing")
EVENT_TYPES = ("tool_call", "error", "milestone", "handoff", "commit", "test")

_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")  # Python reads six fractional digits; real data has seven
_DECISION_HEADING = re.compile(r"^(\S+?):\s*(.*)$")
_FIELD = re.compile(r"^[-*][ \t]+\*\*([^*]+?)\*\*:?(?:[ \t](.*))?$")
_NESTED_ITEM = re.compile(r"^[ \t]{2,}[-*][ \t]+(.*)$")
_EVENT = re.compile(r"^[ \t]*(\d+)[.)][ \t]+(?:\[([^\]\n]*)\][ \t]+)?(.*)$")
_EVENT_ID = re.compile(r"^([A-Za-z]{0,3}\d[\w.-]*)(?:[ \t]+\(([^()\n]*)\))?:[ \t]+(.*)$")
_LINKS = r"\[\[[^\[\]\n]+\]\](?:, \[\[[^\[\]\n]+\]\])*"
_GROUP_PART = rf"(?:caused_by|leads_to): {_LINKS}|_[A-Za-z]\w*: [^;()\n]*"
_EVENT_GROUP = re.compile(rf"[ \t]+\(((?:{_GROUP_PART})(?:; (?:{_GROUP_PART}))*)\)$")


def episode_from_note(note: Note) -> Episode:
    fm = note.frontmatter
    problems = list(note.problems)
    decisions = _decisions(note, problems)
    events = _events(note.section_text("Events Timeline"))
    lessons = _bullets(note.section_text("Lessons Learned"))
    metrics = raw_metrics if isinstance(raw_metrics := fm.get("metrics"), dict) else {}
    if fm.get("metrics") is not None and not isinstance(fm.get("metrics"), dict):
        problems.append(f"metrics '{fm.get('metrics')}' is not a mapping of counts (tool_calls: 3, errors: 0, ...)")
    duration = fm.get("duration_minutes", metrics.get("duration_minutes"))
    if duration is not None and not is_minutes(duration):
        problems.append(f"duration_minutes '{duration}' is not a number of minutes, 0 or more")
        duration = None
    if fm.get("date") is not None and not _is_iso(str(fm.get("date"))):
        problems.append(f"date '{fm.get('date')}' is not an ISO date or timestamp")
    outcome = episode_outcome(fm)
    if outcome is not None and outcome not in OUTCOMES:
        problems.append(f"outcome '{outcome}' is not success, partial or failure")
    return Episode(
        title=note.title,
        outcome=outcome,
        task=_text(fm.get("task")),
        session=_text(fm.get("session")),
        date=_text(fm.get("date")),
        episode_id=_text(fm.get("episode_id")),
        duration_minutes=duration if isinstance(duration, (int, float)) and not isinstance(duration, bool) else None,
        metrics=dict(metrics),
        context=unescape_block(note.section_text("Context").strip("\n")),
        observations=note.observations,
        decisions=tuple(decisions),
        events=tuple(events),
        lessons=tuple(lessons),
        relations=note.relations,
        tags=note.tags,
        path=note.path,
        problems=tuple(problems),
    )


def is_minutes(value: Any) -> bool:
    """A duration in minutes: a finite number, 0 or more (not a bool, not .inf or .nan)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _is_iso(text: str) -> bool:
    try:
        datetime.fromisoformat(_LONG_FRACTION.sub(r"\1", text.strip()).replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def episode_outcome(frontmatter: dict[str, Any]) -> str | None:
    """The episode's outcome as `episode_from_note` reads it, from its frontmatter alone."""
    return _text(frontmatter.get("outcome"))


def episode_agent(frontmatter: dict[str, Any]) -> str | None:
    """The agent whose transcript the episode was extracted from (`source_format`: claude-code,
    codex, gemini ...); None for an episode stored by hand or imported."""
    return _text(frontmatter.get("source_format"))


def episode_header(header: NoteHeader) -> tuple[str | None, str | None, str | None]:
    """(outcome, task, date) as `episode_from_note` reads them, from what the catalog holds of the
    note without decoding it: for choosing the episodes worth parsing."""
    fm = header.frontmatter
    return episode_outcome(fm), _text(fm.get("task")), _text(fm.get("date"))


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def _decisions(note: Note, problems: list[str]) -> list[Decision]:
    parent = note.section("Decisions")
    if parent is None:
        return []
    decisions: list[Decision] = []
    seen: set[str] = set()
    for section in note.sections:
        if section.level != 3 or not (parent.start < section.start < parent.end):
            continue
        match = _DECISION_HEADING.match(section.heading)
        decision_id, title = (match.group(1), match.group(2)) if match else (section.heading, "")
        if decision_id in seen:
            problems.append(f"decision id '{decision_id}' appears more than once; both are kept")
        seen.add(decision_id)
        decisions.append(_decision(decision_id, title, section.content))
    return decisions


def _decision(decision_id: str, title: str, content: str) -> Decision:
    fields: dict[str, str] = {}
    nested: dict[str, list[str]] = {}
    order: list[str] = []
    current: str | None = None
    for raw in line_texts(content):
        line = raw.rstrip("\r")
        field = _FIELD.match(line)
        if field:
            current = field.group(1).strip().rstrip(":").strip()
            fields[current] = field.group(2) or ""
            nested[current] = []
            order.append(current)
            continue
        if current is None:
            continue
        item = _NESTED_ITEM.match(line)
        if item and current.lower() == "options":
            nested[current].append(item.group(1))
        elif line.startswith("  "):
            fields[current] += "\n" + unescape_block(line[2:])
    by_name = {name.lower(): name for name in order}

    def get(name: str) -> str | None:
        key = by_name.get(name.lower())
        return fields[key] if key is not None else None

    options_key = by_name.get("options")
    options: tuple[str, ...] | None = None
    if options_key is not None:
        if nested[options_key]:
            options = tuple(nested[options_key])
        else:
            options = tuple(part.strip() for part in fields[options_key].split(",") if part.strip())
    effects_raw = get("effects")
    effects: tuple[str, ...] | None = None
    if effects_raw is not None:
        linked = [link.target for link in find_wikilinks(effects_raw)]
        effects = tuple(linked or [part.strip() for part in effects_raw.split(",") if part.strip()])
    known = {name.lower() for name in DECISION_FIELDS}
    extra = tuple((name, fields[name]) for name in order if name.lower() not in known)
    return Decision(
        id=decision_id,
        title=title,
        timestamp=get("timestamp"),
        type=get("type"),
        context=get("context"),
        options=options,
        chosen=get("chosen"),
        rationale=get("rationale"),
        outcome=get("outcome"),
        effects=effects,
        extra=extra,
    )


def _events(content: str) -> list[Event]:
    events: list[Event] = []
    for raw in line_texts(content):
        line = raw.rstrip("\r")
        match = _EVENT.match(line)
        if not match:
            if events and line.startswith("   ") and line.strip():
                events[-1] = replace(events[-1], text=events[-1].text + "\n" + unescape_block(line[3:]))
            continue
        timestamp, rest = match.group(2), match.group(3)
        caused_by: tuple[str, ...] = ()
        leads_to: tuple[str, ...] = ()
        extra: list[tuple[str, str]] = []
        group = _EVENT_GROUP.search(rest)
        if group:
            rest = rest[: group.start()]
            for part in group.group(1).split("; "):
                key, _, value = part.partition(": ")
                if key == "caused_by":
                    caused_by = tuple(link.target for link in find_wikilinks(value))
                elif key == "leads_to":
                    leads_to = tuple(link.target for link in find_wikilinks(value))
                else:
                    extra.append((key, value))
        event_id = event_type = None
        identified = _EVENT_ID.match(rest)
        if identified:
            event_id, event_type, rest = identified.group(1), identified.group(2), identified.group(3)
        events.append(Event(rest, timestamp, event_id, event_type, caused_by, leads_to, tuple(extra)))
    return events


def _bullets(content: str) -> list[str]:
    items: list[str] = []
    for raw in line_texts(content):
        line = raw.rstrip("\r")
        if line.startswith(("- ", "* ")):
            items.append(line[2:])
        elif items and line.startswith("  ") and line.strip():
            items[-1] += "\n" + unescape_block(line[2:])
    return items


# ---------------------------------------------------------------- rendering


def _continued(value: str, indent: str) -> str:
    """A value over several lines: later lines indented, structure-like lines escaped (`escape_block`)."""
    first, _, rest = value.partition("\n")
    return first + "".join("\n" + indent + line for line in escape_block(rest).split("\n")) if _ else value


def _field(name: str, value: str) -> str:
    return f"- **{name}**:" + (f" {_continued(value, '  ')}" if value else "")


def render_decision(decision: Decision) -> str:
    lines = [f"### {decision.id}: {decision.title}".rstrip()]
    simple = (
        ("Timestamp", decision.timestamp),
        ("Type", decision.type),
        ("Context", decision.context),
    )
    lines += [_field(name, value) for name, value in simple if value is not None]
    if decision.options is not None:
        inline_ok = all(o and o == o.strip() and "," not in o and "\n" not in o for o in decision.options)
        if inline_ok:
            lines.append(_field("Options", ", ".join(decision.options)))
        else:
            lines.append("- **Options**:")
            lines += [f"  - {_continued(option, '    ')}" for option in decision.options]
    for name, value in (("Chosen", decision.chosen), ("Rationale", decision.rationale), ("Outcome", decision.outcome)):
        if value is not None:
            lines.append(_field(name, value))
    if decision.effects is not None:
        lines.append(_field("Effects", ", ".join(f"[[{effect}]]" for effect in decision.effects)))
    lines += [_field(name, value) for name, value in decision.extra]
    return "\n".join(lines)


def render_event(number: int, event: Event) -> str:
    head = f"{number}."
    if event.timestamp is not None:
        head += f" [{event.timestamp}]"
    if event.id:
        head += f" {event.id}" + (f" ({event.type})" if event.type else "") + ":"
    parts = []
    if event.caused_by:
        parts.append("caused_by: " + ", ".join(f"[[{ref}]]" for ref in event.caused_by))
    if event.leads_to:
        parts.append("leads_to: " + ", ".join(f"[[{ref}]]" for ref in event.leads_to))
    parts += [f"{key}: {value}" for key, value in event.extra]
    tail = f" ({'; '.join(parts)})" if parts else ""
    return f"{head} {_continued(event.text, '   ')}{tail}"


def decision_headline(decision: Decision) -> str:
    """`Title -> chosen (outcome)`: what a decision was about, what it chose and how it went.

    The one line every front end and the context builder show for a decision (no `X -> X`, and
    an untitled decision shows what it chose)."""
    base = decision.title or decision.chosen or ""
    if decision.chosen and decision.chosen != base:
        base += f" -> {decision.chosen}"
    return base + (f" ({decision.outcome})" if decision.outcome else "")


def decision_title(chosen: str | None, fallback: str) -> str:
    """A short one-line heading for a decision that came without one."""
    text = " ".join((chosen or fallback).split())
    return text if len(text) <= 72 else text[:69].rstrip() + "..."


def managed_frontmatter(episode: Episode) -> dict[str, Any]:
    """The frontmatter keys brain owns in an episode note (None: the key is absent)."""
    return {
        "episode_id": episode.episode_id,
        "session": episode.session,
        "date": episode.date,
        "outcome": episode.outcome,
        "task": episode.task,
        "duration_minutes": episode.duration_minutes,
        "metrics": dict(episode.metrics) if episode.metrics else None,
    }


def managed_sections(episode: Episode) -> dict[str, str]:
    """The sections brain writes from episode data, as heading -> content (ending in a newline or empty)."""
    decisions = "\n\n".join(render_decision(decision) for decision in episode.decisions)
    events = "\n".join(render_event(number, event) for number, event in enumerate(episode.events, 1))
    lessons = "\n".join(f"- {_continued(lesson, '  ')}" for lesson in episode.lessons)
    return {
        "Decisions": f"\n{decisions}\n" if decisions else "",
        "Events Timeline": f"{events}\n" if events else "",
        "Lessons Learned": f"{lessons}\n" if lessons else "",
    }


def render_episode(episode: Episode, extra_frontmatter: dict[str, Any] | None = None) -> str:
    """Markdown for a new episode note, in the layout the module docstring describes."""
    fm = episode_frontmatter(episode, extra_frontmatter)
    return f"---\n{frontmatter_yaml.dump(fm)}---\n\n" + render_episode_body(episode)


def episode_frontmatter(episode: Episode, extra_frontmatter: dict[str, Any] | None = None) -> dict[str, Any]:
    """The frontmatter `render_episode` writes, as a mapping (for writers with their own YAML dumper)."""
    fm: dict[str, Any] = {
        "title": episode.title,
        "type": "episode",
        "tags": list(episode.tags) or ["episodic"],
        "permalink": f"episodes/{episode.title.lower()}",
    }
    for key, value in (
        ("episode_id", episode.episode_id),
        ("session", episode.session),
        ("date", episode.date),
        ("outcome", episode.outcome),
        ("task", episode.task),
        ("duration_minutes", episode.duration_minutes),
    ):
        if value is not None:
            fm[key] = value
    if episode.metrics:
        fm["metrics"] = dict(episode.metrics)
    fm.update(extra_frontmatter or {})
    return fm


def render_episode_body(episode: Episode) -> str:
    """The markdown under the frontmatter of a new episode note."""
    parts = [f"# {episode.title}\n"]
    parts.append("## Context\n" + (escape_block(episode.context.strip("\n")) + "\n" if episode.context else ""))
    if episode.observations:
        lines = []
        for obs in episode.observations:
            category = obs.category + (f":{obs.ref}" if obs.ref else "")
            tags = "".join(f" #{tag}" for tag in obs.tags)
            context = f" ({obs.context})" if obs.context else ""
            lines.append(f"- [{category}] {obs.text}{tags}{context}")
        parts.append("## Observations\n" + "\n".join(lines) + "\n")
    for heading, content in managed_sections(episode).items():
        parts.append(f"## {heading}\n{content}")
    relations = "\n".join(
        f"- {rel.type} [[{rel.target}]]" + (f" ({rel.context})" if rel.context else "") for rel in episode.relations
    )
    parts.append("## Relations\n" + (relations + "\n" if relations else ""))
    return "\n".join(parts)


def local_ids(note: Note) -> set[str]:
    """Ids an episode defines for itself (decisions, events), which its links may point to."""
    if note.type != "episode":
        return set()
    episode = episode_from_note(note)
    ids = {decision.id for decision in episode.decisions} | {event.id for event in episode.events if event.id}
    return {item.lower() for item in ids}
