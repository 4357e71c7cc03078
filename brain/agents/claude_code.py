"""Claude Code: its settings (hooks in `.claude/settings.json`, the MCP server in `.mcp.json` or
`~/.claude.json`) and its hooks; its transcripts are read by `brain.memory.sessions.transcripts.claude_code`.

Settings: one command hook per event under `hooks.<Event>`, in a matcher group of its own; brain's
are told apart by their command (`<brain> hooks run <event> ...`). The MCP server goes under
`mcpServers.brain`.
"""

from __future__ import annotations

import copy
import shlex
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
from brain.errors import InvalidInput

EVENTS = {  # Claude Code's event -> brain's hook, and how long Claude Code may wait for it
    "SessionStart": ("session-start", 10),
    "UserPromptSubmit": ("first-prompt", 10),
    "PostToolUseFailure": ("tool-failure", 10),
    "PreCompact": ("session-end", 10),
    "SessionEnd": ("session-end", 10),
}
_EVENTS = ("session-start", "first-prompt", "tool-failure", "session-end")  # brain's hook events Claude Code runs


# ---------------------------------------------------------------- hooks


def _session_start(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.session_start(request, "SessionStart")


def _first_prompt(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.first_prompt(request, "UserPromptSubmit")


def _tool_failure(request: runtime.HookRequest) -> runtime.HookResult:
    return runtime.tool_failure(request, "PostToolUseFailure")


def _session_end(request: runtime.HookRequest) -> runtime.HookResult:
    """SessionEnd and PreCompact: the transcript (`transcript_path`) is extracted in the background."""
    return runtime.transcript_end(request, "session-end", "claude-code")


HOOKS: dict[str, runtime.Hook] = {
    "session-start": _session_start,
    "first-prompt": _first_prompt,
    "tool-failure": _tool_failure,
    "session-end": _session_end,
}


# ---------------------------------------------------------------- settings


def targets(scope: str, project_dir: Path, home: Path) -> list[Target]:
    """Project scope: the committed `.claude/settings.json` and `.mcp.json` (portable entries only),
    and this machine's `.claude/settings.local.json` and local MCP server (`~/.claude.json`, under the
    project's path). User scope: `~/.claude/settings.json` and `~/.claude.json`."""
    if scope == "project":
        return [
            Target(project_dir / ".claude" / "settings.json", "hooks", "shared", project_dir),
            Target(project_dir / ".claude" / "settings.local.json", "hooks", "local", project_dir),
            Target(project_dir / ".mcp.json", "mcp server", "shared", project_dir),
            Target(home / ".claude.json", "mcp server", "local", project_dir),
        ]
    return [Target(home / ".claude" / "settings.json", "hooks"), Target(home / ".claude.json", "mcp server")]


def merged(target: Target, text: str | None, commands: Commands | None) -> str | None:
    data = json_object(target.path, text) if text is not None else {}
    if commands is None:
        new = without_claude_hooks(data) if target.what == "hooks" else _with_server(target, data, None)
    else:
        new = with_claude_hooks(data, commands) if target.what == "hooks" else _with_server(target, data, commands)
    if new == data:
        return text
    return dump_json(new, text or "")


def _with_server(target: Target, data: dict[str, Any], commands: Commands | None) -> dict[str, Any]:
    """The settings with brain's MCP server (or without it): at the top, or for a local server under
    `projects.<project>` of `~/.claude.json`."""
    if not _in_projects(target):
        return without_mcp_server(data) if commands is None else with_mcp_server(data, _server(commands))
    projects = data.get("projects", {})
    key = str(target.project)
    project = projects.get(key, {}) if isinstance(projects, dict) else None
    if not isinstance(project, dict):
        if commands is None:  # nothing of brain's can be in it
            return data
        where = f"projects.{key}" if isinstance(projects, dict) else "projects"
        raise InvalidInput(f"its '{where}' is not an object; fix it by hand, then install again")
    changed = without_mcp_server(project) if commands is None else with_mcp_server(project, _server(commands))
    if changed == project:
        return data
    result = copy.deepcopy(data)
    if changed:
        result.setdefault("projects", {})[key] = changed
    else:
        del result["projects"][key]
        if not result["projects"]:
            del result["projects"]
    return result


def _in_projects(target: Target) -> bool:
    return target.share == "local" and target.what == "mcp server"


def entries(target: Target, text: str) -> tuple[tuple[str, ...], str | None]:
    data = json_object(target.path, text)
    if target.what == "hooks":
        return tuple(f"{event}: {command}" for event, command in claude_hooks_in(data)), None
    holder = _server_holder(target, data)
    found = mcp_server_entries(holder) if isinstance(holder, dict) else ()
    return tuple(f"projects.{target.project}.{line}" if _in_projects(target) else line for line in found), None


def _server_holder(target: Target, data: dict[str, Any]) -> Any:
    """The object whose `mcpServers` holds brain's server: the file's own, or its project's in
    `~/.claude.json` (None when that is missing or not an object)."""
    if not _in_projects(target):
        return data
    projects = data.get("projects")
    return projects.get(str(target.project)) if isinstance(projects, dict) else None


def commands_named(target: Target, text: str) -> list[Any]:
    """brain's hooks and MCP server in a settings text, each a whole command (the program first),
    read from the commands themselves, so a path with spaces, quotes or any other character is whole."""
    data = json_object_or_none(text)
    if data is None:
        return []
    holder = _server_holder(target, data)
    server = server_command(holder.get("mcpServers")) if isinstance(holder, dict) else None
    return [*(split_command(command) for _, command in claude_hooks_in(data)), server]


def vaults_named(target: Target, text: str) -> list[str]:
    """The vaults brain's entries point at; a portable entry's vault is found from the project's root."""
    return list(
        dict.fromkeys(_project_path(vault, target.project) for vault in vaults_in(commands_named(target, text)))
    )


# A portable entry names the vault from the project's root, which Claude Code gives hooks as
# $CLAUDE_PROJECT_DIR; an MCP server starts in the project's root, so `.` stands in when it is unset.
_HOOK_ROOT = '"$CLAUDE_PROJECT_DIR"'
_SERVER_ROOT = "${CLAUDE_PROJECT_DIR:-.}"


def _project_path(vault: str, project: Path | None) -> str:
    """A portable entry's vault (`$CLAUDE_PROJECT_DIR/notes`, as the shell hands it over) in the project."""
    for variable in ("$CLAUDE_PROJECT_DIR", _SERVER_ROOT):
        if project is not None and (vault == variable or vault.startswith(variable + "/")):
            return str(project / vault[len(variable) :].lstrip("/"))
    return vault


def hook_command(commands: Commands, event: str) -> str:
    args = commands.hook_args(event)
    if not commands.portable:
        return shlex.join(args)
    at = args.index("--vault") + 1
    vault = _HOOK_ROOT if args[at] == "." else f"{_HOOK_ROOT}/{shlex.quote(args[at])}"
    return " ".join([shlex.join(args[:at]), vault, *map(shlex.quote, args[at + 1 :])]).strip()


def _server(commands: Commands) -> Commands:
    if not commands.portable:
        return commands
    vault = _SERVER_ROOT if commands.vault == "." else f"{_SERVER_ROOT}/{commands.vault}"
    return Commands(commands.brain, vault, commands.namespaces, portable=True)


def is_ours(hook: Any) -> bool:
    """A hook brain wrote: exactly `<brain> hooks run EVENT [--vault V] [--namespace N]...`."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    return is_brain_hook(split_command(hook["command"]), _EVENTS)


def without_claude_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with brain's hooks taken out (and the groups and lists that held only them)."""
    return without_json_hooks(settings, is_ours)


def with_claude_hooks(settings: dict[str, Any], commands: Commands) -> dict[str, Any]:
    """The settings with brain's hooks, replacing any brain hooks already there (another vault, another path)."""
    handlers = {
        event: {"type": "command", "command": hook_command(commands, name), "timeout": timeout}
        for event, (name, timeout) in EVENTS.items()
    }
    return with_json_hooks(settings, handlers, is_ours)


def claude_hooks_in(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) of every brain hook in the settings."""
    return [(event, hook["command"]) for event, _, _, hook in json_hooks_in(settings, is_ours)]


AGENT = Agent(
    name="claude-code",
    targets=targets,
    merged=merged,
    entries=entries,
    vaults_named=vaults_named,
    programs_named=lambda target, text: programs_in(commands_named(target, text)),
    hooks=HOOKS,
)
