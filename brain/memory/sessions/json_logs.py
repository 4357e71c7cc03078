"""The JSON session logs of ai-agents -> episode (rules in `brain.memory.sessions.rules`)."""

from __future__ import annotations

import re
from typing import Any

from brain.errors import InvalidInput
from brain.markdown.model import Episode
from brain.memory.sessions.rules import (
    DATE,
    FAIL_COUNT,
    FILES_COUNT,
    FIX_WORDS,
    PASS_COUNT,
    SENTENCE,
    WorkItem,
    build_episode,
    gate_outcome,
    recovered_in,
    session_id,
    shas,
    timestamp_of,
)
from brain.memory.timeutil import parse_instant

TEXT_KEYS = (
    "task",
    "action",
    "summary",
    "activity",
    "title",
    "item",
    "step",
    "entry",
    "description",
    "finding",
    "decision",
    "content",
    "detail",
    "details",
    "outcome",
    "result",
    "evidence",
    "phase",
)
TITLE_KEYS = (  # what names an entry, first found wins (a "phase" or "step" is often only a label)
    "task",
    "action",
    "summary",
    "activity",
    "title",
    "item",
    "entry",
    "step",
    "description",
    "finding",
    "decision",
    "content",
    "outcome",
    "detail",
    "details",
    "result",
    "phase",
)
LIST_KEYS = ("actions", "activities", "findings", "decisions", "details")  # lists of sentences


def from_json(data: dict[str, Any], stem: str) -> tuple[Episode, list[str]]:
    warnings: list[str] = []
    session = data["session"]
    date = str(session.get("date") or "") or None
    sid = session_id(stem, date, session.get("number"))
    timestamp = timestamp_of(date)
    if timestamp is None:
        warnings.append(f"{stem}: session.date is missing or not a date; the episode has no date")
    task = str(session.get("objective") or "").strip() or stem
    items = [item for item in (_work_item(entry) for entry in _work_log(data, warnings)) if item is not None]
    starting = str(session.get("startingCommit") or "").strip().lower()
    commits = _json_commits(data, items, starting)
    outcome = gate_outcome(_json_gates_complete(data, items), _failing(items))
    files_counted = sum(int(m.group(1)) for item in items for m in FILES_COUNT.finditer(item.text))
    episode = build_episode(
        sid=sid,
        timestamp=timestamp,
        task=task,
        outcome=outcome,
        items=items,
        commits=commits,
        lessons=_json_lessons(data),
        duration=_duration(data, items),
        files_counted=files_counted,
    )
    return episode, warnings


def _work_log(data: dict[str, Any], warnings: list[str]) -> list[Any]:
    entries = data.get("workLog")
    if entries is None:
        # Early JSON logs recorded work as agent activities instead of a work log.
        entries = data.get("agentActivities") or []
    if not isinstance(entries, list):
        warnings.append("workLog is not a list; read as empty")
        return []
    return entries


def _work_item(entry: Any) -> WorkItem | None:
    if isinstance(entry, str):
        text = entry.strip()
        return WorkItem(title=text, text=text) if text else None
    if not isinstance(entry, dict):
        return None
    strings = {key: str(value).strip() for key, value in entry.items() if isinstance(value, str) and str(value).strip()}
    for key in LIST_KEYS:  # "actions": ["Ran x", "Fixed y"] reads as one text
        listed_text = entry.get(key)
        if isinstance(listed_text, list) and key not in strings:
            joined = " ".join(str(line).strip() for line in listed_text if isinstance(line, str) and line.strip())
            if joined:
                strings[key] = joined
    title = next((strings[key] for key in (*TITLE_KEYS, *LIST_KEYS) if key in strings), "")
    if not title:
        return None
    parts = tuple(strings[key] for key in (*TEXT_KEYS, *LIST_KEYS) if key in strings)
    parts = tuple(dict.fromkeys(parts))
    text = " ".join(parts)
    detail = next((strings[key] for key in TEXT_KEYS if key in strings and strings[key] != title), "")
    if len(title.split()) <= 3 and detail:  # a bare label ("Fix") says little: add what was done
        title = f"{title}: {SENTENCE.split(detail, maxsplit=1)[0].strip()}"
    listed = entry.get("files")
    files = listed if isinstance(listed, list) else []
    when = entry.get("timestamp") or entry.get("time")
    when = str(when) if isinstance(when, str) and DATE.match(when) else None
    return WorkItem(title=title, text=text, files=tuple(str(f) for f in files), timestamp=when, parts=parts)


