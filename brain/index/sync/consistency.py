"""Do the vectors hold what the catalog says they hold? `brain status` and `doctor` ask, `brain index` repairs.

The catalog's `chunks` table lists every record the vector store should hold. They part ways
when the store loses data behind brain's back: `.brain/index/chroma` deleted or emptied, a
Chroma server that lost its data, a vault whose id (and so its collection) changed. Then the
catalog says "up to date" while vector search finds nothing.

The check is cheap when all is well. With the embedded store it does not even open Chroma
(importing chromadb and opening the store were most of `brain status`) while the
store's files are as brain last vouched for them (`VectorStore.unchanged`, see
`vector_identity.files_stamp`): brain records their stamp after its own writes and after a check that
found the store consistent, so a store changed by anyone else (records deleted through another
client, the folder deleted or replaced) is checked in full. A Chroma server is always checked in
full: nothing local can vouch for it. The full check is one count on each side; only when the
counts differ are the ids compared, to name the notes whose vectors are missing and the records
nobody wants.

Records written behind (the catalog's `vectors_behind`, see vectors/vectors.py) are known
differences, not damage: the embedded store may lack them or still hold them until it catches up.
"""

from __future__ import annotations

from dataclasses import dataclass

from brain.errors import IndexMismatch
from brain.index.engine import Index
from brain.index.sync.disk_bound import keep_in_bounds
from brain.index.vectors.vectors import record_id


@dataclass(frozen=True)
class VectorCheck:
    expected: int  # chunk records the catalog says the vector store holds
    stored: int  # records the vector collection holds
    missing: int = 0  # expected records the store lacks
    missing_notes: tuple[int, ...] = ()  # notes with at least one record missing
    extra: tuple[str, ...] = ()  # records no chunk of the catalog stands for
    behind: int = 0  # records written behind: the snapshot holds them, Chroma catches up later

    @property
    def consistent(self) -> bool:
        return not self.missing and not self.extra


def check_vectors(index: Index) -> VectorCheck | None:
    """Compare catalog and vector store; None when the vault has no vectors to compare, or they
    were made by another embedder (reported on its own, fixed by `brain reindex`).

    Call it under the index lock: a write in progress changes the store before the catalog.
    """
    if not index.has_vectors():
        return None
    store = index.vectors
    expected = index.catalog.chunk_count()
    behind = set(index.catalog.behind()) if not index.chroma_url else set()
    try:
        store.check_embedder()
        if store.unchanged():
            return VectorCheck(expected, expected, behind=len(behind))
        stored = store.count()
    except IndexMismatch:
        return None
    if stored == expected and not behind:
        store.vouch()
        return VectorCheck(expected, stored)
    wanted = {record_id(note_id, chunk_id): note_id for note_id, chunk_id in index.catalog.chunk_ids()}
    held = store.record_ids()
    missing = [record for record in wanted if record not in held and record not in behind]
    notes = tuple(sorted({wanted[record] for record in missing}))
    extra = tuple(sorted(record for record in held if record not in wanted and record not in behind))
    if not missing and not extra:
        store.vouch()  # Chroma and its list of what it is behind on add up to the catalog
    return VectorCheck(expected, stored, len(missing), notes, extra, len(behind))


def repair_vectors(index: Index) -> VectorCheck | None:
    """Make the catalog and the store agree again (part of `brain index`): records nobody wants
    are deleted, and notes with missing records wait to be embedded again (by `embed_pending`)."""
    with index.locked():
        keep_in_bounds(index)  # a segment out of bounds is rebuilt before anything reads it
        check = check_vectors(index)
        if check is None or check.consistent:
            return check
        store = index.vectors
        store.delete(list(check.extra))
        with index.catalog.write():
            index.catalog.forget_vectors(list(check.missing_notes))
            store.written(agreed=True)  # they agree now, whatever changed the store before
        return check
