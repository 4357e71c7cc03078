"""A failure's signature: what makes two failed tool calls "the same failure".

Two failures are the same when their signatures are equal. A signature is three parts:

- the tool: every shell tool (Claude Code's Bash, Codex's shell ...) is one, `shell`; any other
  tool is its own name (`Edit`, `Read`, `mcp__github__create_issue`);
- for a shell command, its program: the first program the command runs, past `cd dir &&`,
  environment assignments, `sudo`, `env`, `time`, the runners (`uv run`, `npx`, `poetry run` ...)
  and `python -m` (`cd api && FOO=1 uv run pytest -q` -> `pytest`); for a tool that edits or reads
  files, the file it was called on (relative to the working folder): an edit that failed on one
  file and one that failed on another are two failures, whatever the error says;
- the error's informative line (the line that names the error, chosen where the failure is read),
  paths under the working folder said relative to it, with what differs from one run to the next
  blanked: temporary paths (`<tmp>`), UUIDs (`<id>`), hashes (`<hash>`), durations (`<time>`) and
  every other number (`<n>`); its first 80 characters once blanked (an episode keeps 160 of the
  line, and the start of an error names it).

A shell command that failed printing nothing but its exit code (`git config core.excludesfile`
when it is unset) is told apart by the command itself: its line is `Exit code <n>, printing nothing:`
and the command, blanked the same way, its first 80 characters. Any other line with fewer than
three words once blanked (`tail -<n>`, `FAIL`) says too little to tell one failure from another:
such a failure has no signature, and nothing is said about it.
So is a call that failed only because another call beside it did (`Sibling tool call errored`),
or because the user stopped it.

Pure: strings in, strings out. The episodes' events are read here too (an error event's text,
as the session extractor writes it, back into its tool, command and line).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from brain.markdown.model import Episode
from brain.memory.episodes.recovery import episode_recoveries

SHELL_TOOLS = frozenset(
    {
        "Bash",
        "shell",
        "exec_command",
        "local_shell",
        "container.exec",
        "run_terminal_cmd",
        "PowerShell",
        "run_shell_command",  # Gemini CLI
    }
)
LINE_CHARACTERS = 80
MIN_WORDS = 3
_RUNNERS = frozenset(
    {"sudo", "env", "time", "nice", "exec", "command", "nohup", "timeout", "xargs"}
    | {"uv", "poetry", "pdm", "hatch", "pipenv", "npx", "pnpx", "bunx", "rye"}
)
_RUNNER_VERBS = frozenset({"run", "exec", "x", "dlx"})
_NOT_A_FAILURE = ("Sibling tool call errored", "[Request interrupted by user", "The user doesn't want to")
_TAGS = re.compile(r"</?tool_use_error>")
_TEMP = re.compile(
    r"(?:/private)?/(?:tmp|var/folders|var/tmp)/\S*|[A-Za-z]:\\[^\s]*\\Temp\\\S*|\b(?:tmp|temp)[\w.-]*\d[\w.-]*",
    re.IGNORECASE,
)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
_HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", re.IGNORECASE)
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[A-Za-z]{2,}")
_WRAPPER = re.compile(  # a task runner's or a hook manager's line saying that what it ran failed, or passed
    r"^\[[\w:.-]+\] ERROR task failed|^FAIL\s+\S+(?:\s+\[\w+ failed\])?$|^make(?:\[\d+\])?: \*\*\*"
    r"|^(?:npm|pnpm) (?:ERR!|error\b)|ELIFECYCLE|^husky - |^error Command failed with exit code|^exit status \d+$"
    r"|^FAILURE: Build failed with an exception|^ERROR: InvocationError\b|^\[ERROR\] (?:BUILD FAILURE|-> \[Help)"
    r"|^ok\s+\S+\s|^\?\s+\S+\s+\[no test files\]"
    r"|^(?:error:?\s+)?(?:\S+\s+){0,3}(?:exited|failed|completed) with (?:exit |status )?code:?\s*-?\d+\W*$"
)
_LOG_LINE = re.compile(r"\d{4}[/-]\d\d[/-]\d\d[ T]\d\d:\d\d:\d\d\S*\s+(?:level=)?(?:DEBUG|INFO|TRACE|NOTICE)\b", re.I)
_EXIT_ONLY = re.compile(r"Exit code:? ?-?<n>", re.IGNORECASE)  # all a shell said of a command that printed nothing
# an error event as the session extractor writes it: "`cmd` failed: line" or "Tool files failed: line"
_SHELL_EVENT = re.compile(r"^`(?P<command>.+?)` failed: (?P<line>.+)$", re.DOTALL)
_TEST_EVENT = re.compile(r"^Ran `(?P<command>.+?)`: tests failed")
_TOOL_EVENT = re.compile(r"^(?P<tool>[\w.:-]+)(?: (?P<target>[^`]*?))? failed: (?P<line>.+)$", re.DOTALL)


@dataclass(frozen=True)
class Failure:
    """A failed call as the signature sees it: the tool, the shell command (if any), the error's line."""

    tool: str
    command: str
    line: str
    target: str = ""  # the file(s) a tool that edits or reads files was called on, as the episode names them


PROGRAM_CHARS = 4096  # of each part of a command read for its program: a 10 MB command costs no more


