"""Episodes and their decisions as rows and lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain.markdown.model import Decision, Episode
from brain.memory.episodes.note import decision_headline

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.episodes.service import StoredEpisode


__all__ = [
    "decision_headline",
    "decision_lines",
    "episode_lines",
    "episode_row",
    "episode_summary",
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
