"""The embedding pipeline: chunk the notes whose text changed, embed the new chunks, write them.

Unchanged chunks (by content hash) are never embedded again; a note's chunks that are gone are
deleted from the vector store. The model runs while the previous batch is written (Chroma, the
catalog) on a thread. All writes happen under the index lock (`Index.locked`).
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

from brain.index.engine import Index
from brain.index.sync.disk_bound import keep_in_bounds
from brain.index.sync.scan import Progress
from brain.index.vectors.chunking import Chunk, chunk_note
from brain.index.vectors.vectors import Metadata, record_id

EMBED_BATCH = 256  # chunks per model call and per vector write

_Queued = tuple[int, str, Metadata, list[Chunk]]  # (note id, sha, metadata, chunks)


class _Prepared(NamedTuple):
    """One batch ready to write: which records are new (with their vectors), kept or gone."""

    new_ids: list[str]
    vectors: Any  # the new records' vectors: an array (or lists) from the embedder, None when none are new
    new_meta: list[Metadata]
    kept_ids: list[str]
    kept_meta: list[Metadata]
    gone: list[str]


@dataclass
class EmbedResult:
    notes: int = 0
    embedded: int = 0  # chunks sent to the model
    kept: int = 0  # chunks unchanged, not embedded again
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
    embedder = index.embedder
    spans = index.spans
    max_tokens = getattr(embedder, "max_tokens", 256)
    queue: list[_Queued] = []
    waiting = 0
    # The model runs here while the previous batch is written (Chroma, catalog) on a thread.
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brain-embed-writer")
    writing: Future[None] | None = None

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
            meta: Metadata = {
                "note_id": note_id,
                "path": path,
                "type": note_type,
                "folder": folder,
                "embedder": embedder.id,
            }
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


def _embed(index: Index, queue: list[_Queued]) -> _Prepared:
    """Which chunks are new, kept or gone, and the new ones' vectors (the model runs here)."""
    catalog, embedder = index.catalog, index.embedder
    new_ids: list[str] = []
    new_texts: list[str] = []
    new_meta: list[Metadata] = []
    kept_ids: list[str] = []
    kept_meta: list[Metadata] = []
    gone: list[str] = []
    for note_id, _, meta, chunks in queue:
        existing = catalog.chunk_rows(note_id)
        wanted = {chunk.id for chunk in chunks}
        for chunk in chunks:
            chunk_meta: Metadata = {**meta, "section": chunk.section or "", "ord": chunk.ord}
            if chunk.id in existing:
                kept_ids.append(record_id(note_id, chunk.id))
                kept_meta.append(chunk_meta)
            else:
                new_ids.append(record_id(note_id, chunk.id))
                new_texts.append(chunk.text)
                new_meta.append(chunk_meta)
        gone += [record_id(note_id, chunk_id) for chunk_id in existing if chunk_id not in wanted]
    vectors: Any = None
    if new_texts:
        vectors = embedder.embed_array(new_texts) if hasattr(embedder, "embed_array") else embedder.embed(new_texts)
    return _Prepared(new_ids, vectors, new_meta, kept_ids, kept_meta, gone)


def _store(index: Index, queue: list[_Queued], prepared: _Prepared, result: EmbedResult) -> None:
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
    keep_in_bounds(index)  # after every write: no segment of the store grows past what it holds
    result.notes += len(queue)
    result.embedded += len(new_ids)
    result.kept += len(kept_ids)
    result.deleted += len(gone)
