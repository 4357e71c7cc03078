"""The vector store's disk bound: after every write, each segment of the embedded store is checked
against what its records allow (`vectors/segments.py`), and one beyond its bound is rebuilt.

A segment out of bounds is never read again (loading an overgrown `link_lists.bin` reads it whole):
the vault's chunk collection is rebuilt from brain's own copy of its vectors (this process's copy or
the snapshot file, see `vectors/matrix.py`), restricted to the chunks the catalog lists; a note with
a chunk that copy lacks (embedded since the snapshot was saved) waits to be embedded again. Another
collection of the vault (the runs' query vectors) is made again, empty: its records are made from
the notes at its next use. A folder no collection uses is deleted. Called under the index lock.

Each check also zeroes what a segment's files hold past its elements (`clear_unused_capacity`):
hnswlib writes a new index's whole capacity from memory it never initialised, which can hold
anything the writing process had read, a secret `brain redact` is removing among them.
"""

from __future__ import annotations

import logging
import time

from brain.index.engine import Index
from brain.index.vectors.hnsw_files import clear_unused_capacity
from brain.index.vectors.identity import collection_name
from brain.index.vectors.segments import (
    Segment,
    compact_store,
    rebuild_collection,
    remove_orphan_segments,
    segments,
)
from brain.index.vectors.vectors import DROPPED_KEY, Metadata, record_id

log = logging.getLogger(__name__)


def keep_in_bounds(index: Index) -> list[Segment]:
    """Rebuild (or delete) every segment of this vault's embedded store found out of bounds; those found."""
    if index.chroma_url or index.read_only or not index.has_vectors():
        return []
    store = index.vectors
    over = [segment for segment in segments(store.path) if not segment.in_bounds]
    for segment in over:
        log.warning("%s; %s", segment.why(), "rebuilt from brain's vectors" if segment.collection else "deleted")
        _rebuild(index, segment.collection)
    if over:
        remove_orphan_segments(store.path)
    clear_unused_capacity(store.path)  # a segment this process created holds none of its memory
    return over


def rebuild_every_collection(index: Index) -> None:
    """Make each of the vault's collections again (as one out of bounds is), and compact Chroma's
    file: nothing a collection held before, nor Chroma's log of its writes (deleted with it), stays
    on disk. `brain redact` does it when the store keeps a secret. Called under the index lock."""
    if index.chroma_url or index.read_only or not index.has_vectors():
        return
    store = index.vectors
    for name in sorted({segment.collection for segment in segments(store.path) if segment.collection}):
        _rebuild(index, name)
    remove_orphan_segments(store.path)
    store._reopen()  # no connection of this process holds the file while it is compacted
    compact_store(store.path)
    clear_unused_capacity(store.path)  # the new segments' unused slots held this process's memory: secrets


def _rebuild(index: Index, name: str) -> None:
    """The vault's chunk collection from brain's vectors; another of the vault's, made empty (its
    users make its records again); a collection of another vault on this store, left alone."""
    store = index.vectors
    if name == store.name:
        _rebuild_chunks(index)
    elif name.startswith(collection_name(index.vault.root, "x")[:-1]):
        rebuild_collection(store, name, [], [], [])
        with index.catalog.write():
            index.catalog.set_meta(DROPPED_KEY, str(time.time_ns()))  # its users read it again
            store.written()


def _rebuild_chunks(index: Index) -> None:
    catalog, store = index.catalog, index.vectors
    records = catalog.chunk_records()
    copy = store.last_copy().only([(note, chunk) for note, chunk, *_ in records])
    rows = {
        (note, chunk.decode()): row
        for row, (note, chunk) in enumerate(zip(copy.notes.tolist(), copy.chunks.tolist(), strict=True))
    }
    lacking = {note for note, chunk, *_ in records if (note, chunk) not in rows}
    kept = [record for record in records if record[0] not in lacking]
    ids = [record_id(note, chunk) for note, chunk, *_ in kept]
    metadatas: list[Metadata] = [
        {
            "note_id": note,
            "path": path,
            "type": kind,
            "folder": folder,
            "embedder": store.embedder_id,
            "section": section or "",
            "ord": order,
        }
        for note, _, order, section, path, kind, folder in kept
    ]
    held = copy.only([(note, chunk) for note, chunk, *_ in kept])
    order = [rows[(note, chunk)] for note, chunk, *_ in kept]
    rebuild_collection(store, store.name, ids, copy.vectors[order], metadatas)
    with catalog.write():
        catalog.forget_vectors(sorted(lacking))
        catalog.clear_behind()  # nothing written behind is left out of it
        store.written(agreed=True)  # the store holds exactly the chunks the catalog lists now
    store.adopt(held)
