"""Install brain's hooks and MCP server into an agent's settings files, take them out, show them.

Every file is read and its new text made before anything is written; a file that is not JSON (or
TOML) is a one-line error and no file changes. A file is written only when its text changes (so a
second install changes no byte), atomically (temp file + rename), keeping its mode, and through a
symlink (the link stays, its target gets the change). What goes in each file is the agent's (see
`agent.Agent`); this module reads and writes them.

Uninstall takes brain's entries out of each file as it is now, so whatever anyone else changed in it
since install stays. What install remembers of a file, in the vault (`.brain/hooks/installed/`,
mode 600), is only whether brain created it and the folders above it, brain's own entries and a hash
of the text brain wrote: never the file's text, which may hold credentials (`~/.claude.json`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.agents.agent import SCOPES, Agent, Target
from brain.agents.health import broken
from brain.agents.registry import AGENTS, agent_named
from brain.agents.settings import BrokenFile, Commands
from brain.errors import InvalidInput, UsageError
from brain.vault.atomic import replace_file


@dataclass(frozen=True)
class Change:
    path: str
    action: str  # project | created | updated | unchanged | removed | absent | to do
    what: str  # hooks | mcp server | notify and mcp server (", this machine only" for a local file)


@dataclass(frozen=True)
class Installed:
    path: str
    exists: bool
    entries: tuple[str, ...]  # one line per brain entry found
    problem: str | None = None  # what is wrong with a file brain cannot read (install would refuse it)
    label: str = ""  # how `status` names the place: the path, and the project of a local entry in a user file
    share: str = "user"  # shared (a project file a team commits) | local (this machine's, for a project) | user
    vaults: tuple[str, ...] = ()  # the vaults brain's entries name
    broken: tuple[str, ...] = ()  # what is missing for them to work (their program, a vault), with the fix


def brain_program() -> str:
    """The absolute path of the `brain` program that is running (so hooks work from any folder)."""
    beside = Path(sys.executable).parent / ("brain.exe" if os.name == "nt" else "brain")
    if beside.is_file():
        return str(beside)
    found = shutil.which("brain")
    if found:
        return str(Path(found).resolve())
    raise InvalidInput("cannot find the installed 'brain' program; install brain (pip install .) and run this again")


def project_root(folder: Path) -> Path:
    """The repository's top level (the nearest folder upwards holding `.git`, a folder or a worktree's
    file), where Claude Code reads a project's settings; the folder itself outside a repository."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def targets(agent: Agent, scope: str, project_dir: Path, home: Path) -> list[Target]:
    """The files an agent may hold brain's entries in for a scope."""
    if scope not in SCOPES:
        raise UsageError(f"scope '{scope}' is not one of: {', '.join(SCOPES)}")
    return agent.targets(scope, project_dir, home)


def portable(commands: Commands, root: Path) -> Commands | None:
    """The commands a team can commit: `brain` found on PATH (the same program) and the vault relative
    to the project's root; None when either would need a path of this machine."""
    on_path = shutil.which("brain")
    vault = Path(commands.vault).resolve()
    if on_path is None or Path(on_path).resolve() != Path(commands.brain).resolve():
        return None
    if not vault.is_relative_to(root.resolve()):
        return None
    relative = vault.relative_to(root.resolve()).as_posix() or "."
    return Commands("brain", relative, commands.namespaces, portable=True)


def install(name: str, commands: Commands, *, scope: str, project_dir: Path, home: Path) -> list[Change]:
    """Merge brain's entries in, replacing brain's own where they are (another vault, namespaces or
    program). At project scope they go to the committed files when they are portable, else to this
    machine's local files, and out of the other pair. Refused when another scope has brain's hooks."""
    agent = agent_named(name)
    root = project_root(project_dir)
    chosen = targets(agent, scope, root, home)
    _refuse_a_second_scope(agent, scope, chosen, root, home)
    shared = portable(commands, root) if any(target.share == "shared" for target in chosen) else None
    plans = []
    missing = {target: _missing_folders(target.path) for target in chosen}  # before any file makes one
    for target in chosen:
        wanted = {"shared": shared, "local": None if shared else commands, "user": commands}[target.share]
        current = _read(target.path) if target.path.is_file() else None
        plans.append((target, current, _new_text(agent, target, current, wanted), wanted))
    in_project = any(target.share != "user" for target in chosen)
    changes = [Change(str(root), "project", _root_note(root, project_dir))] if in_project else []
    vault = Path(commands.vault)
    _forget_copies(vault)
    for target, current, text, wanted in plans:
        records = _records(agent, target, current)
        if wanted is None:  # the other pair of a project's files: brain's entries go out of them
            change = _take_out(target, current, text, records)
            changes += [change, *_unexclude(change, records)] if change.action not in ("unchanged", "absent") else []
        else:
            changes += _put_in(agent, vault, root, target, current, text, records, missing[target])
    return changes


