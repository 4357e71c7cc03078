"""The ground truth of the memory replay, written apart from brain: which failed calls repeat an
earlier session's failure, which of them that session recovered from and how, and whether an
answer handed over holds that fix. Imports nothing of brain (the hook is not graded by its own
rules); `docs/benchmarks.md` states the same rules in words.

Reading (`read_session`): a Claude Code transcript's `tool_use` / `tool_result` blocks, or a Codex
rollout's calls and outputs (`exec_command`, `shell`, `local_shell_call`, `apply_patch`; a
command polled with `write_stdin` ends at the poll that says it exited), into `Call`s in the order
their results came. A Claude Code result is a failure when it is marked `is_error`; a Codex one
when its exit code is not 0 (or `apply_patch` says it failed). Calls refused by the user or by the
sandbox's policy, interrupted, or cancelled because a sibling call failed are neither failure nor
success. Claude Code's protocol errors (`PROTOCOL`: an Edit before a Read, a stale or ambiguous
search string, a file too large to read ...) are marked: they are the agent's, not the project's.

Commands (`stages`, `normalised_programs`): a command is read the shell's way (quotes, `&&`, `||`,
`;`, `|`, new lines; a heredoc's body is data; `ssh HOST 'CMD'` is CMD); each stage's program is
its first word once `VAR=x`, wrappers (`sudo`, `env`, `timeout`, `npx`, `bunx`, `rtk`, `uv run`,
`pnpm exec` ...) are skipped, `python3.12` read as `python`, a script run by an interpreter
(`bash x.sh`, `python tool.py`) read as the script, and a suite (`git`, `gh`, `go`, `npm`, `mise`
...) taken with its subcommand (`git push`; a task runner with its task: `mise run lint`).

Normalising an error (`error_lines`): tags, ANSI colours, the runner's header lines (`Exit code
N`, `Chunk ID`, `Wall time`, `Process exited with code N`, `Output:`, `Command: ...`) and a
shell's own prefix (`/bin/bash: line 1:`, `zsh:1:`) taken out; the working folder and home folders
made relative or `~`; temporary folders, hex hashes and numbers (not a name's digits: MD036)
masked; whitespace collapsed; noise left out: the lines the project's successful shell calls print
in 3 sessions or more, unless failed calls print them more than twice as often (a banner, a
tool's warning); the first and last 15 lines kept.

Twins (`are_twins`): two failures are twins when (1) they are the same kind of call (every shell
call is one kind, whatever the agent; otherwise the same tool), (2) on the same target (two
commands share a program, without the subcommand, or a path argument; a file tool's calls name
the same file; another tool's calls have the same input), and (3) their errors agree: compared on
the lines that are not common (printed by the failures of 4 sessions or more: a runner's wrapper)
when both have such lines, else on all, at least 80% of the shorter error's lines are lines of the
other, and either the two open with the same (not common) line or the shared lines are a third of
the longer error's at least. An error left with no line (a command that printed nothing) is a twin
of another only when the two commands are the same once normalised. Protocol errors are twins when
they are the same message, whatever the file.

Recovery (`recovery`): the first later call of the same session, within RECOVERY_WINDOW calls,
that succeeded on the failure's target: for a command, one running a program the failed stage ran
(the stage the error names, else every stage; glue such as `cd` and `echo` aside, and when only
glue failed, the programs that did not get to run); a look (`cat`, `ls`, `grep` ...) that failed
is recovered by a look at the same path; a file tool's call by a call on the same file, or by the
same tool on a file of the same name (or the name the error suggests: "Did you mean X?"); a
search tool (Grep, Glob) by its next success; failing all of these, when the error says something
is missing, a call that wrote a path the failure named. What changed (`Recovery`): the words of
the recovering command's stages running the target's program (or glue, or an assignment) that the
failed one lacked (`added`) or had (`dropped`), numbers masked, and the names of the files written
in between; none of these: a retry.

Answer correctness (`answer_holds`): see its docstring.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

SHELL = "shell"
TWIN_SHARE = 0.8  # the share of the shorter error's lines the other must hold
TWIN_LONGER = 1 / 3  # ... and of the longer error's lines
COMMON_SESSIONS = 4  # a line the failures of this many sessions print is common: compared last
KEEP_LINES = 15  # the first and last lines of an error compared
NOISE_SESSIONS = 3  # a line successful calls print in this many sessions is noise
RECOVERY_WINDOW = 40  # calls after a failure searched for its recovery
HOOK_BLIND = ("apply_patch",)  # Codex runs no PostToolUse hook for a failed apply_patch
CHANGE_WORDS = 8  # the change's first words an answer is checked for

# Claude Code's messages about how its own tools were used: the agent's protocol, not the project.
PROTOCOL = {
    "not-read": re.compile(r"^File has not been read yet"),
    "modified-since-read": re.compile(r"^File has been (?:modified since read|unexpectedly modified)"),
    "string-not-found": re.compile(r"^String to replace not found in file"),
    "many-matches": re.compile(r"^Found \d+ matches of the string to replace"),
    "no-change": re.compile(r"^No changes to make: old_string and new_string are exactly the same"),
    "too-large": re.compile(r"^File content \(\d+ tokens\) exceeds maximum allowed tokens"),
    "input-validation": re.compile(r"^InputValidationError"),
}
_LEFT_OUT = re.compile(
    r"^(?:Sibling tool call errored|Cancelled: parallel tool call|\[Request interrupted by user"
    r"|The user doesn't want to (?:proceed|take this action)|User rejected)"
)
_TAGS = re.compile(r"</?tool_use_error>")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_HEADER = re.compile(
    r"^(?:Exit code:?\s*-?\d+|Chunk ID:.*|Wall time:.*|Process exited with code -?\d+|Original token count:.*"
    r"|Output:|Command: .*|Total output lines:.*)$"
)
_SHELL_PREFIX = re.compile(r"^(?:/\S*/)?(?:ba|z|da)?sh:(?: line)? ?\d*:\s*|^\(eval\):\d+:\s*")
_HOME = re.compile(r"/(?:Users|home)/[^/\s'\"]+")
_TMP = re.compile(r"/(?:private/)?(?:tmp|var/folders)/[^\s'\":]*")
_HASH = re.compile(r"\b[0-9a-f]{7,64}\b")
_NUMBER = re.compile(r"(?<![A-Za-z0-9])\d+(?:\.\d+)?")  # not a name's digits (MD036, TS2345)
_EXIT = re.compile(r"(?:Exit code:?|Process exited with code)\s*(-?\d+)")
# An error that says something is not there: a write that makes it is a recovery.
_MISSING = re.compile(
    r"no such file|not found|does not exist|cannot find|can't open|cannot access|ENOENT|missing|"
    r"could not open|no module named|cannot stat",
    re.IGNORECASE,
)
_RETRY = re.compile(r"\b(?:again|retr(?:y|ied|ying)|re-?ran|rerun|unchanged|flaky|transient|same command)\b", re.I)

# Shell words that join commands rather than run one; not a target of their own.
GLUE = frozenset({"cd", "echo", "printf", "true", "false", "set", "export", "sleep", "wait", "pwd", ":"})
# Programs run through another: the program is the next word.
WRAPPERS = {
    "sudo": 0, "time": 0, "env": 0, "nice": 0, "command": 0, "exec": 0, "rtk": 0, "npx": 0, "bunx": 0,
    "pnpx": 0, "timeout": 1, "xargs": 0,
}  # fmt: skip
WRAPPER_VALUED = frozenset({"-u", "-g", "-n", "-s", "-k", "-P", "-I", "-L", "--signal", "--user"})
WRAPPER_PAIRS = {("uv", "run"), ("poetry", "run"), ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "dlx"), ("npm", "exec")}
# Programs whose first word decides what they do: taken with it (`git push`, `go test`).
SUITES = frozenset(
    "git gh go npm pnpm yarn bun cargo docker kubectl make just mise uv pip poetry nix task deno "
    "terraform helm brew apt dotnet mvn gradle rustup anchor solana forge".split()
)
# Programs that run a script named next: the program is the script (`bash x.sh`, `python tool.py`).
INTERPRETERS = frozenset("bash sh zsh python node bun ruby perl deno tsx ts-node php".split())
# Programs that only look: a look on the failure's path is no recovery, unless the failure was a look.
VIEWERS = frozenset("cat head tail less grep rg sed awk wc ls find fd tree jq file stat diff nl".split())
# Flags whose value is prose (a commit message, a title): no part of what changed.
MESSAGE_FLAGS = frozenset({"-m", "--message", "--title", "--body", "-t", "-b"})
SUITE_VALUED = frozenset(
    {"-C", "-c", "-R", "--repo", "--git-dir", "--work-tree", "--prefix", "--filter", "--cwd", "-w"}
)
# Tools whose path is where they search: any later success of the tool recovers a failure.
SEARCHES = frozenset({"Grep", "Glob", "LS"})
_DID_YOU_MEAN = re.compile(r"Did you mean ([^\s?]+)\?")
_OPERATORS = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")


@dataclass
class Call:
    """One tool call and how it ended."""

    session: int
    seq: int  # position among the session's results
    call_id: str
    agent: str  # "claude-code" or "codex"
    tool: str  # the tool's own name (Bash, Edit, exec_command, apply_patch ...)
    kind: str  # SHELL for every shell call, else the tool's name
    tool_input: dict[str, Any]
    command: str | None  # the shell command
    files: tuple[str, ...]  # the files the call is on, relative to cwd when under it
    cwd: str
    ok: bool | None  # None: refused, interrupted, or cancelled with a sibling
    output: str
    exit_code: int | None = None
    protocol: str | None = None
    lines: tuple[str, ...] = ()  # the normalised error (failures only)
    common: tuple[str, ...] = ()  # those of its lines that are common (COMMON_SESSIONS)
    # Codex: where the call's output and its end event are in the rollout (for the replay)
    output_line: int = -1
    end_line: int = -1
    when: str = ""

    @property
    def failed(self) -> bool:
        return self.ok is False

    @property
    def key(self) -> str:
        return f"{self.session}:{self.call_id}"


@dataclass
class Recovery:
    failure: Call
    call: Call
    via: str  # "same-target", "file", "wrote"
    added: tuple[str, ...]  # words of the recovering call the failed one lacked (numbers masked)
    dropped: tuple[str, ...]  # words of the failed call the recovering one lacks (numbers masked)
    changed_files: tuple[str, ...]  # names of the files written between the failure and the recovery
    retry: bool  # the same call again, nothing changed between
    steps: tuple[
        Recovery, ...
    ] = ()  # commands of the same program that worked in between (`git pull` before `git push`)

    @property
    def change(self) -> dict[str, Any]:
        found: dict[str, Any] = {"added": self.added[:CHANGE_WORDS], "dropped": self.dropped[:CHANGE_WORDS]}
        found["files"] = self.changed_files
        if self.steps:
            found["steps"] = [step.call.command for step in self.steps]
        return found


@dataclass
class SessionCalls:
    index: int
    session_id: str
    agent: str
    cwd: str
    calls: list[Call] = field(default_factory=list)

    @property
    def failures(self) -> list[Call]:
        return [call for call in self.calls if call.failed]


# ---------------------------------------------------------------- reading transcripts


def read_session(index: int, session_id: str, path: Path, agent: str) -> SessionCalls:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    records = []
    for number, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append((number, record))
    if agent == "codex":
        return _read_codex(index, session_id, records)
    return _read_claude(index, session_id, records)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content)
    return "" if content is None else str(content)


def _relative(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def _read_claude(index: int, session_id: str, records: list[tuple[int, dict[str, Any]]]) -> SessionCalls:
    session = SessionCalls(index, session_id, "claude-code", "")
    asked: dict[str, tuple[str, dict[str, Any], str, str]] = {}
    done: set[str] = set()
    for _, record in records:
        cwd = record.get("cwd") if isinstance(record.get("cwd"), str) else ""
        session.cwd = session.cwd or cwd
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        when = str(record.get("timestamp") or "")
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
                asked[block["id"]] = (str(block.get("name") or ""), tool_input, cwd or session.cwd, when)
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in asked:
                call_id = str(block["tool_use_id"])
                if call_id in done:
                    continue  # a resumed session replays earlier records
                done.add(call_id)
                tool, tool_input, call_cwd, asked_at = asked[call_id]
                text = _text(block.get("content"))
                bare = _TAGS.sub("", text).strip()
                ok: bool | None = not bool(block.get("is_error"))
                if not ok and any(_LEFT_OUT.match(line.strip()) for line in bare.splitlines()[:3]):
                    ok = None
                command = tool_input.get("command") if tool == "Bash" else None
                files = tuple(
                    _relative(str(tool_input[key]), call_cwd)
                    for key in ("file_path", "notebook_path", "path")
                    if isinstance(tool_input.get(key), str)
                )
                protocol = (
                    next((name for name, rule in PROTOCOL.items() if rule.match(bare)), None) if ok is False else None
                )
                session.calls.append(
                    Call(
                        index,
                        len(session.calls),
                        call_id,
                        "claude-code",
                        tool,
                        SHELL if tool == "Bash" else tool,
                        tool_input,
                        command if isinstance(command, str) else None,
                        files,
                        call_cwd,
                        ok,
                        text,
                        _exit(text) if tool == "Bash" else None,
                        protocol,
                        when=asked_at,
                    )
                )
    return session


def _exit(text: str) -> int | None:
    found = _EXIT.search(text[:300])
    return int(found.group(1)) if found else None


_RUNNING = re.compile(r"Process running with session ID (\d+)")
_CODEX_SHELLS = ("exec_command", "shell", "shell_command", "container.exec", "local_shell")


def _codex_command(name: str, arguments: dict[str, Any]) -> str | None:
    raw = arguments.get("cmd", arguments.get("command"))
    if isinstance(raw, list):
        words = [str(word) for word in raw]
        if len(words) >= 3 and words[1] in ("-lc", "-c") and Path(words[0]).name in ("bash", "zsh", "sh"):
            return words[2]
        return shlex.join(words)
    return str(raw) if isinstance(raw, str) else None


def _codex_output(raw: Any) -> tuple[str, int | None, bool | None]:
    """The output's text, its exit code, and `success` when it says so."""
    if isinstance(raw, dict):
        return _text(raw.get("content", raw.get("output", ""))), None, raw.get("success")
    text = _text(raw)
    if text.lstrip().startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and ("output" in parsed or "metadata" in parsed):
            metadata = parsed.get("metadata") if isinstance(parsed.get("metadata"), dict) else {}
            code = metadata.get("exit_code", parsed.get("exit_code"))
            return str(parsed.get("output", "")), code if isinstance(code, int) else None, parsed.get("success")
    return text, _exit(text), None


