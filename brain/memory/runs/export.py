"""Training data from recorded runs: chat SFT, preference pairs (DPO, OpenAI layout), KTO, process labels.

Every line carries `source_run_id` (a pair also `rejected_run_id`). A run is good or bad by its
labels (`RunLabels.verdict`: overridden, escalated or not accepted is bad, accepted is good, else
an eval score >= 0.5 decides); a run with no label is left out of every format, since each
needs one, and the summary says how many were. Runs still in flight or expired are left out too.

Preference pairs are made within one tenant, between runs of the same query (compared after
lowercasing and dropping punctuation and extra spaces): the best-labelled run is `chosen`, each
run labelled strictly worse is `rejected`.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput, Remedy, UsageError
from brain.memory.corpus import Corpus
from brain.memory.runs.note import Run, decision_line
from brain.memory.runs.service import all_runs
from brain.memory.runs.validation import check_tenant, expired
from brain.memory.timeutil import parse_instant

FORMATS = ("sft", "dpo", "dpo-openai", "kto", "process")
DEFAULT_SYSTEM = "You are an agent that answers the user's request, calling tools where they help."


@dataclass(frozen=True)
class ExportSummary:
    format: str
    path: str
    lines: int
    runs: int  # runs that went into at least one line
    unlabelled: int  # left out for lack of a label
    in_flight: int
    expired: int
    filtered: int  # left out by --tenant, --since or --min-score
    unpaired: int = 0  # dpo: labelled runs that had no counterpart on the same query
    bad: int = 0  # sft: runs labelled bad, which are no example to imitate


def export_runs(
    corpus: Corpus,
    format: str,
    out: Path,
    *,
    tenant: str | None = None,
    since: str | None = None,
    min_score: float | None = None,
    system: str = DEFAULT_SYSTEM,
) -> ExportSummary:
    """Write one JSON object per line to `out` (all checks first: bad input writes nothing)."""
    if format not in FORMATS:
        raise UsageError(f"export format '{format}' is not one of {', '.join(FORMATS)}")
    if tenant is not None:
        check_tenant(tenant)
    start = parse_instant(since, Remedy("since")) if since else None
    if min_score is not None and not 0.0 <= min_score <= 1.0:
        raise UsageError(f"min_score must be between 0 and 1, got {min_score}")
    out = Path(out)
    if out.is_dir():
        raise UsageError(f"'{out}' is a folder; give a .jsonl file to write")
    if not out.parent.is_dir():
        raise UsageError(f"cannot write '{out}': folder '{out.parent}' does not exist; create it first")
    now = datetime.now(UTC)
    counts = {"unlabelled": 0, "in_flight": 0, "expired": 0, "filtered": 0}
    usable: list[Run] = []
    for run in sorted(all_runs(corpus), key=lambda r: (r.created, r.title)):
        if (
            (tenant is not None and run.scope.tenant != tenant)
            or (start and not _after(run, start))
            or (min_score is not None and run.labels.score is not None and run.labels.score < min_score)
        ):
            counts["filtered"] += 1
        elif run.in_flight:
            counts["in_flight"] += 1
        elif expired(run, now):
            counts["expired"] += 1
        elif run.labels.verdict() is None:
            counts["unlabelled"] += 1
        else:
            usable.append(run)
    unpaired = bad = 0
    if format == "sft":
        bad = sum(1 for run in usable if not run.labels.verdict())
        usable = [run for run in usable if run.labels.verdict()]
    if format in ("dpo", "dpo-openai"):
        pairs, unpaired = preference_pairs(usable)
        lines = (_pair_line(format, chosen, rejected, system) for chosen, rejected in pairs)
    else:
        lines = (_single_line(format, run, system) for run in usable)
    written, sources = _write(out, lines)
    return ExportSummary(format, str(out), written, len(sources), unpaired=unpaired, bad=bad, **counts)


def _after(run: Run, start: datetime) -> bool:
    try:
        return parse_instant(run.created, "created") >= start
    except InvalidInput:
        return False


def _write(out: Path, lines: Iterator[dict[str, Any]]) -> tuple[int, set[str]]:
    """Write to a temp file beside `out`, then rename: a failed export leaves no half file."""
    temp = out.with_name(f".{out.name}.tmp")
    sources: set[str] = set()
    written = 0
    try:
        with temp.open("w", encoding="utf-8") as handle:
            for line in lines:
                sources.add(line["source_run_id"])
                if "rejected_run_id" in line:
                    sources.add(line["rejected_run_id"])
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
                written += 1
        temp.replace(out)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return written, sources


# ---------------------------------------------------------------- the formats


def _single_line(format: str, run: Run, system: str) -> dict[str, Any]:
    if format == "sft":
        return {"messages": chat_messages(run, system), "source_run_id": run.title}
    if format == "kto":
        return {
            "prompt": run.query,
            "completion": run.snapshot["finalContent"],
            "label": bool(run.labels.verdict()),
            "source_run_id": run.title,
        }
    return {"prompt": run.query, **process_steps(run), "source_run_id": run.title}


def chat_messages(run: Run, system: str) -> list[dict[str, Any]]:
    """system, user, the assistant's tool calls with their results (as previews), the final answer."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": run.query}]
    calls = run.tool_calls
    if calls:
        ids = [f"call_{number + 1}" for number in range(len(calls))]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": str(call.get("name")),
                            "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False),
                        },
                    }
                    for call_id, call in zip(ids, calls, strict=True)
                ],
            }
        )
        for call_id, call in zip(ids, calls, strict=True):
            preview = call.get("resultPreview")
            content = preview if isinstance(preview, str) else json.dumps(preview, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    messages.append({"role": "assistant", "content": run.snapshot["finalContent"]})
    return messages


def process_steps(run: Run) -> dict[str, list[Any]]:
    """One completion per decision; a step is labelled good when the run was good and the step
    recorded the evidence it rested on (a step with no evidence is never a positive example)."""
    good = bool(run.labels.verdict())
    return {
        "completions": [decision_line(d) for d in run.decisions],
        "labels": [good and bool(d.get("evidence")) for d in run.decisions],
    }


def _same_query(query: str) -> str:
    return " ".join(re.findall(r"\w+", query.lower()))


def preference_pairs(runs: list[Run]) -> tuple[list[tuple[Run, Run]], int]:
    """(chosen, rejected) pairs within a tenant and a query; and how many runs found no counterpart."""
    groups: dict[tuple[str, str], list[tuple[tuple[int, float], Run]]] = defaultdict(list)
    unpaired = 0
    for run in runs:
        preference = run.labels.preference()
        if preference is None:  # no verdict: nothing to rank it by
            unpaired += 1
            continue
        groups[(run.scope.tenant, _same_query(run.query))].append((preference, run))
    pairs: list[tuple[Run, Run]] = []
    for group in groups.values():
        ranked = sorted(group, key=lambda item: (item[0], item[1].created), reverse=True)
        best_preference, best = ranked[0]
        worse = [run for preference, run in ranked[1:] if preference < best_preference]
        pairs += [(best, run) for run in worse]
        unpaired += len(group) - (len(worse) + 1 if worse else 0)
    return pairs, unpaired


def _pair_line(format: str, chosen: Run, rejected: Run, system: str) -> dict[str, Any]:
    ids = {"source_run_id": chosen.title, "rejected_run_id": rejected.title}
    if format == "dpo":
        return {
            "prompt": chosen.query,
            "chosen": chosen.snapshot["finalContent"],
            "rejected": rejected.snapshot["finalContent"],
            **ids,
        }
    return {
        "input": {"messages": [{"role": "system", "content": system}, {"role": "user", "content": chosen.query}]},
        "preferred_output": [{"role": "assistant", "content": chosen.snapshot["finalContent"]}],
        "non_preferred_output": [{"role": "assistant", "content": rejected.snapshot["finalContent"]}],
        **ids,
    }
