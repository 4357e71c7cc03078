"""Session log -> episode: brain's own extraction rules for ai-agents session logs.

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
  for a counted pass ("120 passed"), an error event for a counted failure; one commit event per
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

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput
from brain.memory.episodes.service import episode_title
from brain.memory.timeutil import parse_instant
from brain.notes.model import Decision, Episode, Event

LOG_SUFFIXES = (".json", ".md")
_SHA = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])")
_FAIL_COUNT = re.compile(r"\b([1-9]\d*)\s+(?:failed|failures|failing|errors?)\b", re.IGNORECASE)
_PASS_COUNT = re.compile(r"\b(\d+)\s+(?:passed|passing)\b|\ball (?:checks|tests) passed\b|\bPASS\b", re.IGNORECASE)
_FIX_WORDS = re.compile(r"\b(fix(?:ed|es)?|repair(?:ed)?|recover(?:ed)?|resolved|corrected|green)\b", re.IGNORECASE)
_FILES_COUNT = re.compile(r"\b(\d+)\s+files?\s+(?:changed|modified|created|touched)\b", re.IGNORECASE)
_CHOICE = re.compile(
    r"\b(chose|choose|decided|decision|selected|opted|rejected|declined?|preferred)\b|\brather than\b|\binstead of\b",
    re.IGNORECASE,
)
_COMPARISON = re.compile(r"^(?:.*?\b(?:chose|selected|opted for|preferred)\s+)?(.+?)\s+(?:over|rather than|instead of)\s+(.+?)(?:[,.;:]|$)", re.IGNORECASE)
_SESSION_STEM = re.compile(r"^(\d{4}-\d{2}-\d{2})-session-[\w.-]+$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`'\"(])")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TITLE_KEYS = ("task", "action", "step", "entry", "outcome", "detail", "details", "result")
_TEXT_KEYS = ("task", "action", "step", "entry", "detail", "details", "outcome", "result", "evidence")


@dataclass(frozen=True)
class Extracted:
    """An episode made from one log, where it came from, and what was read leniently."""

    episode: Episode
    source: str
    format: str  # "json" | "markdown"
    warnings: tuple[str, ...] = ()


def session_logs(path: str | Path) -> list[Path]:
    """The log files a path names: the file itself, or every .json/.md file in a folder (sorted)."""
    target = Path(path)
    if target.is_dir():
        found = sorted(p for p in target.rglob("*") if p.is_file() and p.suffix.lower() in LOG_SUFFIXES)
        if not found:
            raise InvalidInput(f"{path} holds no .json or .md session logs")
        return found
    if not target.is_file():
        raise InvalidInput(f"session log '{path}' does not exist; give a session log file or a folder of them")
    return [target]


def extract_path(path: str | Path) -> list[Extracted]:
    """Episodes from a log file or a folder of logs. A folder skips files that are not session logs
    (with a warning on the first one kept); a single file that is not a session log is an error."""
    files = session_logs(path)
    results: list[Extracted] = []
    skipped: list[str] = []
    for file in files:
        try:
            results.append(extract_file(file))
        except InvalidInput as error:
            if len(files) == 1:
                raise
            skipped.append(f"skipped {file.name}: {error}")
    if not results:
        raise InvalidInput(f"{path} holds no session logs ({len(skipped)} files skipped)")
    if skipped:
        first = results[0]
        results[0] = replace(first, warnings=first.warnings + tuple(skipped))
    return results


def extract_file(path: str | Path) -> Extracted:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{file.name} is not UTF-8 text, so not a session log") from None
    except OSError as error:
        raise InvalidInput(f"cannot read {file}: {error.strerror}") from None
    return extract_text(text, file.name)


def extract_text(text: str, name: str) -> Extracted:
    """An episode from a log's text; `name` is its file name (the session id comes from it)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"{name} is not valid JSON ({error.msg} at line {error.lineno})") from None
        if not (isinstance(data, dict) and isinstance(data.get("session"), dict)):
            raise InvalidInput(f"{name} is JSON but not a session log (no 'session' object)")
        episode, warnings = from_json(data, Path(name).stem)
        return Extracted(episode, name, "json", tuple(warnings))
    from brain.memory.sessions.markdown_logs import from_markdown  # the older format, read by its own rules

    episode, warnings = from_markdown(text, Path(name).stem)
    return Extracted(episode, name, "markdown", tuple(warnings))


# ---------------------------------------------------------------- shared rules


def session_id(stem: str, date: str | None, number: Any) -> str:
    """The file stem when it is already `<date>-session-<n>...`, else `<date>-session-<number>`."""
    if _SESSION_STEM.match(stem):
        return stem
    if date and number not in (None, ""):
        return f"{date}-session-{number}"
    return stem


def timestamp_of(date: str | None) -> str | None:
    match = _DATE.search(date or "")
    return f"{match.group(0)}T00:00:00+00:00" if match else None


@dataclass(frozen=True)
class WorkItem:
    """One unit of logged work, whatever shape the log gave it."""

    title: str
    text: str
    files: tuple[str, ...] = ()
    timestamp: str | None = None


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
    extra_decisions: list[tuple[str, str]] = (),
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
        failed = _FAIL_COUNT.search(item.text)
        passed = _PASS_COUNT.search(item.text)
        if failed and not _recovered_in(item.text):
            add("error", _sentence_with(item.text, failed.group(0)), (milestone,), item.timestamp)
            open_errors += 1
        elif passed:
            add("test", _sentence_with(item.text, passed.group(0)), (milestone,), item.timestamp)
            if open_errors:
                recoveries += 1
                open_errors = 0
        elif open_errors and _FIX_WORDS.search(item.text):
            recoveries += 1
            open_errors = 0
        for sha in _shas(item.text.lower()):
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
    files = {name for item in items for name in item.files} or {path for item in items for path in file_paths(item.text)}
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


