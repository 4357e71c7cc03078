"""Recovery tips from the failures an extracted session recovered from, one per failure and its fix.

An episode extracted from a transcript records each failure that was followed by its recovery as a
lesson: "`mix test --seed 0` failed (the error's line): it passed after editing lib/a.ex." (notes
written before: "...; it passed after ..."). Such a lesson is the whole of a recovery tip, said as
what to do and when:

    When `mix test` fails with "the error's line": edit the file it names, then run it again.

What was different is said as an instruction too: a missing file created ("create it first"), a
module installed ("install it first: `pip install pyyaml`"), the folder ("run it from `src`"), the
program or an argument changed ("use `python3` instead of `python`"), a retry ("run it again").

The failing step is named by its program (`git commit` of "git add -A && git commit -m ...", the
tests for a test command), or by its tool (Edit, Read); the error by its first line; the fix by what was done ("editing <file>":
edit the file; "running it again": run it again). The task of the session is never quoted: a tip
applies when the failure happens, whatever the task.
"""

from __future__ import annotations

import re

from brain.markdown.model import Episode, Event
from brain.memory.tips.draft import Attribution, Draft
from brain.memory.tips.wording import generalize, quoted_code

# what failed, its error, then what was different (in the words `brain.memory.sessions.recoveries` says it)
LESSON = re.compile(
    r"^(?P<what>.+?) failed \((?P<error>.*?)\)[:;] (?P<fix>(?:it |`|module |program |folder |the |there was no "
    r"|run from |with |without |another |after ).+?)\.?$",
    re.DOTALL,
)
_LOCATION = re.compile(r"^[\w./~-]+:\d+(?::\d+)?:\s*")
_ENVIRONMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
_MOST = 120
SIGNATURE_WORDS = 8
# an error line that names no failure: an exit status alone, a call cancelled because another failed,
# a test runner's progress line ("=== RUN TestX", "--- FAIL: TestX (0.52s)", "FAIL", "ok  pkg")
_UNINFORMATIVE = re.compile(
    r"^(?:exit code \d+|sibling tool call errored\W*|error:?"
    r"|=== (?:run|cont|pause|name)\b.*|--- (?:fail|pass|skip)\b.*|fail|pass|ok\b.*|fail\s+\S+.*)$",
    re.IGNORECASE,
)


def failing_step(what: str) -> str:
    """How a tip names the failing step: a command by its program (the last step of a `&&` chain,
    before any pipe: "git add -A && git commit -m x" -> `git commit`, a test command -> the tests),
    a tool call by its tool ("Edit on a.py" -> Edit)."""
    command = re.fullmatch(r"`(.*?)(?:\.\.\.)?`", what.strip(), re.DOTALL)
    if command is None:
        return what.split(" on ", 1)[0].strip()
    step = re.split(r"&&|;", command.group(1))[-1].split("|")[0].strip()
    said = quoted_code(step)
    if said != "<code>":
        return said
    words = [word for word in step.split() if not _ENVIRONMENT.match(word)]
    program = words[0].rsplit("/", 1)[-1].strip("()") if words else ""
    return f"`{program}`" if re.fullmatch(r"[\w.+-]+", program) else "a command"


def error_line(error: str) -> str:
    """The error's first informative line (not "Exit code 1"), without a trailing colon, names
    generalized, cut to its first SIGNATURE_WORDS words: what follows is this occurrence's detail
    ("error: could not apply <sha>... <the commit's message>"), not the failure's."""
    lines = (re.sub(r"</?tool_use_error>", "", line).strip() for line in error.replace("\\n", "\n").splitlines())
    first = next((line for line in lines if line and not _UNINFORMATIVE.match(line)), "")
    first = _LOCATION.sub("", first)  # "test/a_test.exs:104: the failure": the place is this occurrence's
    said = generalize(first.rstrip(":").strip(), _MOST).split()
    return " ".join(said[:SIGNATURE_WORDS]) + ("..." if len(said) > SIGNATURE_WORDS else "")


def fix_step(fix: str, command: bool) -> str:
    """What fixed it, as an instruction: "it worked after editing a.ex, editing b.ex" -> "edit the
    files it names"; "... after running `mix format`" -> "run `mix format` first"; "... after reading
    a.ex" (an edit that failed on stale text) -> "read the file, then edit it again with its current
    text"; what was different in a changed command (see the module doc)."""
    after = re.match(r"^it (?:worked|passed) after (.+)$", fix, re.DOTALL)
    if after is None and not fix.startswith("running "):
        return _changed(fix)
    fix = after.group(1) if after else fix
    parts = list(dict.fromkeys(part.strip() for part in fix.split(", ") if part.strip()))
    edited = [part for part in parts if part.startswith("editing ")]
    ran = [part.removeprefix("running ") for part in parts if part.startswith("running `")]
    read = [part for part in parts if part.startswith("reading ")]
    if edited:
        files = "the file" if len(edited) == 1 else "the files"
        return f"edit {files} it names, then run it again" if command else f"edit {files} again with its current text"
    if ran and command:
        return f"run {ran[-1]} first, then run it again"
    if read:
        return (
            "read the file it names, then run it again"
            if command
            else "read the file, then edit it again with its current text"
        )
    return "run it again, unchanged"


