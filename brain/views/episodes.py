"""Episodes, decisions, patterns and causal paths as rows and lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import Any

from brain.memory.causal.graph import CausalPath
from brain.memory.episodes.service import StoredEpisode
from brain.memory.patterns.service import PatternUpdate
from brain.notes.episode import decision_headline
from brain.notes.model import Decision, Episode, Pattern

__all__ = [
    "causal_path_lines",
    "decision_headline",
    "decision_lines",
    "episode_lines",
    "episode_row",
    "episode_summary",
    "no_path_line",
    "pattern_row",
    "pattern_summary",
    "pattern_update_line",
    "stored_episode_line",
    "stored_verb",
]


def episode_summary(episode: Episode) -> dict[str, Any]:
    """One row of an episode listing."""
    return {
        "title": episode.title,
        "path": episode.path,
        "date": episode.date,
        "outcome": episode.outcome,
        "task": episode.task,
        "decisions": len(episode.decisions),
        "events": len(episode.events),
    }


def episode_row(episode: Episode) -> str:
    return f"{(episode.date or '')[:10]:10}  {episode.outcome or '?':8} {episode.title}  {episode.task or ''}".rstrip()


def episode_lines(episode: Episode) -> list[str]:
    """An episode in full: task, outcome, metrics, decisions, events and lessons."""
    lines = [f"{episode.title}  [{episode.outcome}]  {episode.date or ''}".rstrip(), f"task: {episode.task or ''}"]
    if episode.metrics:
        lines.append("metrics: " + ", ".join(f"{key}={value}" for key, value in episode.metrics.items()))
    if episode.decisions:
        lines += ["decisions:", *(f"  {_decision_id_line(decision)}" for decision in episode.decisions)]
    if episode.events:
        lines.append("events:")
        for event in episode.events:
            ident = f"{event.id} ({event.type}) " if event.id else ""
            lines.append(f"  [{event.timestamp or ''}] {ident}{event.text}")
    if episode.lessons:
        lines += ["lessons:", *(f"  - {item}" for item in episode.lessons)]
    return lines


def stored_verb(stored: StoredEpisode) -> str:
    return "created" if stored.created else ("updated" if stored.changed else "unchanged")


def stored_episode_line(stored: StoredEpisode) -> str:
    return f"{stored_verb(stored)} {stored.path}"


def _decision_id_line(decision: Decision) -> str:
    return f"{decision.id} [{decision.type or '?'}] {decision_headline(decision)}"


def decision_lines(decision: Decision) -> list[str]:
    """A decision in a sequence: time, id, type and headline, then options, rationale and effects."""
    lines = [f"{decision.timestamp or '(no time)'}  {_decision_id_line(decision)}"]
    if decision.options:
        lines.append(f"    options: {' | '.join(decision.options)}")
    if decision.rationale:
        lines.append(f"    why: {decision.rationale}")
    if decision.effects:
        lines.append(f"    effects: {', '.join(decision.effects)}")
    return lines


def pattern_summary(pattern: Pattern) -> dict[str, Any]:
    """One row of a pattern listing."""
    return {
        "title": pattern.title,
        "path": pattern.path,
        "success_rate": pattern.success_rate,
        "occurrences": pattern.occurrences,
        "trigger": pattern.trigger,
        "last_validated": pattern.last_validated,
    }


def pattern_row(pattern: Pattern) -> str:
    """`rate xN  title  trigger`, the rate as a percentage ('?' when unknown)."""
    rate = "  ?" if pattern.success_rate is None else f"{pattern.success_rate:4.0%}"
    return f"{rate} x{pattern.occurrences or 0:<4} {pattern.title}  {pattern.trigger or ''}".rstrip()


def pattern_update_line(update: PatternUpdate) -> str:
    verb = "created" if update.created else "updated"
    pattern = update.pattern
    return f"{verb} {update.path}: success_rate {pattern.success_rate:.2f} over {pattern.occurrences} occurrences"


def causal_path_lines(found: CausalPath) -> list[str]:
    """The start note, one line per hop with its type, weight and evidence, then hops and reliability."""
    lines = [found.titles[0]]
    for hop, title in zip(found.hops, found.titles[1:], strict=True):
        detail = ", ".join(
            part
            for part in (
                f"weight {hop.weight:g}" if hop.weight is not None else "",
                f"evidence {hop.evidence}" if hop.evidence is not None else "",
            )
            if part
        )
        lines.append(f"  --{hop.type}{f' ({detail})' if detail else ''}--> {title}")
    lines.append(f"{len(found.hops)} hops, reliability {found.reliability:.2f}")
    return lines


def no_path_line(source: str, target: str, max_depth: int, reverse_exists: bool) -> str:
    hint = " (there is one the other way round)" if reverse_exists else ""
    return f"no causal path from '{source}' to '{target}' within {max_depth} hops{hint}"
