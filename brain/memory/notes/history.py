"""A note's versions: list them, print one, restore one, purge them, and keep the history in bounds.

The store is `brain/vault/history.py` (fed by every `Vault` write). Here a name is found (a note in
the vault, else a deleted note in the history), versions are numbered as the log numbers them,
and a restore goes back through `Vault.write`, so it is itself a version that can be undone.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import PurePosixPath

from brain.config import load_config
from brain.errors import AmbiguousName, BrainError, InvalidInput, NoteNotFound, Remedy
from brain.markdown.model import Note
from brain.memory.corpus import Corpus
from brain.memory.facts.holds import held_titles
from brain.memory.facts.note import changed_managed_keys, fact_from_note
from brain.memory.notes.receipts import write_receipt
from brain.vault.history_log import Entry, Purged, Usage, now_text
from brain.vault.note_files import parse_bytes
from brain.vault.vault import Vault

PURGES_DIR = "purges"  # under .brain/journal/: the receipts of purges, beside the fact sweep's


@dataclass(frozen=True)
class NoteHistory:
    path: str
    title: str
    exists: bool  # False: the note was deleted (its versions can be restored)
    current_sha256: str | None  # the file on disk now
    entries: tuple[Entry, ...]  # newest first

    @property
    def versions(self) -> tuple[Entry, ...]:
        return tuple(entry for entry in self.entries if entry.sha256)

    @property
    def changed_outside(self) -> bool:
        """The file holds bytes the history has not seen yet (kept at brain's next write)."""
        versions = self.versions
        return self.current_sha256 is not None and (not versions or versions[0].sha256 != self.current_sha256)


@dataclass(frozen=True)
class Restored:
    path: str
    version: int
    written: bool  # False: the note already held that version
    created: bool  # True: a deleted note came back


@dataclass(frozen=True)
class PurgeReceipt:
    path: str
    title: str
    file_deleted: bool
    purged: Purged
    receipt: str  # vault-relative path of the receipt
    version: int | None = None  # one version purged, the note kept


def find(corpus: Corpus, name: str) -> tuple[str, str, bool]:
    """(path, title, exists) of a note in the vault, else of a deleted note in the history."""
    vault = corpus.vault
    try:
        path = corpus.resolver().resolve(name)
        return path, corpus.resolver().titles.get(path, ""), True
    except NoteNotFound as missing:
        matches = _deleted_matches(vault, name)
        if len(matches) > 1:
            raise AmbiguousName(name, sorted(entry.path for entry in matches)) from None
        if not matches:
            raise missing from None
        moved = _moved_away(corpus, matches[0])
        if moved is not None:
            return moved, corpus.resolver().titles.get(moved, ""), True
        return matches[0].path, matches[0].title or PurePosixPath(matches[0].path).stem, False


def _moved_away(corpus: Corpus, last: Entry) -> str | None:
    """Where a note that looks deleted lives now, when it was renamed or moved outside brain and
    brain has not met it since: a note in the vault holds its last version. Its history follows
    it there (`History.adopt`), so `restore OLDNAME` never makes a second copy of it."""
    if last.sha256 is None:  # deleted by brain: not moved
        return None
    for note in corpus.notes():
        if note.path and hashlib.sha256(note.text.encode("utf-8")).hexdigest() == last.sha256:
            same = hashlib.sha256(corpus.vault.read_bytes(note.path)).hexdigest() == last.sha256
            if same and _adopt(corpus.vault, note.path, last.sha256) is not None:
                return note.path
    return None


def _deleted_matches(vault: Vault, name: str) -> list[Entry]:
    wanted = name.strip().casefold().removesuffix(".md")
    return [
        entry
        for entry in vault.history.deleted()
        if wanted
        in {
            entry.path.casefold().removesuffix(".md"),
            PurePosixPath(entry.path).stem.casefold(),
            (entry.title or "").casefold(),
        }
    ]


def note_history(corpus: Corpus, name: str) -> NoteHistory:
    vault = corpus.vault
    path, title, exists = find(corpus, name)
    current = None
    if exists:
        current = hashlib.sha256(vault.read_bytes(path)).hexdigest()
        if vault.history.last(path) is None:
            _adopt(vault, path, current)
    entries = tuple(reversed(vault.history.entries(path)))
    return NoteHistory(path, title, exists, current, entries)


def _adopt(vault: Vault, path: str, digest: str) -> Entry | None:
    """The versions of a note moved or renamed outside brain follow it to its path (`History.adopt`);
    a vault that cannot be written now is left as it is (the next write adopts them)."""
    try:
        with vault.locked():
            return vault.history.adopt(path, digest)
    except (BrainError, OSError):
        return None


def version(corpus: Corpus, name: str, number: int) -> tuple[NoteHistory, Entry, bytes]:
    """One version of a note and its bytes, exactly as they were."""
    vault = corpus.vault
    found = note_history(corpus, name)
    entry = _entry(found, number)
    return found, entry, vault.history.version_bytes(entry.sha256 or "")


def _entry(found: NoteHistory, number: int) -> Entry:
    for entry in found.entries:
        if entry.v == number:
            if entry.sha256 is None:
                raise InvalidInput(f"version {number} of '{found.path}' is its deletion; choose a version with content")
            return entry
    numbers = [entry.v for entry in found.versions]
    if not numbers:
        raise InvalidInput(f"'{found.path}' has no versions in the history yet")
    raise InvalidInput(f"'{found.path}' has no version {number}; its versions are {_ranges(sorted(numbers))}")


def _ranges(numbers: list[int]) -> str:
    parts: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)


