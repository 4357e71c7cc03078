"""Codex CLI: its config and hooks (`$CODEX_HOME`, by default `~/.codex`, or a project's `.codex/`,
which Codex reads in a project the user trusts); its rollouts are read by
`brain.memory.sessions.transcripts.codex`.

`config.toml`: a `[mcp_servers.brain]` table and, at user scope, a top-level `notify` program, each
in a block of marked lines that uninstall removes. `notify` runs after every turn (TUI and `codex
exec`, every version), its JSON as the last argument, and extracts the session; Codex reads it only
from the user's config (0.171 ignores it in a project's `.codex/config.toml`, with a warning on
every run), so at project scope the trusted `Stop` hook alone captures sessions. `hooks.json` (Claude Code's
shape): context at session start and at the first prompt, the earlier fix after a shell call that
failed (`PostToolUse`), extraction at each turn's Stop; Codex runs them once the user trusts them
(`/hooks`), which its user config records per hook as
`[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`. brain never writes that trust.
tomllib, which only install and status need, is imported where it is used.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from brain.agents import runtime, settings
from brain.agents.agent import Agent, Target
from brain.agents.codex_calls import SHELL, command_end, told_end
from brain.agents.settings import Commands, json_object, split_command
from brain.errors import InvalidInput
from brain.memory.sessions.transcripts.codex import codex_home, find_rollout

# Codex's event -> brain's hook. PostToolUse runs after every tool call that Codex counts as done
# (a shell command whatever its exit code; never a patch that failed to apply).
EVENTS = {
    "SessionStart": "codex-session-start",
    "UserPromptSubmit": "codex-first-prompt",
    "PostToolUse": "codex-tool-failure",
    "Stop": "codex-stop",
}
BEGIN = "# >>> brain (added by `brain hooks install codex`; `brain hooks uninstall codex` removes it)"
END = "# <<< brain"


# ---------------------------------------------------------------- where brain writes


def targets(scope: str, project_dir: Path, home: Path) -> list[Target]:
    """User scope: Codex's own folder; project scope: the project's `.codex/`, local files (this machine's paths)."""
    if scope == "project":
        folder = project_dir / ".codex"
        return [
            Target(folder / "config.toml", "mcp server", "local", project_dir),
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
    return with_codex_blocks(text or "", commands, notify=target.project is None)


def _handler(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": 10}


def entries(target: Target, text: str) -> tuple[tuple[str, ...], str | None]:
    """brain's entries, a hook with whether Codex runs it, and what is wrong with the file (one that
    is not TOML still shows brain's marked lines)."""
    import tomllib

    if target.what == "hooks":
        trusts = trust_of(target.path, text, codex_home(Path.home()) / "config.toml")
        return tuple(f"{event}: {command}  ({_TRUST[trust]})" for event, command, trust in trusts), None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return tuple(codex_installed(text)), f"not TOML ({error})"
    found = codex_installed(text)
    if text.count(BEGIN) > len(_BLOCK.findall(text)):
        return tuple(found), (
            f"a block of brain's has no end marker ('{END}'); brain leaves it as it is: take it out by hand"
        )
    if target.project is not None and any(line.startswith("notify") for line in found):
        return tuple(found), (
            "Codex ignores notify in a project's config.toml (it warns on every run, and runs it only from the "
            "user's); install again to take it out"
        )
    return tuple(found), None


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
            # at project scope no notify stands in for the Stop hook: nothing is captured until it is trusted
            until = "; until then no session is captured" if target.project is not None and "Stop" in waiting else ""
            return (
                f"Codex runs brain's {', '.join(waiting)} hooks once you trust them: in codex, type /hooks, "
                f"trust each{until}"
            )
    elif target.project is not None and not _trusted_project(target.project, config):
        return f"Codex reads {target.path.parent} only in a trusted project: run `codex exec --trust` there once"
    return None


# ---------------------------------------------------------------- config.toml, as text


def codex_blocks(commands: Commands, notify: bool = True) -> tuple[str, str]:
    """(the block for the top of config.toml, '' without `notify`; the block for its end)."""
    program = commands.hook_args("codex-notify")
    top = f"{BEGIN}\nnotify = {settings.toml_list(program)}\n{END}\n" if notify else ""
    server = commands.mcp()
    command, args = settings.toml_string(server["command"]), settings.toml_list(server["args"])
    table = f"[mcp_servers.brain]\ncommand = {command}\nargs = {args}\n"
    end = f"{BEGIN}\n{table}{END}\n"
    return top, end


# A whole block of brain's: its begin marker, lines that are no begin marker, its end marker. A block
# whose end marker a person deleted is no block (never the lines up to the next block's end).
_BLOCK = re.compile(rf"(?m)^{re.escape(BEGIN)}\n((?:(?!{re.escape(BEGIN)}\n).*\n)*?){re.escape(END)}(?:\n|\Z)")


def without_codex_blocks(text: str) -> str:
    """The text without brain's whole blocks; every other byte stays, whether or not it is valid TOML
    (uninstall takes brain out of a file the user broke, and leaves the rest as it is)."""
    return _BLOCK.sub("", text)


def with_codex_blocks(text: str, commands: Commands, notify: bool = True) -> str:
    """config.toml with brain's blocks (`notify` only when asked: the user's config); refuses a file
    whose own `notify` or `[mcp_servers.brain]` is in the way."""
    import tomllib

    base = without_codex_blocks(text)
    try:
        data = tomllib.loads(base)
    except tomllib.TOMLDecodeError as error:
        raise InvalidInput(f"it is not valid TOML ({error}); fix it, then install again") from None
    if notify and "notify" in data:
        raise InvalidInput(
            "it already sets 'notify' to another program; Codex runs only one, so remove it and install again"
        )
    if isinstance(data.get("mcp_servers"), dict) and "brain" in data["mcp_servers"]:
        raise InvalidInput("it already has [mcp_servers.brain] that brain did not add; rename it, then install again")
    top, end = codex_blocks(commands, notify)
    body = base if not base or base.endswith("\n") else base + "\n"
    merged = top + body + end
    tomllib.loads(merged)  # what brain writes must parse
    return merged


def codex_installed(text: str) -> list[str]:
    """The lines of brain's whole blocks in a config.toml, without the markers."""
    return [line for block in _BLOCK.findall(text) for line in block.splitlines() if line.strip()]


# ---------------------------------------------------------------- hooks.json, and whether Codex runs them


def is_ours(hook: Any) -> bool:
    """A hook brain wrote: exactly `<brain> hooks run codex-... --vault V [--namespace N]...`."""
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and settings.is_brain_hook(split_command(command), tuple(EVENTS.values()))


_SNAKE = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PostToolUse": "post_tool_use",
    "Stop": "stop",
}
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


def _notify(request: runtime.HookRequest) -> runtime.HookResult:
    """Codex's `notify` program, after every turn (its JSON comes as the last argument)."""
    if request.payload.get("type") == "agent-turn-complete":
        _extract(request, "codex-notify", str(request.payload.get("thread-id") or ""), "")
    return runtime.HookResult("codex-notify")


def _session_start(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.session_start(request, "SessionStart")


def _prompt(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.first_prompt(request, "UserPromptSubmit")


def _tool_failure(request: runtime.HookRequest) -> runtime.HookResult:
    """PostToolUse: a shell call whose command exited with another code than 0 is looked up as
    Claude Code's failed calls are; any other call gets nothing. How it ended is read from the
    hook input's output when its head says (Codex before 0.171), else from the rollout's record of
    the call's end (`codex_calls.command_end`); a call with neither is taken for one that did not
    fail, and logs nothing. The error is the command's output, as the episode of the earlier
    session holds it."""
    payload = request.payload
    tool, call = payload.get("tool_name"), str(payload.get("tool_use_id") or "")
    if not isinstance(tool, str) or not tool.strip():
        raise InvalidInput("the hook input has no tool_name")
    if tool != SHELL:
        return runtime.HookResult("PostToolUse")  # no exit code to read, and a failed patch never gets here
    output = payload.get("tool_response")
    end = told_end(output)
    if end is None:
        transcript = str(payload.get("transcript_path") or "")
        if not transcript or not call:
            raise InvalidInput("the hook input has no transcript_path or tool_use_id")
        end = command_end(Path(transcript), call)
        if end is None:
            return runtime.HookResult("PostToolUse")  # no end written: nothing says it failed
        error = output if isinstance(output, str) else end.output
    else:
        error = end.output
    if not end.failed:
        return runtime.HookResult("PostToolUse")
    failed = runtime.HookRequest(request.memory, {**payload, "error": error}, request.budget, request.namespaces)
    return runtime.tool_failure(failed, "PostToolUse")


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
    "codex-tool-failure": _tool_failure,
    "codex-stop": _stop,
}


AGENT = Agent(
    name="codex",
    targets=targets,
    merged=merged,
    entries=entries,
    vaults_named=lambda target, text: settings.vaults_in(commands_named(target, text)),
    programs_named=lambda target, text: settings.programs_in(commands_named(target, text)),
    hooks=HOOKS,
    to_do=to_do,
)
