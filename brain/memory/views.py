"""Plain, JSON-ready views of library objects, shared by the CLI and the MCP server."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from brain.notes.model import Decision, Episode, Pattern


def plain(value: Any) -> Any:
    """Dataclasses, tuples, paths and anything else as JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


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
