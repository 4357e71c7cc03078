"""What a tool call did, read from its name, its input and its output: an edit, a test run, a commit.

Pure functions on strings and dicts, shared by the Claude Code and Codex readers.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Mapping
from typing import Any

from brain.memory.episodes import signature as failures
from brain.memory.sessions.shell_steps import INTERPRETERS

EDIT_TOOLS = frozenset(
    {
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
        "str_replace_based_edit_tool",
        "apply_patch",
        "write_file",
        "edit_file",
    }
)
SHELL_TOOLS = failures.SHELL_TOOLS
READ_TOOLS = frozenset({"Read", "read_file", "NotebookRead", "view"})
PLAN_TOOLS = frozenset({"ExitPlanMode"})
TODO_TOOLS = frozenset({"TodoWrite", "update_plan"})

_TEST_RUNNER = re.compile(
    r"(?:^|[\s;&|(/])(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|"
    r"go\s+test|cargo\s+(?:test|nextest)|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|make\s+(?:test|check)|"
    r"mvn\s+(?:-\S+\s+)*test|gradle\w*\s+test|dotnet\s+test|Invoke-Pester|mix\s+test|swift\s+test|deno\s+test)\b"
)
# build, lint and typecheck runs, at the start of a command (after `cd x &&`, `VAR=1`, `uv run`, `python -m`)
_CHECK = re.compile(
    r"(?:^|[;&|(]\s*)(?:\w+=\S*\s+)*(?:(?:uv|poetry|pdm|hatch|npx|pnpx|bunx|sudo|time|env)\s+(?:run\s+)?"
    r"|python[\d.]*\s+-m\s+)*(?:[\w.~-]*/)*"
    r"(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:build|lint|typecheck|type-check|check)|make|cargo\s+(?:build|check|clippy)"
    r"|go\s+(?:build|vet)|golangci-lint|tsc|mypy|pyright|ruff|flake8|pylint|eslint|biome|black\s+--check"
    r"|prettier\s+--check|mvn\s+(?:-\S+\s+)*(?:compile|package|verify|install)|gradle\w*\s+(?:build|assemble|check)"
    r"|dotnet\s+build|cmake\s+--build|swift\s+build|rubocop|shellcheck"
    r"|(?:mise\s+(?:run\s+)?|just\s+|task\s+)[\w-]*(?:lint|test|build|check|typecheck)[\w:-]*)(?![\w-])",
    re.MULTILINE,
)
_CHECK_KINDS = (
    ("test", re.compile(r"test")),
    (
        "lint",
        re.compile(
            r"lint|check|vet|clippy|tsc|mypy|pyright|ruff|flake8|biome|black|prettier|rubocop|fmt|format|types?\b"
        ),
    ),
)
_GIT_COMMIT = re.compile(r"(?:^|[\s;&|(])git\s+(?:-\S+\s+(?:\S+\s+)?)*commit\b")
_COMMIT_LINE = re.compile(r"\[([^\]\s]+)(?:\s+\(root-commit\))?\s+([0-9a-f]{7,40})\]\s*(.*)")
_MESSAGE_FLAG = re.compile(r"""-m\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))""")
_HEREDOC_MESSAGE = re.compile(r"<<\s*'?EOF'?\s*\n(.*?)\n", re.DOTALL)
_FAILED = re.compile(
    r"\b(\d+)\s+(?:failed|failing|failures?|errors?)\b|\bFAILED\b|\bFAIL\b|\btest result: FAILED\b|\bERRORS?\b"
)
_COUNTS = re.compile(r"\b\d+\s+(?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected)\b")
_RUNNERS = {
    "uv",
    "poetry",
    "pdm",
    "hatch",
    "pipenv",
    "npx",
    "pnpx",
    "bunx",
    "sudo",
    "time",
    "env",
    "nice",
    "exec",
    "command",
}
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
_HEREDOC_BODY = re.compile(r"<<-?\s*(['\"]?)(\w+)\1([^\n]*)\n.*?(?:^[ \t]*\2[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_OPERATOR = re.compile(r"[;&|<>()]+")
_EXIT_CODE = re.compile(r"(?:Exit code:?|exit code|exited with code|Process exited with code)\s*(-?\d+)", re.IGNORECASE)


def shell_command(name: str, args: Mapping[str, Any]) -> str | None:
    """The command line of a shell tool call, else None."""
    if name not in SHELL_TOOLS and "command" not in args and "cmd" not in args:
        return None
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):
        parts = [str(part) for part in command]
        if len(parts) >= 3 and parts[0] in ("bash", "sh", "zsh", "/bin/bash", "/bin/sh") and parts[1] in ("-lc", "-c"):
            return parts[2]
        return shlex.join(parts)
    return command if isinstance(command, str) else None


def edited_files(name: str, args: Mapping[str, Any]) -> list[str]:
    """Files an edit tool call writes: its file_path / path, or the files an apply_patch names."""
    if name not in EDIT_TOOLS:
        return []
    for key in ("file_path", "notebook_path", "path", "target_file"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return [value]
    patch = args.get("input", args.get("patch", ""))
    return [path.strip() for path in _PATCH_FILE.findall(patch)] if isinstance(patch, str) else []


def read_file(name: str, args: Mapping[str, Any]) -> str:
    """The file a read tool call reads, else ''."""
    if name not in READ_TOOLS:
        return ""
    value = args.get("file_path", args.get("path", args.get("notebook_path")))
    return value if isinstance(value, str) else ""


def patch_files(text: str) -> list[str]:
    """Files an apply_patch body names (Codex sends the patch as the raw input of a custom tool)."""
    return [path.strip() for path in _PATCH_FILE.findall(text)]


def is_test_run(command: str) -> bool:
    return bool(_TEST_RUNNER.search(command))


def is_check(command: str) -> bool:
    """A run whose failure leaves the work broken: tests, a build, a linter, a type checker."""
    return check_kind(command) is not None


def check_kind(command: str) -> str | None:
    """What a check checks: "test", "lint" (linters, formatters' checks, type checkers, `go vet`) or
    "build"; None for a command that is no check."""
    if is_test_run(command):
        return "test"
    found = _CHECK.search(command)
    if found is None:
        return None
    said = found.group(0)
    for kind, words in _CHECK_KINDS:
        if words.search(said):
            return kind
    return "build"  # make, cmake --build, mvn package ...


def proves_fixed(failed: str, later: str) -> bool:
    """Whether a passing check shows a failed check works now: the same kind of check (a lint after
    a lint, tests after tests), or tests after a build (running tests builds the code). A lint that
    passes says nothing of the tests that failed."""
    before, after = check_kind(failed), check_kind(later)
    return before is not None and (before == after or (before == "build" and after == "test"))


def redirected_files(command: str) -> list[str]:
    """Files a shell command writes by plain redirection (`> f`, `>> f`, `cat > f <<EOF`, `| tee f`);
    targets under /dev/ and ones named by a variable are left out."""
    files: list[str] = []
    if ">" not in command and "tee" not in command:
        return files
    for line in _HEREDOC_BODY.sub(r"\3", command).splitlines():  # a here-document's body is not a command
        if ">" not in line and "tee" not in line:
            continue
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(lexer)
        except ValueError:
            continue
        for position, word in enumerate(words):
            if word in (">", ">>", ">|", "&>", "&>>"):
                targets = words[position + 1 : position + 2]
            elif word.rsplit("/", 1)[-1] == "tee":
                targets = list(itertools.takewhile(lambda w: not _OPERATOR.fullmatch(w), words[position + 1 :]))
            else:
                continue
            files += [
                t for t in targets if not t.startswith(("-", "/dev/")) and not _OPERATOR.fullmatch(t) and "$" not in t
            ]
    return list(dict.fromkeys(files))


def is_commit(command: str) -> bool:
    return bool(_GIT_COMMIT.search(command))


def commit_made(output: str) -> tuple[str | None, str | None]:
    """(sha, message) from git's `[branch abc1234] message` line, when the output has one."""
    for line in output.splitlines():
        found = _COMMIT_LINE.search(line)
        if found:
            return found.group(2), found.group(3).strip() or None
    return None, None


def commit_message(command: str) -> str | None:
    found = _MESSAGE_FLAG.search(command)
    if found:
        return next(group for group in found.groups() if group is not None).split("\\n")[0].strip() or None
    heredoc = _HEREDOC_MESSAGE.search(command)
    return heredoc.group(1).strip() if heredoc else None


def tests_failed(output: str, is_error: bool) -> bool:
    """A test run failed when its tool result is an error or its output reports failures."""
    if is_error:
        return True
    failed = _FAILED.search(output)
    return failed is not None and failed.group(1) != "0"


def never_ran(output: str) -> bool:
    """A run that stopped before its program did anything: a usage error, a program or script not
    found (`rtk: unrecognized subcommand 'bun'`, `command not found`). A test run that failed so ran
    no test: its failure is the command's, not the tests'."""
    if not _NEVER_RAN.search(output[:2000]):
        return False
    return not any(_COUNTS.search(line) for line in output.splitlines())


_NEVER_RAN = re.compile(
    r"unrecognized (?:subcommand|option|argument)|unexpected argument|command not found|unknown (?:command|option|flag)"
    r"|is not recognized as|Missing script|no such (?:task|script)|Cannot find module|^Usage:",
    re.IGNORECASE | re.MULTILINE,
)


def test_counts(output: str) -> str:
    """`3 failed, 10 passed` as the runner printed it (its last summary), or ''."""
    lines = [line for line in output.splitlines() if _COUNTS.search(line)]
    if not lines:
        return ""
    return ", ".join(_COUNTS.findall(lines[-1]))


def exit_code(output: str) -> int | None:
    found = _EXIT_CODE.search(output[:400])
    return int(found.group(1)) if found else None


def command_key(command: str) -> str:
    """What makes two runs 'the same command': the program and its first word, runners and env stripped.

    `cd x && uv run pytest tests/a.py -q` -> `pytest tests/a.py`; `git commit -m x` -> `git commit`.
    """
    segment = re.split(r"&&|\|\||;|\|", command)
    parts: list[str] = []
    for piece in segment:
        piece = piece.strip()
        if piece and not piece.startswith(("cd ", "export ", "source ", ". ")):
            try:
                parts = shlex.split(piece)
            except ValueError:
                parts = piece.split()
            break
    words = [word for word in parts if not re.match(r"^\w+=", word)]
    while words and (
        words[0] in _RUNNERS or words[0] in ("run", "-m") or (words[0].startswith("python") and len(words) > 1)
    ):
        words = words[1:]
    if len(words) > 2 and words[1] == "run":  # npm run build -> npm build
        del words[1]
    kept = [word for word in words if not word.startswith("-")][:2]
    return " ".join(kept) or command.strip()[:40]


def first_line(text: str) -> str:
    """The first line that says something (not blank, not a separator), whole: the caller cuts it after
    redacting it (see `transcript_episode.Builder.clip`)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not re.fullmatch(r"[=\-_*#~ ]+", line):
            return line
    return ""


def display_command(command: str) -> str:
    """A command as a person would quote it: its first line, a leading `cd <dir> &&` kept (the folder
    is often what failed, or what fixed it); a `cd` into the working folder itself is left out where
    paths are made relative to it (`brain.memory.episodes.signature.relative`). When that line leaves
    a quote open (a query or a script over several lines), the lines up to the closing quote are
    folded into one: `gh api graphql -f query='` alone says nothing of the query."""
    line = first_line(command)
    if not _open_quote(line) or _SCRIPT_GIVEN.search(line):
        return line  # a script's lines are its meaning (an indentation error): its first line names it
    lines = command.strip().splitlines()
    for end in range(2, min(len(lines), _FOLDED_LINES) + 1):
        text = "\n".join(lines[:end])
        if not _open_quote(text):
            return " ".join(text.split())
    return line


_FOLDED_LINES = 40
_SCRIPT_GIVEN = re.compile(rf"\b(?:{'|'.join(sorted(INTERPRETERS))})[\d.]*\s+(?:-\w+\s+)*(?:-c|-e|--eval)\s+['\"]")


def _open_quote(text: str) -> bool:
    try:
        shlex.split(text)
    except ValueError:  # "No closing quotation" (or an escape at the end)
        return True
    return False


_STOPPED_BY_CONFLICTS = frozenset({"git merge", "git rebase", "git pull", "git cherry-pick", "git revert"})
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")
_ECHOED_INPUT = re.compile(r"\nString: .*", re.DOTALL)
_NAMES_AN_ERROR = re.compile(
    r"\b\w*(?:Error|Exception)\b:|^error\b|^fatal:|\bFAILED\b|\bfailed\b|No such file|not found|Permission denied"
    r"|^[\w./\\-]+\.\w+:\d+(?::\d+)?:\s+[^\s:]|^--- FAIL: |^panic: "
)
_GO_TEST_MESSAGE = re.compile(r"^[\w./-]+_test\.go:\d+: \S")
_ESCAPED_BREAK = re.compile(r"(?<![\"'`])\\n(?![\"'`])")
_TASK_PREFIX = re.compile(r"^\[[\w:.-]+\]\s+")  # a task runner's `[lint:go] ` before each line of a task
_BANNER = re.compile(r"^(?:\[[\w:.-]+\]\s+)?\$\s")  # `[lint] $ golangci-lint run ./...`: the command, not its error
_EXIT_LINE = re.compile(r"^[ \t]*Exit code:?[ \t]*-?\d+[ \t]*$", re.MULTILINE)  # says only that it failed
# zoxide's notice about the shell's set-up (`_ZO_DOCTOR`), printed before whatever its `cd` says
_ZOXIDE_DOCTOR = re.compile(r"zoxide: detected a possible configuration issue\..*?_ZO_DOCTOR=0\.?", re.DOTALL)
# a panel drawn around a message (rich's, which typer and rich-click print errors in): `╭─ Error ─╮`,
# `│ No such command 'info'. │`, `╰──╯`
_PANEL_TOP = re.compile(r"^\s*[╭┌]─+ ?(?P<title>[^─]*?) ?─*[╮┐]\s*$")
_PANEL_SIDE = re.compile(r"^\s*[│|] ?(?P<inner>.*?)\s*[│|]\s*$")
_PANEL_BOTTOM = re.compile(r"^\s*[╰└]─+[╯┘]\s*$")


ERROR_WINDOW = 65_536  # characters of an output searched for its error line when its head and tail name none
GLANCE = 1000  # characters of an output's head, and of its tail, looked at first (what a person reads first)


def error_line(text: str) -> str:
    """The line of an error output that names the error, whole, like `first_line`: pytest's `E   ...`,
    else the first line that names one (`...Error: ...`, `error: ...`, `fatal: ...`, `FAILED ...`, a
    compiler's or linter's `file:line:col: message` (a task runner's `[task] ` before it or not), Go's
    `--- FAIL: Test...` (or the line under it that says why) and `panic: ...`) and is not a runner's wrapper around it (`[lint] ERROR task
    failed`, `FAIL pkg [build failed]`, `make: *** ...`, `npm ERR! ...`, `husky - ... failed`), else
    the first line past an `Exit code N` line and a runner's echo of the command (`[lint] $
    golangci-lint run`).

    Pass the whole output. Its head and tail (`GLANCE` characters each) are read first; only when
    they name no error is the rest (up to `ERROR_WINDOW`) read: a test runner's log can fill the head
    and its packages' summary the tail, with the failing test between, while in an output that names
    its error up front a line further down is often only a log line that says "failed".

    Claude Code's `<tool_use_error>` tags are not part of it, and escaped line breaks (`\\n`: a hook's
    message passed on as JSON) are read as line breaks: the line holds no literal `\\n` but a quoted
    one (`rg: the literal "\\n" is not allowed`)."""
    text = text[:ERROR_WINDOW]
    if _TOOL_ERROR_TAG.search(text):  # Claude Code's own message; Edit's echo of the text it sought follows it
        text = _ECHOED_INPUT.sub("", _TOOL_ERROR_TAG.sub("", text))
    text = _ESCAPED_BREAK.sub("\n", text)  # a hook's message passed on as JSON; a quoted "\\n" is named, kept
    text = _unpanelled(_ZOXIDE_DOCTOR.sub("", text))
    glance = _head_and_tail(text)
    found = _naming_line(glance) or (_naming_line(text) if glance is not text else "")
    if found:
        return found
    lines = [line for line in _EXIT_LINE.sub("", glance, count=1).splitlines() if not _BANNER.match(line)]
    said = [line for line in lines if not failures.says_little(line.strip())]
    return first_line("\n".join(said)) or first_line("\n".join(lines)) or first_line(glance)


def _unpanelled(text: str) -> str:
    """The text with each drawn panel's frame taken off, its first line led by the panel's title:
    `╭─ Error ─╮` / `│ No such command 'info'. │` is read as `Error: No such command 'info'.`."""
    if "─" not in text:
        return text
    lines: list[str] = []
    title: str | None = None  # the open panel's title, until its first line is read
    inside = False
    for line in text.splitlines():
        top = _PANEL_TOP.match(line)
        side = _PANEL_SIDE.match(line) if inside else None
        if top:
            title, inside = top.group("title").strip(), True
        elif _PANEL_BOTTOM.match(line):
            title, inside = None, False
        elif side:
            inner = side.group("inner").strip()
            if inner:
                lines.append(f"{title}: {inner}" if title else inner)
                title = None
        else:
            lines.append(line)
    return "\n".join(lines)


def _head_and_tail(text: str) -> str:
    """The lines `GLANCE` characters from the start and from the end reach into, whole: a line is never
    cut (a secret cut in two would no longer be recognised and redacted)."""
    if len(text) <= 2 * GLANCE:
        return text
    head_end = text.find("\n", GLANCE)
    tail_start = text.rfind("\n", 0, len(text) - GLANCE) + 1
    if head_end == -1 or head_end >= tail_start:
        return text
    return f"{text[:head_end]}\n...\n{text[tail_start:]}"


def _naming_line(text: str) -> str:
    """pytest's first `E   ` line, else the first line that names an error (see `error_line`), else ''."""
    for line in text.splitlines():
        if line.startswith("E   "):
            return line[1:].strip()
    lines = text.splitlines()
    for number, line in enumerate(lines):
        stripped = line.strip()
        if _NAMES_AN_ERROR.search(_TASK_PREFIX.sub("", stripped)) and not failures.says_little(stripped):
            following = lines[number + 1].strip() if number + 1 < len(lines) else ""
            if stripped.startswith("--- FAIL: ") and _GO_TEST_MESSAGE.match(following):
                return following  # Go names the test, then says on the next line what went wrong
            return stripped
    return ""
