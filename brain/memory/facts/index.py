"""Everything facts ask of the search index, in one place: similarity to a query, and purging swept notes.

Only the index's public functions are used (the open vault's `Index`, passed in; `search.freshen`, `sync.scan`,
the catalog, lock and vector store of an `Index`, and the store's exact in-memory copy
`matrix()`), so a change in how the index is opened touches this module alone. A vault without an index is fine: similarity falls back to word overlap,
and a purge has only files to remove.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from brain.index.catalog.catalog import Catalog
    from brain.index.engine import Index
    from brain.index.vectors.matrix import ChunkMatrix

_WORD = re.compile(r"\w+", re.UNICODE)
Progress = Callable[[str, int, int], None]
PURGE_CACHE_KIB = -262144  # SQLite's page cache during a purge (256 MiB, in KiB): the transaction's pages stay in memory, not spilled to the WAL and read back
PURGE_MMAP_BYTES = 2**31  # and the file read through memory, not one read call per page
WORDS_SOURCE = "word overlap (this vault has no vector index yet; once it is indexed, similarity is by meaning)"


@dataclass(frozen=True)
class Purged:
    catalog_rows: int
    vector_records: int
    indexed: bool
    log_truncated: bool = True  # False: another process kept reading; old pages wait in the catalog's WAL


def words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if len(word) > 1}


def similarity(
    index: Index | None, query: str, paths: Sequence[str], text_of: Callable[[int], str]
) -> tuple[np.ndarray, str, int]:
    """Similarity (0..1) to the query of each candidate note (`paths[i]`), where it came from, and
    how many candidates still wait for their vectors (their similarity counts as 0).

    With vectors: the cosine of the query's embedding and the note's best chunk (the index's
    own embedder and vectors, brought up to date first as search does), over the candidates'
    chunks only. A candidate without vectors yet (a fact recorded a moment ago, beside a watcher
    that has not embedded it) is embedded first when the notes waiting are few, as a search
    embeds a small change. Else: the share of the query's words the fact holds (`text_of(i)`).
    """
    if index is not None and index.has_vectors():
        from brain.memory.search.service import freshen

        freshen(index, vectors=True)  # as search does: small changes embedded now, bulk left to `brain index`
        waiting = _waiting(index, paths)
        stamps = index.catalog.stamps()
        ids = np.fromiter(
            (stamps[path].id if path in stamps else -1 for path in paths), dtype=np.int64, count=len(paths)
        )
        from brain.index.embedders.embedders import query_vector

        best = _best_chunks(index.vectors.matrix(), query_vector(index.embedder, query), ids)
        return np.clip(best, 0.0, 1.0), f"vectors ({index.embedder.id})", waiting
    wanted = words(query)
    if not wanted:
        return np.zeros(len(paths)), WORDS_SOURCE, 0
    return (
        np.fromiter(
            (len(wanted & words(text_of(i))) / len(wanted) for i in range(len(paths))),
            dtype=np.float64,
            count=len(paths),
        ),
        WORDS_SOURCE,
        0,
    )


def _waiting(index: Any, paths: Sequence[str]) -> int:
    """How many of `paths` have no vectors yet, after embedding them when few notes wait (even beside
    a watcher, which would embed them a moment later: the caller asks about them now)."""
    from brain.errors import IndexBusy
    from brain.index.sync.embedding import embed_pending
    from brain.memory.search.service import SEARCH_EMBED_NOTES

    wanted = set(paths)
    pending = [path for _, path in index.catalog.pending_vectors()]
    if not wanted.intersection(pending):
        return 0
    if len(pending) <= SEARCH_EMBED_NOTES:
        try:
            embed_pending(index)
        except IndexBusy:  # a long batch holds the index: answer now, and say what is missing
            pass
        pending = [path for _, path in index.catalog.pending_vectors()]
    return len(wanted.intersection(pending))


@dataclass(frozen=True)
class _ChunkRows:
    """Where each note's chunks are in a ChunkMatrix: rows `order[first[id] : first[id] + count[id]]`."""

    matrix: object
    order: np.ndarray
    first: np.ndarray
    count: np.ndarray


_chunk_rows: list[_ChunkRows] = []  # for the last matrix seen (a ChunkMatrix is never changed in place)


def _rows_of(matrix: ChunkMatrix) -> _ChunkRows:
    if _chunk_rows and _chunk_rows[0].matrix is matrix:
        return _chunk_rows[0]
    order = np.argsort(matrix.notes, kind="stable")
    ordered = matrix.notes[order]
    size = int(ordered[-1]) + 1 if len(ordered) else 0
    found = _ChunkRows(matrix, order, np.searchsorted(ordered, np.arange(size)), np.bincount(ordered, minlength=size))
    _chunk_rows[:] = [found]
    return found


def _best_chunks(matrix: ChunkMatrix, query: Sequence[float], ids: np.ndarray) -> np.ndarray:
    """The best cosine of the query with each note's chunks (0 for a note without vectors), exact:
    only the rows of these notes are multiplied, however many chunks the vault holds."""
    best = np.zeros(len(ids))
    rows = _rows_of(matrix)
    known = (ids >= 0) & (ids < len(rows.count))
    counts = np.zeros(len(ids), dtype=np.int64)
    counts[known] = rows.count[ids[known]]
    if not counts.sum():
        return best
    starts = np.zeros(len(ids), dtype=np.int64)
    starts[known] = rows.first[ids[known]]
    offsets = np.cumsum(counts) - counts  # where each note's chunks begin in the flat list
    flat = np.repeat(starts - offsets, counts) + np.arange(counts.sum())
    vector = np.asarray(query, dtype=np.float32)
    vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
    # einsum, not `@`: see ChunkMatrix.nearest (multi-threaded BLAS waits on a busy machine)
    similarities = np.einsum("ij,j->i", matrix.gather(rows.order[flat]), vector)
    has = counts > 0
    best[has] = np.maximum.reduceat(similarities, offsets[has])
    return best


