"""The embedding pipeline: chunk the notes whose text changed, embed the new chunks, write them.

Unchanged chunks (by content hash) are never embedded again; a note's chunks that are gone are
deleted from the vector store. First every pending note is chunked (so the run knows how many
chunks it will embed: progress counts chunks), then the new chunks go through in windows of about
WINDOW chunks, in note order: while the model runs one window, the next is tokenized and padded
and the previous one written (Chroma, then the catalog marks its notes done) on two threads.
Within a window the chunks are sorted by length and batched with dynamic padding. A run that is
interrupted (Ctrl-C, a kill) keeps every window written before, so the next run embeds only the
rest. All writes happen under the index lock (`Index.locked`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from brain.index.engine import Index
from brain.index.sync.disk_bound import keep_in_bounds
from brain.index.sync.scan import Progress
from brain.index.vectors.chunking import Chunk, chunk_note
from brain.index.vectors.vectors import Metadata, record_id

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder

WINDOW = 1024  # new chunks embedded sorted by length and written together (see _windows)
PLANNED_KEY = "vectors_planned"  # the chunks the vault has once the run under way is done (`brain status`)


class _Work(NamedTuple):
    """One pending note: its chunks, and which are new (to embed), kept (unchanged), gone (chunk ids)
    and reused (new to this clone, but another clone wrote them to the shared collection)."""

    note_id: int
    sha: str
    meta: Metadata
    chunks: list[Chunk]
    new: list[Chunk]
    kept: list[Chunk]
    gone: list[str]
    reused: list[Chunk]


@dataclass
class EmbedResult:
    notes: int = 0
    embedded: int = 0  # chunks sent to the model
    kept: int = 0  # chunks unchanged, not embedded again
    reused: int = 0  # chunks another clone had written to the shared collection, not embedded here
    deleted: int = 0
    seconds: float = 0.0


def embed_pending(index: Index, *, progress: Progress | None = None, wait: float | None = None) -> EmbedResult:
    """Embed the chunks of notes whose text changed since their vectors were made; drop the rest.
    `wait` bounds the wait for the index lock (IndexBusy after it; default: engine.LOCK_TIMEOUT)."""
    started = time.perf_counter()
    catalog = index.catalog
    result = EmbedResult()
    store = index.vectors
    store.check_embedder()
    if not catalog.pending_vectors() and not catalog.has_gone() and not index.vectors_outdated():
        return result
    with index.locked(timeout=wait):
        index.renew_outdated_vectors()  # left by a reader that found the lock busy (see engine.Index)
        # brain's own copy of the vectors, kept current by the writes below: a segment rebuilt
        # mid-run (disk_bound.py) is rebuilt from it whole; saved as the snapshot at the end
        store.load_snapshot()
        _embed_pending(index, result, progress)
        store.save_snapshot()
    result.seconds = time.perf_counter() - started
    return result


def _embed_pending(index: Index, result: EmbedResult, progress: Progress | None) -> None:
    catalog, store = index.catalog, index.vectors
    orphans = catalog.orphan_chunks()
    if orphans or catalog.has_gone():
        store.delete([record_id(n, c) for n, c in orphans])
        with catalog.write():
            catalog.clear_gone()
            store.written()
        keep_in_bounds(index)
        result.deleted += len(orphans)
    pending = catalog.pending_vectors()
    if not pending:
        return
    work = _reuse(index, _plan(index, pending, progress))
    total = sum(len(item.new) for item in work)
    # What `brain status` counts against while the vectors fill in. Every chunk row left belongs to a
    # searchable note (the gone ones were cleared above), so those of the notes already embedded are
    # all but the pending notes' (at 50,000 notes, 5 ms against 114 ms for the join that says so).
    embedded = catalog.chunk_count() - catalog.chunk_count_of([note_id for note_id, _ in pending])
    with catalog.write():
        catalog.set_meta(PLANNED_KEY, str(embedded + sum(len(item.chunks) for item in work)))
    embedder = index.embedder
    windows = _windows(work)
    # Three stages at once: the next window is tokenized and padded (prepare) and the previous one
    # written (Chroma, the catalog) on their own threads while the model runs this one here.
    helpers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="brain-embed")
    writing: Future[None] | None = None
    done = 0
    if progress:
        progress("embedding", 0, total)  # the stage's clock starts here (its rate, its time left)
    try:
        preparing = helpers.submit(_prepare, embedder, windows[0]) if windows else None
        for number, window in enumerate(windows):
            assert preparing is not None
            prepared = preparing.result()
            preparing = helpers.submit(_prepare, embedder, windows[number + 1]) if number + 1 < len(windows) else None
            vectors = None
            if prepared is not None:
                vectors = _run(embedder, prepared, _reporter(progress, done, total))
                done += prepared.size
            if writing is not None:
                writing.result()  # in order, and errors surface here
            writing = helpers.submit(_store, index, window, vectors, result)
        if writing is not None:
            writing.result()
    finally:  # stopped or not, a window whose write began or waits is written: the next run need not embed it
        helpers.shutdown(wait=True)


def _plan(index: Index, pending: list[tuple[int, str]], progress: Progress | None) -> list[_Work]:
    """Each pending note's chunks and which of them are new (to embed), kept (unchanged) or gone."""
    catalog, embedder, spans = index.catalog, index.embedder, index.spans
    max_tokens = getattr(embedder, "max_tokens", 256)
    work: list[_Work] = []
    if progress:
        progress("chunking", 0, len(pending))
    for number, (note_id, path) in enumerate(pending, start=1):
        row = catalog.note_row(note_id)
        note = catalog.load([path]).get(path)
        if row is not None and note is not None:
            _, note_type, folder, sha, _ = row
            meta: Metadata = {
                "note_id": note_id,
                "path": path,
                "type": note_type,
                "folder": folder,
                "embedder": embedder.id,
            }
            chunks = chunk_note(note, embedder.id, spans, max_tokens=max_tokens)
            existing = catalog.chunk_rows(note_id)
            wanted = {chunk.id for chunk in chunks}
            work.append(
                _Work(
                    note_id,
                    sha,
                    meta,
                    chunks,
                    [chunk for chunk in chunks if chunk.id not in existing],
                    [chunk for chunk in chunks if chunk.id in existing],
                    [chunk_id for chunk_id in existing if chunk_id not in wanted],
                    [],
                )
            )
        if progress and (number % 100 == 0 or number == len(pending)):
            progress("chunking", number, len(pending))
    return work