# what was different, as `brain.memory.sessions.recoveries` says it, and what to do then ({0}: the
# pattern's first group)
_CHANGES = (
    (re.compile(r"when run again unchanged"), "run it again, unchanged: it failed once and then worked"),
    (re.compile(r" did not exist; "), "create the missing file or folder first, then run it again"),
    (re.compile(r" was missing; (`[^`]+`) installed it"), "install what it names first ({0}), then run it again"),
    (
        re.compile(r"^(?:without `[^`]+`: )?the shell was already in (`[^`]+`)"),
        "check the folder first: the shell may already be in {0}",
    ),
    (
        re.compile(r"^(?:without `[^`]+`: )?there was no folder "),
        "check the folder first: the one it changes to is not there",
    ),
    (re.compile(r"^the same command with (`[^`]+`)"), "run it again with {0}"),
    (re.compile(r" was concluded: "), "resolve the conflicts, then conclude it (commit, or continue the rebase)"),
    (re.compile(r" does not exist; the error named "), "use the path the error names"),
    (re.compile(r"a folder above it"), "look one folder up: the one it names is not there"),
    (re.compile(r" is not there: the file is at "), "find where the file is first: it was at another place"),
    (re.compile(r" is there now; "), "run it again once the file is there"),
)
_DIFFERENCES = (  # a part of "run from `src`; `python3` instead of `python`: `cmd` worked"
    (re.compile(r"^run (from .*)"), "run it {0}"),
    (re.compile(r"^(?!with)(.* instead of .*)"), "use {0}"),
    (re.compile(r"^((?:with|without) .*)"), "run it {0}"),
    (re.compile(r"^another (.*)"), "fix its {0}"),
    (re.compile(r"^after (.*)"), "run {0} first"),
)


def _changed(change: str) -> str:
    """A change as an instruction ("`python3` instead of `python`: `python3 a.py` worked" -> "use
    `python3` instead of `python`")."""
    for pattern, instruction in _CHANGES:
        found = pattern.search(change)
        if found:
            return instruction.format(*found.groups())
    said = change.rsplit(": `", 1)[0] if ": `" in change else change
    steps = []
    for part in said.split("; "):
        for pattern, instruction in _DIFFERENCES:
            matched = pattern.match(part)
            if matched:
                steps.append(instruction.format(*matched.groups()))
                break
    return ", ".join(steps) or "run it again, unchanged"


def recovery_drafts(episode: Episode) -> list[Draft]:
    """One recovery draft per lesson of the extracted form (see the module doc)."""
    lessons = [(lesson, LESSON.match(" ".join(lesson.split()))) for lesson in episode.lessons]
    recovered = _recovered_errors(episode)
    spans = [f"{error.id}-{error.leads_to[0]}" for error in recovered]
    found = [(lesson, match) for lesson, match in lessons if match is not None]
    if len(spans) != len(found):
        spans = [f"lesson {number}" for number in range(1, len(found) + 1)]
    return [
        _draft(episode, lesson, match, span)
        for (lesson, match), span in zip(found, spans, strict=True)
        if _informative(error_line(match.group("error")))  # a failure with no error to know it by teaches nothing
    ]


_PLACEHOLDER_WORDS = frozenset({"the", "a", "path", "<path>", "file", "<file>", "files", "code", "<code>", "command"})


def _informative(error: str) -> bool:
    """Whether an error line says something once its names are generalized ("the path" says nothing)."""
    return any(word.lower().strip(".:,") not in _PLACEHOLDER_WORDS for word in error.split())


def _recovered_errors(episode: Episode) -> list[Event]:
    """The error events with a recovery, in the order of their recoveries (the order of the lessons)."""
    position = {event.id: number for number, event in enumerate(episode.events)}
    recovered = [event for event in episode.events if event.type == "error" and event.leads_to]
    return sorted(recovered, key=lambda event: position.get(event.leads_to[0], len(position)))


def _draft(episode: Episode, lesson: str, match: re.Match[str], span: str) -> Draft:
    what = match.group("what")
    step = failing_step(what)
    error = error_line(match.group("error"))
    fix = fix_step(match.group("fix"), step.startswith("`") or step == "the tests")
    fails = "fail" if step == "the tests" else "fails"
    when = f'{step} {fails} with "{error}"'
    return Draft(
        category="recovery",
        subtask=when[:1].upper() + when[1:],
        trigger=when,
        tip=f"When {when}: {fix}.",
        steps=(fix[:1].upper() + fix[1:],),
        avoid="",
        purpose=generalize(lesson, 240),
        applies_when=when,
        task_category="recovery",
        priority="high",
        evidence="both",
        episode=episode.title,
        span=span,
        attribution=Attribution(generalize(f"{what} failed: {match.group('error')}", 160), None, None),
    )
