"""A failure as the failure hook compares it: what kind of call failed, and the error as a template.

A failed call's key has four parts:

- its kind: every shell tool (Claude Code's Bash, Codex's shell ...) is one, `shell`; any other tool
  is its own name (`Edit`, `Read`, `mcp__github__create_issue`);
- for a shell command, its program: the program of the part of the command that failed (`program`):
  the stage the error names (`cd: src: No such file` -> `cd`, a Python traceback -> `python`), else
  a pipe's last stage (its exit code is the pipe's), else the first program the command runs, past
  `cd dir &&`, environment assignments, `sudo`, `env`, `time`, the runners (`uv run`, `npx`, `bunx`,
  `rtk` ...) and `python -m`; `python3`, `python3.12` and `python` are one;
- the error's template: the informative line (chosen where the failure is read) with what names
  this occurrence masked: temporary paths (`<tmp>`), UUIDs (`<id>`), hashes (`<hash>`), durations
  (`<time>`), quoted names (`<q>`), paths and file names (`<path>`) and every other number (`<n>`);
- its terms, what two failures are compared by (`brain.memory.sessions.matching` weighs each by how
  rare it is among the vault's failures): the template's words and masks, and the values masked
  (names, paths) as terms of their own (`=src/app.py`), so the same error on the same name is
  nearer than the same error on another; a tool called on a file has the file as such a term,
  unless the error does not depend on it (Claude Code's protocol errors: an Edit before a Read, a
  stale search string, which fail the same way on every file).

A shell command that failed printing nothing but its exit code (`git config core.excludesfile`
when it is unset) is told apart by the command itself: its line is `Exit code <n>, printing nothing:`
and the command. Any other line with fewer than three words or names once masked (`tail -<n>`, `FAIL`) says
too little to tell one failure from another: such a failure has no key, and nothing is said about
it. So is a runner's wrapper line (`says_little`), a call that failed only because another call
beside it did (`Sibling tool call errored`), or because the user stopped it.

The `signature` (`kind|program|template`) names a key in the catalog and the hooks log.

Pure: strings in, strings out. The episodes' events are read here too (an error event's text,
as the session extractor writes it, back into its tool, command and line).
"""

from __future__ import annotations

