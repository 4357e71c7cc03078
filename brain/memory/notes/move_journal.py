"""A move written down before any file changes, so that a move killed part-way is finished.

`brain note move` touches many files: the note, its title, every note that links it. Before the
first of them changes, `.brain/journal/moves/PENDING.json` lists the whole move: the old and new
path, the new title, and for each linking note which link targets (wikilinks) and which paths
(markdown links) become what. It is written whole (a synced temp file, renamed) and removed when
the move is done. Each step reads the file as it is now and changes only what is still to
change, so carrying the plan out again never makes it worse.

A move killed part-way (a crash, `kill -9`, a full disk) is *finished*, never undone: the next
brain command that opens the vault (`brain.open`), the next move, and `brain doctor --fix` carry
out what the plan still lists. Moves take `.brain/journal/move.lock`, one at a time; a move
running in another process is never finished by a second one. A plain folder used as a vault
(no `.brain/`) keeps no plan: its moves hold its write lock throughout instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from brain.errors import BrainError, WriteConflict
from brain.lazy import lazy_module
from brain.markdown.edit import set_frontmatter
from brain.markdown.links import rewrite_links
from brain.markdown.model import Note
from brain.vault.atomic import write_json
from brain.vault.vault import Vault

if TYPE_CHECKING:
    import filelock
else:
    filelock = lazy_module("filelock")

MOVES_DIR = "moves"
PENDING_FILE = "PENDING.json"
LOCK_SECONDS = 60.0


@dataclass(frozen=True)
class MovePlan:
    """A whole move: `wikilinks[path]` maps each link target a note writes to its new one,
    `paths[path]` each markdown link's path (decoded) to its new one."""

    source: str
    target: str
    title: str | None = None  # the new title to write, when the old one was the file name
    old_title: str | None = None
    wikilinks: dict[str, dict[str, str]] = field(default_factory=dict)
    paths: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Moved:
    path: str
    title: str
    moved_from: str
    links: int  # links rewritten
    notes: tuple[str, ...]  # notes whose links were rewritten
    failed: tuple[str, ...] = ()  # notes whose links could not be rewritten, each with why

    @property
    def moved(self) -> bool:
        """False for a move onto the note's own path: nothing moved."""
        return self.path != self.moved_from


def pending_path(vault: Vault) -> Path:
    return vault.brain_dir / "journal" / MOVES_DIR / PENDING_FILE  # memory/front_door.py's PENDING_MOVE


@contextmanager
def locked(vault: Vault, *, wait: float = LOCK_SECONDS) -> Iterator[None]:
    """One move at a time; `WriteConflict` when another has held the lock for `wait` seconds."""
    if not vault.brain_dir.is_dir():  # a plain folder used as a vault keeps no state: its write lock, no plan
        with vault.locked():
            yield
        return
    folder = vault.brain_dir / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with filelock.FileLock(str(folder / "move.lock"), timeout=wait):
            yield
    except filelock.Timeout:
        raise WriteConflict(
            f"another brain process is moving a note (for {wait:g} s); try again once it is done"
        ) from None


def write_plan(vault: Vault, plan: MovePlan) -> None:
    if vault.brain_dir.is_dir():
        write_json(pending_path(vault), asdict(plan))


def read_plan(vault: Vault) -> MovePlan | None:
    """The plan of a move that was not finished, or None. A plan that cannot be read is an error."""
    path = pending_path(vault)
    try:
        body: Any = json.loads(path.read_text(encoding="utf-8"))
        return MovePlan(
            str(body["source"]),
            str(body["target"]),
            body.get("title"),
            body.get("old_title"),
            {str(note): {str(k): str(v) for k, v in links.items()} for note, links in body["wikilinks"].items()},
            {str(note): {str(k): str(v) for k, v in links.items()} for note, links in body["paths"].items()},
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        where = path.relative_to(vault.root).as_posix()
        raise WriteConflict(
            f"{where} (an interrupted move's plan) cannot be read; read it, finish the move by hand, then delete it"
        ) from None


def carry_out(vault: Vault, plan: MovePlan, title: str | None = None, *, planned_now: bool = False) -> Moved:
    """Do what `plan` still lists: move the file, set its title, rewrite the links; then remove the
    plan. `title` is the note's title after the move, as the caller shows it (default: its new title).

    A plan `planned_now` moves its file first or does nothing: a file that took the new path since
    the plan was made refuses the move, the plan is dropped, and no link changes. A plan found
    written down (a move killed part-way) moves the file only if it is still where it was."""
    source, target = vault.safe_path(plan.source), vault.safe_path(plan.target)
    if planned_now:
        try:
            vault.move(plan.source, plan.target)
        except BrainError:
            pending_path(vault).unlink(missing_ok=True)
            raise
    elif source.is_file() and not target.exists():
        vault.move(plan.source, plan.target)
    if plan.title is not None and target.is_file():
        vault.update(plan.target, partial(_retitled, old=plan.old_title, new=plan.title))
    links, changed, failed = 0, [], []
    for path in sorted(set(plan.wikilinks) | set(plan.paths)):
        where = plan.target if path == plan.source else path
        count = [0]
        change = partial(
            _rewritten, wikilinks=plan.wikilinks.get(path, {}), paths=plan.paths.get(path, {}), count=count
        )
        try:
            vault.update(where, change)
        except BrainError as error:
            failed.append(f"{where}: {error}")
            continue
        if count[0]:
            links += count[0]
            changed.append(where)
    pending_path(vault).unlink(missing_ok=True)
    shown = title or plan.title or PurePosixPath(plan.target).stem
    return Moved(plan.target, shown, plan.source, links, tuple(changed), tuple(failed))


def finish_pending(vault: Vault) -> Moved | None:
    """Finish a move that was killed part-way, when there is one and no other process is moving
    a note; what it finished, or None. A move that cannot be finished now (a read-only vault)
    stays written down, for the next command or `brain doctor`."""
    if not pending_path(vault).is_file():
        return None
    try:
        with locked(vault, wait=0):
            plan = read_plan(vault)
            if plan is None:
                return None
            return carry_out(vault, plan)
    except (BrainError, OSError):
        return None


def _retitled(note: Note, *, old: str | None, new: str) -> str:
    """The note's text with its title set to `new`, unless it was set to something else since."""
    if str(note.frontmatter.get("title", "")).strip() != (old or ""):
        return note.text
    return set_frontmatter(note.text, {"title": new})


def _rewritten(note: Note, *, wikilinks: dict[str, str], paths: dict[str, str], count: list[int]) -> str:
    text, count[0] = rewrite_links(note.text, wikilinks.get, paths.get)
    return text
