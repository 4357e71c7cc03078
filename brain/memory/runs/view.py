"""Recorded runs for people and programs: the text lines and JSON dicts both front ends print."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain.memory.runs.note import PREVIEW_LIMIT, Run, decision_line, evidence_text, value_text

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.runs.export import ExportSummary
    from brain.memory.runs.service import Explanation, RecordedRun, RunRecall


def recorded_lines(stored: RecordedRun) -> list[str]:
    lines = [f"{'recorded' if stored.created else 'updated'} {stored.path}"]
    lines += [
        f"note: tool call {t.call + 1}'s resultPreview was truncated to {PREVIEW_LIMIT} of {t.chars:,} characters"
        for t in stored.truncated
    ]
    return lines


def recorded_dict(stored: RecordedRun) -> dict[str, Any]:
    return {
        "id": stored.title,
        "path": stored.path,
        "created": stored.created,
        "truncated_previews": [{"call": t.call, "chars": t.chars} for t in stored.truncated],
    }


def run_row(run: Run) -> dict[str, Any]:
    """One row of a run listing."""
    return {
        "id": run.title,
        "path": run.path,
        "created": run.created,
        "query": run.query,
        "status": "in-flight" if run.in_flight else "done",
        "verdict": {True: "good", False: "bad", None: "unlabelled"}[run.labels.verdict()],
        "decisions": len(run.decisions),
        "tool_calls": len(run.tool_calls),
        "expires": run.expires,
    }


def list_lines(runs: list[Run], tenant: str) -> list[str]:
    if not runs:
        return [f"no runs for tenant '{tenant}'"]
    lines = []
    for run in runs:
        row = run_row(run)
        status = "in-flight" if run.in_flight else row["verdict"]
        lines.append(f"{run.created:20}  {status:10} {run.title}  {_short(run.query, 70)}")
    return lines


def show_lines(run: Run) -> list[str]:
    """A run for a person: identity, labels, answer, decisions with evidence, tool calls."""
    scope = run.scope
    lines = [
        f"{run.title}  [{run_row(run)['verdict']}{', in flight' if run.in_flight else ''}]  {run.created}",
        f"tenant: {scope.tenant}"
        + (f"  principal: {scope.principal}" if scope.principal else "")
        + (f"  conversation: {scope.conversation}" if scope.conversation else ""),
        f"query: {run.query}",
        f"answer: {run.snapshot.get('finalContent') if not run.in_flight else '(in flight)'}",
    ]
    if run.expires:
        lines.append(f"expires: {run.expires}")
    if run.decisions:
        lines.append("decisions:")
        lines += [f"  {decision_line(d)}" for d in run.decisions]
    truncated = {t.call: t.chars for t in run.truncated}
    if run.tool_calls:
        lines.append("tool calls:")
        for number, call in enumerate(run.tool_calls):
            args = call.get("args")
            arguments = evidence_text(args) if isinstance(args, dict) else value_text(args)
            cut = f" (preview truncated from {truncated[number]:,} characters)" if number in truncated else ""
            errored = " errored" if call.get("errored") else ""
            lines.append(
                f"  {call.get('name')}({arguments}){errored} -> {_short(str(call.get('resultPreview') or ''), 120)}{cut}"
            )
    lines += [f"problem: {problem}" for problem in run.problems]
    return lines


def recall_lines(recall: RunRecall) -> list[str]:
    """Each hit in its projection, ready for a prompt, with its similarity and token count."""
    if not recall.hits:
        best = f" (best {recall.best_below:.2f})" if recall.best_below is not None else ""
        return [
            f"no run of tenant '{recall.tenant}' matches at or above {recall.threshold:.2f}{best}; nothing recalled"
        ]
    lines: list[str] = []
    for hit in recall.hits:
        lines.append(f"# {hit.run} (similarity {hit.similarity:.2f}, {hit.projection}, {hit.tokens} tokens)")
        lines.append(f"query: {hit.query}")
        lines += hit.text.splitlines()
    return lines


def recall_dict(recall: RunRecall) -> dict[str, Any]:
    return {
        "query": recall.query,
        "tenant": recall.tenant,
        "projection": recall.projection,
        "threshold": recall.threshold,
        "top_k": recall.top_k,
        "compared": recall.compared,
        "best_below_threshold": recall.best_below,
        "hits": [
            {
                "id": h.run,
                "path": h.path,
                "similarity": h.similarity,
                "created": h.created,
                "query": h.query,
                "projection": h.projection,
                "text": h.text,
                "tokens": h.tokens,
            }
            for h in recall.hits
        ],
    }


def explain_lines(found: Explanation) -> list[str]:
    """The answer to "why?", citing stage ids, rules and evidence values from the run's own record."""
    lines = [f"Run {found.run} (tenant {found.tenant}) was asked: {found.query}", f"It answered: {found.answer}"]
    if found.question:
        lines.append(f"Question: {found.question}")
        if not found.matched:
            lines.append("No recorded decision names what the question asks about; here are all of them.")
    if not found.decisions:
        lines.append("The run recorded no decisions.")
    for d in found.decisions:
        rule = f' by the rule "{d.get("rule")}"' if d.get("rule") is not None else ""
        evidence = evidence_text(d.get("evidence"))
        lines.append(
            f"- Stage {d.get('stageId')} chose {value_text(d.get('chosen'))}{rule}"
            + (f", on the evidence {evidence}." if evidence else ", with no evidence recorded.")
        )
    if found.others:
        lines.append("Other decisions: " + "; ".join(decision_line(d) for d in found.others))
    for call in found.tool_calls:
        args = call.get("args")
        arguments = evidence_text(args) if isinstance(args, dict) else value_text(args)
        state = "failed" if call.get("errored") else "returned"
        lines.append(
            f"- Tool {call.get('name')}({arguments}) {state}: {_short(str(call.get('resultPreview') or ''), 200)}"
        )
    return lines


