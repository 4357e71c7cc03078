"""brain's entries in an agent's settings, merged in and taken out. Pure: data in, data out.

Claude Code (`.claude/settings.json`): one command hook per event under `hooks.<Event>`, in a
matcher group of its own; brain's are told apart by their command (`<brain> hooks run <event> ...`).
The MCP server goes under `mcpServers.brain` (`.mcp.json` for a project, `~/.claude.json` for the user).
Codex (`$CODEX_HOME/config.toml`, by default `~/.codex/config.toml`): a `[mcp_servers.brain]` table and a top-level `notify` program, each
inside a block of marked lines, so uninstall removes exactly those lines.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import tomllib
from dataclasses import dataclass
from typing import Any

from brain.errors import InvalidInput

CLAUDE_EVENTS = {  # Claude Code's event -> brain's hook, and how long Claude Code may wait for it
    "SessionStart": ("session-start", 10),
    "UserPromptSubmit": ("first-prompt", 10),
    "PreCompact": ("session-end", 10),
    "SessionEnd": ("session-end", 10),
}
_OURS = re.compile(r"\bhooks run (?:session-start|first-prompt|session-end|codex-notify)\b")
BEGIN = "# >>> brain (added by `brain hooks install codex`; `brain hooks uninstall codex` removes it)"
END = "# <<< brain"


CONTEXT_HOOKS = ("session-start", "first-prompt")  # the hooks that hand the agent facts


@dataclass(frozen=True)
class Commands:
    """How the agent runs brain: the absolute path of the `brain` program, the vault, and the facts
    namespaces the context hooks read (none: the vault's default namespace)."""

    brain: str
    vault: str
    namespaces: tuple[str, ...] = ()

    def hook(self, event: str, *extra: str) -> str:
        chosen = [arg for name in self.namespaces for arg in ("--namespace", name)] if event in CONTEXT_HOOKS else []
        return shlex.join([self.brain, "hooks", "run", event, "--vault", self.vault, *chosen, *extra])

    def mcp(self) -> dict[str, Any]:
        return {"command": self.brain, "args": ["mcp", "--vault", self.vault]}


def vaults_named(text: str) -> list[str]:
    """The vaults brain's entries in a settings text point at (the argument after `--vault`), read from
    the commands themselves (Claude Code's JSON, or the lines of brain's blocks in Codex's config.toml),
    so a path with spaces, quotes or any other character is found whole."""
    commands: list[Any] = []
    if BEGIN in text:
        try:
            data = tomllib.loads("\n".join(codex_installed(text)))
        except tomllib.TOMLDecodeError:
            data = {}
        commands += [data.get("notify"), _server_args(data.get("mcp_servers"))]
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            commands += [_split(command) for _, command in claude_hooks_in(data)]
            commands.append(_server_args(data.get("mcpServers")))
    return list(dict.fromkeys(vault for args in commands if (vault := _vault_in(args))))


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # someone edited the command into something a shell cannot read
        return []


def _server_args(servers: Any) -> Any:
    server = servers.get("brain") if isinstance(servers, dict) else None
    return server["args"] if isinstance(server, dict) and is_our_server(server) else None


def _vault_in(args: Any) -> str | None:
    if not isinstance(args, list) or "--vault" not in args[:-1]:
        return None
    vault = args[args.index("--vault") + 1]
    return vault if isinstance(vault, str) else None


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and bool(_OURS.search(hook["command"]))


def without_claude_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with brain's hooks taken out (and the groups and lists that held only them)."""
    result = copy.deepcopy(settings)
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(map(is_ours, group["hooks"])):
                rest = [hook for hook in group["hooks"] if not is_ours(hook)]
                if rest:
                    kept.append({**group, "hooks": rest})
                continue
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del result["hooks"]
    return result


def with_claude_hooks(settings: dict[str, Any], commands: Commands) -> dict[str, Any]:
    """The settings with brain's hooks, replacing any brain hooks already there (another vault, another path)."""
    result = without_claude_hooks(settings)
    hooks = result.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInput("its 'hooks' is not an object; fix it by hand, then install again")
    for event, (name, timeout) in CLAUDE_EVENTS.items():
        entry = {"type": "command", "command": commands.hook(name), "timeout": timeout}
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InvalidInput(f"its 'hooks.{event}' is not a list; fix it by hand, then install again")
        groups.append({"hooks": [entry]})
    return result


def claude_hooks_in(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) of every brain hook in the settings."""
    found = []
    hooks = settings.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            for hook in group.get("hooks", []) if isinstance(group, dict) else ():
                if is_ours(hook):
                    found.append((event, hook["command"]))
    return found


def with_mcp_server(config: dict[str, Any], commands: Commands) -> dict[str, Any]:
    result = copy.deepcopy(config)
    servers = result.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InvalidInput("its 'mcpServers' is not an object; fix it by hand, then install again")
    existing = servers.get("brain")
    if existing is not None and not is_our_server(existing):
        raise InvalidInput(
            "it already has an MCP server named 'brain' that brain did not add; rename it, then install again"
        )
    servers["brain"] = {"type": "stdio", **commands.mcp()}
    return result


def without_mcp_server(config: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(config)
    servers = result.get("mcpServers")
    if isinstance(servers, dict) and is_our_server(servers.get("brain")):
        del servers["brain"]
        if not servers:
            del result["mcpServers"]
    return result


def is_our_server(server: Any) -> bool:
    args = server.get("args") if isinstance(server, dict) else None
    return isinstance(args, list) and args[:1] == ["mcp"] and "--vault" in args


# ---------------------------------------------------------------- Codex: config.toml as text


def codex_blocks(commands: Commands) -> tuple[str, str]:
    """(the block for the top of config.toml, the block for its end)."""
    notify = [commands.brain, "hooks", "run", "codex-notify", "--vault", commands.vault]
    top = f"{BEGIN}\nnotify = {_toml_list(notify)}\n{END}\n"
    server = commands.mcp()
    table = f"[mcp_servers.brain]\ncommand = {_toml_string(server['command'])}\nargs = {_toml_list(server['args'])}\n"
    end = f"{BEGIN}\n{table}{END}\n"
    return top, end


def without_codex_blocks(text: str) -> str:
    pattern = re.compile(rf"(?m)^{re.escape(BEGIN)}\n.*?^{re.escape(END)}\n?", re.DOTALL)
    return pattern.sub("", text)


def with_codex_blocks(text: str, commands: Commands) -> str:
    """config.toml with brain's blocks; refuses a file whose own `notify` or `[mcp_servers.brain]` is in the way."""
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


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(_toml_string(value) for value in values) + "]"
