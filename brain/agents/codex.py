"""Codex CLI: its config and hooks (`$CODEX_HOME`, by default `~/.codex`, or a project's `.codex/`,
which Codex reads in a project the user trusts), and its rollouts.

`config.toml`: a `[mcp_servers.brain]` table and a top-level `notify` program, each in a block of
marked lines that uninstall removes. `notify` runs after every turn (TUI and `codex exec`, every
version), its JSON as the last argument, and extracts the session. `hooks.json` (Claude Code's
shape): context at session start and at the first prompt, extraction at each turn's Stop; Codex
runs them once the user trusts them (`/hooks`), which its user config records per hook as
`[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`. brain never writes that trust.
tomllib, which only install and status need, is imported where it is used.

Rollouts (`sessions/YYYY/MM/DD/rollout-*.jsonl`), lines `{timestamp, type, payload}`: `session_meta`
(id, cwd, git branch and remote), `turn_context`, `response_item` (messages, reasoning, tool calls and
their outputs), `event_msg` (`token_count`, `turn_aborted`, `user_message`; the rest counted),
`compacted`, `token_usage_record`, `world_state`; a later version's type is counted and skipped.

A tool result is an error when its output says so: a JSON output whose `metadata.exit_code` is not
0, a text output `Exit code: N` / `Process exited with code N` with N not 0, or a `success: false`.

Unified exec (Codex 0.12x): `exec_command` starts a command and answers `Process running with
session ID N` when it has not finished within its wait; the agent then polls it with `write_stdin`
(`session_id` N) until an answer says `Process exited with code C`. That answer is the command's
result, given to its `exec_command` call; a poll that finds the command still running is no result
of any call (the polls are tool calls all the same), and a poll that fails is its own error.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from brain.agents import runtime, settings
from brain.agents.agent import Agent, Target
from brain.agents.settings import Commands, json_object, split_command
from brain.errors import InvalidInput
from brain.memory.sessions.commands import exit_code
from brain.memory.sessions.transcripts import Act, ReadStats, TranscriptReader, json_records, obj, text_of

KNOWN = frozenset(
    {"session_meta", "response_item", "turn_context", "event_msg", "compacted", "token_usage_record", "world_state"}
)
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


# Codex's event -> brain's hook. No PostToolUse -> tool-failure: Codex 0.171 hands it a shell call's
# output without its exit code, so a failed call cannot be told from one that printed an error.
EVENTS = {"SessionStart": "codex-session-start", "UserPromptSubmit": "codex-first-prompt", "Stop": "codex-stop"}
BEGIN = "# >>> brain (added by `brain hooks install codex`; `brain hooks uninstall codex` removes it)"
END = "# <<< brain"


# ---------------------------------------------------------------- where brain writes


def codex_home(home: Path) -> Path:
    """Codex's own folder: `$CODEX_HOME` when set, as Codex reads it, else `~/.codex`."""
    value = os.environ.get("CODEX_HOME")
    return Path(value).expanduser().absolute() if value else home / ".codex"


def targets(scope: str, project_dir: Path, home: Path) -> list[Target]:
    """User scope: Codex's own folder; project scope: the project's `.codex/`, local files (this machine's paths)."""
    if scope == "project":
        folder = project_dir / ".codex"
        return [
            Target(folder / "config.toml", "notify and mcp server", "local", project_dir),
            Target(folder / "hooks.json", "hooks", "local", project_dir),
        ]
    folder = codex_home(home)
    return [Target(folder / "config.toml", "notify and mcp server"), Target(folder / "hooks.json", "hooks")]


def merged(target: Target, text: str | None, commands: Commands | None) -> str | None:
    if target.what == "hooks":
        data = json_object(target.path, text) if text is not None else {}
        if commands is None:
            new = settings.without_json_hooks(data, is_ours)
        else:
            hooks = {event: _handler(commands.hook(name)) for event, name in EVENTS.items()}
            new = settings.with_json_hooks(data, hooks, is_ours)
        return text if new == data else settings.dump_json(new, text or "")
    if commands is None:
        return without_codex_blocks(text) if text is not None else None
    return with_codex_blocks(text or "", commands)