def _patch_files(patch: str, cwd: str) -> tuple[str, ...]:
    found = re.findall(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", patch, re.MULTILINE)
    return tuple(dict.fromkeys(_relative(path.strip(), cwd) for path in found))


def _read_codex(index: int, session_id: str, records: list[tuple[int, dict[str, Any]]]) -> SessionCalls:
    reader = _CodexReader(SessionCalls(index, session_id, "codex", ""))
    for number, record in records:
        kind = record.get("type")
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
        sub = payload.get("type")
        if kind == "session_meta":
            reader.session.cwd = reader.session.cwd or str(payload.get("cwd") or "")
            reader.cwd = reader.cwd or reader.session.cwd
        elif kind == "turn_context" and payload.get("cwd"):
            reader.cwd = str(payload["cwd"])
        elif kind == "event_msg" and sub == "exec_command_end":
            reader.ends.setdefault(str(payload.get("call_id")), number)
        elif kind == "event_msg" and sub == "item_completed":
            item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
            if item.get("type") == "CommandExecution":
                reader.ends.setdefault(str(item.get("id")), number)
        elif kind == "response_item" and sub in ("function_call", "custom_tool_call", "local_shell_call"):
            reader.asked_for(payload, str(record.get("timestamp") or ""))
        elif kind == "response_item" and sub in (
            "function_call_output",
            "custom_tool_call_output",
            "local_shell_call_output",
        ):
            reader.answered(number, payload)
    return reader.session


class _CodexReader:
    """A rollout's calls, matched with their outputs (a command polled with `write_stdin` ends at
    the poll that says it exited)."""

    def __init__(self, session: SessionCalls) -> None:
        self.session = session
        self.cwd = ""
        self.asked: dict[str, tuple[str, dict[str, Any], str, str]] = {}  # call id -> name, arguments, cwd, when
        self.running: dict[str, str] = {}  # process id -> the exec_command call it runs
        self.polls: dict[str, str] = {}  # write_stdin call -> process id
        self.ends: dict[str, int] = {}  # call id -> line of its end event
        self.done: set[str] = set()

    def asked_for(self, payload: dict[str, Any], when: str) -> None:
        sub = payload.get("type")
        call_id = str(payload.get("call_id") or payload.get("id") or "")
        name = "local_shell" if sub == "local_shell_call" else str(payload.get("name") or "")
        if sub == "local_shell_call":
            action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
            arguments: dict[str, Any] = {"command": action.get("command", [])}
        else:
            raw = payload.get("arguments", payload.get("input"))
            try:
                parsed = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                parsed = {"input": raw}
            arguments = parsed if isinstance(parsed, dict) else {"input": raw}
        if name == "write_stdin":
            self.polls[call_id] = str(arguments.get("session_id", ""))
        self.asked[call_id] = (name, arguments, str(arguments.get("workdir") or self.cwd), when)

    def answered(self, number: int, payload: dict[str, Any]) -> None:
        call_id = str(payload.get("call_id") or "")
        if call_id not in self.asked:
            return
        name = self.asked[call_id][0]
        text, code, success = _codex_output(payload.get("output"))
        if name == "write_stdin":
            process = self.polls.pop(call_id, "")
            if _RUNNING.search(text[:400]) or process not in self.running or code is None:
                return  # still running, or a poll of nothing this rollout started
            call_id = self.running.pop(process)
        elif name in _CODEX_SHELLS and (started := _RUNNING.search(text[:400])):
            self.running[started.group(1)] = call_id
            return
        if call_id not in self.done:
            self.done.add(call_id)
            self.session.calls.append(self._call(call_id, number, text, code, success))

    def _call(self, call_id: str, number: int, text: str, code: int | None, success: Any) -> Call:
        name, arguments, cwd, when = self.asked[call_id]
        command, files, kind = None, (), name
        if name in _CODEX_SHELLS:
            command, kind = _codex_command(name, arguments), SHELL
            ok: bool | None = (code == 0) if code is not None else not text.startswith("exec_command failed")
            if ok is False and code is None and "Rejected(" in text[:400]:
                ok = None  # refused by the sandbox's policy: no failure of the command
        elif name == "apply_patch":
            patch = str(arguments.get("input", arguments.get("patch", "")))
            ok = not ("verification failed" in text[:200] or (code is not None and code != 0) or success is False)
            files = _patch_files(patch, cwd)
        else:
            ok = success is not False
        index = self.session.index
        position = len(self.session.calls)
        return Call(
            index, position, call_id, "codex", name, kind, arguments, command, files, cwd, ok, text, code,
            output_line=number, end_line=self.ends.get(call_id, -1), when=when,
        )  # fmt: skip


# ---------------------------------------------------------------- normalising


def body(text: str) -> str:
    """A Codex output without its header (everything up to `Output:` when that is a header)."""
    head, found, body = text.partition("\nOutput:\n")
    if found and all(_HEADER.match(line.strip()) for line in head.splitlines() if line.strip()):
        return body
    return text


def normalised_line(line: str, cwd: str) -> str:
    line = _SHELL_PREFIX.sub("", _ANSI.sub("", line).strip())
    if cwd:
        line = line.replace(cwd.rstrip("/") + "/", "").replace(cwd.rstrip("/"), ".")
    line = _TMP.sub("<tmp>", _HOME.sub("~", line))
    line = _NUMBER.sub("#", _HASH.sub("<hash>", line))
    return " ".join(line.split())


def raw_lines(call: Call) -> list[str]:
    """The error's lines, normalised, before noise is taken out."""
    text = _TAGS.sub("", body(call.output))
    if len(text) > 40_000:
        text = text[:20_000] + "\n" + text[-20_000:]
    lines = [normalised_line(line, call.cwd) for line in text.splitlines()]
    return [line for line in lines if line and not _HEADER.match(line.replace("#", "0"))]


def noise_lines(sessions: Iterable[SessionCalls]) -> set[str]:
    """Lines the project's calls print whether or not they fail: found (in the first and last 50
    lines of an output) in successful shell calls of NOISE_SESSIONS sessions or more, and in a share
    of the successful calls at least half their share of the failed ones (an error a pipeline's
    successful end hides stays an error)."""
    in_sessions: dict[str, set[int]] = {}
    counts: dict[str, list[int]] = {}  # line -> [successful calls, failed calls]
    calls = [0, 0]
    for session in sessions:
        for call in session.calls:
            if call.ok is None or call.kind != SHELL:
                continue
            which = 0 if call.ok else 1
            calls[which] += 1
            split = body(call.output).splitlines()
            for line in {normalised_line(line, call.cwd) for line in split[:50] + split[-50:]}:
                if line:
                    counts.setdefault(line, [0, 0])[which] += 1
                    if call.ok:
                        in_sessions.setdefault(line, set()).add(session.index)
    ok_calls, failed_calls = max(calls[0], 1), max(calls[1], 1)
    return {
        line
        for line, where in in_sessions.items()
        if len(where) >= NOISE_SESSIONS and counts[line][0] / ok_calls >= 0.5 * counts[line][1] / failed_calls
    }


def error_lines(call: Call, noise: set[str]) -> tuple[str, ...]:
    lines = [line for line in raw_lines(call) if line not in noise]
    if len(lines) > 2 * KEEP_LINES:
        lines = lines[:KEEP_LINES] + lines[-KEEP_LINES:]
    return tuple(dict.fromkeys(lines))


def prepare(sessions: list[SessionCalls]) -> None:
    """Give every failure its normalised error lines (noise from the project's own successes), and
    mark those the failures of COMMON_SESSIONS sessions or more print (a runner's wrapper lines)."""
    noise = noise_lines(sessions)
    seen: dict[str, set[int]] = {}
    for session in sessions:
        for call in session.failures:
            call.lines = error_lines(call, noise)
            for line in call.lines:
                seen.setdefault(line, set()).add(session.index)
    common = {line for line, where in seen.items() if len(where) >= COMMON_SESSIONS}
    for session in sessions:
        for call in session.failures:
            call.common = tuple(line for line in call.lines if line in common)


# ---------------------------------------------------------------- commands


_HEREDOC = re.compile(r"(<<-?\s*['\"]?(\w+)['\"]?[^\n]*)\n.*?\n\s*\2\b", re.DOTALL)
_SUBSTITUTION = re.compile(r"\$\([^()]*\)|`[^`]*`")
_DUPLICATED = re.compile(r"\d*>&(?:\d+|-)")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "|&", "(", ")"})


