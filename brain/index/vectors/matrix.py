"""An exact in-memory copy of a vault's chunk vectors: every dense query is answered from it.

Chroma stays the store of record (every vector is written there, and `brain reindex` rebuilds it),
but reading goes through this copy: a matrix product over all chunks is exact (a filter never
loses an allowed chunk, a fresh upsert is never missing from an approximate index) and is much
faster on one thread than Chroma's query. It costs 1.5 KB of memory per chunk (384 float32s).

A snapshot of the copy is kept in `.brain/index/` next to the catalog, stamped with the catalog's
vectors generation (`snapshot.py`: a base, memory-mapped, and a journal of the writes since), so a
one-shot `brain search` maps it with numpy and never imports chromadb (a heavy import). A process
that writes vectors updates its copy and appends to the journal; any process that finds the
snapshot older than the catalog's generation rebuilds it from Chroma.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class ChunkMatrix:
    """Row i is the unit vector of chunk (notes[i], chunks[i]); immutable: changes return a copy.

    The vectors are kept in parts (the snapshot's rows, memory-mapped, then each write's new rows),
    and a row taken out is only left out of `where` (which part row each row is): a write copies
    the note and chunk ids, never the vectors. Parts are merged as they pile up, and the rows left
    out are dropped once they are half of what is held."""

    def __init__(
        self,
        notes: np.ndarray,
        chunks: np.ndarray,
        vectors: np.ndarray,
        *,
        parts: tuple[np.ndarray, ...] | None = None,
        where: np.ndarray | None = None,
    ):
        self.notes = notes  # int64 note ids
        self.chunks = chunks  # chunk ids as bytes (S64)
        self._parts = parts if parts is not None else (vectors,)  # float32, L2-normalised rows
        self._where = where  # row i is row where[i] of the parts stacked; None: row i is row i
        self._dense: np.ndarray | None = vectors if parts is None and where is None else None

    @classmethod
    def empty(cls, dim: int) -> ChunkMatrix:
        return cls(np.zeros(0, np.int64), np.zeros(0, "S64"), np.zeros((0, dim), np.float32))

    @classmethod
    def from_records(cls, records: Sequence[str], vectors: Any, dim: int) -> ChunkMatrix:
        """From Chroma record ids `<note id>:<chunk id>` and their vectors."""
        if not len(records):
            return cls.empty(dim)
        return cls(*_split(records), unit_rows(vectors, len(records), dim))

    def __len__(self) -> int:
        return len(self.notes)

    @property
    def dim(self) -> int:
        return int(self._parts[0].shape[1])

    @property
    def held(self) -> int:
        """Rows the parts hold, those left out included."""
        return sum(len(part) for part in self._parts)

    @property
    def vectors(self) -> np.ndarray:
        """Every row's vector, in row order, as one array (made once, on first use)."""
        if self._dense is None:
            self._dense = self.gather(np.arange(len(self)))
        return self._dense

    def gather(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of these rows, as a new array."""
        at = np.asarray(rows, dtype=np.int64) if self._where is None else self._where[rows]
        if len(self._parts) == 1:
            return np.asarray(self._parts[0][at], dtype=np.float32)
        out = np.empty((len(at), self.dim), dtype=np.float32)
        start = 0
        for part in self._parts:
            inside = (at >= start) & (at < start + len(part))
            out[inside] = part[at[inside] - start]
            start += len(part)
        return out

    def _similarities(self, vector: np.ndarray) -> np.ndarray:
        """The dot product of `vector` with every row, in row order."""
        # einsum, not `@`: a matrix-vector `@` goes to multi-threaded BLAS, whose threads wait on each
        # other on a busy machine; einsum runs a one-thread loop.
        found = [np.einsum("ij,j->i", part, vector) for part in self._parts if len(part)]
        stacked = np.concatenate(found) if len(found) != 1 else found[0]
        return stacked if self._where is None else stacked[self._where]

    def rows_of(self, notes: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        """The rows holding any of the chunks (notes[i], chunks[i]). Rows are first narrowed by note id
        (a numeric comparison), and only those compared by chunk id: building a text key for every
        row was slow on a large store, and ran on every write."""
        if not len(self) or not len(notes):
            return np.zeros(0, np.int64)
        candidates = np.flatnonzero(np.isin(self.notes, notes))
        wanted = set(zip(notes.tolist(), chunks.tolist(), strict=True))
        found = [
            (note, chunk) in wanted
            for note, chunk in zip(self.notes[candidates].tolist(), self.chunks[candidates].tolist(), strict=True)
        ]
        return candidates[np.asarray(found, dtype=bool)] if len(candidates) else candidates

    def _where_all(self) -> np.ndarray:
        return np.arange(len(self), dtype=np.int64) if self._where is None else self._where

    def _keeping(self, kept: np.ndarray) -> ChunkMatrix:
        """These rows (a boolean mask or row numbers, in order), sharing this copy's parts."""
        return ChunkMatrix(
            self.notes[kept], self.chunks[kept], self._parts[0], parts=self._parts, where=self._where_all()[kept]
        )

    def remove_rows(self, rows: np.ndarray) -> ChunkMatrix:
        """Without these rows (row numbers)."""
        if not len(rows):
            return self
        kept = np.ones(len(self), dtype=bool)
        kept[rows] = False
        return self._keeping(kept)._tidied()

    def upsert(self, records: Sequence[str], vectors: Any) -> ChunkMatrix:
        added = ChunkMatrix.from_records(records, vectors, self.dim)
        return self.remove_rows(self.rows_of(added.notes, added.chunks)).appended(
            added.notes, added.chunks, added._parts[0]
        )

    def appended(self, notes: np.ndarray, chunks: np.ndarray, vectors: np.ndarray) -> ChunkMatrix:
        """These rows added after the others (unit vectors of chunks this copy does not hold)."""
        if not len(notes):
            return self
        return ChunkMatrix(
            np.concatenate([self.notes, notes]),
            np.concatenate([self.chunks, chunks]),
            self._parts[0],
            parts=(*self._parts, vectors),
            where=np.concatenate([self._where_all(), self.held + np.arange(len(notes), dtype=np.int64)]),
        )._tidied()

    def remove(self, records: Sequence[str]) -> ChunkMatrix:
        if not len(self) or not len(records):
            return self
        return self.remove_rows(self.rows_of(*_split(records)))

    def _tidied(self) -> ChunkMatrix:
        """Merge the newest parts while the last is at least half the one before (so a copy holds a
        few parts, and each row is copied a few times over many writes), and copy the rows kept
        into one part once the rows left out are half of those held (memory stays bounded)."""
        if self.held > 2 * len(self) + 1024:
            return ChunkMatrix(self.notes, self.chunks, self.gather(np.arange(len(self))))
        parts = list(self._parts)
        while len(parts) > 1 and 2 * len(parts[-1]) >= len(parts[-2]):
            parts[-2:] = [np.concatenate(parts[-2:])]
        if len(parts) == len(self._parts):
            return self
        return ChunkMatrix(self.notes, self.chunks, parts[0], parts=tuple(parts), where=self._where)

    def only(self, records: Sequence[tuple[int, str]]) -> ChunkMatrix:
        """The rows of these (note id, chunk id) pairs that the copy holds."""
        if not len(self) or not len(records):
            return ChunkMatrix.empty(self.dim)
        notes = np.asarray([note for note, _ in records], dtype=np.int64)
        chunks = np.asarray([chunk for _, chunk in records], dtype="S64")
        return self._keeping(np.sort(self.rows_of(notes, chunks)))

    def nearest(
        self, query: Sequence[float], n: int, note_ids: Sequence[int] | None = None
    ) -> list[tuple[int, str, float]]:
        """(note id, chunk id, cosine similarity) of the `n` nearest chunks, among `note_ids` if given."""
        if not len(self) or n <= 0:
            return []
        vector = np.asarray(query, dtype=np.float32)
        vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        if note_ids is None:
            rows = None
            similarities = self._similarities(vector)
        else:
            rows = np.flatnonzero(np.isin(self.notes, np.asarray(list(note_ids), dtype=np.int64)))
            if not len(rows):
                return []
            similarities = np.einsum("ij,j->i", self.gather(rows), vector)
        count = min(n, len(similarities))
        best = np.argpartition(-similarities, count - 1)[:count]
        best = best[np.argsort(-similarities[best], kind="stable")]
        at = best if rows is None else rows[best]
        return [
            (int(self.notes[i]), self.chunks[i].decode(), float(similarities[j])) for i, j in zip(at, best, strict=True)
        ]


def unit_rows(vectors: Any, count: int, dim: int) -> np.ndarray:
    """`count` vectors of `dim` as float32 rows of length 1."""
    matrix = np.asarray(vectors, dtype=np.float32).reshape(count, dim)
    unit: np.ndarray = matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    return unit


def _split(records: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Record ids `<note id>:<chunk id>` as note ids (int64) and chunk ids (bytes)."""
    notes, chunks = zip(*(record.split(":", 1) for record in records), strict=True)
    return np.asarray(notes, dtype=np.int64), np.asarray(chunks, dtype="S64")
