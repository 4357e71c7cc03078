"""The vault on disk: find it, list its notes, read them, write them atomically and safely.

This is the only module that touches note files. Paths given to it are vault-relative POSIX
strings; none may escape the vault, name a reserved device, or go through a symlink that
points outside.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path, PurePosixPath

from brain.errors import InvalidInput, NoteExists, NoteNotFound, UnsafePath, VaultNotFound, WriteConflict
from brain.notes.model import Note
from brain.notes.parse import parse_note

BRAIN_DIR = ".brain"
TYPE_FOLDERS = {
    "episode": "episodes",
    "pattern": "patterns",
    "causal": "causal",
    "context": "contexts",
    "fact": "facts",
    "run": "runs",
    "tip": "tips",
}
# Folders that are not notes: brain's own state, editors' and tools' state, templates.
SKIPPED_DIRS = {BRAIN_DIR, ".git", ".obsidian", ".trash", ".venv", "node_modules", "templates"}
MAX_NOTE_BYTES = 5 * 1024 * 1024
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
        self._held: list[str] | None = None  # paths changed inside batched_changes()

    def on_change(self, listener: ChangeListener) -> None:
        """Call `listener(paths)` with the vault-relative paths each write, delete or move made
        through brain changed (a move gives both paths).

        This is how indexes learn of brain's own writes at once, without vault.py knowing them.
        """
        self._listeners.append(listener)

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
    def find(cls, explicit: str | os.PathLike | None = None, cwd: Path | None = None) -> Vault:
        """The vault from `explicit`, else $BRAIN_VAULT, else the first folder upwards holding `.brain/`."""
        chosen = explicit or os.environ.get("BRAIN_VAULT")
        if chosen:
            root = Path(chosen).expanduser()
            if not root.is_dir():
                raise VaultNotFound(f"vault folder '{root}' does not exist; create it with 'brain init {root}'")
            return cls(root)
        here = (cwd or Path.cwd()).resolve()
        for folder in (here, *here.parents):
            if (folder / BRAIN_DIR).is_dir():
                return cls(folder)
        raise VaultNotFound(
            f"no vault found in '{here}' or above it; run 'brain init PATH', pass --vault, or set BRAIN_VAULT"
        )

    @property
    def brain_dir(self) -> Path:
        return self.root / BRAIN_DIR

    @property
    def index_dir(self) -> Path:
        return self.brain_dir / "index"

    # ------------------------------------------------------------ paths

    def safe_path(self, relative: str) -> Path:
        """The absolute path for a vault-relative path, refusing anything that leaves the vault."""
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
            if _WINDOWS_RESERVED.match(part):
                raise UnsafePath(f"'{part}' is a reserved file name on Windows; choose another name")
        if posix.parts and posix.parts[0] == BRAIN_DIR:
            raise UnsafePath(f"'{relative}' is inside {BRAIN_DIR}/, which holds brain's own state, not notes")
        path = self.root.joinpath(*posix.parts)
        resolved = path.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise UnsafePath(f"'{relative}' leads outside the vault (through a symlink?)")
        return path

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    @staticmethod
    def filename_for(title: str) -> str:
        """A safe file name for a title: characters that paths or wikilinks cannot hold become '-'."""
        name = _UNSAFE_FILENAME_CHARS.sub("-", title).strip().strip(".").strip()
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

    def write(
        self, relative: str, text: str, *, expected: Stamp | None = None, create: bool = False, sync: bool = True
    ) -> Stamp:
        """Write a note atomically (temp file + rename in the same folder).

        `create=True` refuses to overwrite an existing file. `expected` refuses the write when
        the file on disk is no longer what brain read. `sync=False` skips the fsync, for a
        batch of writes that is made durable once at its end (`os.sync()`): an import of
        thousands of notes would otherwise spend most of its time waiting on the disk.
        """
        path = self.safe_path(relative)
        if not relative.lower().endswith(".md"):
            raise UnsafePath(f"'{relative}' is not a .md file; notes are markdown files")
        if create and path.exists():
            raise NoteExists(f"'{relative}' already exists; edit it instead, or choose another title")
        if expected is not None:
            self._check_unchanged(relative, path, expected)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        descriptor, temp_name = tempfile.mkstemp(prefix=".brain-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                if sync:
                    os.fsync(handle.fileno())
            if expected is not None:
                self._check_unchanged(relative, path, expected)
            if create and path.exists():
                raise NoteExists(f"'{relative}' already exists; edit it instead, or choose another title")
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        info = path.stat()
        self._notify(self.relative(path))
        return Stamp(info.st_mtime_ns, len(data), hashlib.sha256(data).hexdigest())

    def _check_unchanged(self, relative: str, path: Path, expected: Stamp) -> None:
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            raise WriteConflict(f"'{relative}' was deleted after brain read it; nothing was written") from None
        if hashlib.sha256(current).hexdigest() != expected.sha256:
            raise WriteConflict(
                f"'{relative}' changed on disk after brain read it; nothing was written. Re-run the command to apply it to the new version"
            )

    def delete(self, relative: str) -> None:
        path = self.safe_path(relative)
        if not path.is_file():
            raise NoteNotFound(f"no file '{relative}' in the vault")
        deleted = self.relative(path)
        path.unlink()
        self._notify(deleted)

    def move(self, source: str, target: str) -> None:
        old, new = self.safe_path(source), self.safe_path(target)
        if not old.is_file():
            raise NoteNotFound(f"no file '{source}' in the vault")
        if new.exists():
            raise NoteExists(f"'{target}' already exists; choose another destination")
        new.parent.mkdir(parents=True, exist_ok=True)
        moved_from = self.relative(old)
        os.replace(old, new)
        self._notify(self.relative(new), moved_from)


# ---------------------------------------------------------------- which files are notes


class SkipKind(StrEnum):
    """Why a note-like file is left out of the index (doctor gives each kind its fix)."""

    OUTSIDE_SYMLINK = "outside-symlink"
    UNREADABLE = "unreadable"
    BINARY = "binary"


@dataclass(frozen=True)
class Skip:
    kind: SkipKind
    reason: str  # one line for people, e.g. "cannot be read: Permission denied"


def _is_note_name(name: str) -> bool:
    return name.lower().endswith(".md") and not name.startswith(".")


def is_note_path(relative: str) -> bool:
    """The one rule for note files: a `.md` file, not hidden, in no hidden or skipped folder
    (brain's state, editors' and tools' folders, templates). Symlinks are judged by `note_files`."""
    parts = PurePosixPath(relative).parts
    if not parts or not _is_note_name(parts[-1]):
        return False
    return not any(part in SKIPPED_DIRS or part.startswith(".") for part in parts[:-1])


def note_files(root: Path, paths: Iterable[str] | None = None) -> tuple[dict[str, tuple[int, int]], dict[str, Skip]]:
    """(path -> (mtime_ns, size)) of every note file under `root` (or of those among `paths`),
    and the note files left out with why (a symlink leading outside the vault, a file that
    cannot be stat'ed). A path that is gone is in neither.

    `is_note_path`'s rule; the whole vault is walked with os.scandir, so 10k notes stat in ~0.1 s.
    """
    root_text = str(root)
    found: dict[str, tuple[int, int]] = {}
    left_out: dict[str, Skip] = {}

    def take(relative: str, path: str, is_link: bool) -> None:
        seen = _look(root_text, path, is_link)
        if isinstance(seen, Skip):
            left_out[relative] = seen
        elif seen is not None:
            found[relative] = seen

    if paths is not None:
        for relative in paths:
            if is_note_path(relative):
                path = os.path.join(root_text, relative)
                take(relative, path, os.path.islink(path))
        return found, left_out
    stack = [(root_text, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name not in SKIPPED_DIRS and not name.startswith("."):
                        stack.append((entry.path, f"{prefix}{name}/"))
                    continue
                is_link = entry.is_symlink()
            except OSError:
                continue
            if _is_note_name(name):
                take(prefix + name, entry.path, is_link)
    return found, left_out


def _look(root_text: str, path: str, is_link: bool) -> tuple[int, int] | Skip | None:
    """A note file's (mtime_ns, size), why it is left out, or None when it is no file (gone, a folder)."""
    try:
        if is_link and not os.path.realpath(path).startswith(root_text + os.sep):
            return OUTSIDE_SYMLINK
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return unreadable(error)
    return (info.st_mtime_ns, info.st_size) if stat.S_ISREG(info.st_mode) else None


OUTSIDE_SYMLINK = Skip(SkipKind.OUTSIDE_SYMLINK, "symlink leads outside the vault; not followed")


def unreadable(error: OSError) -> Skip:
    return Skip(SkipKind.UNREADABLE, f"cannot be read: {error.strerror or error}")


def parse_bytes(data: bytes, relative: str | None = None) -> Note:
    """Decode as UTF-8 (replacing what is not) and parse; size and encoding problems are reported."""
    problems = []
    if len(data) > MAX_NOTE_BYTES:
        problems.append(f"file is {len(data) // 1024} KiB, over the {MAX_NOTE_BYTES // 1024 // 1024} MiB limit; only its start was read")
        data = data[:MAX_NOTE_BYTES]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        problems.append(f"not valid UTF-8 (byte {error.start}); undecodable bytes were replaced")
        text = data.decode("utf-8", "replace")
    note = parse_note(text, relative)
    if problems:
        note = replace(note, problems=tuple(problems) + note.problems)
    return note


def init_vault(root: Path) -> tuple[Vault, list[str]]:
    """Create a vault, or add what an existing folder lacks; nothing that exists is changed."""
    from importlib import resources

    from brain.config import DEFAULT_CONFIG

    root = Path(root).expanduser()
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"'{root}' is a file, not a folder; choose a folder for the vault")
    root.mkdir(parents=True, exist_ok=True)
    vault = Vault(root)
    created: list[str] = []
    for folder in (*TYPE_FOLDERS.values(), "templates", f"{BRAIN_DIR}/index", f"{BRAIN_DIR}/journal"):
        path = vault.root / folder
        if not path.exists():
            path.mkdir(parents=True)
            created.append(folder + "/")
    config = vault.brain_dir / "config.toml"
    if not config.exists():
        config.write_text(DEFAULT_CONFIG, encoding="utf-8")
        created.append(f"{BRAIN_DIR}/config.toml")
    for template in sorted((resources.files("brain") / "templates").iterdir(), key=lambda t: t.name):
        if not template.name.endswith(".md"):
            continue
        target = vault.root / "templates" / template.name
        if not target.exists():
            target.write_text(template.read_text(encoding="utf-8"), encoding="utf-8")
            created.append(f"templates/{template.name}")
    return vault, created