import re
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
LINE_CHARACTERS = 160  # of a line: an episode keeps 160 characters of it (157 and "..." when longer)
MIN_WORDS = 3
_RUNNERS = frozenset(
    {"sudo", "env", "time", "nice", "exec", "command", "nohup", "xargs", "rtk", "stdbuf", "caffeinate"}
    | {"uv", "uvx", "poetry", "pdm", "hatch", "pipenv", "npx", "pnpx", "bunx", "rye", "pixi", "dotenv"}
)
_RUNNER_VERBS = frozenset({"run", "exec", "x", "dlx", "tool"})
_TAKES_VALUE = frozenset({"timeout", "gtimeout"})  # `timeout 30 cmd`
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)*)?(?:\.exe)?|py")
_SAME_PROGRAM = {"pip3": "pip", "node.exe": "node", "bun.exe": "bun", "pytest-3": "pytest"}
_QUIET_STAGES = frozenset({"cd", "pushd", "popd", "export", "source", "set", ".", "unset", "true", "echo"})
# programs a shell runs for `cd` when `cd` is a function of theirs (`zoxide init --cmd cd`): their
# errors (`zoxide: no match found`, `zoxide: you are already in the only match`) are the `cd`'s
CD_STAND_INS = ("zoxide",)
_FILTERS = frozenset({"head", "tail", "sort", "uniq", "wc", "tee", "less", "more", "cut", "tr", "column", "cat", "nl"})
_PYTHON_ERROR = re.compile(r"^(?:Traceback \(most recent|\s*File \"|[A-Z]\w*(?:Error|Exception|Warning)\b)")
_NOT_A_FAILURE = ("Sibling tool call errored", "[Request interrupted by user", "The user doesn't want to")
_TAGS = re.compile(r"</?tool_use_error>")
_TEMP = re.compile(
    r"(?:/private)?/(?:tmp|var/folders|var/tmp)/\S*|[A-Za-z]:\\[^\s]*\\Temp\\\S*|\b(?:tmp|temp)[\w.-]*\d[\w.-]*",
    re.IGNORECASE,
)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
_HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", re.IGNORECASE)
_HEX = re.compile(r"\b0x[0-9a-f]+\b", re.IGNORECASE)
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# a quoted name: 'x', "x", `x`, and typographic single and double quotes (not an apostrophe in a word: it's)
_QUOTED = re.compile(
    r"(?<![\w'\"`])(?:'([^'\n]{1,200})'|\"([^\"\n]{1,200})\"|`([^`\n]{1,200})`"
    r"|\u2018([^\u2019\n]{1,200})\u2019|\u201c([^\u201d\n]{1,200})\u201d)"
)
# a path (a slash in it) or a file name (a dot and an extension), with a :line:col after it or not
_PATH = re.compile(r"(?<![\w<])~?[\w@.+*-]*(?:/[\w@.+*-]+)+/?(?::\d+)*|(?<![\w<./])[\w@+-]+(?:\.[\w+-]+)+(?::\d+)*")
_EXTENSION = re.compile(r"\.[A-Za-z]\w{0,5}(?::\d+)*")  # what ends a file name (`.py`, `.tsx:12:5`)
_MASKS = re.compile(r"<(?:tmp|id|hash|time|q|path|n)>")
_WORD = re.compile(r"[A-Za-z]{2,}")
_TERM = re.compile(r"<\w+>|[A-Za-z_][A-Za-z0-9_]+")
_WRAPPER = re.compile(  # a task runner's or a hook manager's line saying that what it ran failed, or passed
    r"^\[[\w:.-]+\] ERROR task failed|^FAIL\s+\S+(?:\s+\[\w+ failed\])?$|^make(?:\[\d+\])?: \*\*\*"
    r"|^(?:npm|pnpm) (?:ERR!|error\b)|ELIFECYCLE|^husky - |^error Command failed with exit code|^exit status \d+$"
    r"|^FAILURE: Build failed with an exception|^ERROR: InvocationError\b|^\[ERROR\] (?:BUILD FAILURE|-> \[Help)"
    r"|^ok\s+\S+\s|^\?\s+\S+\s+\[no test files\]"
    r"|^(?:error:?\s+)?(?:\S+\s+){0,3}(?:exited|failed|completed) with (?:exit |status )?code:?\s*-?\d+\W*$"
    # Jest's and Vite's words that what they ran failed, and Biome's header of a file's diagnostics
    r"|^\u25cf\s+Test suite failed to run$|^(?:x|\u2717|\u00d7|error)\s+Build failed in \d|^error during build:$"
    r"|^(?:at\s+)?\S+(?::\d+)*\s+(?:lint|format|assist|parse|organizeImports)(?:/\S+)?(?:\s+FIXABLE)?\s+\u2501+$"
)
_LOG_LINE = re.compile(r"\d{4}[/-]\d\d[/-]\d\d[ T]\d\d:\d\d:\d\d\S*\s+(?:level=)?(?:DEBUG|INFO|TRACE|NOTICE)\b", re.I)
_EXIT_ONLY = re.compile(r"Exit code:? ?-?<n>", re.IGNORECASE)  # all a shell said of a command that printed nothing
# Claude Code's own errors about how a tool was called: the same on every file, and they say what to do
_PROTOCOL = re.compile(
    r"^(?:File has not been read yet|File has been (?:unexpectedly )?modified since (?:it was )?read"
    r"|String to replace not found in file|Found \d+ matches of the string to replace"
    r"|No changes to make: old_string and new_string are exactly the same|InputValidationError\b"
    r"|The provided `old_string` (?:does not appear|appears multiple times))",
    re.IGNORECASE,
)
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


@dataclass(frozen=True)
class Key:
    """What a failure is compared by (see the module's docstring)."""

    kind: str
    program: str
    template: str
    terms: tuple[str, ...]  # distinct, in order of appearance: the template's words and masks, then `=value`s
    protocol: bool = False  # one of Claude Code's own errors about how a tool was called

    @property
    def signature(self) -> str:
        return f"{self.kind}|{self.program}|{self.template}"


