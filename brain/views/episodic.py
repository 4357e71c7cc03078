"""Episodes, decisions and patterns as rows and lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import Any

from brain.notes.model import Decision, Episode, Pattern


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


def decision_headline(decision: Decision) -> str:
    """`Title -> chosen (outcome)`: what a decision was about, what it chose and how it went."""
    base = decision.title or decision.chosen or ""
    if decision.chosen and decision.chosen != base:
        base += f" -> {decision.chosen}"
    return base + (f" ({decision.outcome})" if decision.outcome else "")
