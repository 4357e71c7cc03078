"""The vault on disk: find it, read its notes, write them atomically and safely.

Every write to a note goes through `Vault`. Paths given to it are vault-relative POSIX strings; none
may escape the vault, name a reserved device, or go through a symlink that points outside. Which files
are notes is `brain/vault/note_files.py`; how one file is replaced safely is `brain/vault/fileswap.py`.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from brain.errors import (
    BrainError,
    InvalidInput,
    NoteExists,
    NoteNotFound,
    Remedy,
    UnsafePath,
    WriteConflict,
)
from brain.lazy import lazy_module
from brain.markdown.lines import has_line_break
from brain.markdown.model import Note
from brain.markdown.parse import parse_note
from brain.vault.fileswap import RETRY_HINT, install, not_utf8, read_whole, refuse_twin, rename_new, stale_temps
from brain.vault.history import History
from brain.vault.note_files import BRAIN_DIR, SKIPPED_DIRS, in_templates, note_files, parse_bytes, templates_folder
from brain.vault.root import vault_root

if TYPE_CHECKING:
    import filelock
else:
    filelock = lazy_module("filelock")  # imported at first use: only a write takes the vault's lock

TYPE_FOLDERS = {
    "episode": "episodes",
    "pattern": "patterns",
    "causal": "causal",
    "context": "contexts",
    "fact": "facts",
    "run": "runs",
    "tip": "tips",
}
# A batch's folders as resolved, each with the (device, inode) it had then (see Vault._in_folder).
Folders = dict[Path, tuple[Path, tuple[int, int]]]
Content = str | bytes  # what `Vault.write` writes: text, or exact bytes (a restore from the history)
_WINDOWS_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)
_UNSAFE_FILENAME_CHARS = re.compile(r'[\x00-\x1f<>:"/\\|?*#^\[\]]+')


@dataclass(frozen=True)
class Stamp:
    """What a file was when brain read it; a write checks the file still matches."""

    mtime_ns: int
    size: int
    sha256: str


@dataclass(frozen=True)
class NoteFile:
    note: Note
    stamp: Stamp


ChangeListener = Callable[[tuple[str, ...]], None]


class Vault:
    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self._listeners: list[ChangeListener] = []
        self._lock: filelock.FileLock | None = None
        self._held: list[str] | None = None  # paths changed inside batched_changes()
        self.history = History(self.brain_dir)  # every version a write replaces or a delete removes

    def on_change(self, listener: ChangeListener) -> None:
        """Call `listener(paths)` with the vault-relative paths each write, delete or move made
        through brain changed (a move gives both paths).

        This is how indexes learn of brain's own writes at once, without vault.py knowing them.
        """
        self._listeners.append(listener)

    def remove_listener(self, listener: ChangeListener) -> None:
        """Stop calling a listener `on_change` registered (its owner, an open vault, was closed)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    @contextmanager
    def batched_changes(self) -> Iterator[None]:
        """Hold change notices until the block ends, then send them as one (an import writes
        thousands of notes; the index takes them in one update, not one each)."""
        if self._held is not None:  # already batching: the outer block sends
            yield
            return
        self._held = []
        try:
            yield
        finally:
            paths, self._held = tuple(dict.fromkeys(self._held)), None
            if paths:
                self._send(paths)

    def _notify(self, *paths: str | None) -> None:
        changed = tuple(path for path in paths if path)
        if self._held is not None:
            self._held.extend(changed)
        else:
            self._send(changed)

    def _send(self, paths: tuple[str, ...]) -> None:
        for listener in self._listeners:
            listener(paths)

    # ------------------------------------------------------------ finding

    @classmethod
    def find(cls, explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Vault:
        """The vault from `explicit`, else $BRAIN_VAULT, else the first folder upwards holding `.brain/`
        (brain/vault/root.py, which says what is wrong when none is found)."""
        return cls(vault_root(explicit, cwd))

    @property
    def brain_dir(self) -> Path:
        return self.root / BRAIN_DIR

    @property
    def index_dir(self) -> Path:
        return self.brain_dir / "index"

    # ------------------------------------------------------------ paths

    def safe_path(self, relative: str, folders: Folders | None = None) -> Path:
        """The absolute path for a vault-relative path, refusing anything that leaves the vault.

        `folders` (a batch of files passes one dict for all of them) saves resolving a folder again
        for each of its files (see `_in_folder`): a file that is not a symlink itself resolves to
        its resolved folder plus its name. Resolving walks every part of the path with a system
        call each, and was a quarter of the time a batch spent per file.
        """
        if not isinstance(relative, str) or not relative.strip():
            raise UnsafePath("empty path; give a path inside the vault such as 'notes/My Note.md'")
        if "\x00" in relative:
            raise UnsafePath("path contains a NUL byte")
        posix = PurePosixPath(relative.replace("\\", "/"))
        if posix.is_absolute() or re.match(r"^[A-Za-z]:", relative):
            raise UnsafePath(f"'{relative}' is absolute; give a path relative to the vault root")
        for part in posix.parts:
            if part in ("..", "."):
                raise UnsafePath(f"'{relative}' uses '{part}'; paths must stay inside the vault")
            if len(part.encode("utf-8")) > 255:
                raise UnsafePath(
                    f"'{part[:40]}...' is {len(part.encode('utf-8'))} bytes, over the 255-byte limit of a file or folder name"
                )
            if _WINDOWS_RESERVED.match(part):
                raise UnsafePath(f"'{part}' is a reserved file name on Windows; choose another name")
        if posix.parts and posix.parts[0] == BRAIN_DIR:
            raise UnsafePath(f"'{relative}' is inside {BRAIN_DIR}/, which holds brain's own state, not notes")
        path = self.root.joinpath(*posix.parts)
        resolved = path.resolve() if folders is None or os.path.islink(path) else self._in_folder(path, folders)
        if resolved != self.root and self.root not in resolved.parents:
            raise UnsafePath(f"'{relative}' leads outside the vault (through a symlink?)")
        if self.brain_dir == resolved or self.brain_dir in resolved.parents:
            raise UnsafePath(f"'{relative}' leads into {BRAIN_DIR}/ through a symlink; brain's own state is not a note")
        return path

    @staticmethod
    def _in_folder(path: Path, folders: Folders) -> Path:
        """`path` resolved through its folder's resolution kept in `folders`, used only while the
        folder is still the same directory (one stat): a folder swapped for a symlink while a
        batch runs (by another program) is resolved again, and refused if it leads out."""
        try:
            info = os.stat(path.parent)
        except OSError:
            return path.resolve()
        identity = (info.st_dev, info.st_ino)
        known = folders.get(path.parent)
        if known is None or known[1] != identity:
            known = folders[path.parent] = (path.parent.resolve(), identity)
        return known[0] / path.name

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    @staticmethod
    def filename_for(title: str) -> str:
        """A safe file name for a title: characters that paths or wikilinks cannot hold become '-'."""
        name = _UNSAFE_FILENAME_CHARS.sub("-", unicodedata.normalize("NFC", title)).strip().strip(".").strip()
        name = re.sub(r"\s+", " ", name)
        while len(name.encode("utf-8")) > 180:
            name = name[:-1]
        name = name.rstrip(" .")
        if not name or _WINDOWS_RESERVED.match(name):
            raise InvalidInput(f"title '{title}' does not make a usable file name; choose another title")
        return name + ".md"

    # ------------------------------------------------------------ listing and reading

    def iter_files(self) -> Iterator[str]:
        """Vault-relative paths of every note file, in order (the rule: `is_note_path`, see `note_files`)."""
        yield from sorted(note_files(self.root)[0])

    def stat(self, relative: str) -> os.stat_result:
        return self.safe_path(relative).stat()

    def read_bytes(self, relative: str) -> bytes:
        path = self.safe_path(relative)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise NoteNotFound(f"no file '{relative}' in the vault") from None
        except IsADirectoryError:
            raise InvalidInput(f"'{relative}' is a folder, not a note") from None

    def read(self, relative: str) -> NoteFile:
        """Read and parse one note. Undecodable bytes are replaced and reported, never fatal."""
        path = self.safe_path(relative)
        data = self.read_bytes(relative)
        info = path.stat()
        stamp = Stamp(info.st_mtime_ns, len(data), hashlib.sha256(data).hexdigest())
        return NoteFile(parse_bytes(data, relative), stamp)

    # ------------------------------------------------------------ writing
    # Every write goes through `install` (brain/vault/fileswap.py), under the vault's write lock (shared by
    # every brain process on this vault): a read-change-write cannot interleave with another brain's,
    # and the file is re-checked right before the rename (an editor's save meanwhile is refused).

    def update(self, relative: str, change: Callable[[Note], str], *, sync: bool = True) -> Updated:
        """Read a note, compute its new text with `change(note)`, and write it, all under the write lock.

        Refused, with nothing written: a file over the edit limit or not valid UTF-8 (`InvalidInput`),
        a read that looks truncated (a save in progress) and a file that changed before the rename
        (`WriteConflict`). The new text keeps the file's mode.
        """
        path = self._note_path(relative)
        with self._locked():
            data, mode = read_whole(relative, path)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise not_utf8(relative, error) from None
            before = parse_note(text, relative)
            after = change(before)
            if after == text:
                return Updated(before, False)
            key, new = self.relative(path), after.encode("utf-8")
            self.history.before(key, data, path, sync=sync)
            install(relative, path, new, expected=data, mode=mode, sync=sync)
            self.history.after(key, new, "edit")
        self._notify(key)  # outside the lock: indexing may take a while
        return Updated(before, True)

    def write(
        self, relative: str, text: Content, *, expected: Stamp | None = None, create: bool = False, sync: bool = True
    ) -> Stamp:
        """Write a note atomically (temp file + rename in the same folder), under the write lock.

        `create=True` refuses to overwrite an existing file. `expected` refuses the write when
        the file on disk is no longer what brain read. `sync=False` skips the fsync, for a
        batch of writes that is made durable once at its end (`os.sync()`): an import of
        thousands of notes would otherwise spend most of its time waiting on the disk.
        """
        path = self._note_path(relative)
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        with self._locked():
            current: bytes | None = None
            mode = None
            replaced: bytes | None = None
            if expected is not None:
                current, mode = read_whole(relative, path)
                if hashlib.sha256(current).hexdigest() != expected.sha256:
                    raise WriteConflict(
                        f"'{relative}' changed on disk after brain read it; nothing was written. {RETRY_HINT}"
                    )
            elif not create and path.is_file():
                mode, replaced = stat.S_IMODE(path.stat().st_mode), path.read_bytes()
            if current is None and mode is None:
                refuse_twin(path, relative)
            key, replaced = self.relative(path), current if current is not None else replaced
            if replaced is not None:
                self.history.before(key, replaced, path, sync=sync)
            install(relative, path, data, expected=current, create=create, mode=mode, sync=sync)
            self.history.after(key, data, "edit" if replaced is not None else "create")
        self._notify(key)
        info = path.stat()
        return Stamp(info.st_mtime_ns, len(data), hashlib.sha256(data).hexdigest())

    def _note_path(self, relative: str, folders: Folders | None = None) -> Path:
        """Where a note may be written: only a place `iter_files` lists, so brain can read it back."""
        path = self.safe_path(relative, folders)
        if not relative.lower().endswith(".md"):
            raise UnsafePath(f"'{relative}' is not a .md file; notes are markdown files")
        if has_line_break(relative):
            raise UnsafePath(f"{relative!r} holds a line break; choose a one-line name")
        parts = PurePosixPath(relative.replace("\\", "/")).parts
        for part in parts[:-1]:
            if part in SKIPPED_DIRS or part.startswith("."):
                raise UnsafePath(
                    f"'{relative}' is inside '{part}/', which brain does not read as notes; choose another folder"
                )
        if in_templates("/".join(parts), templates := templates_folder(self.root)):
            raise UnsafePath(
                f"'{relative}' is inside '{templates}/', Obsidian's templates folder; choose another folder"
            )
        if parts[-1].startswith("."):
            raise UnsafePath(
                f"'{parts[-1]}' is a hidden file, which brain does not read as a note; choose another name"
            )
        return path

    def locked(self) -> AbstractContextManager[None]:
        """The write lock for a read-change-write of brain's own spanning several files (re-entrant).

        Writers inside it wait for each other instead of refusing each other's changes as an editor's.
        """
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            with self._write_lock():
                yield
        except filelock.Timeout:
            raise WriteConflict(
                f"another brain process has held this vault's write lock for {WRITE_LOCK_SECONDS:g} s; nothing was written. Try again"
            ) from None

    def _write_lock(self) -> filelock.FileLock:
        if self._lock is None:
            if self.brain_dir.is_dir():
                where = self.brain_dir / "write.lock"
            else:  # a plain folder used as a vault: keep brain's state out of it
                digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
                where = Path(tempfile.gettempdir()) / f"brain-write-{digest}.lock"
            self._lock = filelock.FileLock(where, timeout=WRITE_LOCK_SECONDS)
        return self._lock

    def delete(self, relative: str) -> None:
        path = self.safe_path(relative)
        with self._locked():
            if not path.is_file():
                raise NoteNotFound(f"no file '{relative}' in the vault")
            deleted, data = self.relative(path), path.read_bytes()
            self.history.before(deleted, data, path)
            path.unlink()
            self.history.after(deleted, None, "delete", title=parse_bytes(data, deleted).title)
        self._notify(deleted)

    def remove_stale_temps(self) -> list[str]:
        """Remove the temp files that killed writes left (`fileswap.stale_temps`)."""
        if not stale_temps(self.root, SKIPPED_DIRS):  # none: no lock (nor its file) is taken
            return []
        with self._locked():  # under it, a temp file is never one a live write uses
            found = stale_temps(self.root, SKIPPED_DIRS)
            for path in found:
                path.unlink(missing_ok=True)
        return [path.relative_to(self.root).as_posix() for path in found]

    # ------------------------------------------------------------ batches (hundreds of files)
    # One hold of the write lock per batch, files one after another (threads in one folder
    # wait on its lock in the kernel); the caller keeps batches to a few hundred files, syncs once (os.sync).

    def delete_many(self, relatives: Sequence[str]) -> Batch:
        """Delete these notes for good (the retention sweep: no version goes to the history, and the
        sweep purges what the history held); `Batch.changed` holds what each file held (for a receipt)."""

        folders: Folders = {}

        def delete(relative: str) -> bytes | None:
            path = self.safe_path(relative, folders)
            try:
                data = path.read_bytes()
                path.unlink()
            except FileNotFoundError:
                return None
            return data

        return self._batch(relatives, delete)

    def update_many(self, changes: Mapping[str, Callable[[str], str]]) -> Batch:
        """`update` for many notes, with its refusals (too large, not UTF-8, looks truncated,
        changed before the rename) and no fsync: `changes[path](text)` gives a note's new text.
        `Batch.changed` holds what each rewritten file held before."""

        folders: Folders = {}

        def rewrite(relative: str) -> bytes | bool | None:
            path = self._note_path(relative, folders)
            try:
                data, mode = read_whole(relative, path)
            except WriteConflict:
                if not path.exists():
                    return None  # deleted meanwhile: nothing to change
                raise
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise not_utf8(relative, error) from None
            after = changes[relative](text)
            if after == text:
                return False
            new = after.encode("utf-8")
            self.history.before(relative, data, path, sync=False)
            install(relative, path, new, expected=data, mode=mode, sync=False)
            self.history.after(relative, new, "edit")
            return data

        return self._batch(list(changes), rewrite)

    def _batch(self, relatives: Sequence[str], work: Callable[[str], bytes | bool | None]) -> Batch:
        """Run `work` (bytes before: changed, None: gone, False: unchanged) on each path under the
        write lock; the first error stops the batch, leaving the files after it alone."""
        results: dict[str, bytes | bool | None] = {}
        error: BrainError | OSError | None = None
        try:
            with self._locked():
                for relative in relatives:
                    if relative in results:
                        continue  # named twice: done once
                    try:
                        results[relative] = work(relative)
                    except (BrainError, OSError) as failure:
                        error = failure
                        break
        except WriteConflict as failure:  # the write lock could not be had: nothing was done
            return Batch({}, (), failure)
        changed = {relative: result for relative, result in results.items() if isinstance(result, bytes)}
        if changed:
            self._notify(*changed)
        return Batch(changed, tuple(relative for relative, result in results.items() if result is None), error)

    def move(self, source: str, target: str) -> None:
        old, new = self.safe_path(source), self._note_path(target)
        if old == new:  # onto its own path: nothing moves, and no version is written
            return
        with self._locked():
            if not old.is_file():
                raise NoteNotFound(f"no file '{source}' in the vault")
            renaming_form = (
                new.parent.exists()
                and os.path.samefile(old.parent, new.parent)
                and (unicodedata.normalize("NFC", old.name) == unicodedata.normalize("NFC", new.name))
            )  # Café in NFD renamed to NFC: the one allowed "twin"
            if not renaming_form:
                refuse_twin(new, target)
            moved_from, moved_to = self.relative(old), self.relative(new)
            if not renaming_form and self.history.last(moved_to) is not None:
                raise NoteExists(  # the two notes' versions would be one log: refused, each keeps its own
                    f"'{moved_to}' holds the history of a deleted note; restore that note (",
                    Remedy("restore_note", path=moved_to),
                    "), forget it for good (",
                    Remedy("purge_note", path=moved_to),
                    "), or move to another name",
                )
            new.parent.mkdir(parents=True, exist_ok=True)
            data = old.read_bytes()
            self.history.before(moved_from, data, old)
            rename_new(old, new, target)
            self.history.moved(moved_from, moved_to)
            self.history.after(moved_to, data, "move", moved_from=moved_from)
        self._notify(moved_to, moved_from)


WRITE_LOCK_SECONDS = 10.0


@dataclass(frozen=True)
class Batch:
    """What `delete_many` / `update_many` did: each file changed with the bytes it held before,
    the files found gone, and the error the batch stopped at (files not started were left alone)."""

    changed: dict[str, bytes]
    gone: tuple[str, ...] = ()
    error: BrainError | OSError | None = None


@dataclass(frozen=True)
class Updated:
    """What `Vault.update` read (`before`), and whether it wrote anything."""

    before: Note
    written: bool
