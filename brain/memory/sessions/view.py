"""Session protocol results (bootstrap, session end, episodes extracted from logs and transcripts) as lines and JSON, for the CLI and MCP."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.memory.tips.view import learn_json, learned_counts
from brain.plain import counted, plain

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.sessions.backfill import Backfilled, Session
    from brain.memory.sessions.extract import Extracted
    from brain.memory.sessions.protocol import Bootstrap, SessionEnd
    from brain.memory.sessions.scrub import Place, Redaction


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
        "redacted": report.redacted,
    }


def values_redacted(count: int) -> str:
    return f"{count} value redacted" if count == 1 else f"{count} values redacted"


def end_lines(report: SessionEnd) -> list[str]:
    lines = [f"episode {report.episode_path} [{report.outcome}]  ({values_redacted(report.redacted)})"]
    lines += [f"evidence recorded on {title}" for title in report.patterns]
    lines.append(f"tips: {learned_counts(report.tips)}")
    lines += [f"  created {path}" for path in report.tips.created]
    lines += [f"  supported {path}" for path in report.tips.supported]
    lines += [f"new antipattern: {title}" for title in report.new_antipatterns] or ["no new antipatterns"]
    return lines


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
    from brain.memory.sessions.ingest import TranscriptExtracted  # extraction views only: a bootstrap never needs it

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
        f"{verb} {path or episode.title}  [{episode.outcome}] {counted(len(episode.decisions), 'decision')}, "
        f"{counted(len(episode.events), 'event')}, {counted(len(episode.lessons), 'lesson')}"
    )
    from brain.memory.sessions.ingest import TranscriptExtracted

    if isinstance(item, TranscriptExtracted):
        metrics = episode.metrics
        line += (
            f"  ({item.format}: {counted(item.lines, 'line')}, {counted(metrics.get('tool_calls', 0), 'tool call')}, "
            f"{counted(metrics.get('errors', 0), 'error')}, {counted(item.skipped_lines, 'line')} skipped, "
            f"{values_redacted(item.redacted)})"
        )
    return line


def backfill_counts(results: Sequence[Backfilled]) -> dict[str, int]:
    counts = {"created": 0, "updated": 0, "unchanged": 0, "would write": 0, "skipped": 0}
    for result in results:
        counts[result.verb] = counts.get(result.verb, 0) + 1
    return {verb: count for verb, count in counts.items() if count}


def backfill_summary(store: Path, sessions: Sequence[Session], results: Sequence[Backfilled]) -> str:
    """The last line of a backfill: how many sessions the store holds and what became of them."""
    held = len(sessions) - len(results)
    parts = [f"{count} {verb}" for verb, count in backfill_counts(results).items()]
    parts.append(f"{held} already in the vault")
    noun = "session" if len(sessions) == 1 else "sessions"
    return f"{len(sessions)} {noun} in {store}: " + ", ".join(parts)


def backfilled_json(store: Path, sessions: Sequence[Session], results: Sequence[Backfilled]) -> dict[str, Any]:
    return {
        "store": str(store),
        "sessions": len(sessions),
        "already_in_vault": len(sessions) - len(results),
        "counts": backfill_counts(results),
        "results": [
            {
                "session": result.session.session,
                "file": str(result.session.file),
                "started": result.session.started,
                "status": result.verb,
                "path": result.path,
                "reason": result.reason or None,
                "episode": extracted_json(result.item, result.path, result.verb) if result.item else None,
            }
            for result in results
        ],
    }


def _where(place: Place) -> str:
    """Where a secret is, never what it is: `notes/a.md:7`, `notes/a.md v3:7`, a summaries entry."""
    if place.store == "summaries":
        return f"{place.file}  {place.path}"
    version = f" v{place.version}" if place.version is not None else ""
    line = f":{place.line}" if place.line is not None else ""
    return f"{place.path}{version}{line}"


def redaction_lines(found: Redaction) -> list[str]:
    """One line per secret (its store, where, its kind), the notes left alone, then what was done."""
    width = max((len(_where(place)) for place in found.places if place.store != "summaries"), default=0)
    column = max((len(place.store) for place in found.places), default=0)
    lines = [f"{place.store:<{max(column, 9)}} {_where(place):<{width}}  {place.kind}" for place in found.places]
    lines += [f"not rewritten: {path}: {why}" for path, why in found.skipped]
    if found.interrupted and not found.places:
        if found.applied:
            return [*lines, "finished the redaction cut short; no secrets found"]
        return [*lines, "an earlier `brain redact --apply` was cut short; run it again to finish (compact the index)"]
    if found.interrupted:
        lines.append(
            "finished the redaction cut short" if found.applied else "an earlier `brain redact --apply` was cut short"
        )
    if not found.places:
        return [*lines, "no secrets found; nothing changed"]
    stores: dict[str, int] = {}
    for place in found.places:
        stores[place.store] = stores.get(place.store, 0) + 1
    where = ", ".join(f"{count} in {store}" for store, count in stores.items())
    notes, versions = _count(len(found.notes), "note"), _count(found.versions, "history version")
    indexes = "catalog, full text, vectors" if found.vectors else "catalog, full text"
    reindexed = f"; {{}} {_count(len(found.reindexed), 'note')} ({indexes})" if found.reindexed else ""
    secrets = _count(len(found.places), "secret")
    if found.applied:
        done = f"rewrote {notes} and {versions}" + reindexed.format("reindexed")
        return [*lines, f"redacted {secrets} ({where}): {done}; receipt {found.receipt}"]
    would = f"would rewrite {notes} and {versions}" + reindexed.format("would reindex")
    return [*lines, f"dry run, nothing changed: {secrets} found ({where}); {would}"]


def redaction_json(found: Redaction) -> dict[str, Any]:
    return {
        "applied": found.applied,
        "places": plain(found.places),
        "notes": list(found.notes),
        "history_versions": found.versions,
        "reindexed": list(found.reindexed),
        "vectors": found.vectors,
        "skipped": [{"path": path, "why": why} for path, why in found.skipped],
        "receipt": found.receipt,
        "interrupted": found.interrupted,
    }


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