def _handler(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": 10}


def entries(target: Target, text: str) -> tuple[tuple[str, ...], str | None]:
    """brain's entries, a hook with whether Codex runs it, and what is wrong with the file (one that
    is not TOML still shows brain's marked lines)."""
    import tomllib

    if target.what == "hooks":
        found = trust_of(target.path, text, codex_home(Path.home()) / "config.toml")
        return tuple(f"{event}: {command}  ({_TRUST[trust]})" for event, command, trust in found), None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return tuple(codex_installed(text)), f"not TOML ({error})"
    return tuple(codex_installed(text)), None


def commands_named(target: Target, text: str) -> list[list[Any]]:
    """brain's commands in a config.toml or hooks.json, each whole (the program first)."""
    import tomllib

    if target.what == "hooks":
        try:
            return [
                split_command(h["command"]) for *_, h in settings.json_hooks_in(json_object(target.path, text), is_ours)
            ]
        except InvalidInput:
            return []
    try:
        data = tomllib.loads("\n".join(codex_installed(text))) if BEGIN in text else {}
    except tomllib.TOMLDecodeError:
        return []
    servers = data.get("mcp_servers")
    server = servers.get("brain") if isinstance(servers, dict) else None
    args = server.get("args") if isinstance(server, dict) else None
    server_command = [server.get("command"), *args] if isinstance(server, dict) and isinstance(args, list) else []
    return [command for command in (data.get("notify"), server_command) if isinstance(command, list) and command]


def to_do(target: Target, text: str) -> str | None:
    """What the user still does for Codex to run what brain wrote: trust the hooks, trust the project."""
    config = codex_home(Path.home()) / "config.toml"
    if target.what == "hooks":
        waiting = [event for event, _, trust in trust_of(target.path, text, config) if trust != "trusted"]
        if waiting:
            return (
                f"Codex runs brain's {', '.join(waiting)} hooks once you trust them: in codex, type /hooks, trust each"
            )
    elif target.project is not None and not _trusted_project(target.project, config):
        return f"Codex reads {target.path.parent} only in a trusted project: run `codex exec --trust` there once"
    return None


# ---------------------------------------------------------------- config.toml, as text


def codex_blocks(commands: Commands) -> tuple[str, str]:
    """(the block for the top of config.toml, the block for its end)."""
    notify = [commands.brain, "hooks", "run", "codex-notify", "--vault", commands.vault]
    top = f"{BEGIN}\nnotify = {settings.toml_list(notify)}\n{END}\n"
    server = commands.mcp()
    command, args = settings.toml_string(server["command"]), settings.toml_list(server["args"])
    table = f"[mcp_servers.brain]\ncommand = {command}\nargs = {args}\n"
    end = f"{BEGIN}\n{table}{END}\n"
    return top, end


def without_codex_blocks(text: str) -> str:
    pattern = re.compile(rf"(?m)^{re.escape(BEGIN)}\n.*?^{re.escape(END)}\n?", re.DOTALL)
    return pattern.sub("", text)


def with_codex_blocks(text: str, commands: Commands) -> str:
    """config.toml with brain's blocks; refuses a file whose own `notify` or `[mcp_servers.brain]` is in the way."""
    import tomllib

    base = without_codex_blocks(text)
    try:
        data = tomllib.loads(base)
    except tomllib.TOMLDecodeError as error:
        raise InvalidInput(f"it is not valid TOML ({error}); fix it, then install again") from None
    if "notify" in data:
        raise InvalidInput(
            "it already sets 'notify' to another program; Codex runs only one, so remove it and install again"
        )
    if isinstance(data.get("mcp_servers"), dict) and "brain" in data["mcp_servers"]:
        raise InvalidInput("it already has [mcp_servers.brain] that brain did not add; rename it, then install again")
    top, end = codex_blocks(commands)
    body = base if not base or base.endswith("\n") else base + "\n"
    merged = top + body + end
    tomllib.loads(merged)  # what brain writes must parse
    return merged


def codex_installed(text: str) -> list[str]:
    """The lines of brain's blocks in a config.toml, without the markers."""
    pattern = re.compile(rf"(?m)^{re.escape(BEGIN)}\n(.*?)^{re.escape(END)}", re.DOTALL)
    return [line for block in pattern.findall(text) for line in block.splitlines() if line.strip()]


# ---------------------------------------------------------------- hooks.json, and whether Codex runs them


def is_ours(hook: Any) -> bool:
    """A hook brain wrote: exactly `<brain> hooks run codex-... --vault V [--namespace N]...`."""
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and settings.is_brain_hook(split_command(command), tuple(EVENTS.values()))


_SNAKE = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop"}
_TRUST = {"trusted": "trusted", "modified": "changed since trusted: /hooks", "untrusted": "not trusted yet: /hooks"}


def trust_hash(event: str, hook: dict[str, Any]) -> str:
    """Codex's hash of a command hook (no matcher): SHA-256 of the canonical JSON (keys sorted,
    compact) of its normalized identity, the event and the handler with its timeout and `async`."""
    handler = {"type": "command", "command": hook.get("command", ""), "async": False}
    handler["timeout"] = max(int(hook.get("timeout") or 600), 1)
    identity = {"event_name": _SNAKE.get(event, event), "hooks": [handler]}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def trust_of(path: Path, text: str, config: Path) -> list[tuple[str, str, str]]:
    """(event, command, trust) of each of brain's hooks in a hooks.json, as Codex's user config
    records it (`[hooks.state."<path>:<event>:<group>:<handler>"] trusted_hash`): `trusted`,
    `modified` (trusted before the hook changed) or `untrusted`."""
    state = settings.toml_table(config, "hooks", "state")
    found = []
    for event, group, index, hook in settings.json_hooks_in(json_object(path, text), is_ours):
        entry = state.get(f"{path}:{_SNAKE.get(event, event)}:{group}:{index}")
        recorded = entry.get("trusted_hash") if isinstance(entry, dict) else None
        trust = "untrusted" if recorded is None else "trusted" if recorded == trust_hash(event, hook) else "modified"
        found.append((event, hook["command"], trust))
    return found


def _trusted_project(project: Path, config: Path) -> bool:
    """Whether Codex's user config trusts the project or a folder above it (`[projects."<folder>"]`)."""
    projects = settings.toml_table(config, "projects")
    levels = (projects.get(str(folder)) for folder in (project, *project.parents))
    return any(isinstance(level, dict) and level.get("trust_level") == "trusted" for level in levels)


# ---------------------------------------------------------------- the hooks


def find_rollout(thread: str, codex_home: Path) -> Path | None:
    """The newest rollout file of a Codex thread under `<codex home>/sessions/YYYY/MM/DD/`."""
    if not re.fullmatch(r"[A-Za-z0-9-]{8,}", thread):
        return None
    found = sorted((codex_home / "sessions").glob(f"*/*/*/rollout-*{thread}.jsonl"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def _notify(request: runtime.HookRequest) -> runtime.HookResult:
    """Codex's `notify` program, after every turn (its JSON comes as the last argument)."""
    if request.payload.get("type") == "agent-turn-complete":
        _extract(request, "codex-notify", str(request.payload.get("thread-id") or ""), "")
    return runtime.HookResult("codex-notify")


def _session_start(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.session_start(request, "SessionStart")


def _prompt(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.first_prompt(request, "UserPromptSubmit")


def _stop(request: runtime.HookRequest) -> runtime.HookResult:
    """The Stop hook, at every turn's end (its JSON on stdin)."""
    payload = request.payload
    _extract(request, "codex-stop", str(payload.get("session_id") or ""), str(payload.get("transcript_path") or ""))
    return runtime.HookResult("Stop")


def _extract(request: runtime.HookRequest, event: str, thread: str, transcript: str) -> None:
    """The thread's rollout (`transcript`, else the newest of the thread) is extracted in the
    background; one unchanged since its last extraction is skipped there."""
    rollout = Path(transcript) if transcript else find_rollout(thread, codex_home(Path.home()))
    if rollout is None:
        raise InvalidInput(f"no Codex rollout file for thread {thread}")
    runtime.start_extraction(event, request.memory, rollout, thread or rollout.stem, "codex")


HOOKS: dict[str, runtime.Hook] = {
    "codex-notify": _notify,
    "codex-session-start": _session_start,
    "codex-first-prompt": _prompt,
    "codex-stop": _stop,
}


# ---------------------------------------------------------------- rollouts


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    last_usage: tuple[int, int, int, int] | None = None
    last_at: str | None = None
    execs = _UnifiedExec()
    for record in json_records(path, stats):
        kind = str(record.get("type"))
        payload = obj(record.get("payload"))
        sub = payload.get("type")
        stats.count(f"{kind}.{sub}" if kind in ("response_item", "event_msg") and sub else kind, kind in KNOWN)
        when = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if kind == "session_meta":
            stats.session_id = stats.session_id or (str(payload["id"]) if payload.get("id") else None)
            stats.cwd = stats.cwd or (str(payload["cwd"]) if payload.get("cwd") else None)
            git = obj(payload.get("git"))
            stats.git_branch = stats.git_branch or (str(git["branch"]) if git.get("branch") else None)
            stats.git_remote = stats.git_remote or (str(git["repository_url"]) if git.get("repository_url") else None)
            yield Act("meta", when)
        elif kind == "response_item":
            yield from execs.route(_item(payload, when))
        elif kind == "event_msg" and sub == "token_count":
            usage = _usage(payload.get("info"))
            if usage is not None:
                last_usage, last_at = usage, when
            yield Act("meta", when)
        elif kind == "event_msg" and sub == "user_message":
            # What the person typed. A rollout holds it as a `message` item too (just before, with
            # the same text) or, in some versions, only here.
            text = _request(str(payload.get("message") or ""))
            if text.strip() and text.strip() != execs.last_request:
                yield Act("user", when, text=text)
            else:
                yield Act("meta", when)
            execs.last_request = None
        elif kind == "event_msg" and sub == "turn_aborted":
            yield Act("interrupt", when, text=f"aborted the turn ({payload.get('reason', 'interrupted')})")
        else:
            yield Act("meta", when)
    if last_usage is not None:  # token_count carries running totals: the last one is the session's
        yield Act("usage", last_at, tokens=last_usage)


def _usage(info: Any) -> tuple[int, int, int, int] | None:
    total = info.get("total_token_usage") if isinstance(info, dict) else None
    if not isinstance(total, dict):
        return None

    def number(key: str) -> int:
        value = total.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    cached = number("cached_input_tokens")
    return (number("input_tokens") - cached, number("output_tokens"), cached, 0)


def _item(payload: dict[str, Any], when: str | None) -> Iterator[Act]:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        text = text_of(payload.get("content"))
        if role == "user" and text.strip():
            yield Act("user", when, text=_request(text))
        elif role == "assistant" and text.strip():
            yield Act("agent", when, text=text)
        else:
            yield Act("meta", when)
    elif kind == "reasoning":
        summary = payload.get("summary")
        yield Act("thinking", when, text=text_of(summary) if isinstance(summary, list) else "")
    elif kind in _CALLS:
        yield Act(
            "call",
            when,
            name=_name(payload),
            call_id=str(payload.get("call_id") or payload.get("id") or ""),
            args=_args(payload),
        )
    elif kind in _OUTPUTS:
        text, is_error = _output(payload.get("output"))
        yield Act("result", when, text=text, call_id=str(payload.get("call_id", "")), is_error=is_error)
    else:
        yield Act("meta", when)


def _name(payload: dict[str, Any]) -> str:
    if payload.get("type") == "local_shell_call":
        return "local_shell"
    return str(payload.get("name", ""))


def _args(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("type") == "local_shell_call":
        action = obj(payload.get("action"))
        return {"command": action.get("command", [])}
    raw = payload.get("arguments", payload.get("input"))
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"input": raw}  # apply_patch sends the patch itself
        return parsed if isinstance(parsed, dict) else {"input": raw}
    return {}


def _output(output: Any) -> tuple[str, bool]:
    """The text of a tool output and whether it reports a failure."""
    if isinstance(output, dict):
        text = str(output.get("content", output.get("output", "")))
        return text, output.get("success") is False
    text = output if isinstance(output, str) else text_of(output)
    try:
        parsed = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        metadata = obj(parsed.get("metadata"))
        code = metadata.get("exit_code", parsed.get("exit_code"))
        body = str(parsed.get("output", text))
        return body, (isinstance(code, int) and code != 0) or parsed.get("success") is False
    code = exit_code(text)
    return text, code is not None and code != 0


_RUNNING = re.compile(r"^Process running with session ID (\d+)$", re.MULTILINE)
_HEADER = re.compile(
    r"\A(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count)\b"
)


class _UnifiedExec:
    """Gives a command started by `exec_command` the result a later `write_stdin` poll reports (see
    the module doc), and remembers the last request an item held (its `user_message` event repeats it)."""

    def __init__(self) -> None:
        self.calls: dict[str, str] = {}  # call id -> tool name
        self.polled: dict[str, str] = {}  # a write_stdin call id -> the process it polls
        self.running: dict[str, str] = {}  # process id -> the exec_command call that started it
        self.last_request: str | None = None  # the last user message item, which a user_message event repeats

    def route(self, acts: Iterator[Act]) -> Iterator[Act]:
        for act in acts:
            if act.kind == "call":
                self.calls[act.call_id] = act.name
                if act.name == "write_stdin":
                    self.polled[act.call_id] = str(act.args.get("session_id", ""))
                yield act
            elif act.kind == "user":
                self.last_request = act.text.strip()
                yield act
            elif act.kind == "result" and (name := self.calls.pop(act.call_id, "")) in ("exec_command", "write_stdin"):
                yield from self._result(act, name)
            else:
                yield act

    def _result(self, act: Act, name: str) -> Iterator[Act]:
        running = _RUNNING.search(act.text[:400])
        text = _body(act.text)
        if name == "exec_command":
            if running:
                self.running[running.group(1)] = act.call_id
            else:
                yield replace(act, text=text)
            return
        process = self.polled.pop(act.call_id, "")
        if running:
            return  # still running: no result yet
        started = self.running.pop(process, None)
        if started is not None and exit_code(act.text) is not None:
            yield replace(act, call_id=started, text=text)
        elif act.is_error or act.text.startswith("write_stdin failed"):
            yield replace(act, is_error=True, text=act.text.removeprefix("write_stdin failed: "))


def _body(text: str) -> str:
    """A unified exec answer without its header lines (chunk id, wall time, exit code, ...)."""
    head, found, body = text.partition("\nOutput:\n")
    if found and all(_HEADER.match(line) for line in head.splitlines() if line.strip()):
        return body
    return text


_IDE_REQUEST = "## My request for Codex:"


def _request(text: str) -> str:
    """The request of a message the Codex IDE extension wrote ('# Files mentioned by the user: ...
    ## My request for Codex: <request>'), else the message."""
    _, found, request = text.partition(_IDE_REQUEST)
    return request.strip() if found and request.strip() else text


def detects(record: dict[str, Any]) -> bool:
    return record.get("type") in KNOWN and isinstance(record.get("payload"), dict)


AGENT = Agent(
    name="codex",
    reader=TranscriptReader(format="codex", agent="Codex", label="Codex CLI", detects=detects, read=read),
    targets=targets,
    merged=merged,
    entries=entries,
    vaults_named=lambda target, text: settings.vaults_in(commands_named(target, text)),
    programs_named=lambda target, text: settings.programs_in(commands_named(target, text)),
    hooks=HOOKS,
    store=lambda home: codex_home(home) / "sessions",
    to_do=to_do,
)