@lru_cache(maxsize=65536)
def _stages(command: str) -> tuple[tuple[str, ...], ...]:
    found: list[tuple[str, ...]] = []
    command = _HEREDOC.sub(r"\1", command)  # a heredoc's body is data, not commands
    for line in [_unquoted_newlines(command)]:
        line = _DUPLICATED.sub(" ", line).replace("&>", ">")  # `2>&1`: no separator
        while _SUBSTITUTION.search(line):  # `$(pwd)`, `$(cat <<EOF ...)`: a value, not a stage
            line = _SUBSTITUTION.sub("$SUB", line)
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            tokens = list(lexer)
        except ValueError:
            tokens = _OPERATORS.sub(" ; ", line).split()
        words: list[str] = []
        for token in [*tokens, ";"]:
            if token in _SEPARATORS or set(token) <= set(";&|()"):
                if words and Path(words[0]).name == "ssh":
                    remote = [word for word in words[1:] if not word.startswith("-")][1:]
                    found += _stages(" ".join(remote)) if remote else [tuple(words)]
                elif words:
                    found.append(tuple(words))
                words = []
            else:
                words.append(token)
    return tuple(found)


def _unquoted_newlines(command: str) -> str:
    """The command with every new line outside quotes read as `;` (a line-continuation as a space)."""
    out, quote, escaped = [], "", False
    for char in command:
        if escaped:
            out.append(" " if char == "\n" else char)
            escaped = False
            if char == "\n":
                out.pop(-2)  # the backslash of a continued line
            continue
        if char == "\\" and quote != "'":
            escaped = True
        elif char in "'\"" and (not quote or quote == char):
            quote = "" if quote else char
        elif char == "\n" and not quote:
            out.append(" ; ")
            continue
        out.append(char)
    return "".join(out)


