"""Gemini CLI: its settings (`.gemini/settings.json`: hooks and MCP servers in one file) and its chats.

Settings: one command hook per event under `hooks.<Event>`, each in a matcher group of its own and
named `brain <hook>`; the MCP server under `mcpServers.brain`. Gemini CLI takes a hook's timeout in
milliseconds. Its hooks speak Claude Code's protocol: the hook JSON on stdin (`session_id`,
`transcript_path`, `cwd`, `hook_event_name`, `prompt` for BeforeAgent, `tool_name`, `tool_input` and
`tool_response` for AfterTool) and `hookSpecificOutput.additionalContext` back, which Gemini CLI puts
in a `<hook_context>` block: before the first prompt (SessionStart, BeforeAgent: so BeforeAgent's
`prompt` holds the session start's block too), after a tool's result (AfterTool). SessionEnd is not
waited for: brain's answers at once and extracts in a detached process. As Gemini CLI 0.61.0 does
all this was checked with the real CLI (tests/e2e/gemini_e2e.py).

Chats (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, `<project>` a short name
`projects.json` maps the project's folder to): a first line of metadata (`sessionId`, `projectHash`,
`startTime`), then message records (`id`, `timestamp`, `type`: user, gemini, info, error, warning;
`content`; a gemini message's `toolCalls`, `thoughts`, `tokens`). A message is written again
whenever it changes (its tool calls' results arrive later), so the last record of an id is the
message; `{"$rewindTo": id}` drops that message and every later one; `{"$set": ...}` updates the
metadata, and `$set.messages` replaces the whole history (the first one holds the
`<session_context>` message Gemini CLI starts a chat with). A shell command that ran is a `success`
whatever its exit code: its exit code is read from its result (`gemini_calls`). Earlier versions
wrote one JSON document (`session-*.json`, the same fields with `messages` in it), read when the
format is given (`--format gemini`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brain.agents import runtime
from brain.agents.agent import Agent, Target
from brain.agents.gemini_calls import SHELL, failure_of, shell_outcome, unwrapped
from brain.agents.settings import (
    Commands,
    dump_json,
    is_brain_hook,
    json_hooks_in,
    json_object,
    json_object_or_none,
    mcp_server_entries,
    programs_in,
    server_command,
    split_command,
    vaults_in,
    with_json_hooks,
    with_mcp_server,
    without_json_hooks,
    without_mcp_server,
)
from brain.errors import InvalidInput
from brain.memory.sessions.transcripts.files import Act, ReadStats, TranscriptReader, json_records, loads, obj, text_of

EVENTS = {  # Gemini CLI's event -> brain's hook, and how long Gemini CLI may wait for it (ms)
    "SessionStart": ("gemini-session-start", 10_000),
    "BeforeAgent": ("gemini-first-prompt", 10_000),
    "AfterTool": ("gemini-tool-failure", 10_000),
    "PreCompress": ("gemini-session-end", 10_000),
    "SessionEnd": ("gemini-session-end", 10_000),
}
_MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
_HOOK_NAMES = tuple(dict.fromkeys(name for name, _ in EVENTS.values()))
# Gemini CLI's tools, as the sessions domain knows them: `replace` edits a file like Claude Code's Edit.
_TOOL_NAMES = {"replace": "edit_file"}


# ---------------------------------------------------------------- hooks


def _session_start(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.session_start(request, "SessionStart")


def _first_prompt(request: runtime.HookRequest) -> runtime.HookResult:
    """BeforeAgent hands the prompt as the model gets it: the session start's context before it, in a
    `<hook_context>` block, which is no part of the task."""
    from brain.memory.sessions.transcripts.files import request_text

    prompt = request_text(str(request.payload.get("prompt") or ""))
    asked = runtime.HookRequest(
        request.memory, {**request.payload, "prompt": prompt}, request.budget, request.namespaces
    )
    return runtime.first_prompt(asked, "BeforeAgent")


def _tool_failure(request: runtime.HookRequest) -> runtime.HookResult:
    """AfterTool, after every tool call: a call that failed (a shell command's exit code other than 0,
    a tool's error) is looked up as Claude Code's failed calls are; any other gets nothing. The answer
    reaches the model after the tool's result, in a `<hook_context>` block."""
    error = failure_of(request.payload)
    if error is None:
        return runtime.HookResult("AfterTool")
    failed = runtime.HookRequest(
        request.memory, {**request.payload, "error": error}, request.budget, request.namespaces
    )
    return runtime.tool_failure(failed, "AfterTool")


def _session_end(request: runtime.HookRequest) -> runtime.HookResult:
    """SessionEnd and PreCompress: the chat (`transcript_path`) is extracted in the background."""
    return runtime.transcript_end(request, "gemini-session-end", "gemini")


HOOKS: dict[str, runtime.Hook] = {
    "gemini-session-start": _session_start,
    "gemini-first-prompt": _first_prompt,
    "gemini-tool-failure": _tool_failure,
    "gemini-session-end": _session_end,
}


def transcript_store(home: Path) -> Path:
    """Where Gemini CLI keeps its chats: `tmp/` of its folder (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`)."""
    configured = os.environ.get("GEMINI_CLI_HOME")
    return (Path(configured).expanduser() if configured else home) / ".gemini" / "tmp"


# ---------------------------------------------------------------- settings: .gemini/settings.json


def targets(scope: str, project_dir: Path, home: Path) -> list[Target]:
    """One file holds the hooks and the MCP server: the project's `.gemini/settings.json` (this
    machine's paths, so a file brain creates is kept out of git), or the user's `~/.gemini/settings.json`."""
    if scope == "project":
        return [Target(project_dir / ".gemini" / "settings.json", "hooks and mcp server", "local", project_dir)]
    return [Target(home / ".gemini" / "settings.json", "hooks and mcp server")]


def merged(target: Target, text: str | None, commands: Commands | None) -> str | None:
    data = json_object(target.path, text) if text is not None else {}
    if commands is None:
        new = without_mcp_server(_without_hooks(data))
    else:
        new = _with_server(_with_hooks(data, commands), commands)
    if new == data:
        return text
    return dump_json(new, text or "")


def _with_server(settings: dict[str, Any], commands: Commands) -> dict[str, Any]:
    """The settings with brain's MCP server as Gemini CLI writes one: no `type` (it tells stdio by `command`)."""
    result = with_mcp_server(settings, commands)
    result["mcpServers"]["brain"].pop("type", None)
    return result


def entries(target: Target, text: str) -> tuple[tuple[str, ...], str | None]:
    data = json_object(target.path, text)
    hooks = tuple(f"{event}: {command}" for event, command in _hooks_in(data))
    return hooks + mcp_server_entries(data), None


def commands_named(target: Target, text: str) -> list[Any]:
    """brain's hooks and MCP server in a settings text, each a whole command (the program first)."""
    data = json_object_or_none(text)
    if data is None:
        return []
    return [*(split_command(command) for _, command in _hooks_in(data)), server_command(data.get("mcpServers"))]


def _is_ours(hook: Any) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and is_brain_hook(split_command(command), _HOOK_NAMES)


def _without_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    return without_json_hooks(settings, _is_ours)


def _with_hooks(settings: dict[str, Any], commands: Commands) -> dict[str, Any]:
    """The settings with brain's hooks, each named `brain <hook>`, replacing brain's own."""
    handlers = {
        event: {"type": "command", "name": f"brain {name}", "command": commands.hook(name), "timeout": timeout}
        for event, (name, timeout) in EVENTS.items()
    }
    return with_json_hooks(settings, handlers, _is_ours)


def _hooks_in(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) of every brain hook in the settings."""
    return [(event, hook["command"]) for event, _, _, hook in json_hooks_in(settings, _is_ours)]


# ---------------------------------------------------------------- chats


def detects(record: dict[str, Any]) -> bool:
    """A chat's first line: its metadata (Claude Code's records have a `type`; this line has none)."""
    return isinstance(record.get("sessionId"), str) and "projectHash" in record and "type" not in record


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    """The acts of a chat, each message as last written, a rewind applied, a whole history set by
    `$set.messages` put in place of the messages before it (as Gemini CLI loads a chat)."""
    messages: dict[str, dict[str, Any]] = {}
    for record in _records(path, stats):
        if isinstance(record.get("$rewindTo"), str):
            stats.count("$rewindTo", True)
            ids = list(messages)
            cut = ids.index(record["$rewindTo"]) if record["$rewindTo"] in ids else 0
            for gone in ids[cut:]:
                del messages[gone]
        elif _is_message(record):
            stats.count(str(record["type"]), True)
            messages[record["id"]] = record  # written again: the new text, in its first place (as Gemini CLI reads it)
        elif (isinstance(record.get("sessionId"), str) and "projectHash" in record) or isinstance(
            record.get("$set"), dict
        ):
            stats.count("metadata", True)
            stats.session_id = stats.session_id or record.get("sessionId")
            history = obj(record.get("$set")).get("messages")
            if isinstance(history, list):
                messages = {message["id"]: message for message in history if _is_message(message)}
        else:
            stats.count(str(record.get("type", "unknown")), False)
    for message in messages.values():
        yield from _message_acts(message)


def _is_message(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("id"), str) and record.get("type") in _MESSAGE_TYPES


def _records(path: Path, stats: ReadStats) -> Iterator[dict[str, Any]]:
    """JSON Lines, or one JSON document of an earlier version (its metadata, then its messages)."""
    if path.suffix.lower() == ".json":
        try:
            document = loads(path.read_text(encoding="utf-8"))  # a value nested too deep is left out
        except (OSError, ValueError) as error:
            raise InvalidInput(f"{path.name} is not a Gemini CLI chat: {error}") from None
        stats.files += 1
        if isinstance(document, dict):
            yield {key: value for key, value in document.items() if key != "messages"}
            for message in document.get("messages") or []:
                stats.lines += 1
                if isinstance(message, dict):
                    yield message
        return
    yield from json_records(path, stats)


def _message_acts(message: dict[str, Any]) -> Iterator[Act]:
    when = message.get("timestamp") if isinstance(message.get("timestamp"), str) else None
    kind = message.get("type")
    text = text_of(message.get("content"))
    if kind == "user":
        yield Act("user", when, text=text) if text.strip() else Act("meta", when)
        return
    if kind != "gemini":
        yield Act("meta", when, text=text[:200] if kind == "error" else "")
        return
    for thought in message.get("thoughts") or []:
        if isinstance(thought, dict):
            yield Act("thinking", when, text=f"{thought.get('subject', '')}: {thought.get('description', '')}")
    if text.strip():
        yield Act("agent", when, text=text)
    for call in message.get("toolCalls") or []:
        if isinstance(call, dict):
            yield from _call_acts(call, when)
    tokens = obj(message.get("tokens"))
    if tokens:
        counts = [tokens.get(key) for key in ("input", "output", "cached")]
        numbers = [int(value) if isinstance(value, (int, float)) else 0 for value in counts]
        yield Act("usage", when, tokens=(numbers[0], numbers[1], numbers[2], 0))


def _call_acts(call: dict[str, Any], when: str | None) -> Iterator[Act]:
    name = str(call.get("name", ""))
    call_id = str(call.get("id", ""))
    at = call.get("timestamp") if isinstance(call.get("timestamp"), str) else when
    yield Act("call", at, name=_TOOL_NAMES.get(name, name), call_id=call_id, args=obj(call.get("args")))
    status = call.get("status")
    if status not in ("success", "error", "cancelled"):
        return  # never ran, or still running when the chat was written
    output, failed = shell_outcome(_result_text(call)) if name == SHELL else (_result_text(call), False)
    yield Act(
        "result",
        at,
        text=output,
        call_id=call_id,
        is_error=status != "success" or failed,
        rejected=status == "cancelled",
    )
    if status == "cancelled":
        yield Act("interrupt", at, text="rejected a tool call")


def _result_text(call: dict[str, Any]) -> str:
    """What the tool answered: the function response's output or error, else what the UI showed;
    without the `<untrusted_context>` wrapper Gemini CLI puts around what it hands the model."""
    for part in call.get("result") or []:
        response = obj(obj(part).get("functionResponse")).get("response")
        if isinstance(response, dict):
            value = response.get("error", response.get("output", ""))
            return unwrapped(value if isinstance(value, str) else json.dumps(value))
    display = call.get("resultDisplay")
    return unwrapped(display if isinstance(display, str) else text_of(display))


AGENT = Agent(
    name="gemini",
    reader=TranscriptReader(format="gemini", agent="Gemini CLI", label="Gemini CLI", detects=detects, read=read),
    targets=targets,
    merged=merged,
    entries=entries,
    vaults_named=lambda target, text: vaults_in(commands_named(target, text)),
    programs_named=lambda target, text: programs_in(commands_named(target, text)),
    hooks=HOOKS,
    store=transcript_store,
)
