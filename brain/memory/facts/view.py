"""Facts, recalls, histories, journal records and sweeps as lines and JSON rows, for the CLI and MCP."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from brain.memory.facts.note import Fact, canonical_json, format_time

if TYPE_CHECKING:  # names for annotations: a recall's view never loads the sweep
    from brain.memory.facts.recall import Recall, RecallHit, Replay
    from brain.memory.facts.service import FactWritten
    from brain.memory.facts.sweep import SweepItem, SweepReport

VALUE_CHARS = 90


def _time(value: datetime | None) -> str | None:
    return format_time(value) if value is not None else None


def short_value(value: Any, limit: int = VALUE_CHARS) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fact_row(fact: Fact) -> dict[str, Any]:
    return {
        "id": fact.title,
        "path": fact.path,
        "kind": fact.kind,
        "subject": fact.subject,
        "value": fact.value,
        "namespace": fact.namespace,
        "tier": fact.tier,
        "source": fact.source,
        "authority": fact.authority,
        "valid_from": _time(fact.valid_from),
        "valid_until": _time(fact.valid_until),
        "supersedes": fact.supersedes,
        "superseded_by": fact.superseded_by,
        "closed_at": _time(fact.closed_at),
        "closed_reason": fact.closed_reason,
        "closed_by": fact.closed_by,
        "compliance_class": fact.compliance_class,
        "retention_days": fact.retention_days,
        "legal_delete_at": _time(fact.legal_delete_at),
        "legal_hold": fact.legal_hold,
        "recorded_at": _time(fact.recorded_at),
        "recorded_by": fact.recorded_by,
        "value_hash": fact.value_hash,
        "tampered": fact.tampered,
    }


def _marks(fact: Fact, status: str | None = None) -> str:
    marks = [status] if status and status != "valid" else []
    if fact.tampered:
        marks.append("TAMPERED: value edited by hand")
    elif fact.value_hash is None:
        marks.append("no value hash")
    return "".join(f" [{mark}]" for mark in marks)


def written_lines(written: FactWritten, verb: str) -> list[str]:
    fact = written.fact
    lines = [
        f"{verb} {written.path}: {fact.kind} {fact.subject} = {short_value(fact.value)} ({fact.namespace}, valid from {_time(fact.valid_from)})"
    ]
    closed = written.closed
    if closed is not None and closed.title != fact.title:
        lines.append(f"closed {closed.path}: valid until {_time(closed.valid_until)}, superseded by {fact.title}")
    return lines


def invalidated_line(written: FactWritten) -> str:
    return f"invalidated {written.path}: valid until {_time(written.fact.valid_until)}"


def written_dict(written: FactWritten) -> dict[str, Any]:
    return {
        "path": written.path,
        "fact": fact_row(written.fact),
        "closed": fact_row(written.closed) if written.closed else None,
    }


def hit_row(hit: RecallHit) -> dict[str, Any]:
    return {
        **fact_row(hit.fact),
        "valid_until": _time(hit.valid_until),
        "status": hit.status,
        "score": hit.score,
        "parts": hit.parts,
    }


def recall_dict(recall: Recall) -> dict[str, Any]:
    return {
        "query": recall.query,
        "namespaces": list(recall.namespaces),
        "as_of": _time(recall.as_of),
        "known_at": _time(recall.known_at),
        "similarity": recall.similarity,
        "weights": recall.weights,
        "matched": recall.matched,
        "journal": recall.journal,
        "pending": recall.pending,
        "facts": [hit_row(hit) for hit in recall.hits],
    }


def hit_line(number: int, hit: RecallHit) -> str:
    fact = hit.fact
    return f"{number:2}. {fact.title}  {fact.kind} {fact.subject} = {short_value(fact.value)}  score {hit.score:.3f}{_marks(fact, hit.status)}"


def recall_lines(recall: Recall) -> list[str]:
    known = "" if recall.known_at == recall.as_of else f" as known at {_time(recall.known_at)}"
    head = f"{len(recall.hits)} of {recall.matched} facts valid at {_time(recall.as_of)}{known} in {', '.join(recall.namespaces)}"
    lines = [head]
    if recall.similarity:
        lines.append(f"similarity: {recall.similarity}")
    if recall.pending:
        lines.append(
            f"{recall.pending} facts are not in vector search yet (their similarity counts as 0); "
            "recall again in a moment to compare them by meaning"
        )
    lines += [hit_line(number, hit) for number, hit in enumerate(recall.hits, start=1)]
    if recall.journal:
        lines.append(f"journal record #{recall.journal['seq']}")
    return lines


def history_lines(facts: list[Fact]) -> list[str]:
    lines = []
    for fact in facts:
        until = _time(fact.valid_until) or "now"
        lines.append(f"{_time(fact.valid_from)} .. {until}  {fact.title}  = {short_value(fact.value)}{_marks(fact)}")
        if fact.closed:
            who = f" by {fact.closed_by}" if fact.closed_by else ""
            why = f": {fact.closed_reason}" if fact.closed_reason else ""
            what = f"superseded by {fact.superseded_by}" if fact.superseded_by else "invalidated"
            lines.append(f"    {what}{who}{why}")
    return lines


def journal_lines(records: list[dict[str, Any]]) -> list[str]:
    lines = []
    for record in records:
        filters = record.get("filters") or {}
        asked = " ".join(
            part
            for part in (
                f'"{record["query"]}"' if record.get("query") else "",
                f"kind={filters['kind']}" if filters.get("kind") else "",
                f"subject={filters['subject']}" if filters.get("subject") else "",
                f"as_of={record['as_of']}" if record.get("as_of") else "",
                f"known_at={record['known_at']}" if record.get("known_at") else "",
            )
            if part
        )
        ids = ", ".join(result.get("id", "?") for result in record.get("results") or ()) or "nothing"
        namespaces = ",".join(filters.get("namespaces") or ())
        lines.append(
            f"#{record.get('seq')} {record.get('time')} {record.get('caller')} [{namespaces}] {asked or '(current facts)'} -> {ids}"
        )
    return lines


def replay_dict(replay: Replay) -> dict[str, Any]:
    return {"record": replay.record, "now": recall_dict(replay.now)}


def replay_lines(replay: Replay) -> list[str]:
    record = replay.record
    lines = [f"journal record #{record.get('seq')} at {record.get('time')} by {record.get('caller')} returned:"]
    for number, result in enumerate(record.get("results") or (), start=1):
        value = f"(value purged by {result['purged']})" if result.get("purged") else short_value(result.get("value"))
        lines.append(f"{number:2}. {result.get('id')} = {value}  score {result.get('score', 0):.3f}")
    if not record.get("results"):
        lines.append("    nothing")
    then = [result.get("id") for result in record.get("results") or ()]
    now = [hit.fact.title for hit in replay.now.hits]
    lines.append("the same recall now returns " + ("the same facts:" if then == now else "something else:"))
    lines += [hit_line(number, hit) for number, hit in enumerate(replay.now.hits, start=1)] or ["    nothing"]
    return lines


def _item_row(item: SweepItem) -> dict[str, Any]:
    return {
        "id": item.fact.title,
        "path": item.fact.path,
        "namespace": item.fact.namespace,
        "policy": item.policy,
        "reason": item.reason,
        "due": _time(item.due),
        "hold": item.held,
    }


def sweep_dict(report: SweepReport) -> dict[str, Any]:
    return {
        "dry_run": report.dry_run,
        "time": _time(report.now),
        "due": [_item_row(i) for i in report.due],
        "held": [_item_row(i) for i in report.held],
        "receipt": report.receipt,
        "stores": report.stores,
        "finished": report.finished,
    }


def sweep_lines(report: SweepReport) -> list[str]:
    verb = "would delete" if report.dry_run else "deleted"
    lines = [f"finished an interrupted sweep first; receipt {report.finished}"] if report.finished else []
    lines += [f"{verb} {item.fact.title} ({item.fact.namespace}): {item.policy}: {item.reason}" for item in report.due]
    lines += [
        f"held {item.fact.title} ({item.fact.namespace}): {item.held}; due by {item.policy}" for item in report.held
    ]
    summary = f"{len(report.due)} facts {verb}, {len(report.held)} held"
    if report.dry_run:
        summary += (
            " (dry run: nothing changed; run `brain fact sweep --no-dry-run` to delete)" if report.due else " (dry run)"
        )
    elif report.receipt:
        counts = ", ".join(f"{name.replace('_', ' ')} {count}" for name, count in report.stores.items())
        summary += f"; purged {counts}; receipt {report.receipt}"
    elif report.stores:
        summary += "; removed " + ", ".join(
            f"{name.replace('_', ' ')} {count}" for name, count in report.stores.items()
        )
    return [*lines, summary]