def stages(command: str) -> list[list[str]]:
    """The command's simple commands, each as words, read the shell's way (quotes, `&&`, `|`, `;`,
    new lines); `ssh HOST 'COMMAND'` is the remote command's."""
    return [list(words) for words in _stages(command)]


def _unwrapped(words: list[str]) -> list[str]:
    """The words from the program on: `VAR=x`, wrappers (`sudo -u x`, `timeout 5`, `uv run`) skipped."""
    rest = list(words)
    while rest:
        while rest and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", rest[0]):
            rest.pop(0)  # VAR=value
        if not rest:
            break
        name = Path(rest[0]).name
        if name in WRAPPERS:
            rest = rest[1:]
            while rest and rest[0].startswith("-"):  # its options, and the value of those that take one
                rest = rest[2:] if rest[0] in WRAPPER_VALUED and len(rest) > 1 else rest[1:]
            rest = rest[WRAPPERS[name] :]
            continue
        if len(rest) > 1 and (name, rest[1]) in WRAPPER_PAIRS:
            rest = rest[2:]
            continue
        break
    return rest


def _first_word(program: str) -> str:
    return (program.split() or [""])[0]  # a program named by a bare `/` or `.` has no name


def _program_of(words: list[str]) -> str | None:
    rest = _unwrapped(words)
    if not rest:
        return None
    name = Path(rest[0]).name.lower()
    name = re.sub(r"^(python|pip)3(?:\.\d+)?$", r"\1", name)
    if name in INTERPRETERS:
        script = next((word for word in rest[1:] if not word.startswith("-")), "")
        if rest[1:2] != ["-c"] and rest[1:2] != ["-e"] and re.search(r"[/.]\w+$", script):
            return Path(script).name
    if name in SUITES:
        named, skip = [], False
        for word in rest[1:]:
            if skip:
                skip = False
            elif word in SUITE_VALUED:
                skip = True  # `git -C DIR`, `gh -R REPO`: the option's value is no subcommand
            elif not word.startswith("-"):
                named.append(word)
        if named[:1] == ["run"] and len(named) > 1:  # a task runner's task: `npm run lint`, `mise run test`
            return f"{name} run {named[1]}"
        return f"{name} {named[0] if named else ''}".strip()
    return name