def _put_in(
    agent: Agent,
    vault: Path,
    root: Path,
    target: Target,
    current: str | None,
    text: str | None,
    records: list[_Record],
    missing: list[str],
) -> list[Change]:
    """Write the file with brain's entries, and remember it in the vault (once, whatever vault had it)
    with the folders that were `missing` before install (one that another of its files made too)."""
    change = _apply(target, current, text)
    changes = [change]
    excluded = next((record.excluded for record in records if record.excluded), None)
    if change.action == "created" and target.share == "local" and target.path.is_relative_to(root):
        ignored = _keep_out_of_git(root, target.path)
        changes += ignored
        excluded = (ignored[0].path, f"/{target.path.relative_to(root).as_posix()}") if ignored else excluded
    created = current is None or any(record.created_file for record in records)
    folders = [*missing, *(folder for record in records for folder in record.created_folders)]
    for record in records:
        record.file.unlink(missing_ok=True)
    _remember(vault, agent, target, text, created, folders, excluded)
    step = agent.to_do(target, text) if text is not None else None
    return changes + ([Change(str(target.path), "to do", step)] if step else [])


def uninstall(name: str, *, scope: str, project_dir: Path, home: Path) -> list[Change]:
    """Take brain's entries out of each file as it is now; everything else stays. A file install
    created goes when nothing is left in it, and so do the folders install created for it, when
    empty; a folder that existed before install always stays, and a symlink stays a link."""
    agent = agent_named(name)
    plans = []
    for target in targets(agent, scope, project_root(project_dir), home):
        current = _read(target.path) if target.path.is_file() else None
        plans.append((target, current, _new_text(agent, target, current, None)))
    for target, current, _ in plans:
        for vault in agent.vaults_named(target, current) if current is not None else ():
            _forget_copies(Path(vault))
    changes = []
    for target, current, text in plans:
        records = _records(agent, target, current)
        change = _take_out(target, current, text, records)
        changes += [change, *_unexclude(change, records)]
    return changes


def status(project_dir: Path, home: Path) -> list[Installed]:
    """brain's entries in every file it may have written, for every agent and scope."""
    found = []
    seen: set[Target] = set()
    root = project_root(project_dir)
    for agent in AGENTS.values():
        for scope in SCOPES:
            for target in targets(agent, scope, root, home):
                if target in seen:  # an agent with one file for both scopes
                    continue
                seen.add(target)
                path, label, share = str(target.path), _label(target), target.share
                if not target.path.is_file():
                    found.append(Installed(path, False, (), None, label, share))
                    continue
                try:
                    text = _read(target.path)
                    entries, problem = agent.entries(target, text)
                    vaults = tuple(agent.vaults_named(target, text)) if entries else ()
                    programs = tuple(agent.programs_named(target, text)) if entries else ()
                    missing = tuple(broken(agent.name, scope, programs, vaults))
                    found.append(Installed(path, True, entries, problem, label, share, vaults, missing))
                except BrokenFile as error:
                    found.append(Installed(path, True, (), error.problem, label, share))
    return found


def _label(target: Target) -> str:
    inside = target.project is not None and target.path.is_relative_to(target.project)
    return str(target.path) if target.project is None or inside else f"{target.path} (project {target.project})"


def _root_note(root: Path, asked: Path) -> str:
    if not (root / ".git").exists():
        return "not in a git repository: this folder"
    return "git top level" if root == asked else f"git top level of {asked}"


