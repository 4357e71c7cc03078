"""The one interface every agent implements: where its settings live, how brain's entries are merged
into them and taken out, and the hooks it runs. How its transcripts are read is its reader's
(`brain.memory.sessions.transcripts`).

An agent is one module of this package that builds an `Agent` (`claude_code.AGENT`, `codex.AGENT`)
and is listed in `registry.AGENTS`; `install` and `runtime` work through this interface alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from brain.agents.runtime import Hook
from brain.agents.settings import Commands

SCOPES = ("project", "user")


@dataclass(frozen=True)
class Target:
    """One place brain's entries go: a settings file, what goes in it, and who it is for.

    `share` is `shared` (a project file the team commits: only portable entries, brain found on PATH),
    `local` (this machine's project file, kept out of git: absolute paths) or `user` (the user's own
    file: absolute paths). `project` is the project a local entry belongs to (Claude Code keeps a
    project's local MCP servers in the user's `~/.claude.json`, under the project's path)."""

    path: Path
    what: str
    share: str = "user"
    project: Path | None = None

    @property
    def runs_hooks(self) -> bool:
        return "hooks" in self.what or "notify" in self.what


@dataclass(frozen=True)
class Agent:
    """One coding agent.

    - `targets(scope, project_dir, home)`: the files brain may write for a scope (`project_dir` is the
      project's root);
    - `merged(target, text, commands)`: the file's text with brain's entries (`commands`), or without
      them (`None`); `text` is None when the file does not exist, and so is the result when nothing
      would be written;
    - `entries(target, text)`: brain's entries in the file, one line each, and what is wrong with it;
    - `vaults_named(target, text)`: the vaults brain's entries in a file's text point at;
    - `programs_named(target, text)`: the `brain` programs they run;
    - `hooks`: brain's hook events it runs (`brain hooks run EVENT`), each a hook of `runtime`'s;
    - `to_do(target, text)`: what the user still does before the agent runs what brain wrote in a
      file (Codex runs a hook only once the user trusts it), None when nothing.
    """

    name: str
    targets: Callable[[str, Path, Path], list[Target]]
    merged: Callable[[Target, str | None, Commands | None], str | None]
    entries: Callable[[Target, str], tuple[tuple[str, ...], str | None]]
    vaults_named: Callable[[Target, str], list[str]]
    programs_named: Callable[[Target, str], list[str]]
    hooks: Mapping[str, Hook]
    to_do: Callable[[Target, str], str | None] = lambda target, text: None