@lru_cache(maxsize=65536)
def normalised_programs(command: str) -> frozenset[str]:
    """The programs a command runs: wrappers (`npx`, `uv run`, `sudo`, `VAR=x`) skipped, `python3`
    read as `python`, a suite (`git`, `go`, `npm` ...) with its subcommand."""
    return frozenset(program for words in stages(command) if (program := _program_of(words)))


@lru_cache(maxsize=65536)
def path_words(command: str) -> frozenset[str]:
    """The command's arguments that look like paths (hold a `/` or end in `.ext`), `./` dropped."""
    found = set()
    for words in stages(command):
        for word in words[1:]:
            if word.startswith("-") or len(word) < 3 or re.search(r"[*?$`<>{}]", word):
                continue
            if "/" in word or re.search(r"\.[A-Za-z0-9]{1,6}$", word):
                found.add(word.removeprefix("./").rstrip("/"))
    return frozenset(found)


_TOKEN = re.compile(r"[\w./@:=+~-]{2,}")


def words(call: Call, programs: frozenset[str] | None = None) -> list[str]:
    """The words of a call, for telling what changed between two calls: a shell command's words
    (when `programs` are given, of the stages that run one of them, or another
    command of the same program such as `git stash` beside `git pull`, a variable assignment or glue) cut at quotes,
    brackets, commas and the like (a query's field, a flag's value), the working folder taken out,
    a message flag's value left out; a file tool's files; another tool's string inputs."""
    if call.command is not None:
        chosen = stages(call.command)
        if programs:  # the stages that ran another program are no part of this change
            bases = {_first_word(program) for program in programs}
            chosen = [
                stage
                for stage in chosen
                if (program := _program_of(stage)) is None or _first_word(program) in bases or program in GLUE
            ]
        found = [
            _relative(word, call.cwd)
            for stage in chosen
            for before, word in zip(["", *stage], stage, strict=False)
            if before not in MESSAGE_FLAGS and not word.startswith("$(cat <<")
        ]
    else:
        found = list(call.files) + [str(value) for value in call.tool_input.values() if isinstance(value, str)][:4]
    tokens = [token.strip(".:=").rstrip("-") for word in found for token in _TOKEN.findall(word.replace("$SUB", " "))]
    return [token for token in dict.fromkeys(tokens) if len(token) >= 2 and token not in GLUE]


