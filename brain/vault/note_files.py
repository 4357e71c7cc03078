"""Which files in a vault are notes, and what a note file's bytes read as.

The one rule (`is_note_path`) is shared by the index's scan, the file-event code, doctor and
`Vault` (which writes only where brain reads back); besides the folders it names, a vault's own
templates folder (`templates_folder`: where Obsidian's Templates plugin looks) holds no notes. `note_files` lists the vault, or some paths
in it, with os.scandir and stat only, and says which note-like files it leaves out and why.
`parse_bytes` turns a file's bytes into a `Note`, reporting what is too large or not UTF-8.
Nothing here writes.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path, PurePosixPath

from brain.markdown.model import Note
from brain.markdown.parse import parse_note

BRAIN_DIR = ".brain"  # brain's own state: never notes

# Folders that are not notes: brain's own state, editors' and tools' state, templates.
SKIPPED_DIRS = {BRAIN_DIR, ".git", ".obsidian", ".trash", ".venv", "node_modules", "templates"}
# Obsidian's core Templates plugin keeps its settings here; its `folder` holds templates, not notes.
OBSIDIAN_TEMPLATES = ".obsidian/templates.json"
MAX_NOTE_BYTES = 5 * 1024 * 1024


class SkipKind(StrEnum):
    """Why a note-like file is left out of the index (doctor gives each kind its fix)."""

    OUTSIDE_SYMLINK = "outside-symlink"
    SYMLINK_TO_NON_NOTE = "symlink-to-non-note"  # e.g. to .brain/config.toml: brain's state is no note
    UNREADABLE = "unreadable"
    BINARY = "binary"
    MERGE_CONFLICT = "merge-conflict"  # git's conflict markers: indexed again once resolved


@dataclass(frozen=True)
class Skip:
    kind: SkipKind
    reason: str  # one line for people, e.g. "cannot be read: Permission denied"


def _is_note_name(name: str) -> bool:
    return name.lower().endswith(".md") and not name.startswith(".")


def templates_folder(root: Path) -> str | None:
    """The vault-relative folder Obsidian's Templates plugin takes templates from (`folder` in
    `.obsidian/templates.json`), or None when none is set or the settings cannot be read."""
    try:
        settings = json.loads((root / OBSIDIAN_TEMPLATES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    folder = settings.get("folder") if isinstance(settings, dict) else None
    if not isinstance(folder, str):
        return None
    parts = PurePosixPath(folder.replace("\\", "/").strip().strip("/")).parts
    if not parts or ".." in parts:
        return None  # the vault's root, or a folder outside it: no folder of notes is taken away
    return "/".join(parts)


def is_note_path(relative: str, templates: str | None = None) -> bool:
    """The one rule for note files: a `.md` file, not hidden, in no hidden or skipped folder
    (brain's state, editors' and tools' folders, templates; `templates` is the vault's own
    templates folder, `templates_folder`). Symlinks are judged by `note_files`."""
    parts = PurePosixPath(relative).parts
    if not parts or not _is_note_name(parts[-1]):
        return False
    if in_templates(relative, templates):
        return False
    return not any(part in SKIPPED_DIRS or part.startswith(".") for part in parts[:-1])


def in_templates(relative: str, templates: str | None) -> bool:
    """Whether `relative` is under the templates folder, ignoring case (on a disk that ignores case,
    Obsidian told `templates` finds `Templates`)."""
    return templates is not None and relative.casefold().startswith(templates.casefold() + "/")


def note_files(root: Path, paths: Iterable[str] | None = None) -> tuple[dict[str, tuple[int, int]], dict[str, Skip]]:
    """(path -> (mtime_ns, size)) of every note file under `root` (or of those among `paths`),
    and the note files left out with why (a symlink leading outside the vault, a file that
    cannot be stat'ed). A path that is gone is in neither.

    `is_note_path`'s rule; the whole vault is walked with os.scandir, one listing per folder, so a
    stat scan stays cheap on a large vault.
    """
    root_text = str(root)
    templates = templates_folder(root)
    found: dict[str, tuple[int, int]] = {}
    left_out: dict[str, Skip] = {}

    def take(relative: str, path: str, is_link: bool) -> None:
        seen = _look(root_text, path, is_link, templates)
        if isinstance(seen, Skip):
            left_out[relative] = seen
        elif seen is not None:
            found[relative] = seen

    if paths is not None:
        for relative in paths:
            if is_note_path(relative, templates):
                path = os.path.join(root_text, relative)
                take(relative, path, os.path.islink(path))
        return found, left_out
    # One loop over each folder's listing, `_look` inlined for a plain file (nearly
    # every note): at 50,000 notes the calls per file cost as much as the stat calls themselves.
    for entries, prefix in _listings(root_text, templates):
        for entry in entries:
            name = entry.name
            if not _is_note_name(name):
                continue
            try:
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_link:
                take(prefix + name, entry.path, is_link)
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as error:
                left_out[prefix + name] = unreadable(error)
                continue
            if stat.S_ISREG(info.st_mode):
                found[prefix + name] = (info.st_mtime_ns, info.st_size)
    return found, left_out


def _listings(root: str, templates: str | None) -> Iterator[tuple[list[os.DirEntry[str]], str]]:
    """The entries that are not folders of each folder where notes are looked for (not hidden ones,
    SKIPPED_DIRS or the templates folder), with the folder's vault-relative prefix: one listing per folder."""
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        files = []
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    inside = f"{prefix}{name}/"
                    if name not in SKIPPED_DIRS and not name.startswith(".") and not in_templates(inside, templates):
                        stack.append((entry.path, inside))
                    continue
            except OSError:
                continue
            files.append(entry)
        yield files, prefix


def _looked_in(root: str, templates: str | None) -> Iterator[tuple[os.DirEntry[str], str]]:
    """Every entry that is not a folder, with its vault-relative path, in the folders where notes are
    looked for (`_listings`)."""
    for entries, prefix in _listings(root, templates):
        for entry in entries:
            yield entry, prefix + entry.name


def other_files(root: Path) -> list[str]:
    """The vault-relative paths of the files that are not notes (attachments: `diagram.png`,
    `spec.pdf`), in the folders where notes are looked for: what an embed `![[diagram.png]]` names."""
    found: list[str] = []
    for entry, relative in _looked_in(str(root), templates_folder(root)):
        try:
            if not _is_note_name(entry.name) and not entry.name.startswith(".") and entry.is_file():
                found.append(relative)
        except OSError:
            continue
    return found


def _look(root_text: str, path: str, is_link: bool, templates: str | None) -> tuple[int, int] | Skip | None:
    """A note file's (mtime_ns, size), why it is left out, or None when it is no file (gone, a folder)."""
    try:
        if is_link:  # only links pay for realpath: what they lead to must be a note file by the same rule
            target = os.path.realpath(path)
            if not target.startswith(root_text + os.sep):
                return OUTSIDE_SYMLINK
            inside = target[len(root_text) + 1 :].replace(os.sep, "/")
            if not is_note_path(inside, templates):
                return Skip(
                    SkipKind.SYMLINK_TO_NON_NOTE, f"symlink leads to '{inside}', which is not a note file; not followed"
                )
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
        problems.append(
            f"file is {len(data) // 1024} KiB, over the {MAX_NOTE_BYTES // 1024 // 1024} MiB limit; only its start was read"
        )
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


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MARKERS = ("<<<<<<<", "=======", ">>>>>>>")


def conflict_line(text: str) -> int | None:
    """The line (1-based) where git's merge-conflict markers begin: a `<<<<<<< ours` line, then
    `=======`, then `>>>>>>> theirs`, each at a line's start, as git writes them into a file it could
    not merge (in frontmatter too); None when the text has none. Markers inside a fenced code block
    are a note about git, not a conflict. Most texts are passed over by one substring search."""
    if ">>>>>>>" not in text:
        return None
    fence: str | None = None
    found = 0  # markers seen in order
    start = 0
    for number, raw in enumerate(text.split("\n"), 1):  # numbered as an editor numbers them
        line = raw.removesuffix("\r")
        opened = _FENCE.match(line)
        if opened and (fence is None or opened.group(1).startswith(fence)):
            fence = None if fence else opened.group(1)[:3]
            continue
        if fence is not None:
            continue
        if _is_marker(line, _MARKERS[found]):
            found += 1
            start = start or number
            if found == len(_MARKERS):
                return start
        elif _is_marker(line, _MARKERS[0]):
            found, start = 1, number  # a conflict begins again before the last one ended
    return None


def _is_marker(line: str, marker: str) -> bool:
    """`<<<<<<<` and `>>>>>>>` are followed by a label (`HEAD`, a branch), `=======` stands alone."""
    return line == marker or (marker != "=======" and line.startswith(marker + " "))