def _json_gates_complete(data: dict[str, Any], items: list[WorkItem]) -> bool:
    """Every session-end MUST gate complete, and the checklist gate too whatever its level.

    Gate names differ across log generations, so the level decides, not the name. A log whose
    gates were never filled in (every `Complete` null) is judged by its work: done when it has
    work items and ends without an unresolved failure.
    """
    compliance = data.get("protocolCompliance")
    end = compliance.get("sessionEnd") if isinstance(compliance, dict) else None
    gates = {name: gate for name, gate in end.items() if isinstance(gate, dict)} if isinstance(end, dict) else {}
    if gates and all(_gate(gate, "complete") is None for gate in gates.values()):
        return bool(items) and not _failing(items)
    musts = [gate for gate in gates.values() if str(gate.get("level", "")).upper() == "MUST"]
    checklist = _gate(gates.get("checklistComplete", {}), "complete") is not False
    return bool(musts) and checklist and all(_gate(gate, "complete") is True for gate in musts)


def _gate(gate: dict[str, Any], key: str) -> Any:
    """A gate field whichever case the log spelled it in (`Complete` and `complete` both occur)."""
    return gate.get(key.capitalize(), gate.get(key))


def _failing(items: list[WorkItem]) -> bool:
    """A counted failure that no later item reports as fixed or passing."""
    failing = False
    for item in items:
        if FAIL_COUNT.search(item.text) and not recovered_in(item.text):
            failing = True
        elif failing and (PASS_COUNT.search(item.text) or FIX_WORDS.search(item.text)):
            failing = False
    return failing


def _json_commits(data: dict[str, Any], items: list[WorkItem], starting: str) -> list[str]:
    texts = [item.text for item in items]
    compliance = data.get("protocolCompliance")
    end = compliance.get("sessionEnd") if isinstance(compliance, dict) else None
    for gate in end.values() if isinstance(end, dict) else ():
        if isinstance(gate, dict):
            texts.append(str(_gate(gate, "evidence") or ""))
    found: list[str] = []
    ending = str(data.get("endingCommit") or "").strip().lower()
    if re.fullmatch(r"[0-9a-f]{7,40}", ending) and ending != starting:  # a structured field: even all digits is a SHA
        found.append(ending)
    for text in texts:
        for sha in shas(text.lower()):
            if (
                sha != starting
                and not (starting and (sha.startswith(starting) or starting.startswith(sha)))
                and sha not in found
            ):
                found.append(sha)
    return found


def _json_lessons(data: dict[str, Any]) -> list[str]:
    found: list[str] = []
    retro = data.get("retrospective")
    for raw in (
        data.get("learnings"),
        data.get("lessons"),
        retro.get("learnings") if isinstance(retro, dict) else None,
    ):
        if isinstance(raw, str):
            raw = [raw]
        for item in raw if isinstance(raw, list) else ():
            if isinstance(item, dict):
                item = item.get("text") or item.get("content") or item.get("lesson") or ""
            if str(item).strip():
                found.append(str(item).strip())
    return found


def _duration(data: dict[str, Any], items: list[WorkItem]) -> int | None:
    """A logged duration, else the minutes from the first to the last timed work item."""
    session = data["session"]
    for key in ("durationMinutes", "duration_minutes"):
        value = session.get(key, data.get(key))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
    times = []
    for item in items:
        try:
            times.append(parse_instant(item.timestamp, "time")) if item.timestamp and "T" in item.timestamp else None
        except InvalidInput:
            continue
    minutes = int((max(times) - min(times)).total_seconds() // 60) if len(times) > 1 else 0
    return minutes or None