def _same_command(one: Call, other: Call) -> bool:
    def norm(call: Call) -> str:
        return normalised_line(call.command or "", call.cwd)

    return one.command is not None and other.command is not None and norm(one) == norm(other)


# ---------------------------------------------------------------- twins


def base_programs(command: str) -> frozenset[str]:
    """The programs of a command without a suite's subcommand (`gh pr` and `gh repo` are `gh`)."""
    return frozenset(program.split()[0] for program in normalised_programs(command))


def same_target(one: Call, other: Call) -> bool:
    if one.kind != other.kind:
        return False
    if one.kind == SHELL:
        a, b = one.command or "", other.command or ""
        return bool(base_programs(a) & base_programs(b)) or bool(path_words(a) & path_words(b))
    if one.files or other.files:
        return bool(set(one.files) & set(other.files))
    return _masked_input(one) == _masked_input(other)


def _masked_input(call: Call) -> str:
    return normalised_line(json.dumps(call.tool_input, sort_keys=True), call.cwd)


def are_twins(later: Call, earlier: Call) -> bool:
    if later.protocol or earlier.protocol:
        return later.protocol == earlier.protocol
    if not same_target(later, earlier):
        return False
    mine, theirs = set(later.lines), set(earlier.lines)
    if not mine or not theirs:
        return not mine and not theirs and _same_command(later, earlier)
    rare_mine, rare_theirs = mine - set(later.common), theirs - set(earlier.common)
    if rare_mine and rare_theirs:  # what tells the failure apart decides; a wrapper's lines do not
        mine, theirs = rare_mine, rare_theirs
    shared = len(mine & theirs)
    if shared < TWIN_SHARE * min(len(mine), len(theirs)):
        return False
    first = later.lines[0] == earlier.lines[0] and later.lines[0] not in later.common
    return first or shared >= TWIN_LONGER * max(len(mine), len(theirs))


# ---------------------------------------------------------------- recovery


