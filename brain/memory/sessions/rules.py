"""The extraction rules shared by every ai-agents session log format: work items -> an episode.

Two log formats exist on disk: JSON logs (`session`, `protocolCompliance`, `workLog`, ...)
and the older markdown logs (`# Session ...`, `**Date**:`, `## Work Log`). Both become the
same `Episode`. The rules (also in the README, "Extraction rules"):

- task: the session's objective (JSON `session.objective`; markdown `**Objective**:`, an
  `## Objective` section, or `**This Session Objective**:`), else the log's title.
- outcome: success when every session-end MUST gate is complete (markdown: no unchecked MUST
  row and no work item left "In Progress" or "Blocked"); failure when a gate is open and a work
  item reports counted failures ("3 failed") with no later passing verification; else partial.
- events: one milestone per work-log entry (a bare label such as "Fix" gets the first sentence of
  what the entry says was done), linked in order (caused_by / leads_to); a test event
  for a counted pass ("120 passed": the entry's field that says it, a markdown log's sentence), an
  error event for a counted failure (the whole entry; a markdown log's sentence; "404 errors" is an
  HTTP status, not a count); one commit event per
  commit the session made (ending commit and every SHA named by a work item), caused by the
  work item that names it.
- decisions: a work item whose text records a choice (chose, decided, selected, opted, rejected,
  "X over Y", "instead of", "rather than") is a decision; its options come from the comparison.
- metrics: commits = distinct commits made (the starting commit is the base, not counted);
  files_changed = distinct files listed by work items, else counted "N files"; errors = error
  events; recoveries = error events followed by a later passing test or fix.
- lessons: `learnings` / `lessons` / `retrospective.learnings` (JSON); `## Learnings`,
  `## Lessons Learned`, `## Key Learnings` sections (markdown).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from brain.markdown.model import Decision, Episode, Event
from brain.memory.episodes.service import episode_title

_SHA = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])")
# a counted failure ("3 failed", "2 errors"); "404 errors" is an HTTP status, not a count
FAIL_COUNT = re.compile(r"\b(?![1-5]\d\d\s+errors?\b)([1-9]\d*)\s+(?:failed|failures|failing|errors?)\b", re.IGNORECASE)
PASS_COUNT = re.compile(r"\b(\d+)\s+(?:passed|passing)\b|\ball (?:checks|tests) passed\b|\bPASS\b", re.IGNORECASE)
FIX_WORDS = re.compile(r"\b(fix(?:ed|es)?|repair(?:ed)?|recover(?:ed)?|resolved|corrected|green)\b", re.IGNORECASE)
FILES_COUNT = re.compile(r"\b(\d+)\s+files?\s+(?:changed|modified|created|touched)\b", re.IGNORECASE)
_CHOICE = re.compile(
    r"\b(chose|choose|decided|decision|selected|opted|rejected|declined?|preferred)\b|\brather than\b|\binstead of\b",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"^(?:.*?\b(?:chose|selected|opted for|preferred)\s+)?(.+?)\s+(?:over|rather than|instead of)\s+(.+?)(?:[,.;:]|$)",
    re.IGNORECASE,
)
_SESSION_STEM = re.compile(r"^(\d{4}-\d{2}-\d{2})-session-[\w.-]+$")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`'\"(])")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def session_id(stem: str, date: str | None, number: Any) -> str:
    """The file stem when it is already `<date>-session-<n>...`, else `<date>-session-<number>`."""
    if _SESSION_STEM.match(stem):
        return stem
    if date and number not in (None, ""):
        return f"{date}-session-{number}"
    return stem


def timestamp_of(date: str | None) -> str | None:
    match = DATE.search(date or "")
    return f"{match.group(0)}T00:00:00+00:00" if match else None


@dataclass(frozen=True)
class WorkItem:
    """One unit of logged work, whatever shape the log gave it."""

    title: str
    text: str
    files: tuple[str, ...] = ()
    timestamp: str | None = None
    parts: tuple[str, ...] = ()  # the fields `text` joins (a JSON entry's action, result, evidence, ...)


def build_episode(
    *,
    sid: str,
    timestamp: str | None,
    task: str,
    outcome: str,
    items: list[WorkItem],
    commits: list[str],
    lessons: list[str],
    duration: int | float | None = None,
    extra_decisions: Sequence[tuple[str, str]] = (),
    choice_items: bool = True,
    files_counted: int = 0,
) -> Episode:
    """Events, decisions and metrics from work items by the rules in the module doc."""
    events: list[Event] = []
    decisions: list[Decision] = []
    recoveries = 0
    open_errors = 0
    previous_milestone: str | None = None
    claimed: set[str] = set()

    def add(kind: str, text: str, caused_by: tuple[str, ...], when: str | None) -> str:
        event_id = f"e{len(events) + 1:03d}"
        events.append(Event(text=text, timestamp=when or timestamp, id=event_id, type=kind, caused_by=caused_by))
        return event_id

    for item in items:
        milestone = add("milestone", item.title, (previous_milestone,) if previous_milestone else (), item.timestamp)
        failed = FAIL_COUNT.search(item.text)
        passed = PASS_COUNT.search(item.text)
        if failed and not recovered_in(item.text):
            add(
                "error",
                item.text if item.parts else _sentence_with(item.text, failed.group(0)),
                (milestone,),
                item.timestamp,
            )
            open_errors += 1
        elif passed:
            add("test", _part_with(item, passed.group(0)), (milestone,), item.timestamp)
            if open_errors:
                recoveries += 1
                open_errors = 0
        elif open_errors and FIX_WORDS.search(item.text):
            recoveries += 1
            open_errors = 0
        for sha in shas(item.text.lower()):
            if sha in commits and sha not in claimed:
                claimed.add(sha)
                add("commit", f"Commit: {sha}", (milestone,), item.timestamp)
        choice = _CHOICE.search(item.text) if choice_items else None
        if choice:
            decisions.append(_decision(len(decisions) + 1, item, choice, timestamp, milestone))
        previous_milestone = milestone
    for sha in commits:
        if sha not in claimed:
            add("commit", f"Commit: {sha}", (previous_milestone,) if previous_milestone else (), None)
    for context, chosen in extra_decisions:
        fake = WorkItem(title=context, text=chosen)
        decisions.append(_decision(len(decisions) + 1, fake, _CHOICE.search(chosen), timestamp, None))
    events = _with_leads_to(events)
    files = {name for item in items for name in item.files} or {
        path for item in items for path in file_paths(item.text)
    }
    decisions = [replace(d, outcome=outcome) for d in decisions]
    metrics = {
        "duration_minutes": duration or 0,
        "tool_calls": 0,
        "errors": sum(1 for event in events if event.type == "error"),
        "recoveries": recoveries,
        "commits": len(commits),
        "files_changed": len(files) or files_counted,
    }
    title = episode_title(f"episode-{sid}", sid, timestamp)
    return Episode(
        title=title,
        outcome=outcome,
        task=task,
        session=sid,
        date=timestamp,
        episode_id=f"episode-{sid}",
        duration_minutes=duration,
        metrics=metrics,
        decisions=tuple(decisions),
        events=tuple(events),
        lessons=tuple(dict.fromkeys(lesson for lesson in lessons if lesson)),
        tags=("episodic", "extracted"),
    )


_PATH = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z]{1,5}|[\w-]+\.(?:py|ps1|psm1|md|json|ya?ml|toml|ts|js|sh|txt|cfg|ini))(?![\w/])"
)


def file_paths(text: str) -> set[str]:
    """File paths a work item names (`tests/x.py`, `conftest.py`); URLs are not files."""
    return {path for path in _PATH.findall(text) if "://" not in path and not path.startswith(("http", "www."))}


def recovered_in(text: str) -> bool:
    """'147 passed (was 18 failed)': the failure is history, the item reports the recovery."""
    return bool(
        re.search(r"\bwas\s+\d+\s+fail", text, re.IGNORECASE)
        or re.search(r"\b(\d+)\s+fail\w*\s+(?:before|without)\b", text, re.IGNORECASE)
    )


def _with_leads_to(events: list[Event]) -> list[Event]:
    leads: dict[str, list[str]] = {}
    for event in events:
        for cause in event.caused_by:
            leads.setdefault(cause, []).append(event.id or "")
    return [replace(event, leads_to=tuple(leads.get(event.id or "", ()))) for event in events]


def shas(text: str) -> list[str]:
    """Commit-looking hex words that are not plain numbers."""
    return [sha for sha in dict.fromkeys(_SHA.findall(text)) if not sha.isdigit() and re.search(r"\d", sha)]


def _part_with(item: WorkItem, needle: str) -> str:
    """The field of a work item that holds a text (what the log said of a test run), else its sentence."""
    return next((part for part in item.parts if needle in part), None) or _sentence_with(item.text, needle)


def _sentence_with(text: str, needle: str) -> str:
    for sentence in SENTENCE.split(text):
        if needle in sentence:
            return sentence.strip()
    return text.strip()


def _decision(
    number: int, item: WorkItem, choice: re.Match[str] | None, timestamp: str | None, milestone: str | None
) -> Decision:
    chosen = _sentence_with(item.text, choice.group(0)) if choice else item.text.strip()
    options = None
    comparison = _COMPARISON.match(chosen)
    if comparison:
        options = (comparison.group(1).strip(), comparison.group(2).strip())
    from brain.memory.episodes.note import decision_title

    return Decision(
        id=f"d{number:03d}",
        title=decision_title(item.title, chosen),
        timestamp=item.timestamp or timestamp,
        type=decision_type(item.text),
        context=item.title if item.title != chosen else None,
        options=options,
        chosen=chosen,
        rationale=_rationale(item.text, chosen),
        effects=(milestone,) if milestone else None,
    )


def _rationale(text: str, chosen: str) -> str | None:
    """The sentence after the choice, when it explains it ('because', 'so', 'since', ...)."""
    sentences = [s.strip() for s in SENTENCE.split(text)]
    for position, sentence in enumerate(sentences):
        if sentence == chosen.strip():
            for following in sentences[position + 1 : position + 3]:
                if re.search(r"\b(because|so that|since|to keep|to avoid|which|matching)\b", following, re.IGNORECASE):
                    return following
    reason = re.search(r"\b(?:because|since|so that)\b\s+(.+)", chosen, re.IGNORECASE)
    return reason.group(0) if reason else None


def decision_type(text: str) -> str:
    """design | test | recovery | routing | implementation, by the words the entry uses."""
    lower = text.lower()
    for kind, words in (
        ("recovery", r"\b(recover|revert|rollback|roll back|retry|fallback|repair|regenerat)"),
        ("design", r"\b(design|architect|schema|adr|structur|rule)"),
        ("test", r"\b(test|coverage|assert|pytest|pester)"),
        ("routing", r"\b(route|routing|delegat|handoff|hand off|agent)"),
    ):
        if re.search(words, lower):
            return kind
    return "implementation"


def gate_outcome(gates_complete: bool, failing_items: bool) -> str:
    if gates_complete:
        return "success"
    return "failure" if failing_items else "partial"


# ---------------------------------------------------------------- JSON logs
