"""The recoveries an episode holds: each failure, the call that fixed it, and what was different.

Read from the episode's own parts (DESIGN.md's episode format), as session extraction writes them:

- the error event, ``e004 (error): `cat a.yaml` failed: <error line>`` (a tool: `Read a.yaml failed:
  <line>`; a test run: ``Ran `pytest`: tests failed (1 failed)``), with `leads_to: [[e005]]`;
- the event that recovered it, `e005`, with `caused_by: [[e004]]`: ``e005 (recovery): `touch a.yaml`
  succeeded``, ``Ran `pytest`: tests passed``, `Edited a.py`, `Commit abc1234: ...`;
- the lesson written for the pair, which starts with the failure as the error event says it (a
  command cut to 80 characters): ``- `cat a.yaml` failed (<error line>): <what was different>.``
  (notes written before read "; it worked after ..." there, and are read the same way).

Pure: an episode in, recoveries out; an error event with no recovery, or a lesson that cannot be
told apart, gives what the events alone say (the change is then '').
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brain.markdown.model import Episode, Event

_SHELL_EVENT = re.compile(r"^`(?P<command>.+?)` failed: (?P<line>.+)$", re.DOTALL)
_TEST_EVENT = re.compile(r"^Ran `(?P<command>.+?)`: tests failed")
_TOOL_EVENT = re.compile(r"^(?P<tool>[\w.:-]+)(?: (?P<target>[^`]*?))? failed: (?P<line>.+)$", re.DOTALL)
_FIXED_BY = re.compile(r"^(?:`(?P<command>.+)` succeeded|Ran `(?P<test>.+?)`: tests passed\b.*)$", re.DOTALL)
_LESSON = re.compile(r"^(?P<what>`.+?`|[\w.:-]+ on .+?|[\w.:-]+) failed \(", re.DOTALL)
_CHANGE_START = re.compile(r"\)(?::|;) ")
_RETRY = "when run again unchanged"


@dataclass(frozen=True)
class Recovery:
    """One failure of an episode and what recovered it."""

    error_event: str  # the error event's id ("e004")
    fix_event: str  # the id of the event that recovered it ("e005")
    failed: str  # the command that failed, or the tool and its target ("Read config/a.yaml")
    error: str  # the error's line ('' for a test run whose lesson is missing)
    fix: str  # the command that worked, or the recovering event's text when it is no command ("Edited a.py")
    change: str  # what was different, the lesson's words without the final "." ('' when no lesson)
    retry: bool  # the same call worked again unchanged, nothing done between: a flaky failure


def episode_recoveries(episode: Episode) -> list[Recovery]:
    """The recovered failures of an episode, in the order of its events (see the module doc)."""
    by_id = {event.id: event for event in episode.events if event.id}
    lessons = [lesson for lesson in episode.lessons if _LESSON.match(lesson)]
    found = []
    for event in episode.events:
        if event.type != "error" or not event.leads_to or event.leads_to[0] not in by_id:
            continue
        failed, line = _failure(event)
        if not failed:
            continue
        fixed_by = by_id[event.leads_to[0]]
        lesson, line = _lesson_of(failed, line, lessons)
        change = _change(lesson, failed, line) if lesson else ""
        matched = _FIXED_BY.match(fixed_by.text)
        fix = (matched.group("command") or matched.group("test")) if matched else fixed_by.text
        found.append(Recovery(event.id or "", fixed_by.id or "", failed, line, fix, change, _RETRY in change))
    return found


def _failure(event: Event) -> tuple[str, str]:
    """(what failed, its error line) as an error event says them; ('', '') for another shape."""
    shell = _SHELL_EVENT.match(event.text)
    if shell:
        return shell.group("command"), shell.group("line")
    test = _TEST_EVENT.match(event.text)
    if test:
        return test.group("command"), ""
    tool = _TOOL_EVENT.match(event.text)
    if tool:
        return " ".join(filter(None, (tool.group("tool"), tool.group("target")))), tool.group("line")
    return "", ""


def _lesson_of(failed: str, line: str, lessons: list[str]) -> tuple[str, str]:
    """The first lesson left for this failure (taken from `lessons`) and the error line it names."""
    for position, lesson in enumerate(lessons):
        what = _LESSON.match(lesson)
        assert what is not None
        said = what.group("what")
        if said.startswith("`"):
            command = said[1:-1].removesuffix("...")
            if not (failed.removesuffix("...").startswith(command) or command.startswith(failed.removesuffix("..."))):
                continue
        elif said.replace(" on ", " ", 1) != failed:
            continue
        rest = lesson[what.end() :]
        if line and not rest.startswith(line + ")"):
            continue
        if not line:
            end = _CHANGE_START.search(rest)
            line = rest[: end.start()] if end else ""
        del lessons[position]
        return lesson, line
    return "", line


def _change(lesson: str, failed: str, line: str) -> str:
    what = _LESSON.match(lesson)
    assert what is not None
    rest = lesson[what.end() + len(line) :]
    end = _CHANGE_START.match(rest)
    return rest[end.end() :].removesuffix(".").strip() if end else ""