@contextmanager
def held(index: Index | None) -> Iterator[None]:
    """Hold the index lock (when there is an index) across a batch of file changes and their purge:
    another process (a watcher, a reader's scan) that sees the files change waits, then finds the
    catalog already current.

    This process stops following this vault's file events (`fresh.stop_tracking`; its next read
    re-scans): each of a sweep's tens of thousands of file changes would be an event handled in
    Python on the same cores, which slowed the file work several times over.
    Nothing else runs beside the file work either. Opening Chroma on a thread meanwhile holds
    Python's lock; Chroma's deletes on a thread (they do not hold it) still slowed the relinks
    down, both waiting on the file system's journal. They
    run beside the catalog's VACUUM instead (`purge`).
    """
    if index is None:
        yield
        return
    from brain.index.watch.fresh import stop_tracking

    stop_tracking(index)
    with index.locked():
        yield


def note_ids(index: Index | None, paths: Sequence[str]) -> dict[str, int]:
    """The catalog ids of these notes (taken before they are deleted, to purge what they left)."""
    if index is None:
        return {}
    stamps = index.catalog.stamps()
    return {path: stamps[path].id for path in paths if path in stamps}


def purge(
    index: Index | None,
    deleted: Sequence[str],
    changed: Sequence[str],
    ids: dict[str, int],
    progress: Progress | None = None,
) -> Purged:
    """Forget deleted notes (`ids` from `note_ids`, before the deletion) in every derived store, leaving
    no copy of their text behind, and take in notes the deletion changed (relinked neighbours).

    All at once, with `secure_delete` on (freed rows and pages are overwritten): one catalog
    transaction removes the deleted notes' rows (note, links, tags, full text) and re-reads the
    changed notes; then one vector delete drops every orphaned chunk (as `brain index` would)
    while the full-text index is merged ('optimize', which drops the deleted notes' words from
    its segments) and the catalog is vacuumed; then the orphans' chunk rows go, the vectors
    snapshot is written again without them (else the next dense read would rebuild it from
    Chroma, slowly on a large vault), and the WAL is checkpointed and truncated.

    The VACUUM is needed: `secure_delete` zeroes deleted cells and freed pages, but not the old
    copies of cells that SQLite leaves in the unused middle of a page when it rebalances one (a
    full-text row re-inserted as a note changes), and only rewriting every page drops those.
    Chroma's delete runs on a thread beside it (`VectorStore.deleting`; both work without
    Python's lock); not beside the file work before the purge (see `held`).
    """
    if index is None or not (deleted or changed):
        return Purged(0, 0, index is not None)
    from brain.index.sync.scan import scan
    from brain.index.vectors.vectors import record_id

    catalog = index.catalog
    wanted = set(ids.values())
    step = progress or (lambda stage, done, total: None)
    with index.locked():
        cache = catalog.db.execute("PRAGMA cache_size").fetchone()[0]
        secure = catalog.db.execute("PRAGMA secure_delete").fetchone()[0]  # on by default in some SQLite builds
        catalog.db.execute("PRAGMA secure_delete = ON")
        catalog.db.execute(f"PRAGMA cache_size = {PURGE_CACHE_KIB}")
        catalog.db.execute(f"PRAGMA mmap_size = {PURGE_MMAP_BYTES}")
        catalog.db.execute("PRAGMA temp_store = MEMORY")  # VACUUM builds its copy in memory, not in a temp file
        try:
            scan(
                index, paths=[*deleted, *changed]
            )  # the removals are one transaction; changed notes are parsed in batches
            step("purge", 1, 4)
            stamps = catalog.stamps()
            remaining = {stamps[path].id for path in deleted if path in stamps}
            vectors = 0
            if index.has_vectors():
                store = index.vectors
                orphans = catalog.orphan_chunks()
                with store.writing(), store.deleting([record_id(note, chunk) for note, chunk in orphans], purge=True):
                    store.load_snapshot()  # the delete takes the orphans out of this copy too; saved below
                    _compact(catalog)
                step("purge", 2, 4)
                with catalog.write():
                    catalog.clear_gone()
                    store.written()
                store.save_snapshot()
                vectors = sum(1 for note, _ in orphans if note in wanted)
            else:
                _compact(catalog)
                step("purge", 2, 4)
            step("purge", 3, 4)
            truncated = _truncate_log(catalog)
            step("purge", 4, 4)
        finally:
            catalog.db.execute("PRAGMA temp_store = DEFAULT")
            catalog.db.execute(f"PRAGMA secure_delete = {secure}")
            catalog.db.execute(f"PRAGMA cache_size = {cache}")
            catalog.db.execute("PRAGMA mmap_size = 0")
    return Purged(len(wanted - remaining), vectors, True, truncated)


def _compact(catalog: Catalog) -> None:
    """Rewrite the full-text index and then the whole file without what was deleted."""
    with catalog.write() as db:
        db.execute("INSERT INTO fts(fts) VALUES('optimize')")
    catalog.db.execute("VACUUM")


def _truncate_log(catalog: Catalog) -> bool:
    """Copy the WAL into the file and empty it, so no old page stays in it. False when another
    process kept a read open through the whole busy timeout (the log keeps its pages then)."""
    busy, _, _ = catalog.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return not busy


def truncate_log(index: Index | None) -> bool:
    """`_truncate_log` for a vault's catalog (a sweep with nothing due tries again what the last one could not)."""
    if index is None:
        return True
    with index.locked():
        return _truncate_log(index.catalog)