def restore_note(corpus: Corpus, name: str, number: int | None = None) -> Restored:
    """Put a version back byte for byte (the newest one of a deleted note when `number` is None).

    The note's current bytes go to the history first (as with any write), so a restore can be
    undone by restoring again. A note changed on disk between reading it and writing is refused.
    """
    vault = corpus.vault
    found = note_history(corpus, name)
    if number is None:
        if found.exists:
            raise InvalidInput(
                f"'{found.path}' exists; give the version to restore (its history lists {len(found.versions)} versions)"
            )
        if not found.versions:
            raise InvalidInput(f"'{found.path}' has no version with content to restore")
        number = found.versions[0].v
    entry = _entry(found, number)
    data = vault.history.version_bytes(entry.sha256 or "")
    if not found.exists:
        newest = found.versions[0]
        if newest.sha256 != entry.sha256:
            _keep_fact_closed(
                found.path, number, parse_bytes(vault.history.version_bytes(newest.sha256 or ""), found.path), data
            )
        vault.write(found.path, data, create=True)
        return Restored(found.path, number, written=True, created=True)
    current = vault.read(found.path)
    if current.stamp.sha256 == entry.sha256:
        return Restored(found.path, number, written=False, created=False)
    _keep_fact_closed(found.path, number, current.note, data)
    vault.write(found.path, data, expected=current.stamp)
    return Restored(found.path, number, written=True, created=False)


def _keep_fact_closed(path: str, number: int, now: Note, data: bytes) -> None:
    """A restore is refused, like any edit, when it would change a fact's managed keys: it would
    reopen a closed fact, or bring back a value recorded over, which only the fact commands do.
    A closed version may come back (it closes a fact reopened by hand)."""
    restored = parse_bytes(data, path)
    changed = changed_managed_keys(now, restored)
    closing = restored.type == "fact" and fact_from_note(restored).closed
    if changed and not closing:
        raise InvalidInput(
            f"version {number} of {path} would change the fact's {', '.join(changed)}; a restore never reopens a "
            "fact or brings back a withdrawn value. Record the value again with ",
            Remedy("supersede_fact"),
        )


def purge_note(corpus: Corpus, name: str) -> PurgeReceipt:
    """Delete a note (or a deleted note's remains) and every version of it, for good, with a receipt."""
    vault = corpus.vault
    path, title, exists = find(corpus, name)
    if exists and corpus.get(path).type == "fact":
        raise InvalidInput(
            f"{path} is a fact; facts are hard-deleted only by the retention sweep, which also purges their history"
        )
    if title.lower() in held_titles(vault):  # a held fact whose note was edited into another type
        raise InvalidInput(f"{path} is under a legal hold (the hold register names {title}); nothing was purged")
    digest = None
    with vault.locked():
        if exists:
            done = vault.delete_many([path])
            if done.error is not None:
                raise done.error
            digest = hashlib.sha256(done.changed[path]).hexdigest() if path in done.changed else None
        purged = vault.history.purge([path], {path: digest})
    receipt = _write_receipt(vault, path, title, digest, purged)
    return PurgeReceipt(path, title, digest is not None, purged, receipt)


def purge_version(corpus: Corpus, name: str, number: int) -> PurgeReceipt:
    """Forget one version of a note for good (a secret pasted in, then edited out), with a receipt;
    the note and its other versions stay. Refused for the version the note holds now (edit it
    first), for a fact (only the retention sweep forgets a fact's versions) and under a legal hold."""
    vault = corpus.vault
    found = note_history(corpus, name)
    entry = _entry(found, number)
    if found.exists and entry.sha256 == found.current_sha256:
        raise InvalidInput(
            f"version {number} is what {found.path} holds now; edit the note first, then purge the version"
        )
    if found.exists and corpus.get(found.path).type == "fact":
        raise InvalidInput(f"{found.path} is a fact; only the retention sweep forgets a fact's versions")
    if found.title.lower() in held_titles(vault):
        raise InvalidInput(
            f"{found.path} is under a legal hold (the hold register names {found.title}); nothing was purged"
        )
    with vault.locked():
        purged = vault.history.purge_version(entry.sha256 or "")
    receipt = _write_receipt(vault, found.path, found.title, None, purged, version=number)
    return PurgeReceipt(found.path, found.title, False, purged, receipt, version=number)


PRUNE_EVERY_SECONDS = 86400  # `brain index` prunes at most once a day: a prune reads every note's log


def prune_history(vault: Vault, *, force: bool = False) -> Purged:
    """Apply `[history] keep_days` and `max_versions` (run by `brain index`, at most once a day
    unless `force`)."""
    root = vault.history.root
    if root is None:
        return Purged(0, 0, ())
    marker = root / "last-prune"
    try:
        if not force and time.time() - marker.stat().st_mtime < PRUNE_EVERY_SECONDS:
            return Purged(0, 0, ())
    except FileNotFoundError:
        pass
    config = load_config(vault.brain_dir)
    with vault.locked():
        pruned = vault.history.prune(keep_days=config.history_keep_days, max_versions=config.history_max_versions)
        root.mkdir(parents=True, exist_ok=True)
        marker.write_text(now_text() + "\n", encoding="utf-8")
    return pruned


def history_usage(vault: Vault) -> Usage:
    return vault.history.usage()


def _write_receipt(
    vault: Vault, path: str, title: str, digest: str | None, purged: Purged, *, version: int | None = None
) -> str:
    return write_receipt(
        vault,
        PURGES_DIR,
        "PURGE",
        {
            "path": path,
            "title": title,
            "file_sha256": digest,
            "stores_purged": (["files"] if digest else []) + ["history"],
            "counts": {
                "files": 1 if digest else 0,
                "history_versions": purged.versions,
                "history_objects": purged.objects,
            },
            "version_sha256": list(purged.sha256),
            **({"version": version} if version is not None else {}),
        },
    )