def _keep_out_of_git(root: Path, path: Path) -> list[Change]:
    """Make git ignore a local file brain created in a repository (`.git/info/exclude`, which is not
    committed): Claude Code ignores the settings.local.json it creates itself, and one brain creates
    would otherwise be offered for the next commit, with this machine's paths."""
    git = shutil.which("git")
    if git is None:
        return []
    relative = path.relative_to(root).as_posix()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([git, "-C", str(root), *args], capture_output=True, text=True, check=False)

    if run("check-ignore", "-q", relative).returncode != 1:  # ignored already (0), or not a repository git reads
        return []
    exclude = root / run("rev-parse", "--git-path", "info/exclude").stdout.strip()
    before = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
    _write(exclude, before + ("" if not before or before.endswith("\n") else "\n") + f"/{relative}\n")
    return [Change(str(exclude), "updated" if before else "created", f"git ignores {relative}")]


def _unexclude(change: Change, records: list[_Record]) -> list[Change]:
    """A local file brain created and has now removed needs no ignoring: the line install added to
    `.git/info/exclude` for it goes (one line, as it was written; the rest of the file stays)."""
    excluded = next((record.excluded for record in records if record.excluded), None)
    if change.action != "removed" or excluded is None:
        return []
    exclude, line = Path(excluded[0]), excluded[1]
    try:
        lines = exclude.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return []
    kept = [*lines]
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].rstrip("\r\n") == line:
            del kept[index]
            break
    if kept == lines:
        return []
    _write(exclude, "".join(kept))
    return [Change(str(exclude), "updated", f"git no longer ignores {line.lstrip('/')}")]


def _refuse_a_second_scope(agent: Agent, scope: str, chosen: list[Target], root: Path, home: Path) -> None:
    """Claude Code runs the hooks of every settings file, so brain's hooks in two scopes would run twice."""
    own = {target.path for target in chosen}
    other = next(name for name in SCOPES if name != scope)
    for target in targets(agent, other, root, home):
        if not target.runs_hooks or target.path in own or not target.path.is_file():
            continue
        try:
            entries, _ = agent.entries(target, _read(target.path))
        except BrokenFile:
            continue
        if entries:
            raise InvalidInput(
                f"brain's hooks are already in {target.path} ({other} scope), and both would run; "
                f"take them out with 'brain hooks uninstall {agent.name} --scope {other}' first"
            )


def _new_text(agent: Agent, target: Target, current: str | None, commands: Commands | None) -> str | None:
    """The file's text after the change (None: the file stays absent)."""
    try:
        return agent.merged(target, current, commands)
    except InvalidInput as error:
        message = str(error)
        path = str(target.path)
        raise InvalidInput(message if message.startswith(path) else f"{path}: {message}") from None


def _what(target: Target) -> str:
    return f"{target.what}, this machine only" if target.share == "local" else target.what


def _apply(target: Target, current: str | None, text: str | None) -> Change:
    path, what = target.path, _what(target)
    if text is None:
        return Change(str(path), "absent", what)
    if current == text:
        return Change(str(path), "unchanged", what)
    _write(path, text)
    return Change(str(path), "updated" if current is not None else "created", what)


def _take_out(target: Target, current: str | None, text: str | None, records: list[_Record]) -> Change:
    """Write the file without brain's entries; a file brain created (or one that held only brain's
    entries) goes when nothing is left, with the folders install made for it, when empty."""
    path, what = target.path, _what(target)
    for record in records:
        record.file.unlink(missing_ok=True)
    if current is None or text is None:
        return Change(str(path), "absent", what)
    if text == current:
        return Change(str(path), "unchanged", what)
    created = not records or any(record.created_file for record in records)
    if _holds_nothing(text) and created and not path.is_symlink():
        path.unlink()
        folders = {folder for record in records for folder in record.created_folders}
        for folder in sorted(map(Path, folders), key=lambda f: len(f.parts), reverse=True):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        return Change(str(path), "removed", what)
    _write(path, text)
    return Change(str(path), "updated", what)


def _holds_nothing(text: str) -> bool:
    return text.strip() in ("", "{}")


