"""Every version of a note that brain replaces or deletes, kept under `.brain/history/`.

`Vault` calls `History.before` with the bytes a write is about to replace (or a delete to
remove) and `History.after` once the new bytes are in place, under its write lock. So every
writer (CLI, MCP, importers, pattern evidence, fact supersede, tips, moves, deletes) is covered
at once, and a version an editor saved in between is kept too: `before` sees that the file no
longer holds the version brain last wrote and stores it first, as written by "editor".

On disk (not disposable, like the journal):
- `objects/ab/cdef...`: each version's bytes, zlib-compressed, named by the sha256 of the bytes
  (content-addressed: a version stored once costs nothing the next time);
- `notes/<sha256 of the path>.jsonl`: one JSON line per version of the note at that path
  (`v`, `event`, `path`, `sha256`, `size`, `time`, `by`, `command`, and `moved_from` / `title`).

A log is the note's identity: it follows the note whatever paths it has. Brain's own move moves
the log with the note; a note renamed or moved outside brain (`mv`, Obsidian) is recognised the
first time brain meets it under its new path (a write, a purge, its history): its bytes are a
version of a log whose note is gone, and that log is adopted (`adopt`), logged as a move. So a
purge and the retention sweep reach every version of a note whatever paths it had. A line cut
short by a crash is skipped when read, reported by `torn`, and dropped by `repair_torn`.

Who wrote a version comes from `acting_as` (a context variable the front ends set: cli, mcp,
importer, hook). Nothing here reads or changes a note's file; a vault copied without `.brain/`
is still a complete vault.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import unicodedata
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from brain.errors import InvalidInput, NoteExists
from brain.vault.append_log import AppendLog
from brain.vault.history_log import Actor as Actor  # who writes: re-exported for the front ends
from brain.vault.history_log import (
    Entry,
    Purged,
    Usage,
    folder_stamp,
    last_version,
    next_number,
    note_present,
    now_text,
    parse_time,
    read_entries,
    read_entry,
    stem_of,
    time_of,
)
from brain.vault.history_log import acting_as as acting_as
from brain.vault.history_log import current_actor as current_actor

HISTORY_DIR = "history"
EVENTS = ("create", "edit", "outside", "move", "delete")
_TAIL = 8192  # bytes read from a log's end to find its last line


def _key(path: str) -> str:
    return unicodedata.normalize("NFC", path)


class History:
    """The history store of one vault. A plain folder used as a vault (no `.brain/`) keeps nothing."""

    def __init__(self, brain_dir: Path):
        self.brain_dir = brain_dir
        self._root: Path | None = None
        self._last_versions: tuple[int | None, dict[str, list[Path]]] | None = None  # see `_ending_with`

    @property
    def root(self) -> Path | None:
        """`.brain/history/`, or None while the vault has no `.brain/` (checked until it has one)."""
        if self._root is None and self.brain_dir.is_dir():
            self._root = self.brain_dir / HISTORY_DIR
        return self._root

    # ------------------------------------------------------------ where things are

    def log_path(self, path: str) -> Path:
        assert self.root is not None
        return self.root / "notes" / (hashlib.sha256(_key(path).encode("utf-8")).hexdigest()[:40] + ".jsonl")

    def object_path(self, sha256: str) -> Path:
        assert self.root is not None
        return self.root / "objects" / sha256[:2] / sha256[2:]

    # ------------------------------------------------------------ what the vault calls (under its write lock)

    def before(self, path: str, data: bytes, file: Path | None, *, sync: bool = True) -> None:
        """Keep `data`, what the file at `path` holds now, before brain replaces or deletes it.

        Usually brain wrote it and it is stored already (no work). Otherwise it was written
        outside brain (an editor) or before history began: it is stored and logged first.
        """
        if self.root is None:
            return
        digest = hashlib.sha256(data).hexdigest()
        last = self.last(path) or self.adopt(path, digest)
        if last is not None and last.sha256 == digest and self._has(digest):
            return
        self._store(digest, data, sync=sync)
        try:
            when = time_of(file.stat().st_mtime_ns) if file is not None else now_text()
        except OSError:
            when = now_text()
        self._append(
            path, Entry(next_number(last), "outside", _key(path), digest, len(data), when, "editor"), sync=sync
        )

    def after(
        self,
        path: str,
        data: bytes | None,
        event: str,
        *,
        moved_from: str | None = None,
        title: str | None = None,
    ) -> None:
        """Log what brain just wrote at `path` (`data`), or its deletion (`data` None)."""
        if self.root is None:
            return
        actor = current_actor()
        digest = hashlib.sha256(data).hexdigest() if data is not None else None
        if digest is not None and data is not None:
            self._store(digest, data, sync=False)  # `before` stores it again if a crash lost it
        entry = Entry(
            next_number(self.last(path)),
            event,
            _key(path),
            digest,
            len(data) if data is not None else 0,
            now_text(),
            actor.by,
            actor.command,
            _key(moved_from) if moved_from else None,
            title,
        )
        self._append(path, entry, sync=False)

    def moved(self, source: str, target: str) -> None:
        """The log follows the note to its new path. `Vault.move` refuses a target path that has a
        log (a deleted note's), so two notes' versions never share one log."""
        if self.root is None:
            return
        old, new = self.log_path(source), self.log_path(target)
        if old == new or not old.exists():  # the same path in another Unicode form: the same log
            return
        if new.exists():
            raise NoteExists(f"'{target}' already has a history; the move would merge two notes' versions")
        os.replace(old, new)

    def adopt(self, path: str, digest: str) -> Entry | None:
        """The log of the note now at `path`, found by its bytes (`digest`) when it was moved or
        renamed outside brain: a log whose note is gone and whose last version it is follows the
        note to `path` (a `move` entry by "editor"). Its last entry, or None (a note new to brain).
        Called under the vault's write lock, only for a path that has no log."""
        if self.root is None or self.log_path(path).exists():
            return None
        found = []
        for log in self._ending_with(digest):
            entries = self.entries_of(log)
            if entries and last_version(entries) == digest and self._gone(entries[-1]):
                found.append((entries[-1].time, log.name, log, entries[-1]))
        if not found:
            return None
        *_, log, last = max(found)  # the latest, if several
        os.replace(log, self.log_path(path))
        self._last_versions = None
        size = self._size_of(digest)
        moved = Entry(next_number(last), "move", _key(path), digest, size, now_text(), "editor", "", last.path)
        self._append(path, moved, sync=True)
        return moved

    def _ending_with(self, digest: str) -> list[Path]:
        """The logs whose last version is `digest`, from a map of every log's last version read
        once per process and read again when a log is added, renamed or removed (the folder
        changes); this process's own appends keep it current."""
        assert self.root is not None
        changed = folder_stamp(self.root / "notes")
        if changed is None:
            return []
        if self._last_versions is None or self._last_versions[0] != changed:
            ends: dict[str, list[Path]] = {}
            for log, entries in self.logs():
                last = last_version(entries)
                if last:
                    ends.setdefault(last, []).append(log)
            self._last_versions = (changed, ends)
        return list(self._last_versions[1].get(digest, ()))

    def _gone(self, last: Entry) -> bool:
        return last.event == "delete" or not note_present(self.brain_dir.parent, last.path)

    def _size_of(self, digest: str) -> int:
        try:
            return len(self.version_bytes(digest))
        except InvalidInput:
            return 0

    def torn(self) -> list[tuple[Path, int]]:
        """Logs with lines that are not whole entries (a write cut short), and how many each."""
        if self.root is None or not (self.root / "notes").is_dir():
            return []
        found = []
        for log in sorted((self.root / "notes").glob("*.jsonl")):
            try:
                torn = read_entries(log.read_bytes())[1]
            except FileNotFoundError:
                continue
            if torn:
                found.append((log, torn))
        return found

    def repair_torn(self) -> list[tuple[Path, int]]:
        """Rewrite each torn log with its whole entries only (under the vault's write lock)."""
        repaired = self.torn()
        for log, _ in repaired:
            AppendLog(log).repair(lambda line: read_entry(line) is not None)
        return repaired

    # ------------------------------------------------------------ reading

    def entries(self, path: str) -> list[Entry]:
        """The note's log, oldest first."""
        if self.root is None:
            return []
        try:
            data = self.log_path(path).read_bytes()
        except FileNotFoundError:
            return []
        return read_entries(data)[0]

    def entries_of(self, log: Path) -> list[Entry]:
        try:
            return read_entries(log.read_bytes())[0]
        except FileNotFoundError:
            return []

    def last(self, path: str) -> Entry | None:
        if self.root is None:
            return None
        try:
            with open(self.log_path(path), "rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - _TAIL))
                tail = handle.read()
        except FileNotFoundError:
            return None
        lines = tail.split(b"\n")[1:] if size > _TAIL else tail.split(b"\n")  # the first may be cut by the seek
        for line in reversed(lines):
            entry = read_entry(line) if line.strip() else None
            if entry is not None:
                return entry
        entries = self.entries(path)  # no whole line in the tail: read it all
        return entries[-1] if entries else None

    def version_bytes(self, sha256: str) -> bytes:
        try:
            data = zlib.decompress(self.object_path(sha256).read_bytes())
        except (FileNotFoundError, zlib.error):
            raise InvalidInput(f"the stored version {sha256[:12]} is missing or damaged in the history") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise InvalidInput(f"the stored version {sha256[:12]} does not match its hash; it was damaged")
        return data

    def logs(self) -> Iterator[tuple[Path, list[Entry]]]:
        """Every log with its entries (for finding deleted notes, pruning and purging)."""
        if self.root is None or not (self.root / "notes").is_dir():
            return
        for log in sorted((self.root / "notes").glob("*.jsonl")):
            try:
                data = log.read_bytes()
            except FileNotFoundError:
                continue
            entries = read_entries(data)[0]
            if entries:
                yield log, entries

    def unnamed(self) -> list[str]:
        """The stored versions no log names (a rewrite or a purge killed before it deleted them, or a
        write killed between storing a version and logging it), by hash."""
        if self.root is None or not (self.root / "objects").is_dir():
            return []
        named = {entry.sha256 for _, entries in self.logs() for entry in entries if entry.sha256}
        return sorted(
            found
            for folder in (self.root / "objects").iterdir()
            if folder.is_dir()
            for item in folder.iterdir()
            if not item.name.startswith(".") and (found := folder.name + item.name) not in named
        )

    def deleted(self) -> list[Entry]:
        """The last entry of every note that is gone (restorable): its last event is a deletion, or
        its file was deleted outside brain (an editor, `rm`), which leaves no deletion in the log."""
        return [entries[-1] for _, entries in self.logs() if self._gone(entries[-1])]

    def gone_versions(self) -> list[tuple[Entry, Entry]]:
        """Each note that is gone (as `deleted`): its last entry and its last version with content."""
        found = []
        for _, entries in self.logs():
            if self._gone(entries[-1]):
                last = next((entry for entry in reversed(entries) if entry.sha256), None)
                if last is not None:
                    found.append((entries[-1], last))
        return found

    def gone_named(self, stems: set[str]) -> list[str]:
        """The paths of the notes that are gone whose file had one of these names (lower-cased, no
        `.md`) at any time: a fact's file is named by its id, so a fact moved and edited outside
        brain, whose bytes match nothing, is still found."""
        return [
            entries[-1].path
            for _, entries in self.logs()
            if self._gone(entries[-1]) and any(stem_of(entry.path) in stems for entry in entries)
        ]

    def usage(self) -> Usage:
        notes = versions = objects = size = 0
        if self.root is None:
            return Usage(0, 0, 0, 0)
        for _, entries in self.logs():
            notes += 1
            versions += sum(1 for entry in entries if entry.sha256)
        for folder in (self.root / "objects").glob("*"):
            for item in folder.iterdir():
                objects += 1
                size += item.stat().st_size
        for log in (self.root / "notes").glob("*.jsonl"):
            size += log.stat().st_size
        return Usage(notes, versions, objects, size)

    # ------------------------------------------------------------ forgetting (under the vault's write lock)

    def purge(self, paths: Iterable[str], found_as: Mapping[str, str | None] | None = None) -> Purged:
        """Forget every version of the notes at `paths`, for good: their logs, their stored bytes,
        and any other note's log line that points at the same bytes (no copy survives).

        `found_as` gives the sha256 of the bytes a note's file held (a file deleted just before):
        a note that came to its path outside brain is found by them (`adopt`), so its versions
        under its earlier paths go too."""
        if self.root is None:
            return Purged(0, 0, ())
        shas: set[str] = set()
        versions = 0
        for path in paths:
            digest = (found_as or {}).get(path)
            if digest and not self.log_path(path).exists():
                self.adopt(path, digest)
            entries = self.entries(path)
            if digest:
                shas.add(digest)
            shas.update(entry.sha256 for entry in entries if entry.sha256)
            versions += len(entries)
            self.log_path(path).unlink(missing_ok=True)
        return self._forget(shas, versions)

    def purge_version(self, digest: str) -> Purged:
        """Forget one version's bytes, for good: every log line that points at them, and the bytes."""
        if self.root is None:
            return Purged(0, 0, ())
        return self._forget({digest}, 0)

    def _forget(self, shas: set[str], versions: int) -> Purged:
        """Drop every log line that points at `shas`, then the stored bytes (`versions` counted so far)."""
        if not shas:
            return Purged(versions, 0, ())
        for log, entries in self.logs():
            kept = [entry for entry in entries if entry.sha256 not in shas]
            if len(kept) != len(entries):
                versions += len(entries) - len(kept)
                self._rewrite_log(log, kept)
        objects = 0
        for digest in sorted(shas):
            try:
                self.object_path(digest).unlink()
                objects += 1
            except FileNotFoundError:
                pass
        return Purged(versions, objects, tuple(sorted(shas)))

    def rewrite_versions(self, replacements: Mapping[str, bytes]) -> int:
        """Put `replacements[sha]` in place of the stored version `sha` (a secret redacted out of
        it) in every log that names it, then forget the old bytes for good. Returns the log
        lines changed."""
        if self.root is None or not replacements:
            return 0
        new: dict[str, tuple[str, int]] = {}
        for old, data in replacements.items():
            digest = hashlib.sha256(data).hexdigest()
            self._store(digest, data, sync=True)
            new[old] = (digest, len(data))
        changed = 0
        for log, entries in self.logs():
            rewritten = [
                replace(entry, sha256=new[entry.sha256][0], size=new[entry.sha256][1]) if entry.sha256 in new else entry
                for entry in entries
            ]
            if rewritten != entries:
                changed += sum(1 for entry in entries if entry.sha256 in new)
                self._rewrite_log(log, rewritten)
        kept = {digest for digest, _ in new.values()}
        for old in replacements:
            if old not in kept:
                self.object_path(old).unlink(missing_ok=True)
        return changed

    def prune(self, *, keep_days: int | None, max_versions: int | None, now: datetime | None = None) -> Purged:
        """Drop versions older than `keep_days` and beyond the newest `max_versions` of each note,
        always keeping each note's newest version (a deleted note stays restorable), then the
        stored bytes no log points at any more."""
        if self.root is None:
            return Purged(0, 0, ())
        now = (now or datetime.now(UTC)).astimezone(UTC)
        dropped = 0
        referenced: set[str] = set()
        for log, entries in self.logs():
            versions = [entry for entry in entries if entry.sha256]
            newest = versions[-1] if versions else None
            rank = {id(entry): len(versions) - position for position, entry in enumerate(versions)}  # 1 = newest
            keep: list[Entry] = []
            for entry in entries:
                if entry is newest or entry.sha256 is None:
                    keep.append(entry)
                    continue
                age = (now - parse_time(entry.time)).total_seconds() / 86400
                too_old = keep_days is not None and age > keep_days
                too_many = max_versions is not None and rank[id(entry)] > max_versions
                if not (too_old or too_many):
                    keep.append(entry)
            if len(keep) != len(entries):
                dropped += len(entries) - len(keep)
                self._rewrite_log(log, keep)
            referenced.update(entry.sha256 for entry in keep if entry.sha256)
        objects = 0
        for folder in (self.root / "objects").glob("*"):
            for item in folder.iterdir():
                if folder.name + item.name not in referenced and not item.name.startswith("."):
                    item.unlink(missing_ok=True)
                    objects += 1
        return Purged(dropped, objects, ())

    # ------------------------------------------------------------ writing the store

    def _has(self, digest: str) -> bool:
        try:
            return self.object_path(digest).stat().st_size > 0
        except FileNotFoundError:
            return False

    def _store(self, digest: str, data: bytes, *, sync: bool) -> None:
        target = self.object_path(digest)
        if self._has(digest):
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.parent / f".{secrets.token_hex(6)}.tmp"
        try:
            with open(temp, "wb") as handle:
                handle.write(zlib.compress(data, 6))
                if sync:
                    handle.flush()
                    os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise

    def _append(self, path: str, entry: Entry, *, sync: bool) -> None:
        log = self.log_path(path)
        log.parent.mkdir(parents=True, exist_ok=True)
        known = self._last_versions
        current = known is not None and known[0] == folder_stamp(log.parent)
        AppendLog(log).append(entry.line(), sync=sync)  # a torn last line stays a line of its own
        if known is not None and current:  # this process's own new log: the map stays current, not read again
            if entry.sha256:
                known[1].setdefault(entry.sha256, []).append(log)
            self._last_versions = (folder_stamp(log.parent), known[1])

    @staticmethod
    def _rewrite_log(log: Path, entries: list[Entry]) -> None:
        """The log with these entries only (none: the log is removed)."""
        AppendLog(log).rewrite(lambda _: b"".join(entry.line() for entry in entries), drop_empty=True)
