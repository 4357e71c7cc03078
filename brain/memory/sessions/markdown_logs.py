"""The older markdown session logs -> episode (rules in `brain.memory.sessions.extract`'s module doc).

A markdown log is `# Session ...` with `**Date**:` / `**Objective**:` fields, a Protocol
Compliance checklist, work sections (`## Work Log`, `## Work Completed`, ... each `###` a work
item), and optional `## Decision`, `## Commits` and `## Learnings` sections.
"""

from __future__ import annotations

import re

from brain.errors import InvalidInput
from brain.markdown.model import Episode
from brain.memory.sessions.rules import (
    FAIL_COUNT,
    FILES_COUNT,
    WorkItem,
    build_episode,
    gate_outcome,
    session_id,
    shas,
    timestamp_of,
)

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FIELD = re.compile(r"^\s*(?:[-*]\s+)?\*\*([^*]+?)\*\*:?\s*(.*)$")
_BULLET = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+(.*)$")
_CHECK_ROW = re.compile(r"^\|\s*(MUST(?: NOT)?|SHOULD)\s*\|.*?\|\s*\[( |x|X)\]\s*\|")
_CHOICE_LINE = re.compile(r"\b(chose|decided|selected|opted for)\b", re.IGNORECASE)
_COMMIT_MENTION = re.compile(r"\bcommit(?:ted)?\s+(?:as\s+)?`?([0-9a-f]{7,40})\b", re.IGNORECASE)
_NOT_WORK = re.compile(
    r"protocol|session (start|end|info)|git state|branch verification|skill inventory|notes for next|"
    r"commits?|learnings?|lessons?|takeaways?|decisions?|rationale|sources?|references?|lint output|final git|objective|context",
    re.IGNORECASE,
)
_WORK = re.compile(r"work|phase|research|results|implementation|changes|analysis|deliverables|fix", re.IGNORECASE)
_LESSONS = re.compile(r"^(lessons?\s*learned|(key\s+)?learnings?|takeaways?)$", re.IGNORECASE)
_IN_PROGRESS = re.compile(r"in.?progress|blocked|partial|pending", re.IGNORECASE)


