"""Install brain's hooks and MCP server into an agent's settings files, take them out, show them.

Every file is read and its new text made before anything is written; a file that is not JSON (or
TOML) is a one-line error and no file changes. A file is written only when its text changes (so a
second install changes no byte), atomically (temp file + rename), keeping its mode. What goes in
each file is the agent's (see `agent.Agent`); this module reads and writes them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from brain.agents.agent import SCOPES, Agent
from brain.agents.registry import AGENTS, agent_named
from brain.agents.settings import BrokenFile, Commands
from brain.errors import InvalidInput, UsageError


@dataclass(frozen=True)
class Change:
    path: str
    action: str  # created | updated | unchanged | removed | absent
    what: str  # hooks | mcp server | notify and mcp server


@dataclass(frozen=True)
class Installed:
    path: str
    exists: bool
    entries: tuple[str, ...]  # one line per brain entry found
    problem: str | None = None  # what is wrong with a file brain cannot read (install would refuse it)


def brain_program() -> str:
    """The absolute path of the `brain` program that is running (so hooks work from any folder)."""
    beside = Path(sys.executable).parent / ("brain.exe" if os.name == "nt" else "brain")
    if beside.is_file():
        return str(beside)
    found = shutil.which("brain")
    if found:
        return str(Path(found).resolve())
    raise InvalidInput("cannot find the installed 'brain' program; install brain (pip install .) and run this again")


def targets(agent: Agent, scope: str, project_dir: Path, home: Path) -> list[tuple[Path, str]]:
    """(file, what goes in it) for an agent and scope."""
    if scope not in SCOPES:
        raise UsageError(f"scope '{scope}' is not one of: {', '.join(SCOPES)}")
    return agent.targets(scope, project_dir, home)


def install(name: str, commands: Commands, *, scope: str, project_dir: Path, home: Path) -> list[Change]:
    """Merge brain's entries in. The text each file had before is kept in the vault
    (`.brain/hooks/installed/`), so uninstall can give it back byte for byte while nobody else edited it."""
    agent = agent_named(name)
    plans = [
        (path, what, _new_text(agent, path, what, commands)) for path, what in targets(agent, scope, project_dir, home)
    ]
    changes = []
    for path, what, text in plans:
        before = _read(path) if path.is_file() else None
        missing = _missing_folders(path)
        change = _apply(path, what, text)
        if change.action in ("created", "updated"):
            _remember(Path(commands.vault), path, before, text, missing)
        changes.append(change)
    return changes


def uninstall(name: str, *, scope: str, project_dir: Path, home: Path) -> list[Change]:
    """Take brain's entries out: the file as it was before install when nobody changed it since,
    else the file with only brain's entries removed. A file install created goes (when nothing but
    brain's entries is left in it), and so do the folders install created for it, when empty; a folder
    that existed before install always stays."""
    agent = agent_named(name)
    plans = []
    for path, what in targets(agent, scope, project_dir, home):
        current = _read(path) if path.is_file() else None
        record = _recalled(agent, current, path)
        unchanged = record is not None and record.after == current
        text = record.before if record and unchanged else _new_text(agent, path, what, None)
        plans.append((path, what, text, record))
    changes = []
    for path, what, text, record in plans:
        changes.append(_apply(path, what, text))
        if record is None:
            continue
        if not path.exists():  # the folders install made for the file go too, when nothing else is in them
            for folder in sorted(map(Path, record.created_folders), key=lambda f: len(f.parts), reverse=True):
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
        record.file.unlink(missing_ok=True)
    return changes


def _backup_file(vault: Path, path: Path) -> Path:
    import hashlib

    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:20]
    return vault / ".brain" / "hooks" / "installed" / f"{digest}.json"


@dataclass(frozen=True)
class _Record:
    """What install kept of a file: its text before and after, and the folders it made for it."""

    file: Path
    before: str | None
    after: str | None
    created_folders: tuple[str, ...]


def _missing_folders(path: Path) -> list[str]:
    """The folders above `path` that do not exist yet (writing the file will make them), innermost first."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(str(folder))
        folder = folder.parent
    return missing


def _remember(vault: Path, path: Path, before: str | None, after: str | None, created: list[str]) -> None:
    record = _backup_file(vault, path)
    if record.is_file():  # installed before: keep the first 'before', the one without brain, and its folders
        saved = json.loads(record.read_text(encoding="utf-8"))
        before = saved.get("before")
        created = list(dict.fromkeys([*saved.get("created_folders", []), *created]))
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(
        json.dumps({"path": str(path), "before": before, "after": after, "created_folders": created}),
        encoding="utf-8",
    )


def _recalled(agent: Agent, current: str | None, path: Path) -> _Record | None:
    """What install kept of the file, found through the vaults brain's entries in it name."""
    if current is None:
        return None
    for vault in agent.vaults_named(current):
        record = _backup_file(Path(vault), path)
        if not record.is_file():
            continue
        saved = json.loads(record.read_text(encoding="utf-8"))
        return _Record(record, saved.get("before"), saved.get("after"), tuple(saved.get("created_folders", [])))
    return None


def status(project_dir: Path, home: Path) -> list[Installed]:
    """brain's entries in every file it may have written, for every agent and scope."""
    found = []
    seen: set[Path] = set()
    for agent in AGENTS.values():
        for scope in SCOPES:
            for path, what in targets(agent, scope, project_dir, home):
                if path in seen:  # an agent with one file for both scopes
                    continue
                seen.add(path)
                if not path.is_file():
                    found.append(Installed(str(path), False, ()))
                    continue
                try:
                    found.append(Installed(str(path), True, *agent.entries(path, what, _read(path))))
                except BrokenFile as error:
                    found.append(Installed(str(path), True, (), error.problem))
    return found


def _new_text(agent: Agent, path: Path, what: str, commands: Commands | None) -> str | None:
    """The file's text after the change, or None when the file should stay absent."""
    text = _read(path) if path.is_file() else None
    try:
        return agent.merged(path, what, text, commands)
    except InvalidInput as error:
        message = str(error)
        raise InvalidInput(message if message.startswith(str(path)) else f"{path}: {message}") from None


def _apply(path: Path, what: str, text: str | None) -> Change:
    if text is None:
        if path.is_file():
            path.unlink()
            return Change(str(path), "removed", what)
        return Change(str(path), "absent", what)
    if path.is_file():
        if _read(path) == text:
            return Change(str(path), "unchanged", what)
        _write(path, text)
        return Change(str(path), "updated", what)
    _write(path, text)
    return Change(str(path), "created", what)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BrokenFile(f"{path} is not UTF-8 text; brain leaves it alone", "not UTF-8 text") from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise BrokenFile(f"cannot read {path}: {reason}", f"cannot be read ({reason})") from None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