def program(command: str) -> str:
    """The first program a shell command runs (its file name), past `cd`, assignments and runners.
    Each part is read up to PROGRAM_CHARS: shlex takes seconds over a one-line command of megabytes."""
    for piece in re.split(r"&&|\|\||;|\||\n", command):
        piece = piece.strip().lstrip("(").strip()[:PROGRAM_CHARS]
        if not piece or re.match(r"(?:cd|pushd|export|source|set|\.)(?:\s|$)", piece):
            continue
        try:
            words = shlex.split(piece)
        except ValueError:
            words = piece.split()
        while words and (re.match(r"^\w+=", words[0]) or words[0] in _RUNNERS or words[0].startswith("-")):
            words = words[1:]
            if words and words[0] in _RUNNER_VERBS:
                words = words[1:]
        if len(words) > 2 and re.fullmatch(r"python[\d.]*", words[0].rsplit("/", 1)[-1]) and words[1] == "-m":
            words = words[2:]
        if words:
            return words[0].rsplit("/", 1)[-1]
    return ""


def blanked(line: str) -> str:
    """The line with temporary paths, UUIDs, hashes, durations and numbers blanked, spaces folded."""
    line = _TEMP.sub("<tmp>", line)
    line = _UUID.sub("<id>", line)
    line = _HASH.sub("<hash>", line)
    line = _DURATION.sub("<time>", line)
    line = _NUMBER.sub("<n>", line)
    return " ".join(line.split())


def relative(text: str, cwd: str | None) -> str:
    """Paths under the working folder said relative to it (as an extracted episode says them), and a
    `cd` into the working folder itself left out (`cd /work/app && make` -> `make`)."""
    if not cwd or len(cwd) < 2:
        return text
    folder = cwd.rstrip("/")
    text = re.sub(rf"(?:^|(?<=`))cd {re.escape(folder)}/? && ", "", text)
    return text.replace(folder + "/", "")


def says_little(line: str) -> bool:
    """A line that tells no failure from another: a runner's wrapper around what it ran (`[lint] ERROR
    task failed`, `FAIL pkg [build failed]`, `make: ***`, `npm ERR!`), Go's lines for the packages that
    passed (`ok pkg`, `? pkg [no test files]`), or a program's informational log line."""
    return bool(_WRAPPER.search(line) or _LOG_LINE.search(line))


def signature(failure: Failure) -> str | None:
    """`tool|program|line` (see the module's docstring), or None when the failure says too little."""
    line = _TAGS.sub("", failure.line).strip()
    if not line or line.startswith(_NOT_A_FAILURE) or says_little(line):
        return None
    line = blanked(line.removesuffix("..."))[:LINE_CHARACTERS].strip()
    shell = failure.tool in SHELL_TOOLS
    if shell and _EXIT_ONLY.fullmatch(line) and failure.command.strip():
        line = f"{line}, printing nothing: {blanked(failure.command.removesuffix('...'))[:LINE_CHARACTERS]}"
    elif len(_WORD.findall(re.sub(r"<\w+>", " ", line))) < MIN_WORDS:
        return None
    tool = "shell" if shell else failure.tool
    return f"{tool}|{program(failure.command) if shell else failure.target}|{line}"


def event_failure(text: str) -> Failure | None:
    """The failure an extracted episode's error event names, read back from its text; None for an
    error event of another shape (a failed test run, a hand-written line)."""
    shell = _SHELL_EVENT.match(text)
    if shell:
        return Failure("Bash", shell.group("command"), shell.group("line"))
    tool = _TOOL_EVENT.match(text)
    if tool:
        return Failure(tool.group("tool"), "", tool.group("line"), tool.group("target") or "")
    return None


@dataclass(frozen=True)
class Recorded:
    """A failure an episode holds, as the catalog keeps it: enough to say what made it work again."""

    signature: str
    event: str  # the error event's id
    error: str  # the error event's text
    fix: str  # what was different in what worked, said whole (the lesson's words), else the recovery's text ('' when never recovered)
    commit: str  # the first commit after the recovery, '' when none
    fix_command: str = ""  # the command that worked (or the recovering event's text when it is no command)
    change: str = ""  # what was different, as the lesson says it ('' without a lesson)
    retry: bool = False  # the same call worked again unchanged: a flaky failure


def recorded_failures(episode: Episode) -> list[Recorded]:
    """The failures of an episode's error events that have a signature, with their recovery. A failed
    test run's event holds the runner's counts, not the error's line: its lesson (written when it was
    recovered) holds the line."""
    by_id = {event.id: event for event in episode.events if event.id}
    order = [event.id for event in episode.events]
    recovered = {recovery.error_event: recovery for recovery in episode_recoveries(episode)}
    found = []
    for event in episode.events:
        failure = event_failure(event.text) if event.type == "error" else None
        test = _TEST_EVENT.match(event.text) if event.type == "error" and event.leads_to else None
        recovery = recovered.get(event.id or "")
        if test is not None:
            failure = Failure("Bash", test.group("command"), recovery.error) if recovery and recovery.error else None
        key = signature(failure) if failure else None
        if failure is None or key is None:
            continue
        recoveries = [by_id[target] for target in event.leads_to if target in by_id]
        fix = "; ".join(fixed_by.text for fixed_by in recoveries)
        if recovery is not None and recovery.change:
            said_whole = "`" in recovery.change and not recovery.change.startswith("it ")  # names what worked
            fix = f"{recovery.change}." if said_whole else f"{fix}; {recovery.change}."
        commit = ""
        if recoveries and recoveries[0].id in order:
            later = episode.events[order.index(recoveries[0].id) :]
            commit = next((e.text for e in later if e.type == "commit"), "")
        found.append(
            Recorded(
                key,
                event.id or "",
                event.text,
                fix,
                commit,
                recovery.fix if recovery else "",
                recovery.change if recovery else "",
                recovery.retry if recovery else False,
            )
        )
    return found
