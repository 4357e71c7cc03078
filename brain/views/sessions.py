"""Session protocol results (bootstrap, session end) as lines and JSON, for the CLI and MCP."""

from __future__ import annotations

from typing import Any

from brain.memory.sessions.protocol import Bootstrap, SessionEnd
from brain.views.tips import learn_json


def bootstrap_json(context: Bootstrap) -> dict[str, Any]:
    return {
        "task": context.task,
        "budget": context.budget,
        "tokens": context.tokens,
        "omitted_lines": context.omitted,
        "sections": context.sections,
        "text": context.text,
    }


def end_json(report: SessionEnd) -> dict[str, Any]:
    return {
        "episode": report.episode,
        "path": report.episode_path,
        "outcome": report.outcome,
        "patterns_updated": list(report.patterns),
        "tips": learn_json(report.tips),
        "new_antipatterns": list(report.new_antipatterns),
        "warnings": list(report.warnings),
    }


def end_lines(report: SessionEnd) -> list[str]:
    lines = [f"episode {report.episode_path} [{report.outcome}]"]
    lines += [f"evidence recorded on {title}" for title in report.patterns]
    lines.append(f"tips: {len(report.tips.created)} new, {len(report.tips.unchanged)} already learned")
    lines += [f"  created {path}" for path in report.tips.created]
    lines += [f"new antipattern: {title}" for title in report.new_antipatterns] or ["no new antipatterns"]
    return lines