COMMAND_CHARS = 65_536  # of a command read for its stages: a one-line command of 10 MB costs no more


def stages(command: str) -> list[tuple[str, str]]:
    """The simple commands of a shell command line, each with the operator before it ('' for the
    first; `|` for a pipe's later stages), split outside quotes; `2>&1` and `&>` are redirections.
    The command is read up to COMMAND_CHARS: the hook's work does not grow with it."""
    command = command[:COMMAND_CHARS]
    found: list[tuple[str, str]] = []
    piece, before, quote, index = "", "", "", 0
    while index < len(command):
        char = command[index]
        operator = ""
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "\\":
            piece += command[index : index + 2]
            index += 2
            continue
        elif command.startswith(("&&", "||", "|&"), index):
            operator = command[index : index + 2]
        elif char in ";|\n" or (char == "&" and not piece.endswith(">") and command[index + 1 : index + 2] != ">"):
            operator = char
        if operator:
            found.append((before, piece.strip()))
            before, piece = operator, ""
            index += len(operator)
            continue
        piece += char
        index += 1
    found.append((before, piece.strip()))
    return [(operator, text) for operator, text in found if text]


def stage_program(piece: str) -> str:
    """The program a simple command runs, past assignments, runners and `python -m`; `cd` for a change
    of folder and the like (their own name), '' for none."""
    words = _words(piece.lstrip("( ").rstrip(") "))
    while words:
        word = words[0]
        if re.match(r"^\w+=", word) or word.startswith("-"):
            words = words[1:]
        elif word in _RUNNERS:
            words = words[1:]
            if words and words[0] in _RUNNER_VERBS:
                words = words[1:]
        elif word in _TAKES_VALUE:
            words = [w for w in words[1:] if not w.startswith("-")][1:]
        else:
            break
    if len(words) > 2 and _PYTHON.fullmatch(words[0].rsplit("/", 1)[-1]) and words[1] == "-m":
        words = words[2:]
    if not words:
        return ""
    name = words[0].rsplit("/", 1)[-1]
    if _PYTHON.fullmatch(name):
        return "python"
    return _SAME_PROGRAM.get(name, name)


def _words(piece: str) -> list[str]:
    return [word.strip("\"'") for word in piece.split()]


def program(command: str, line: str = "") -> str:
    """The program of the part of a shell command that failed: the one the error line names
    (`grep: x: No such file`, `bash: line 1: cd: src: ...`, a Python traceback for `python`; `cd`
    for a program that stands in for it, `CD_STAND_INS`), else
    the first program the command runs (past `cd`, `export` ...), or the last stage of its pipe that
    is not a filter (`| head`): a pipe's exit code is its last stage's."""
    parts = [(operator, stage_program(text)) for operator, text in stages(command)]
    named = {name for _, name in parts if name}
    if line and "cd" in named and any(_named_at(line, name) < len(line) for name in CD_STAND_INS):
        return "cd"
    if line:
        speaking = min(named, key=lambda name: (_named_at(line, name), name), default="")
        if speaking and _named_at(line, speaking) < len(line):
            return speaking
        if "python" in named and _PYTHON_ERROR.match(line):
            return "python"
    first = next((index for index, (_, name) in enumerate(parts) if name and name not in _QUIET_STAGES), None)
    if first is None:
        return ""
    chosen = parts[first][1]
    for operator, name in parts[first + 1 :]:
        if operator not in ("|", "|&"):
            break
        if name and name not in _FILTERS:
            chosen = name
    return chosen


def _named_at(line: str, name: str) -> int:
    """Where a line names a program as the one speaking (`name:` or `name[N]:`), else past its end."""
    found = re.search(rf"(?:^|[\s/]){re.escape(name)}(?:\[\d+\])?:\s", line)
    return found.start() if found else len(line)


def blanked(line: str) -> str:
    """The line with temporary paths, UUIDs, hashes, durations and numbers blanked, spaces folded."""
    line = _TEMP.sub("<tmp>", line)
    line = _UUID.sub("<id>", line)
    line = _HASH.sub("<hash>", line)
    line = _HEX.sub("<n>", line)
    line = _DURATION.sub("<time>", line)
    line = _NUMBER.sub("<n>", line)
    return " ".join(line.split())


