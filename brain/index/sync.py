"""Bring the indexes up to date with the files: scan, re-parse what changed, embed new chunks.

A scan stats every note file (no reads). A file whose size and mtime match the catalog is not
opened; one whose stat changed is read and hashed, and re-parsed only if its hash changed. A new
path whose hash equals that of a path that vanished is a move: the row keeps its id (and so its
vectors). Cold scans of many files parse on a process pool over the machine's cores.

All writes happen under the index lock (`Index.locked`), and each scan re-checks what changed
after taking it, so two indexers and a watcher never write the same change twice or lose one.

`attach(vault)` registers a `Vault.on_change` listener, so brain's own writes update the
catalog at once; their vectors follow at the next `brain index` or search (or at once with
`attach(vault, embed=True)`, as a long-lived server with a loaded model may prefer).
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path, PurePosixPath

from brain.index.catalog import CATALOG_FILE, Stamp
from brain.index.chunking import chunk_note
from brain.index.engine import Index, open_index
from brain.index.reading import Read, read_many
from brain.index.vectors import drop_vault_collections, record_id
from brain.vault import SKIPPED_DIRS, Vault

Progress = Callable[[str, int, int], None]
POOL_THRESHOLD = 400  # files to parse before a process pool pays for its start-up
WRITE_BATCH = 500
EMBED_BATCH = 256  # chunks per model call and per vector write
log = logging.getLogger(__name__)


@dataclass
class ScanResult:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    removed: list[str] = field(default_factory=list)
    touched: int = 0  # stat changed, bytes did not
    parsed: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def changes(self) -> int:
        return len(self.added) + len(self.changed) + len(self.moved) + len(self.removed)


@dataclass
class EmbedResult:
    notes: int = 0
    embedded: int = 0  # chunks sent to the model
    kept: int = 0  # chunks unchanged, not embedded again
    deleted: int = 0
    seconds: float = 0.0


@dataclass
class IndexReport:
    scan: ScanResult
    embed: EmbedResult | None
    notes: int
    embedder: str | None


# ---------------------------------------------------------------- finding files


def _is_note_name(name: str) -> bool:
    return name.lower().endswith(".md") and not name.startswith(".")


def qualifies(relative: str) -> bool:
    """Whether a vault-relative path is one `Vault.iter_files` would list (ignoring symlinks)."""
    parts = PurePosixPath(relative).parts
    if not parts or not _is_note_name(parts[-1]):
        return False
    return not any(part in SKIPPED_DIRS or part.startswith(".") for part in parts[:-1])


def walk(root: Path) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    """(path -> (mtime_ns, size)) of every note file, and the note-like files left out with why.

    The same rules as `Vault.iter_files`, on os.scandir so a 10k-note vault stats in ~0.1 s.
    """
    found: dict[str, tuple[int, int]] = {}
    left_out: dict[str, str] = {}
    root_text = str(root)
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
                if not _is_note_name(name):
                    continue
                relative = prefix + name
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if not target.startswith(root_text + os.sep):
                        left_out[relative] = "symlink leads outside the vault; not followed"
                        continue
                info = entry.stat()
                if not stat.S_ISREG(info.st_mode):
                    continue
                found[relative] = (info.st_mtime_ns, info.st_size)
            except OSError as error:
                left_out[prefix + name] = f"cannot be read: {error.strerror or error}"
    return found, left_out


def _stat_paths(root: Path, paths: Iterable[str]) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    found: dict[str, tuple[int, int]] = {}
    left_out: dict[str, str] = {}
    for relative in paths:
        if not qualifies(relative):
            continue
        full = root / relative
        try:
            if full.is_symlink() and root not in full.resolve().parents:
                left_out[relative] = "symlink leads outside the vault; not followed"
                continue
            info = full.stat()
        except OSError:
            continue  # gone: the caller treats it as removed
        if full.is_file():
            found[relative] = (info.st_mtime_ns, info.st_size)
    return found, left_out


# ---------------------------------------------------------------- reading and parsing


def _reader(root: Path, paths: list[str], known: dict[str, str]) -> Iterable[list[Read]]:
    """Read, hash and parse files in batches (those whose hash is known are not parsed);
    on a process pool when there are many."""
    batches = [paths[i : i + WRITE_BATCH] for i in range(0, len(paths), WRITE_BATCH)]
    if len(paths) < POOL_THRESHOLD or (os.cpu_count() or 1) < 2:
        for batch in batches:
            yield read_many(str(root), batch, known)
        return
    # Smaller tasks keep both workers busy. fork starts in milliseconds, but only a process with
    # no other thread may fork safely (a server or a watcher has some): else spawn.
    tasks = [paths[i : i + 100] for i in range(0, len(paths), 100)]
    workers = min(os.cpu_count() or 2, 4)
    method = "fork" if threading.active_count() == 1 and "fork" in get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context(method)) as pool:
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


def scan(index: Index, *, paths: Iterable[str] | None = None, progress: Progress | None = None) -> ScanResult:
    """Update the catalog from the files (all of them, or just `paths`). Cheap when nothing changed."""
    started = time.perf_counter()
    root = index.vault.root
    wanted = None if paths is None else sorted(set(paths))
    current, left_out = walk(root) if wanted is None else _stat_paths(root, wanted)

    def differences(stamps: dict[str, Stamp]) -> tuple[list[str], list[str]]:
        known = stamps if wanted is None else {p: stamps[p] for p in wanted if p in stamps}
        changed = [p for p, (m, s) in current.items() if p not in known or (known[p].mtime_ns, known[p].size) != (m, s)]
        removed = [p for p in known if p not in current]
        return changed, removed

    catalog = index.catalog
    changed, removed = differences(catalog.stamps())
    skipped_before = catalog.skipped() if wanted is None else {}
    left_out_changed = wanted is None and any(skipped_before.get(p) != r for p, r in left_out.items())
    result = ScanResult(skipped=dict(left_out))
    if not changed and not removed and not left_out_changed:
        result.seconds = time.perf_counter() - started
        return result
    with index.locked():
        stamps = dict(catalog.stamps())  # another process may have done part of the work meanwhile
        changed, removed = differences(stamps)
        vanished = {stamps[p].sha256: stamps[p] for p in removed}
        removed_set = set(removed)
        done = 0
        known = {p: stamps[p].sha256 for p in changed if p in stamps}
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


def _apply(catalog, read: Read, stamps: dict[str, Stamp], vanished: dict[str, Stamp], removed: set[str], result: ScanResult) -> None:
    known = stamps.get(read.path)
    if read.error is not None:
        catalog.skip(read.path, read.error)
        if known is not None:
            catalog.remove(known.id)
            result.removed.append(read.path)
        return
    if known is not None and known.sha256 == read.sha256:
        catalog.touch(known.id, read.mtime_ns, read.size)
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


# ---------------------------------------------------------------- vectors


def embed_pending(index: Index, *, progress: Progress | None = None) -> EmbedResult:
    """Embed the chunks of notes whose text changed since their vectors were made; drop the rest."""
    started = time.perf_counter()
    catalog = index.catalog
    result = EmbedResult()
    store = index.vectors
    store.check_embedder()
    if not catalog.pending_vectors() and not catalog.has_gone():
        return result
    with index.locked():
        orphans = catalog.orphan_chunks()
        if orphans or catalog.has_gone():
            store.delete([record_id(n, c) for n, c in orphans])
            with catalog.write():
                catalog.clear_gone()
                store.written()
            result.deleted += len(orphans)
        pending = catalog.pending_vectors()
        if not pending:
            result.seconds = time.perf_counter() - started
            return result
        embedder = index.embedder
        spans = index.spans
        max_tokens = getattr(embedder, "max_tokens", 256)
        queue: list[tuple[int, str, dict, list]] = []  # (note id, sha, metadata, chunks)
        waiting = 0
        # The model runs here while the previous batch is written (Chroma, catalog) on a thread.
        writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brain-embed-writer")
        writing: Future | None = None

        def flush() -> None:
            nonlocal writing
            prepared = _embed(index, queue)
            if writing is not None:
                writing.result()  # in order, and errors surface here
            writing = writer.submit(_store, index, queue, prepared, result)

        try:
            for number, (note_id, path) in enumerate(pending, start=1):
                row = catalog.note_row(note_id)
                note = catalog.load([path]).get(path)
                if row is None or note is None:
                    continue
                _, note_type, folder, sha, _ = row
                chunks = chunk_note(note, embedder.id, spans, max_tokens=max_tokens)
                meta = {"note_id": note_id, "path": path, "type": note_type, "folder": folder, "embedder": embedder.id}
                queue.append((note_id, sha, meta, chunks))
                waiting += len(chunks)
                if waiting >= EMBED_BATCH or number == len(pending):
                    flush()
                    queue, waiting = [], 0
                    if progress:
                        progress("embedding", number, len(pending))
            if queue:
                flush()
            if writing is not None:
                writing.result()
        finally:
            writer.shutdown(wait=True)
    result.seconds = time.perf_counter() - started
    return result


def _embed(index: Index, queue: list) -> tuple:
    """Which chunks are new, kept or gone, and the new ones' vectors (the model runs here)."""
    catalog, embedder = index.catalog, index.embedder
    new_ids, new_texts, new_meta, kept_ids, kept_meta, gone = [], [], [], [], [], []
    for note_id, _, meta, chunks in queue:
        existing = catalog.chunk_rows(note_id)
        wanted = {chunk.id for chunk in chunks}
        for chunk in chunks:
            chunk_meta = {**meta, "section": chunk.section or "", "ord": chunk.ord}
            if chunk.id in existing:
                kept_ids.append(record_id(note_id, chunk.id))
                kept_meta.append(chunk_meta)
            else:
                new_ids.append(record_id(note_id, chunk.id))
                new_texts.append(chunk.text)
                new_meta.append(chunk_meta)
        gone += [record_id(note_id, chunk_id) for chunk_id in existing if chunk_id not in wanted]
    vectors = None
    if new_texts:
        vectors = embedder.embed_array(new_texts) if hasattr(embedder, "embed_array") else embedder.embed(new_texts)
    return new_ids, vectors, new_meta, kept_ids, kept_meta, gone