def explain_dict(found: Explanation) -> dict[str, Any]:
    return {
        "id": found.run,
        "tenant": found.tenant,
        "query": found.query,
        "answer": found.answer,
        "question": found.question,
        "matched": found.matched,
        "decisions": list(found.decisions),
        "other_decisions": list(found.others),
        "tool_calls": list(found.tool_calls),
        "text": "\n".join(explain_lines(found)),
    }


def export_lines(summary: ExportSummary) -> list[str]:
    left = [f"{summary.unlabelled} without a label"]
    left += [
        f"{count} {what}"
        for count, what in (
            (summary.in_flight, "in flight"),
            (summary.expired, "expired"),
            (summary.filtered, "filtered out"),
            (summary.unpaired, "without a counterpart to pair"),
            (summary.bad, "labelled bad"),
        )
        if count
    ]
    return [
        f"wrote {summary.lines} {summary.format} lines from {summary.runs} runs to {summary.path}",
        "left out: " + ", ".join(left),
    ]


def _short(text: str, size: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"


def run_record(run: Run) -> dict[str, Any]:
    """What `show --json` gives back: the snapshot exactly as recorded, plus identity and labels."""
    identity = {"tenant": run.scope.tenant}
    identity.update(
        {k: v for k, v in (("principal", run.scope.principal), ("conversationId", run.scope.conversation)) if v}
    )
    labels = {
        k: v
        for k, v in (
            ("accepted", run.labels.accepted),
            ("overridden", run.labels.overridden),
            ("escalated", run.labels.escalated),
            ("score", run.labels.score),
        )
        if v is not None
    }
    return {
        "id": run.title,
        "path": run.path,
        "created": run.created,
        "identity": identity,
        "outcome": labels,
        "embedder": run.embedder,
        "expires": run.expires,
        "in_flight": run.in_flight,
        "truncated_previews": [{"call": t.call, "chars": t.chars} for t in run.truncated],
        "problems": list(run.problems),
        "snapshot": run.snapshot,
    }