def _missing_folders(path: Path) -> list[str]:
    """The folders above `path` that do not exist yet (writing the file will make them), innermost first."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(str(folder))
        folder = folder.parent
    return missing


# ---------------------------------------------------------------- what install remembers, in the vault


@dataclass(frozen=True)
class _Record:
    """What install kept of a file: whether brain created it and the folders it made for it."""

    file: Path
    created_file: bool
    created_folders: tuple[str, ...]
    excluded: tuple[str, str] | None = None  # (.git/info/exclude, the line install added there for the file)


def _installed_dir(vault: Path) -> Path:
    return vault / ".brain" / "hooks" / "installed"


def _record_file(vault: Path, target: Target) -> Path:
    key = f"{target.path.resolve()}\n{target.share}\n{target.project or ''}"
    return _installed_dir(vault) / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.json"


def _legacy_record_file(vault: Path, path: Path) -> Path:
    """Where earlier versions kept their copy of a file (keyed by the path alone)."""
    return _installed_dir(vault) / f"{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:20]}.json"


def _remember(
    vault: Path,
    agent: Agent,
    target: Target,
    text: str | None,
    created: bool,
    folders: list[str],
    excluded: tuple[str, str] | None = None,
) -> None:
    if text is None:
        return
    entries, _ = agent.entries(target, text)
    record = {
        "path": str(target.path),
        "created_file": created,
        "created_folders": list(dict.fromkeys(folders)),
        "entries": list(entries),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        **({"excluded": list(excluded)} if excluded else {}),
    }
    _write_private(_record_file(vault, target), json.dumps(record, ensure_ascii=False))


def _records(agent: Agent, target: Target, current: str | None) -> list[_Record]:
    """What install kept of the file, in the vaults brain's entries in it name (one per vault when it
    was installed with one vault and then another)."""
    if current is None:
        return []
    found = []
    for vault in agent.vaults_named(target, current):
        for file in (_record_file(Path(vault), target), _legacy_record_file(Path(vault), target.path)):
            saved = _load(file)
            if saved is not None and saved.get("path") == str(target.path):
                created = bool(saved.get("created_file", "before" in saved and saved["before"] is None))
                excluded = saved.get("excluded")
                pair = (str(excluded[0]), str(excluded[1])) if excluded and _is_pair_of_text(excluded) else None
                found.append(_Record(file, created, tuple(saved.get("created_folders", [])), pair))
    return found


def _is_pair_of_text(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(item, str) for item in value)


def _forget_copies(vault: Path) -> None:
    """Earlier versions kept each file's whole text (`before`, `after`) in the vault, `~/.claude.json`
    with its tokens included: keep only what brain needs of them, at mode 600."""
    folder = _installed_dir(vault)
    for file in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        saved = _load(file)
        if saved is None:
            file.unlink(missing_ok=True)
        elif "before" in saved or "after" in saved:
            after = saved.get("after")
            kept = {
                "path": saved.get("path"),
                "created_file": saved.get("before") is None,
                "created_folders": saved.get("created_folders", []),
                "sha256": hashlib.sha256(after.encode()).hexdigest() if isinstance(after, str) else None,
            }
            _write_private(file, json.dumps(kept, ensure_ascii=False))
        else:
            os.chmod(file, 0o600)


def _load(file: Path) -> dict[str, Any] | None:
    try:
        saved = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return saved if isinstance(saved, dict) else None


def _write_private(file: Path, text: str) -> None:
    """A file only its owner reads, in a folder only its owner opens."""
    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(file.parent, 0o700)
    replace_file(file, text, mode=0o600)


# ---------------------------------------------------------------- settings files


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BrokenFile(f"{path} is not UTF-8 text; brain leaves it alone", "not UTF-8 text") from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise BrokenFile(f"cannot read {path}: {reason}", f"cannot be read ({reason})") from None


def _write(path: Path, text: str) -> None:
    """Write atomically, keeping the mode; through a symlink, the link's target (the link stays)."""
    real = path.resolve() if path.is_symlink() else path
    replace_file(real, text, mode=real.stat().st_mode & 0o777 if real.exists() else None)
