"""The scan: bring the catalog up to date with the note files.

A scan stats every note file (no reads). A file whose size and mtime match the catalog is not
opened; one whose stat changed is read and hashed, and re-parsed only if its hash changed. A new
path whose hash equals that of a path that vanished is a move: the row keeps its id (and so its
vectors). Cold scans of many files parse on a process pool over the machine's cores.

All writes happen under the index lock (`Index.locked`), and each scan re-checks what changed
after taking it, so two indexers and a watcher never write the same change twice or lose one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from brain.errors import conflict_reason
from brain.index.catalog.catalog import Catalog
from brain.index.catalog.rows import Stamp
from brain.index.engine import Index
from brain.index.sync.reading import Read, read_many
from brain.index.sync.workers import die_with_parent
from brain.vault.note_files import Skip, SkipKind, note_files

Progress = Callable[[str, int, int], None]
_NEVER_SEEN = Stamp(0, "", -1, -1, "")  # a path the catalog does not know: its stat differs from any file's
POOL_THRESHOLD = 400  # files to parse before a process pool pays for its start-up
WRITE_BATCH = 500


@dataclass
class ScanResult:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    removed: list[str] = field(default_factory=list)
    touched: int = 0  # stat changed, bytes did not
    parsed: int = 0
    skipped: dict[str, Skip] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def changes(self) -> int:
        return len(self.added) + len(self.changed) + len(self.moved) + len(self.removed)


# ---------------------------------------------------------------- reading and parsing


def _reader(root: Path, paths: list[str], known: dict[str, str]) -> Iterable[list[Read]]:
    """Read, hash and parse files in batches (those whose hash is known are not parsed);
    on a process pool when there are many."""
    batches = [paths[i : i + WRITE_BATCH] for i in range(0, len(paths), WRITE_BATCH)]
    if len(paths) < POOL_THRESHOLD or (os.cpu_count() or 1) < 2:
        for batch in batches:
            yield read_many(str(root), batch, known)
        return
    # multiprocessing is imported here: most scans (every read's freshness check) never start a pool
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_all_start_methods, get_context

    # Smaller tasks keep both workers busy. fork starts in milliseconds, but only a process with
    # no other thread may fork safely (a server or a watcher has some): else spawn.
    tasks = [paths[i : i + 100] for i in range(0, len(paths), 100)]
    workers = min(os.cpu_count() or 2, 4)
    method = "fork" if threading.active_count() == 1 and "fork" in get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=get_context(method), initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        pending: list[Read] = []
        parts = [{p: known[p] for p in task if p in known} for task in tasks]
        for result in pool.map(read_many, [str(root)] * len(tasks), tasks, parts):
            pending += result
            if len(pending) >= WRITE_BATCH:
                yield pending
                pending = []
        if pending:
            yield pending


# ---------------------------------------------------------------- the scan


def scan(
    index: Index, *, paths: Iterable[str] | None = None, progress: Progress | None = None, wait: float | None = None
) -> ScanResult:
    """Update the catalog from the files (all of them, or just `paths`). Cheap when nothing changed.

    `wait` bounds the wait for the index lock (IndexBusy after it; default: engine.LOCK_TIMEOUT)."""
    started = time.perf_counter()
    root = index.vault.root
    wanted = None if paths is None else sorted(set(paths))
    current, left_out = note_files(root, wanted)

    def differences(stamps: dict[str, Stamp]) -> tuple[list[str], list[str]]:
        known = stamps if wanted is None else {p: stamps[p] for p in wanted if p in stamps}
        missing = _NEVER_SEEN
        changed = [p for p, seen in current.items() if known.get(p, missing)[2:4] != seen]
        removed = [p for p in known if p not in current]
        return changed, removed

    catalog = index.catalog
    looked = catalog.stamps()
    changed, removed = differences(looked)
    skipped_before = catalog.skipped() if wanted is None else {}
    left_out_changed = wanted is None and any(skipped_before.get(p) != r for p, r in left_out.items())
    result = ScanResult(skipped=dict(left_out))
    if not changed and not removed and not left_out_changed:
        result.seconds = time.perf_counter() - started
        return result
    with index.locked(timeout=wait):
        stamps = catalog.stamps()  # another process may have done part of the work meanwhile
        if stamps is not looked:  # the same dict: the catalog did not change (see Catalog.stamps)
            changed, removed = differences(stamps)
        stamps = dict(stamps)
        vanished = {stamps[p].sha256: stamps[p] for p in removed}
        removed_set = set(removed)
        done = 0
        known = {p: stamps[p].sha256 for p in changed if p in stamps}
        if progress and changed:
            progress("notes", 0, len(changed))  # the stage's clock starts here (its rate, its time left)
        for batch in _reader(root, sorted(changed), known):
            with catalog.write():
                for read in batch:
                    _apply(catalog, read, stamps, vanished, removed_set, result)
            done += len(batch)
            if progress:
                progress("notes", done, len(changed))
        with catalog.write():
            for path in sorted(removed_set):
                catalog.remove(stamps[path].id)
                result.removed.append(path)
            for path, reason in left_out.items():
                catalog.skip(path, reason)
            if wanted is None:
                stale = [p for p in catalog.skipped() if p not in left_out and p not in current]
                catalog.unskip(stale)
    result.seconds = time.perf_counter() - started
    return result


def _apply(
    catalog: Catalog,
    read: Read,
    stamps: dict[str, Stamp],
    vanished: dict[str, Stamp],
    removed: set[str],
    result: ScanResult,
) -> None:
    known = stamps.get(read.path)
    if read.conflict is not None:
        # A file git could not merge: its last indexed version stays (stamped with this file's stat, so
        # the next scan does not read it again; resolving it changes the stat), a new one stays out.
        catalog.skip(read.path, Skip(SkipKind.MERGE_CONFLICT, conflict_reason(read.conflict, known is not None)))
        if known is not None:
            catalog.touch(known.id, read.mtime_ns, read.size)
        return
    if read.skip is not None:
        catalog.skip(read.path, read.skip)
        if known is not None:
            catalog.remove(known.id)
            result.removed.append(read.path)
        return
    if known is not None and known.sha256 == read.sha256:
        catalog.touch(known.id, read.mtime_ns, read.size)
        catalog.unskip([read.path])  # a conflict resolved as the version the index kept
        result.touched += 1
        return
    assert read.row is not None
    result.parsed += 1
    if known is None and read.sha256 in vanished:
        old = vanished.pop(read.sha256)
        removed.discard(old.path)
        catalog.put(read.row, note_id=old.id)
        result.moved.append((old.path, read.path))
        return
    catalog.put(read.row, note_id=known.id if known else None)
    (result.changed if known else result.added).append(read.path)