def template(line: str) -> tuple[str, tuple[str, ...]]:
    """The line as a template (see the module's docstring), and the values it masked (quoted names and
    paths, in order)."""
    values: list[str] = []

    def quoted(match: re.Match[str]) -> str:
        values.append(blanked(next(group for group in match.groups() if group is not None)))
        return "<q>"

    def path(match: re.Match[str]) -> str:
        if "/" not in match.group(0) and not _EXTENSION.fullmatch(match.group(0)[match.group(0).rfind(".") :]):
            return match.group(0)  # a version (1.2.3), a sentence's end: no file name
        values.append(blanked(re.sub(r"(?::\d+)+$", "", match.group(0)).rstrip("/")))
        return "<path>"

    line = _QUOTED.sub(quoted, line)
    line = _TEMP.sub("<tmp>", line)
    line = _UUID.sub("<id>", line)
    line = _PATH.sub(path, line)
    return blanked(line), tuple(values)


def terms(masked: str, values: tuple[str, ...] = (), target: str = "") -> tuple[str, ...]:
    """A template's terms: its words (lower case) and masks, then each value masked as `=value`."""
    found = [word.lower() for word in _TERM.findall(masked)]
    found += [f"={value.lower()}" for value in (*values, *([target] if target else [])) if value.strip()]
    return tuple(dict.fromkeys(found))


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
    task failed`, `FAIL pkg [build failed]`, `make: ***`, `npm ERR!`, Jest's `● Test suite failed to
    run`, Vite's `x Build failed in 1.2s`, Biome's header of a file's diagnostics), Go's lines for the
    packages that passed (`ok pkg`, `? pkg [no test files]`), or a program's informational log line."""
    return bool(_WRAPPER.search(line) or _LOG_LINE.search(line))


def is_protocol(line: str) -> bool:
    """One of Claude Code's own errors about how a tool was called (an Edit before a Read, a stale
    search string): the same on every file, and the error says what to do."""
    return bool(_PROTOCOL.match(_TAGS.sub("", line).strip()))


def key(failure: Failure) -> Key | None:
    """The failure's key (see the module's docstring), or None when the failure says too little."""
    line = _TAGS.sub("", failure.line).strip()
    if not line or line.startswith(_NOT_A_FAILURE) or says_little(line):
        return None
    line = (line if len(line) <= LINE_CHARACTERS else line[: LINE_CHARACTERS - 3]).removesuffix("...")
    shell = failure.tool in SHELL_TOOLS
    masked, values = template(line)
    if shell and _EXIT_ONLY.fullmatch(masked) and failure.command.strip():
        command, named = template(failure.command[: LINE_CHARACTERS - 3].removesuffix("..."))
        masked = f"{masked}, printing nothing: {command}"
        values = named
    elif len(_WORD.findall(_MASKS.sub(" ", masked))) + len(values) < MIN_WORDS:  # a name or path says something
        return None
    protocol = not shell and is_protocol(line)
    target = "" if shell or protocol else failure.target
    kind = "shell" if shell else failure.tool
    name = program(failure.command, line) if shell else ""
    return Key(kind, name, masked, terms(masked, () if protocol else values, target), protocol)


def signature(failure: Failure) -> str | None:
    """`kind|program|template` (see the module's docstring), or None when the failure says too little."""
    found = key(failure)
    return found.signature if found else None


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
    fix_command: str = ""  # the command that worked (no backticks), or the fix event's text when it is no command
    change: str = ""  # what was different in what worked, as the lesson says it ('' when no lesson says)
    retry: bool = False  # the same call worked again unchanged, nothing done between (flaky)
    key: Key | None = None  # what the failure hook compares it by


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
        found_key = key(failure) if failure else None
        if failure is None or found_key is None:
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
                found_key.signature,
                event.id or "",
                event.text,
                fix,
                commit,
                recovery.fix if recovery else "",
                recovery.change if recovery else "",
                recovery.retry if recovery else False,
                key=found_key,
            )
        )
    return found