_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z]{1,5}|[\w-]+\.(?:py|ps1|psm1|md|json|ya?ml|toml|ts|js|sh|txt|cfg|ini))(?![\w/])")


def file_paths(text: str) -> set[str]:
    """File paths a work item names (`tests/x.py`, `conftest.py`); URLs are not files."""
    return {path for path in _PATH.findall(text) if "://" not in path and not path.startswith(("http", "www."))}


def _recovered_in(text: str) -> bool:
    """'147 passed (was 18 failed)': the failure is history, the item reports the recovery."""
    return bool(re.search(r"\bwas\s+\d+\s+fail", text, re.IGNORECASE) or re.search(r"\b(\d+)\s+fail\w*\s+(?:before|without)\b", text, re.IGNORECASE))


def _with_leads_to(events: list[Event]) -> list[Event]:
    leads: dict[str, list[str]] = {}
    for event in events:
        for cause in event.caused_by:
            leads.setdefault(cause, []).append(event.id or "")
    return [replace(event, leads_to=tuple(leads.get(event.id or "", ()))) for event in events]


def _shas(text: str) -> list[str]:
    """Commit-looking hex words that are not plain numbers."""
    return [sha for sha in dict.fromkeys(_SHA.findall(text)) if not sha.isdigit() and re.search(r"\d", sha)]


def _sentence_with(text: str, needle: str) -> str:
    for sentence in _SENTENCE.split(text):
        if needle in sentence:
            return sentence.strip()
    return text.strip()


def _decision(number: int, item: WorkItem, choice: re.Match | None, timestamp: str | None, milestone: str | None) -> Decision:
    chosen = _sentence_with(item.text, choice.group(0)) if choice else item.text.strip()
    options = None
    comparison = _COMPARISON.match(chosen)
    if comparison:
        options = (comparison.group(1).strip(), comparison.group(2).strip())
    from brain.notes.episode import decision_title

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
    sentences = [s.strip() for s in _SENTENCE.split(text)]
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


def from_json(data: dict, stem: str) -> tuple[Episode, list[str]]:
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
    files_counted = sum(int(m.group(1)) for item in items for m in _FILES_COUNT.finditer(item.text))
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


def _work_log(data: dict, warnings: list[str]) -> list:
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
    title = next((strings[key] for key in _TITLE_KEYS if key in strings), "")
    if not title:
        return None
    text = " ".join(strings[key] for key in _TEXT_KEYS if key in strings)
    detail = next((strings[key] for key in _TEXT_KEYS if key in strings and strings[key] != title), "")
    if len(title.split()) <= 3 and detail:  # a bare label ("Fix") says little: add what was done
        title = f"{title}: {_SENTENCE.split(detail, maxsplit=1)[0].strip()}"
    files = entry.get("files") if isinstance(entry.get("files"), list) else []
    when = entry.get("timestamp") or entry.get("time")
    when = str(when) if isinstance(when, str) and _DATE.match(when) else None
    return WorkItem(title=title, text=text, files=tuple(str(f) for f in files), timestamp=when)


def _json_gates_complete(data: dict, items: list[WorkItem]) -> bool:
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


def _gate(gate: dict, key: str):
    """A gate field whichever case the log spelled it in (`Complete` and `complete` both occur)."""
    return gate.get(key.capitalize(), gate.get(key))


def _failing(items: list[WorkItem]) -> bool:
    """A counted failure that no later item reports as fixed or passing."""
    failing = False
    for item in items:
        if _FAIL_COUNT.search(item.text) and not _recovered_in(item.text):
            failing = True
        elif failing and (_PASS_COUNT.search(item.text) or _FIX_WORDS.search(item.text)):
            failing = False
    return failing


def _json_commits(data: dict, items: list[WorkItem], starting: str) -> list[str]:
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
        for sha in _shas(text.lower()):
            if sha != starting and not (starting and (sha.startswith(starting) or starting.startswith(sha))) and sha not in found:
                found.append(sha)
    return found


def _json_lessons(data: dict) -> list[str]:
    found: list[str] = []
    retro = data.get("retrospective")
    for raw in (data.get("learnings"), data.get("lessons"), retro.get("learnings") if isinstance(retro, dict) else None):
        if isinstance(raw, str):
            raw = [raw]
        for item in raw if isinstance(raw, list) else ():
            if isinstance(item, dict):
                item = item.get("text") or item.get("content") or item.get("lesson") or ""
            if str(item).strip():
                found.append(str(item).strip())
    return found


def _duration(data: dict, items: list[WorkItem]) -> int | None:
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


def extract_into_vault(vault, corpus, path: str | Path, *, dry_run: bool = False) -> list[tuple[Extracted, str | None, str]]:
    """Extract every log at `path` and store each episode: (extracted, note path, created|updated|unchanged|would write).

    Every log is read before anything is written, so a bad log leaves the vault as it was."""
    from brain.memory.episodes.service import store_episode

    extracted = extract_path(path)
    if dry_run:
        return [(item, None, "would write") for item in extracted]
    results = []
    for item in extracted:
        stored = store_episode(vault, corpus, item.episode, extra_frontmatter={"source_log": item.source})
        verb = "created" if stored.created else ("updated" if stored.changed else "unchanged")
        results.append((item, stored.path, verb))
    return results
