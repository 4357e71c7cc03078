"""The one interface every agent implements: where its settings live, how brain's entries are merged
into them and taken out, and how its transcripts are read.

An agent is one module of this package that builds an `Agent` (`claude_code.AGENT`, `codex.AGENT`)
and is listed in `registry.AGENTS`; `install` and `runtime` work through this interface alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from brain.agents.runtime import Hook
from brain.agents.settings import Commands
from brain.memory.sessions.transcripts import TranscriptReader

SCOPES = ("project", "user")


@dataclass(frozen=True)
class Agent:
    """One coding agent.

    - `targets(scope, project_dir, home)`: (file, what brain puts in it) for a scope;
    - `merged(path, what, text, commands)`: the file's text with brain's entries (`commands`), or without
      them (`None`); `text` is None when the file does not exist; None back means the file should not exist;
    - `entries(path, what, text)`: brain's entries in the file, one line each, and what is wrong with it;
    - `vaults_named(text)`: the vaults brain's entries in a file's text point at;
    - `reader`: how its transcripts are read into acts;
    - `hooks`: brain's hook events it runs (`brain hooks run EVENT`), each a hook of `runtime`'s;
    - `store(home)`: the folder where the agent keeps its sessions' transcripts (for a backfill).
    """

    name: str
    reader: TranscriptReader
    targets: Callable[[str, Path, Path], list[tuple[Path, str]]]
    merged: Callable[[Path, str, str | None, Commands | None], str | None]
    entries: Callable[[Path, str, str], tuple[tuple[str, ...], str | None]]
    vaults_named: Callable[[str], list[str]]
    hooks: Mapping[str, Hook]
    store: Callable[[Path], Path]
