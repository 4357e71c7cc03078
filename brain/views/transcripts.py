"""Episodes extracted from transcripts and logs: one line each, or JSON, with what reading met."""

from __future__ import annotations

from typing import Any

from brain.memory.sessions.extract import Extracted
from brain.memory.sessions.ingest import TranscriptExtracted


def extracted_json(item: Extracted, path: str | None, verb: str) -> dict[str, Any]:
    episode = item.episode
    found: dict[str, Any] = {
        "source": item.source,
        "format": item.format,
        "title": episode.title,
        "path": path,
        "status": verb,
        "outcome": episode.outcome,
        "task": episode.task,
        "session": episode.session,
        "decisions": len(episode.decisions),
        "events": len(episode.events),
        "lessons": len(episode.lessons),
        "metrics": episode.metrics,
        "warnings": list(item.warnings),
    }
    if isinstance(item, TranscriptExtracted):
        found.update(
            lines=item.lines,
            skipped_lines=item.skipped_lines,
            records=item.records,
            unknown_records=item.unknown_records,
            subagent_files=item.subagent_files,
            redacted=item.redacted,
        )
    return found


def extracted_line(item: Extracted, path: str | None, verb: str) -> str:
    episode = item.episode
    line = (
        f"{verb} {path or episode.title}  [{episode.outcome}] {len(episode.decisions)} decisions, "
        f"{len(episode.events)} events, {len(episode.lessons)} lessons"
    )
    if isinstance(item, TranscriptExtracted):
        metrics = episode.metrics
        line += (
            f"  ({item.format}: {item.lines} lines, {metrics.get('tool_calls', 0)} tool calls, "
            f"{metrics.get('errors', 0)} errors, {item.skipped_lines} lines skipped, {item.redacted} values redacted)"
        )
    return line
