"""Gemini CLI: its settings (`.gemini/settings.json`: hooks and MCP servers in one file) and its hooks;
its chats are read by `brain.memory.sessions.transcripts.gemini`.

Settings: one command hook per event under `hooks.<Event>`, each in a matcher group of its own and
named `brain <hook>`; the MCP server under `mcpServers.brain`. Gemini CLI takes a hook's timeout in
milliseconds. Its hooks speak Claude Code's protocol: the hook JSON on stdin (`session_id`,
`transcript_path`, `cwd`, `hook_event_name`, `prompt` for BeforeAgent, `tool_name`, `tool_input` and
`tool_response` for AfterTool) and `hookSpecificOutput.additionalContext` back, which Gemini CLI puts
in a `<hook_context>` block: before the first prompt (SessionStart, BeforeAgent: so BeforeAgent's
`prompt` holds the session start's block too), after a tool's result (AfterTool). SessionEnd is not
waited for: brain's answers at once and extracts in a detached process. As Gemini CLI 0.61.0 does
all this was checked with the real CLI (tests/e2e/gemini_e2e.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from brain.agents import runtime
from brain.agents.agent import Agent, Target
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
from brain.memory.sessions.transcripts.gemini_calls import failure_of

EVENTS = {  # Gemini CLI's event -> brain's hook, and how long Gemini CLI may wait for it (ms)
    "SessionStart": ("gemini-session-start", 10_000),
    "BeforeAgent": ("gemini-first-prompt", 10_000),
    "AfterTool": ("gemini-tool-failure", 10_000),
    "PreCompress": ("gemini-session-end", 10_000),
    "SessionEnd": ("gemini-session-end", 10_000),
}
_HOOK_NAMES = tuple(dict.fromkeys(name for name, _ in EVENTS.values()))


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


AGENT = Agent(
    name="gemini",
    targets=targets,
    merged=merged,
    entries=entries,
    vaults_named=lambda target, text: vaults_in(commands_named(target, text)),
    programs_named=lambda target, text: programs_in(commands_named(target, text)),
    hooks=HOOKS,
)