def _store(index: Index, queue: list, prepared: tuple, result: EmbedResult) -> None:
    """Write one batch: vectors to Chroma, then the chunks that now stand for each note."""
    catalog, store = index.catalog, index.vectors
    new_ids, vectors, new_meta, kept_ids, kept_meta, gone = prepared
    with store.writing():
        if new_ids:
            store.upsert(new_ids, vectors, new_meta)
        store.update_metadata(kept_ids, kept_meta)
        store.delete(gone)
    with catalog.write():
        for note_id, sha, _, chunks in queue:
            catalog.set_chunks(note_id, [(c.id, c.ord, c.section, c.start, c.end) for c in chunks], sha)
        store.written()
    result.notes += len(queue)
    result.embedded += len(new_ids)
    result.kept += len(kept_ids)
    result.deleted += len(gone)


# ---------------------------------------------------------------- entry points


def index_vault(vault: Vault, *, embed: bool = True, progress: Progress | None = None, index: Index | None = None) -> IndexReport:
    """`brain index`: bring the catalog (and, unless embed=False, the vectors) up to date."""
    index = index or open_index(vault)
    scanned = scan(index, progress=progress)
    embedded = embed_pending(index, progress=progress) if embed else None
    if embedded is not None and (embedded.embedded or embedded.deleted or not index.vectors.snapshot_path.exists()):
        index.vectors.matrix()  # leaves a current snapshot: the next one-shot search loads one file
    return IndexReport(scanned, embedded, sum(index.catalog.counts_by_type().values()), index.embedder.id if embed else None)


