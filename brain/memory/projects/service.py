"""The project a folder belongs to, and the scope a reader of the vault takes from it.

`locate(folder)` finds the git repository holding a folder by reading `.git` itself (its config's
remote, its HEAD's branch; a worktree's or a submodule's `.git` file followed): no `git` process, as
a hook must answer at once. The project is the remote `origin` (or the first remote), normalised;
without a remote, the repository's root folder; outside a repository, the folder itself. A folder
that does not exist here (a transcript from another machine) is its own project, with the branch
and the remote its transcript recorded.

`scope_for` turns the project into what a reader keeps (`brain.memory.projects.note` has the rule): the
current folder's project falls back to the whole vault while the vault holds no episode of it; a
project named by the user does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from brain.memory.projects.note import normalise_remote

if TYPE_CHECKING:  # not imported at run time: the tool-failure hook needs only `locate`
    from brain.memory.corpus import Corpus

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_URL = re.compile(r"^\s*url\s*=\s*(.*?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ProjectRef:
    """Where a session ran: the project, its branch, the working folder relative to the repository's root."""

    project: str
    branch: str | None = None
    folder: str = ""

    def frontmatter(self) -> dict[str, str]:
        values = {"project": self.project}
        if self.branch:
            values["branch"] = self.branch
        if self.folder:
            values["project_folder"] = self.folder
        return values


def locate(folder: str | Path | None, *, branch: str | None = None, remote: str | None = None) -> ProjectRef | None:
    """The project of `folder` (see the module doc); `branch` and `remote` are what a transcript
    recorded, preferred to the repository's state now (its HEAD may have moved since). None without a folder."""
    if not folder:
        return None
    path = Path(folder).expanduser()
    try:
        found = _repository(path.resolve()) if path.is_dir() else None
    except OSError:
        found = None
    if found is None:
        home = normalise_remote(remote) if remote else str(path)
        return ProjectRef(home, branch or None)
    root, git_dir = found
    config = _common_dir(git_dir) / "config"
    origin = remote or _remote_url(config)
    relative = path.resolve().relative_to(root).as_posix()
    return ProjectRef(
        normalise_remote(origin) if origin else str(root),
        branch or _head_branch(git_dir),
        "" if relative == "." else relative,
    )


def _repository(start: Path) -> tuple[Path, Path] | None:
    """(the repository's root, its git folder) for the nearest `.git` at or above `start`."""
    for folder in (start, *start.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return folder, marker
        if marker.is_file():  # a worktree or a submodule: "gitdir: <path>"
            text = marker.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                return folder, (folder / text.removeprefix("gitdir:").strip()).resolve()
            return None
    return None


def _common_dir(git_dir: Path) -> Path:
    """A worktree's git folder names the repository's own in `commondir`; the config lives there."""
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    return (git_dir / common).resolve()


def _remote_url(config: Path) -> str | None:
    """The url of remote "origin", else of the first remote with one, from a git config file."""
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    urls: dict[str, str] = {}
    remote: str | None = None
    for line in lines:
        section = _SECTION.match(line)
        if section:
            remote = section[2] if section[1].lower() == "remote" else None
            continue
        url = _URL.match(line)
        if remote is not None and url and url[1]:
            urls.setdefault(remote, url[1].strip('"'))
    return urls.get("origin") or next(iter(urls.values()), None)


def _head_branch(git_dir: Path) -> str | None:
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None


# ---------------------------------------------------------------- scope


@dataclass(frozen=True)
class Scope:
    """What a reader keeps: `project` None is the whole vault. `asked` is the project the reader
    started from (the current folder's, or the one named), kept to say why the vault was widened."""

    project: str | None
    asked: str | None = None


WHOLE_VAULT = Scope(None)


def current_folder() -> Path | None:
    """This process's folder; None when it was removed (a reader then has no project: the whole vault)."""
    try:
        return Path.cwd()
    except OSError:
        return None


def has_episodes(corpus: Corpus, project: str) -> bool:
    """Whether the vault holds an episode of `project` (from the catalog: one query, no note decoded)."""
    return corpus.has_value("episode", "project", project)


def _named(project: str) -> str:
    """A project as the user names it: any spelling of its remote, or a folder of it."""
    folder = Path(project).expanduser()
    found = locate(folder) if folder.is_dir() else None
    return found.project if found is not None else normalise_remote(project)


def scope_for(
    corpus: Corpus,
    *,
    folder: str | Path | None = None,
    project: str | None = None,
    all_projects: bool = False,
) -> Scope:
    """The scope of a reader: the whole vault (`all_projects`), the project named (strict: a remote
    or a folder of the project), or the project of `folder` (the whole vault while the vault has no
    episode of it)."""
    return scope_by(lambda name: has_episodes(corpus, name), folder=folder, project=project, all_projects=all_projects)


def scope_by(
    episodes_of: Callable[[str], bool],
    *,
    folder: str | Path | None = None,
    project: str | None = None,
    all_projects: bool = False,
) -> Scope:
    """`scope_for`, asking `episodes_of(project)` whether the vault holds an episode of a project
    (a search asks the index's catalog, without the corpus)."""
    if all_projects:
        return WHOLE_VAULT
    if project is not None and project.strip():
        named = _named(project)
        return Scope(named, named)
    here = locate(folder) if folder else None
    if here is None:
        return WHOLE_VAULT
    return Scope(here.project, here.project) if episodes_of(here.project) else Scope(None, here.project)