def _writes(call: Call, deleting: bool = True) -> tuple[str, ...]:
    """Files a successful call wrote: a Write/Edit/apply_patch's files, a shell's redirect targets,
    `mkdir`/`touch`/`cp`/`mv` arguments (and `rm`'s, unless not `deleting`)."""
    if call.kind in ("Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"):
        return call.files
    if call.command is None:
        return ()
    found = [_relative(target, call.cwd) for target in re.findall(r">>?\s*([^\s;&|]+)", call.command)]
    for stage in stages(call.command):
        if Path(stage[0]).name in ("mkdir", "touch", "cp", "mv", "install", "ln", *(("rm",) if deleting else ())):
            found += [_relative(word, call.cwd) for word in stage[1:] if not word.startswith("-")]
        if Path(stage[0]).name in ("sed", "perl") and "-i" in " ".join(stage[1:3]):
            found += [_relative(word, call.cwd) for word in stage[2:] if "/" in word or "." in word]
    return tuple(word for word in dict.fromkeys(found) if word and not word.startswith("/dev/"))


def _named(failure: Call) -> set[str]:
    """The paths a failure names: its files, its command's path arguments, paths in its error."""
    found = set(failure.files)
    if failure.command is not None:
        found |= path_words(failure.command)
    for word in re.findall(r"[\w.~/-]+/[\w.-]+|[\w-]+\.[A-Za-z0-9]{1,6}\b", body(failure.output)[:2000]):
        found.add(_relative(word, failure.cwd).removeprefix("./"))
    return {path for path in found if len(path) >= 3}


def failing_programs(failure: Call) -> frozenset[str]:
    """The programs of the stages that failed: those whose name the error's first lines hold as a
    word; every program of the command when it names none."""
    programs = normalised_programs(failure.command or "")
    head = "\n".join(body(failure.output).splitlines()[:5])  # `cd`: the error names it; `go test`: not
    named = frozenset(p for p in programs if re.search(rf"(?<![\w./-]){re.escape(p.split()[0])}(?![\w.-])", head))
    return named or programs


def target_programs(failure: Call) -> frozenset[str]:
    """What a failed command failed on: the failing programs but glue; when only glue failed (`cd
    src` in `cd src && go test`), the programs that did not get to run."""
    return failing_programs(failure) - GLUE or normalised_programs(failure.command or "") - GLUE


def _on_target(failure: Call, call: Call) -> str | None:
    if failure.kind == SHELL and call.kind == SHELL:
        ours = target_programs(failure)
        if ours & (normalised_programs(call.command or "") - GLUE):
            return "same-target"
        theirs = normalised_programs(call.command or "")
        if ours <= VIEWERS and theirs & VIEWERS and path_words(failure.command or "") & path_words(call.command or ""):
            return "same-target"  # a look that failed, and a look at the same path that worked
        return None
    if failure.kind in SEARCHES and failure.kind == call.kind:
        return "same-target"
    if failure.kind != SHELL and failure.files:
        if set(failure.files) & set(call.files):
            return "file"
        names = {Path(path).name for path in failure.files} | {
            Path(name).name for name in _DID_YOU_MEAN.findall(failure.output[:500])
        }
        if failure.kind == call.kind and names & {Path(path).name for path in call.files}:
            return "file"
        return None
    if failure.kind != SHELL and failure.kind == call.kind:
        return "same-target"
    return None


def recovery(failure: Call, session: SessionCalls) -> Recovery | None:
    """How the session recovered from `failure`, or None (see the module doc)."""
    later = [call for call in session.calls if call.seq > failure.seq][:RECOVERY_WINDOW]
    wrote: list[str] = []
    steps: list[Call] = []
    bases = {program.split()[0] for program in target_programs(failure)} if failure.command is not None else set()
    for call in later:
        if call.ok is True:
            via = _on_target(failure, call)
            if via is not None:
                found = _recovered(failure, call, via, wrote)
                found.steps = tuple(_recovered(failure, step, "step", []) for step in steps)
                return found
            wrote += _writes(call)
            if call.command is not None and bases & base_programs(call.command):
                steps.append(call)
    if not _MISSING.search(body(failure.output)[:2000]):
        return None
    named = _named(failure)
    wrote = []
    for call in later:
        if call.ok is True:
            written = _writes(call, deleting=False)
            if any(path in named or Path(path).name in {Path(n).name for n in named} for path in written):
                return _recovered(failure, call, "wrote", wrote)
            wrote += written
    return None


def _recovered(failure: Call, call: Call, via: str, wrote: list[str]) -> Recovery:
    programs = None
    if failure.command is not None and call.command is not None:
        programs = target_programs(failure) & normalised_programs(call.command) or None
    before, after = _masked_words(failure, programs), _masked_words(call, programs)
    added = tuple(word for word in after if word not in set(before))
    dropped = tuple(word for word in before if word not in set(after))
    changed = tuple(dict.fromkeys(Path(path).name for path in (*wrote, *_writes(call)) if path))
    return Recovery(failure, call, via, added, dropped, changed, not added and not dropped and not changed)


def _masked_words(call: Call, programs: frozenset[str] | None = None) -> list[str]:
    return list(dict.fromkeys(_NUMBER.sub("#", _HASH.sub("<hash>", word)) for word in words(call, programs)))


# ---------------------------------------------------------------- answers


_QUOTED = re.compile(r"`([^`]+)`")