def _reuse(index: Index, work: list[_Work]) -> list[_Work]:
    """The new chunks a shared collection already holds are taken from it, not embedded (VectorStore.held)."""
    held = index.vectors.held(chunk.id for item in work for chunk in item.new)
    if not held:
        return work
    return [
        item._replace(
            new=[chunk for chunk in item.new if chunk.id not in held],
            reused=[chunk for chunk in item.new if chunk.id in held],
        )
        for item in work
    ]


def _windows(work: list[_Work]) -> list[list[_Work]]:
    """Consecutive notes, about WINDOW new chunks at a time: each window is embedded sorted by length
    and written as one batch, so an interrupted run loses at most the window under way."""
    windows: list[list[_Work]] = []
    current: list[_Work] = []
    waiting = 0
    for item in work:
        current.append(item)
        waiting += len(item.new)
        if waiting >= WINDOW:
            windows.append(current)
            current, waiting = [], 0
    if current:
        windows.append(current)
    return windows


def _reporter(progress: Progress | None, base: int, total: int) -> Callable[[int], None]:
    """What a window reports as its batches finish: the chunks embedded so far in the whole run."""

    def report(embedded: int) -> None:
        if progress is not None:
            progress("embedding", base + embedded, total)

    return report


class _Batches(NamedTuple):
    """A window's new chunks ready for the model: padded batches (embedders that have them) or texts."""

    size: int
    batches: list[Any] | None  # (indices, input_ids, attention_mask) per batch, sorted by length
    texts: list[str]


def _prepare(embedder: Embedder, window: list[_Work]) -> _Batches | None:
    """Tokenize and pad a window's new chunks (on a helper thread: the tokenizer releases the GIL)."""
    texts = [chunk.text for item in window for chunk in item.new]
    if not texts:
        return None
    batches = getattr(embedder, "batches", None)
    tokenize = getattr(embedder, "tokenize", None)
    if batches is None or tokenize is None or not hasattr(embedder, "run_batch"):
        return _Batches(len(texts), None, texts)
    return _Batches(len(texts), batches(tokenize(texts)), texts)


def _run(embedder: Embedder, prepared: _Batches, advance: Callable[[int], object]) -> Any:
    """The model on a prepared window; `advance(n)` after each batch with the chunks done so far."""
    if prepared.batches is None:
        vectors: Any = embedder.embed(prepared.texts)
        advance(prepared.size)
        return vectors
    import numpy as np

    run_batch = embedder.run_batch  # type: ignore[attr-defined]
    out = np.zeros((prepared.size, embedder.dim), dtype=np.float32)
    finished = 0
    for indices, ids, mask in prepared.batches:
        out[indices] = run_batch(ids, mask)  # scattered back: the window's order
        finished += len(indices)
        advance(finished)
    return out


def _store(index: Index, window: list[_Work], vectors: Any, result: EmbedResult) -> None:
    """Write one window: the new vectors to Chroma, then the chunks that now stand for each note."""
    catalog, store = index.catalog, index.vectors
    new_ids: list[str] = []
    new_meta: list[Metadata] = []
    kept_ids: list[str] = []
    kept_meta: list[Metadata] = []
    gone: list[str] = []
    reused = [record_id(item.note_id, chunk.id) for item in window for chunk in item.reused]
    for item in window:
        for chunk in item.new:
            new_ids.append(record_id(item.note_id, chunk.id))
            new_meta.append({**item.meta, "section": chunk.section or "", "ord": chunk.ord})
        for chunk in item.kept:
            kept_ids.append(record_id(item.note_id, chunk.id))
            kept_meta.append({**item.meta, "section": chunk.section or "", "ord": chunk.ord})
        gone += [record_id(item.note_id, chunk_id) for chunk_id in item.gone]
    with store.writing():
        if new_ids:
            store.upsert(new_ids, vectors, new_meta)
        store.update_metadata(kept_ids, kept_meta)
        store.reuse(reused)
        store.delete(gone)
    with catalog.write():
        for item in window:
            catalog.set_chunks(item.note_id, [(c.id, c.ord, c.section, c.start, c.end) for c in item.chunks], item.sha)
        store.written()
    keep_in_bounds(index)  # after every write: no segment of the store grows past what it holds
    result.notes += len(window)
    result.embedded += len(new_ids)
    result.kept += len(kept_ids)
    result.reused += len(reused)
    result.deleted += len(gone)