def _sections(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    """(level, heading, lines) for each heading; fenced code is not a heading."""
    found: list[tuple[int, str, list[str]]] = [(0, "", [])]
    fenced = False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            found.append((len(heading.group(1)), heading.group(2), []))
        else:
            found[-1][2].append(line)
    return found


def _fields(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in lines:
        match = _FIELD.match(line)
        if match:
            fields.setdefault(match.group(1).strip().lower(), match.group(2).strip())
    return fields


def from_markdown(text: str, stem: str) -> tuple[Episode, list[str]]:
    lines = text.splitlines()
    sections = _sections(lines)
    h1 = next((heading for level, heading, _ in sections if level == 1), "")
    names = {heading.lower() for _, heading, _ in sections}
    if "session" not in h1.lower() and not any("protocol compliance" in n or "work log" in n for n in names):
        raise InvalidInput(
            f"{stem} is not a session log (no '# Session ...' title, Protocol Compliance or Work Log section)"
        )
    fields = _fields(lines)
    date = fields.get("date") or None
    number = re.search(r"session[ -]?(\d+)", h1, re.IGNORECASE)
    sid = session_id(stem, date, number.group(1) if number else None)
    timestamp = timestamp_of(date) or timestamp_of(stem)
    warnings = [] if timestamp else [f"{stem}: no **Date** field; the episode has no date"]
    task = _task(sections, fields) or h1 or stem
    items = _work_items(sections)
    all_text = "\n".join(lines)
    starting = (fields.get("starting commit") or "").strip("` ").lower()
    commits = [sha for sha in _commits(sections, all_text) if not (starting and sha.startswith(starting[:7]))]
    outcome = _outcome(lines, sections, items)
    files_counted = sum(int(m.group(1)) for m in FILES_COUNT.finditer(all_text))
    episode = build_episode(
        sid=sid,
        timestamp=timestamp,
        task=task,
        outcome=outcome,
        items=items,
        commits=commits,
        lessons=_lessons(sections),
        extra_decisions=_decisions(sections, lines),
        choice_items=False,
        files_counted=files_counted,
    )
    return episode, warnings


def _task(sections: list[tuple[int, str, list[str]]], fields: dict[str, str]) -> str:
    for key in ("objective", "this session objective", "task"):
        if fields.get(key):
            value = fields[key].strip()
            if value.endswith(":"):  # "Fix ALL remaining issues on PR #249:" followed by a list
                value = value[:-1]
            return value
    for level, heading, body in sections:
        if level == 2 and re.match(r"objectives?$", heading, re.IGNORECASE):
            paragraph = " ".join(line.strip() for line in body if line.strip() and not line.startswith("|"))
            item = next((m.group(1) for m in map(_BULLET.match, body) if m), None)
            return (item or paragraph).strip()
    return ""


def _work_items(sections: list[tuple[int, str, list[str]]]) -> list[WorkItem]:
    items: list[WorkItem] = []
    parent_is_work = False
    for level, heading, body in sections:
        if level == 2:
            parent_is_work = bool(_WORK.search(heading)) and not _NOT_WORK.search(heading)
            continue
        if level == 3 and parent_is_work and not _NOT_WORK.search(heading):
            text = " ".join(line.strip() for line in body if line.strip() and not line.startswith(("|-", "```")))
            items.append(WorkItem(title=heading, text=text, files=_files(body)))
    if not items:  # a work section without sub-headings is one work item
        for level, heading, body in sections:
            if level == 2 and _WORK.search(heading) and not _NOT_WORK.search(heading):
                text = " ".join(line.strip() for line in body if line.strip())
                items.append(WorkItem(title=heading, text=text, files=_files(body)))
    return items


def _files(body: list[str]) -> tuple[str, ...]:
    """Paths listed under a `**Files changed**:` (or modified/created) field."""
    files: list[str] = []
    collecting = False
    for line in body:
        field = _FIELD.match(line)
        if field and not _BULLET.match(line):
            collecting = bool(re.match(r"files?\s+(changed|modified|created)", field.group(1), re.IGNORECASE))
            continue
        bullet = _BULLET.match(line)
        if collecting and bullet:
            path = re.match(r"`?([^\s`(]+)", bullet.group(1))
            if path:
                files.append(path.group(1))
        elif collecting and line.strip():
            collecting = False
    return tuple(files)


def _commits(sections: list[tuple[int, str, list[str]]], all_text: str) -> list[str]:
    found: list[str] = []
    for _level, heading, body in sections:
        if re.search(r"\bcommits?\b", heading, re.IGNORECASE) and not re.search(
            r"protocol|session end", heading, re.IGNORECASE
        ):
            for line in body:
                if _BULLET.match(line):
                    found += [sha for sha in shas(line.lower())[:1] if sha not in found]
    for match in _COMMIT_MENTION.finditer(all_text):
        sha = match.group(1).lower()
        if sha not in found and not sha.isdigit():
            found.append(sha)
    return found


def _outcome(lines: list[str], sections: list[tuple[int, str, list[str]]], items: list[WorkItem]) -> str:
    failing = any(FAIL_COUNT.search(item.text) for item in items[-1:])
    end_rows: list[bool] = []
    in_end = False
    for line in lines:
        heading = _HEADING.match(line)
        if heading:
            in_end = bool(re.search(r"session end", heading.group(2), re.IGNORECASE))
            continue
        row = _CHECK_ROW.match(line)
        if in_end and row and row.group(1).startswith("MUST"):
            end_rows.append(row.group(2).lower() == "x")
    if end_rows:
        return gate_outcome(all(end_rows), failing)
    statuses = [value for _, _, body in sections for key, value in _fields(body).items() if key == "status"]
    if statuses:
        return gate_outcome(not any(_IN_PROGRESS.search(s) for s in statuses), failing)
    boxes = re.findall(r"^\s*[-*]\s+\[( |x|X)\]", "\n".join(lines), re.MULTILINE)
    return gate_outcome(bool(boxes) and all(box.lower() == "x" for box in boxes), failing)


def _decisions(sections: list[tuple[int, str, list[str]]], lines: list[str]) -> list[tuple[str, str]]:
    """(context, chosen) pairs: `## Decision` sections, `**Decision(s)...**:` fields, and choice lines."""
    found: list[tuple[str, str]] = []
    current_heading = ""
    for level, heading, body in sections:
        if level == 2 and re.match(r"decisions?\b", heading, re.IGNORECASE):
            for line in body:
                text = line.strip()
                bullet = _BULLET.match(line)
                if bullet:
                    found.append((heading, bullet.group(1).strip()))
                elif text and not text.startswith("|"):
                    found.append((heading, text.replace("**", "")))
            continue
        current_heading = heading or current_heading
        collecting = False
        for line in body:
            field = _FIELD.match(line)
            if field and not _BULLET.match(line):
                collecting = bool(re.match(r"decisions?\b", field.group(1), re.IGNORECASE))
                if collecting and field.group(2):
                    found.append((current_heading, field.group(2)))
                continue
            bullet = _BULLET.match(line)
            if collecting and bullet:
                found.append((current_heading, bullet.group(1).strip()))
            elif collecting and line.strip():
                collecting = False
            elif _CHOICE_LINE.search(line) and not line.lstrip().startswith(("#", "|")):
                found.append((current_heading, line.strip().lstrip("-* ").strip()))
    return list(dict.fromkeys(found))


def _lessons(sections: list[tuple[int, str, list[str]]]) -> list[str]:
    found: list[str] = []
    inside = False
    for level, heading, body in sections:
        if level <= 2:
            inside = bool(_LESSONS.match(heading.strip()))
            if inside:
                found += [m.group(1).strip() for m in map(_BULLET.match, body) if m and not m.group(1).startswith("[")]
            continue
        if inside:
            statement = _fields(body).get("statement")
            if statement:
                name = re.sub(r"^[\w-]+-\d+:\s*", "", heading)
                found.append(f"{name}: {statement}")
            else:
                found += [m.group(1).strip() for m in map(_BULLET.match, body) if m]
    return found