def answer_holds(answer: str, recovered: Recovery) -> bool:
    """Whether an answer holds the fix the session then made: the recovering command, or one of
    the same program that worked in between (`steps`), quoted whole (a quoted command that is it,
    or starts with it); or a command quoted in the answer that runs a program the recovering one
    ran and holds at least half of the first CHANGE_WORDS words it added, or none of those it
    dropped and at least half of the failed command's other words; or, in an answer that quotes
    nothing, half of the added words in its text; or the name of a file changed between failure and
    recovery; or, for a retry, words that say it was run again.

    What the answer quotes: the commands between single backticks in its prose, and in a fenced
    record (the hook's ``` block of `failed:`, `error:`, `worked:` and `change:` lines) the
    `worked:` line's command and what the `change:` line quotes; a `change:` line that says the fix
    went `without `X`` holds a recovery that only dropped words when X holds half of them. The
    `failed:` and `error:` lines are the failure, not its fix: they count for nothing (a file the
    error names is not a file the answer says was changed)."""
    quoted, flat, without = _answer_parts(answer)
    return _said_without(without, recovered) or _holds_fix(quoted, flat, answer, recovered)


def answer_holds_v1(answer: str, recovered: Recovery) -> bool:
    """`answer_holds` as it was first written (kept to report its figures beside the new ones):
    everything between two backticks is a quote, so a fenced record was read as one quote holding
    all its lines, and its `worked:` command was never compared on its own; and the whole answer,
    error lines included, is searched for changed files' names."""
    if not answer:
        return False
    quoted = [" ".join(found.split()).lower() for found in _QUOTED.findall(answer)]
    return _holds_fix(quoted, " ".join(answer.split()).lower(), answer, recovered)


_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.S)


def _answer_parts(answer: str) -> tuple[list[str], str, set[str]]:
    """(the commands the answer quotes, its text without the failure's own lines, the words its
    `change:` lines say the fix went without), lower case."""
    prose = _FENCED.sub(" ", answer)
    quoted = _QUOTED.findall(prose)
    said = [prose]
    without: set[str] = set()
    for block in _FENCED.findall(answer):
        for line in block.splitlines():
            key, _, value = line.partition(":")
            key = key.strip().lower()
            if key in ("failed", "error"):
                continue
            if key == "worked":
                quoted.append(value.strip())
            elif key == "change":
                quoted += _QUOTED.findall(value)
                without |= {word for found in _WITHOUT.findall(value) for word in _held(found)}
            said.append(line)
    quoted = [" ".join(found.split()).lower() for found in quoted if found.strip()]
    return quoted, " ".join(" ".join(said).split()).lower(), without


_WITHOUT = re.compile(r"\bwithout `([^`]+)`")


def _said_without(without: set[str], recovered: Recovery) -> bool:
    """The record's `change:` line says the fix dropped what the recovery dropped (`without `-C
    dir``): at least half of the words it dropped, masked, and it added nothing."""
    if recovered.added or not recovered.dropped or not without:
        return False
    dropped = [word.lower() for word in recovered.dropped]
    return sum(_holds(without, word) for word in dropped) >= max(1, math.ceil(len(dropped) / 2))


def _holds_fix(quoted: list[str], flat: str, answer: str, recovered: Recovery) -> bool:
    if not answer:
        return False
    if any(_change_held(flat, quoted, step) for step in (recovered, *recovered.steps)):
        return True
    if recovered.changed_files and any(name.lower() in flat for name in recovered.changed_files):
        return True
    return recovered.retry and bool(_RETRY.search(flat))


def _change_held(flat: str, quoted: list[str], recovered: Recovery) -> bool:
    command = " ".join((recovered.call.command or "").split()).lower()
    if command and any(found == command or found.startswith(command + " ") for found in quoted):
        return True
    if command and not quoted and command in flat:
        return True
    added = [word.lower() for word in recovered.added[:CHANGE_WORDS]]
    dropped = {word.lower() for word in recovered.dropped}
    enough = max(1, math.ceil(len(added) / 2))
    if added and not quoted and sum(word in _masked_text(flat) for word in added) >= enough:
        return True
    programs = normalised_programs(recovered.call.command or "")
    for found in quoted:
        if recovered.call.command is not None and not normalised_programs(found) & programs:
            continue  # a command that does not run what the recovery ran
        held = _held(found)
        if added and sum(_holds(held, word) for word in added) >= enough:
            return True
        kept = [word.lower() for word in _masked_words(recovered.failure) if word.lower() not in dropped]
        if dropped and not dropped & held and sum(word in held for word in kept) >= max(1, math.ceil(len(kept) / 2)):
            return True  # the failed command without what the recovery dropped
    return False


def _held(quoted: str) -> set[str]:
    """A quoted command's words as `answer_holds` compares them: masked, and cut at `:` too (PATH)."""
    tokens = {
        _NUMBER.sub("#", _HASH.sub("<hash>", token.strip(".:=").rstrip("-").lower()))
        for token in _TOKEN.findall(quoted)
    }
    return tokens | {part for token in tokens for part in token.split(":") if len(part) >= 2}


def _holds(held: set[str], word: str) -> bool:
    """The word is one of the words, or (6 characters or more) one holds the other (a path and its folder)."""
    return word in held or (
        len(word) >= 6 and any(len(token) >= 6 and (word in token or token in word) for token in held)
    )


def _masked_text(text: str) -> str:
    return _NUMBER.sub("#", _HASH.sub("<hash>", text))