def reindex_vault(vault: Vault, *, embed: bool = True, progress: Progress | None = None, index: Index | None = None) -> IndexReport:
    """`brain reindex`: forget every derived row and vector, then index from the notes alone."""
    index = index or open_index(vault)
    with index.locked():
        with index.catalog.write():
            index.catalog.clear()
            # Other processes holding the embedded store in memory must reload it.
            index.catalog.set_meta("vectors_generation", str(time.time_ns()))
        index.reset_vectors()
        drop_vault_collections(index.dir, vault.root, index.chroma_url)
    return index_vault(vault, embed=embed, progress=progress, index=index)


def update_paths(index: Index, paths: Iterable[str], *, embed: bool = True) -> ScanResult:
    """Re-check just these paths (a watcher batch, a write through brain)."""
    result = scan(index, paths=paths)
    if embed and index.has_vectors():
        embed_pending(index)
    return result


def attach(vault: Vault, *, embed: bool = False) -> None:
    """Keep the index current on brain's own writes through this Vault (see the module doc).

    Only a vault that has an index is updated: reading or writing never creates one.
    """

    def listener(kind: str, path: str, old_path: str | None) -> None:
        if not (vault.index_dir / CATALOG_FILE).is_file():
            return
        try:
            update_paths(open_index(vault), [path, *([old_path] if old_path else [])], embed=embed)
        except Exception as error:  # noqa: BLE001 - the write itself succeeded; the next scan catches up
            log.warning("index not updated after %s of %s: %s", kind, path, error)

    vault.on_change(listener)
