"""What every agent's settings files share: how brain is run, and JSON settings read and written back.

`Commands` says how an agent runs brain (the program, the vault, the facts namespaces). The MCP
server entry (`mcpServers.brain`) is the same JSON object in every agent that reads `mcpServers`.
A settings file brain cannot read is a `BrokenFile`, whose `problem` `brain hooks status` shows.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.agents.events import hook_name, named
from brain.errors import InvalidInput

CONTEXT_HOOKS = ("session-start", "first-prompt")  # the hooks that hand the agent facts (an agent may prefix them)


@dataclass(frozen=True)
class Commands:
    """How the agent runs brain: the `brain` program, the vault, and the facts namespaces the context
    hooks read (none: the vault's default namespace). `portable`: the program is `brain` found on PATH
    and the vault a path relative to the project's root, so the entries hold no path of this machine
    and a team can commit them."""

    brain: str
    vault: str
    namespaces: tuple[str, ...] = ()
    portable: bool = False

    def hook_args(self, event: str, *extra: str) -> list[str]:
        chosen = (
            [arg for name in self.namespaces for arg in ("--namespace", name)] if event.endswith(CONTEXT_HOOKS) else []
        )
        return [self.brain, "hooks", "run", *hook_name(event), "--vault", self.vault, *chosen, *extra]

    def hook(self, event: str, *extra: str) -> str:
        return shlex.join(self.hook_args(event, *extra))

    def mcp(self) -> dict[str, Any]:
        """The MCP server with the agent profile: the few tools an agent needs, a small tool list."""
        return {"command": self.brain, "args": ["mcp", "--vault", self.vault, "--tools", "agent"]}


class BrokenFile(InvalidInput):
    """A settings file brain cannot read or parse; `problem` says what is wrong with it."""

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


def is_brain_program(value: Any) -> bool:
    """`brain` on PATH, or a path whose last part is `brain` (or `brain.exe`)."""
    return isinstance(value, str) and re.split(r"[/\\]", value)[-1] in ("brain", "brain.exe")


def only_options(args: list[Any]) -> bool:
    """Nothing but the options brain writes after a command: `--vault V`, `--namespace N` and (the MCP
    server's) `--tools T` pairs."""
    pairs = list(zip(args[::2], args[1::2], strict=False))
    flags = ("--vault", "--namespace", "--tools")
    return len(args) % 2 == 0 and all(flag in flags and isinstance(value, str) for flag, value in pairs)


def is_brain_hook(args: list[Any], events: tuple[str, ...]) -> bool:
    """Whether a command's arguments are exactly a hook brain writes: `<brain> hooks run AGENT EVENT`
    (or, as installed before, `<brain> hooks run EVENT`) and its options, nothing before or after. A
    user's wrapper, or a command that merely mentions `hooks run session-end`, is not brain's."""
    if len(args) < 4 or not is_brain_program(args[0]) or args[1:3] != ["hooks", "run"]:
        return False
    if not all(isinstance(arg, str) for arg in args[3:]):
        return False
    _, key, rest = named(args[3:])
    return key in events and only_options(rest)


def split_command(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # someone edited the command into something a shell cannot read
        return []


def vault_in(args: Any) -> str | None:
    """The argument after `--vault` in a command's arguments."""
    if not isinstance(args, list) or "--vault" not in args[:-1]:
        return None
    vault = args[args.index("--vault") + 1]
    return vault if isinstance(vault, str) else None


def vaults_in(commands: list[Any]) -> list[str]:
    """The vaults a file's brain commands name (each command's argument after `--vault`), once each."""
    return list(dict.fromkeys(vault for args in commands if (vault := vault_in(args))))


def programs_in(commands: list[Any]) -> list[str]:
    """The `brain` programs a file's brain commands run (each command's first argument), once each."""
    return list(
        dict.fromkeys(args[0] for args in commands if isinstance(args, list) and args and is_brain_program(args[0]))
    )


def server_command(servers: Any) -> list[Any] | None:
    """brain's MCP server in `mcpServers` as one command (the program first), None when it is not there."""
    args = server_args(servers)
    return [servers["brain"]["command"], *args] if isinstance(args, list) else None


def json_object(path: Path, text: str) -> dict[str, Any]:
    """A settings file's JSON object ({} for an empty file); anything else is a `BrokenFile`."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"not JSON ({error.msg} at line {error.lineno})"
        raise BrokenFile(f"{path} is {problem}; fix it, then run this again", problem) from None
    if not isinstance(data, dict):
        problem = f"a JSON {type(data).__name__}, not an object"
        raise BrokenFile(f"{path} holds {problem}; fix it, then run this again", problem)
    return data


def json_object_or_none(text: str) -> dict[str, Any] | None:
    """The JSON object a text holds, or None when it holds anything else (for readers that skip such a file)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def dump_json(data: dict[str, Any], original: str) -> str:
    """JSON with the indent the original used (two spaces when it had none), ending as it ended."""
    indent = re.search(r"\n([ \t]+)\S", original)
    unit = indent.group(1) if indent else "  "
    text = json.dumps(data, indent=unit if "\t" in unit else len(unit), ensure_ascii=False)
    return text + "\n" if not original or original.endswith("\n") else text


# ---------------------------------------------------------------- the MCP server, as `mcpServers` JSON


def server_args(servers: Any) -> Any:
    server = servers.get("brain") if isinstance(servers, dict) else None
    return server["args"] if isinstance(server, dict) and is_our_server(server) else None


def is_our_server(server: Any) -> bool:
    """Exactly the server brain writes: `<brain> mcp --vault V`."""
    if not isinstance(server, dict) or not is_brain_program(server.get("command")):
        return False
    args = server.get("args")
    return isinstance(args, list) and args[:1] == ["mcp"] and "--vault" in args and only_options(args[1:])


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


def mcp_server_entries(data: dict[str, Any]) -> tuple[str, ...]:
    """brain's MCP server in a settings object, as `brain hooks status` shows it."""
    servers = data.get("mcpServers")
    server = servers.get("brain") if isinstance(servers, dict) else None
    if not isinstance(server, dict) or not is_our_server(server):
        return ()
    return (f"mcpServers.brain: {server['command']} {' '.join(server['args'])}",)


# ---------------------------------------------------------------- hooks, as `hooks.<Event>` JSON


def json_hooks_in(settings: dict[str, Any], ours: Callable[[Any], bool]) -> list[tuple[str, int, int, dict[str, Any]]]:
    """(event, group index, handler index, handler) of each of brain's hooks in `{"hooks": {"<Event>":
    [{"hooks": [handler, ...]}, ...]}}` settings (Claude Code's and Codex's shape)."""
    found = []
    hooks = settings.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for at, group in enumerate(groups) if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for index, hook in enumerate(handlers) if isinstance(handlers, list) else ():
                if ours(hook):
                    found.append((event, at, index, hook))
    return found


def without_json_hooks(settings: dict[str, Any], ours: Callable[[Any], bool]) -> dict[str, Any]:
    """The settings with brain's hooks taken out (and the groups and events that held only them)."""
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
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(map(ours, handlers)):
                rest = [hook for hook in handlers if not ours(hook)]
                kept += [{**group, "hooks": rest}] if rest else []
            else:
                kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del result["hooks"]
    return result


def with_json_hooks(
    settings: dict[str, Any], handlers: dict[str, dict[str, Any]], ours: Callable[[Any], bool]
) -> dict[str, Any]:
    """The settings with brain's hooks (`handlers`: event -> handler, each in a group of its own),
    replacing brain's hooks already there (another vault, another path)."""
    result = without_json_hooks(settings, ours)
    hooks = result.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInput("its 'hooks' is not an object; fix it by hand, then install again")
    for event, handler in handlers.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InvalidInput(f"its 'hooks.{event}' is not a list; fix it by hand, then install again")
        groups.append({"hooks": [handler]})
    return result


# ---------------------------------------------------------------- TOML, as text and as tables


def toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml_list(values: list[str]) -> str:
    return "[" + ", ".join(toml_string(value) for value in values) + "]"


def toml_table(path: Path, *keys: str) -> dict[str, Any]:
    """A table of a TOML file (`keys` down from the top), {} when it has none or cannot be read."""
    import tomllib

    try:
        table: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table if isinstance(table, dict) else {}
