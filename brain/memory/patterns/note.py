"""Patterns: read a pattern note's typed parts, render a new one, and record evidence."""

from __future__ import annotations

import math
import re
from typing import Any

from brain.markdown import frontmatter_yaml
from brain.markdown.edit import append_to_section, set_frontmatter
from brain.markdown.lines import escape_block, line_texts, unescape_block
from brain.markdown.model import CausalRelation, EvidenceEpisode, Note, NoteHeader, Pattern
from brain.markdown.parse import parse_wikilink

OUTCOME_SCORE = {"success": 1.0, "partial": 0.5, "failure": 0.0}
_EVIDENCE = re.compile(r"^[-*][ \t]+\[\[([^\[\]\n]+)\]\](?:[ \t]*[-:–—][ \t]*(\w+)(?:[ \t]*\((.*)\))?)?")


def pattern_from_note(note: Note) -> Pattern:
    fm = note.frontmatter
    problems = list(note.problems)
    success_rate, occurrences = _counts(fm, problems)
    evidence = []
    for raw in line_texts(note.section_text("Evidence Episodes")):
        match = _EVIDENCE.match(raw.strip())
        if match:
            outcome = match.group(2).lower() if match.group(2) else None
            evidence.append(EvidenceEpisode(parse_wikilink(match.group(1)).target, outcome, match.group(3)))
    last = fm.get("last_validated")
    trigger = fm.get("trigger")
    return Pattern(
        title=note.title,
        trigger=str(trigger) if isinstance(trigger, (str, int, float)) else None,
        success_rate=success_rate,
        occurrences=occurrences,
        last_validated=str(last) if last is not None else None,
        context=unescape_block(note.section_text("Context").strip()),
        trigger_text=unescape_block(note.section_text("Trigger").strip()),
        action=unescape_block(note.section_text("Action").strip()),
        observations=note.observations,
        causal_relations=note.causal_relations,
        evidence=tuple(evidence),
        antipattern_warning=note.section_text("Anti-Pattern Warning").strip(),
        relations=note.relations,
        tags=note.tags,
        path=note.path,
        problems=tuple(problems),
    )


def pattern_counts(fm: dict[str, Any]) -> tuple[float | None, int | None]:
    """(success_rate, occurrences) from a pattern's frontmatter, as `pattern_from_note` reads them."""
    return _counts(fm, [])


def _counts(fm: dict[str, Any], problems: list[str]) -> tuple[float | None, int | None]:
    """(success_rate, occurrences) from a pattern's frontmatter; a value out of range is None, and a problem."""
    success_rate = _number(fm.get("success_rate"), float)
    if fm.get("success_rate") is not None and (success_rate is None or not 0 <= success_rate <= 1):
        problems.append(f"success_rate '{fm.get('success_rate')}' is not a number between 0 and 1")
        success_rate = None
    occurrences = _number(fm.get("occurrences"), int)
    if fm.get("occurrences") is not None and (occurrences is None or occurrences < 0):
        problems.append(f"occurrences '{fm.get('occurrences')}' is not a whole number >= 0")
        occurrences = None
    return success_rate, occurrences


def _number(value: Any, kind: type) -> Any:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = kind(float(value)) if kind is int else kind(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(.inf)
        return None
    if kind is int and float(value) != number:
        return None
    return number if math.isfinite(number) else None


def antipattern_header(header: NoteHeader, max_success_rate: float = 0.3, min_occurrences: int = 2) -> bool:
    """Whether a pattern note keeps failing (success rate at most `max_success_rate` over at least
    `min_occurrences`), from its header alone, before the note is parsed."""
    rate, occurrences = _counts(header.frontmatter, [])
    return rate is not None and occurrences is not None and rate <= max_success_rate and occurrences >= min_occurrences


def running_average(old_rate: float, occurrences: int, outcome_score: float) -> float:
    """`(old * (n - 1) + new) / n` where n counts the new occurrence."""
    return (old_rate * (occurrences - 1) + outcome_score) / occurrences


def evidence_line(episode: str, outcome: str, note: str | None = None) -> str:
    return f"- [[{episode}]] - {outcome}" + (f" ({note})" if note else "")


def causal_line(relation: CausalRelation) -> str:
    numbers = []
    if relation.weight is not None:
        numbers.append(f"weight: {relation.weight:g}")
    if relation.evidence is not None:
        numbers.append(f"evidence: {relation.evidence}")
    if relation.context:
        numbers.append(relation.context)
    return f"- {relation.type} [[{relation.target}]]" + (f" ({', '.join(numbers)})" if numbers else "")


def render_pattern(
    title: str,
    *,
    trigger: str,
    action: str,
    success_rate: float,
    occurrences: int,
    last_validated: str,
    context: str = "",
    causal: tuple[CausalRelation, ...] = (),
    evidence: tuple[str, ...] = (),
    tags: tuple[str, ...] = (),
    extra_frontmatter: dict[str, Any] | None = None,
    folder: str = "patterns",
) -> str:
    fm: dict[str, Any] = {
        "title": title,
        "type": "pattern",
        "tags": list(dict.fromkeys(("causal", "pattern", *tags))),
        "permalink": f"{folder}/{title.lower()}",
        "trigger": trigger,
        "success_rate": round(success_rate, 4),
        "occurrences": occurrences,
        "last_validated": last_validated,
        **(extra_frontmatter or {}),
    }
    sections = {
        "Context": context,
        "Trigger": trigger,
        "Action": action,
        "Causal Relationships": "\n".join(causal_line(relation) for relation in causal),
        "Evidence Episodes": "\n".join(evidence),
    }
    escaped = {
        name: value if name in ("Causal Relationships", "Evidence Episodes") else escape_block(value.strip())
        for name, value in sections.items()
    }
    body = "\n".join(
        f"## {name}\n" + (value.strip() + "\n" if value.strip() else "") for name, value in escaped.items()
    )
    return f"---\n{frontmatter_yaml.dump(fm)}---\n\n# {title}\n\n{body}"


def record_evidence(
    text: str, pattern: Pattern, *, outcome: str, episode: str | None, today: str, note: str | None = None
) -> str:
    """Apply one more occurrence to a pattern note's text: running average, count, date, evidence line."""
    occurrences = (pattern.occurrences or 0) + 1
    old_rate = pattern.success_rate if pattern.success_rate is not None else OUTCOME_SCORE[outcome]
    rate = running_average(old_rate, occurrences, OUTCOME_SCORE[outcome])
    text = set_frontmatter(text, {"success_rate": round(rate, 4), "occurrences": occurrences, "last_validated": today})
    if episode:
        text = append_to_section(
            text,
            "Evidence Episodes",
            evidence_line(episode, outcome, note),
            after=("Causal Relationships", "Observations", "Action"),
        )
    return text
