"""An exact in-memory copy of a vault's chunk vectors: every dense query is answered from it.

Chroma stays the store of record (every vector is written there, and `brain reindex` rebuilds it),
but reading goes through this copy: a matrix product over all chunks is exact (a filter never
loses an allowed chunk, a fresh upsert is never missing from an approximate index) and is much
faster on one thread than Chroma's query. It costs 1.5 KB of memory per chunk (384 float32s).

A snapshot of the copy is kept in `.brain/index/` next to the catalog, stamped with the catalog's
vectors generation, so a one-shot `brain search` loads one file with numpy and never imports
chromadb (a heavy import). A process that writes vectors updates its copy in place; any
process that finds the snapshot older than the catalog's generation rebuilds it from Chroma.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from brain.vault.atomic import replace_file


class ChunkMatrix:
    """Row i is the unit vector of chunk (notes[i], chunks[i]); immutable: changes return a copy."""

    def __init__(self, notes: np.ndarray, chunks: np.ndarray, vectors: np.ndarray):
        self.notes = notes  # int64 note ids
        self.chunks = chunks  # chunk ids as bytes (S32)
        self.vectors = vectors  # float32, L2-normalised rows

    @classmethod
    def empty(cls, dim: int) -> ChunkMatrix:
        return cls(np.zeros(0, np.int64), np.zeros(0, "S64"), np.zeros((0, dim), np.float32))

    @classmethod
    def from_records(cls, records: Sequence[str], vectors: Any, dim: int) -> ChunkMatrix:
        """From Chroma record ids `<note id>:<chunk id>` and their vectors."""
        if not len(records):
            return cls.empty(dim)
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(records), dim)
        matrix = matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
        return cls(*_split(records), matrix)

    def __len__(self) -> int:
        return len(self.notes)

    def _rows(self, notes: np.ndarray, chunks: np.ndarray) -> np.ndarray:
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

    def _without(self, rows: np.ndarray) -> ChunkMatrix:
        if not len(rows):
            return self
        kept = np.ones(len(self), dtype=bool)
        kept[rows] = False
        return ChunkMatrix(self.notes[kept], self.chunks[kept], self.vectors[kept])

    def upsert(self, records: Sequence[str], vectors: Any) -> ChunkMatrix:
        added = ChunkMatrix.from_records(records, vectors, self.vectors.shape[1])
        kept = self._without(self._rows(added.notes, added.chunks))
        return ChunkMatrix(
            np.concatenate([kept.notes, added.notes]),
            np.concatenate([kept.chunks, added.chunks]),
            np.vstack([kept.vectors, added.vectors]),
        )

    def remove(self, records: Sequence[str]) -> ChunkMatrix:
        if not len(self) or not len(records):
            return self
        return self._without(self._rows(*_split(records)))

    def only(self, records: Sequence[tuple[int, str]]) -> ChunkMatrix:
        """The rows of these (note id, chunk id) pairs that the copy holds."""
        if not len(self) or not len(records):
            return ChunkMatrix.empty(self.vectors.shape[1])
        notes = np.asarray([note for note, _ in records], dtype=np.int64)
        chunks = np.asarray([chunk for _, chunk in records], dtype="S64")
        rows = np.sort(self._rows(notes, chunks))
        return ChunkMatrix(self.notes[rows], self.chunks[rows], self.vectors[rows])

    def nearest(
        self, query: Sequence[float], n: int, note_ids: Sequence[int] | None = None
    ) -> list[tuple[int, str, float]]:
        """(note id, chunk id, cosine similarity) of the `n` nearest chunks, among `note_ids` if given."""
        if not len(self) or n <= 0:
            return []
        vector = np.asarray(query, dtype=np.float32)
        vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        # einsum, not `@`: a matrix-vector `@` goes to multi-threaded BLAS, whose threads wait on each
        # other on a busy machine; einsum runs a one-thread loop.
        if note_ids is None:
            rows = None
            similarities = np.einsum("ij,j->i", self.vectors, vector)
        else:
            rows = np.flatnonzero(np.isin(self.notes, np.asarray(list(note_ids), dtype=np.int64)))
            if not len(rows):
                return []
            similarities = np.einsum("ij,j->i", self.vectors[rows], vector)
        count = min(n, len(similarities))
        best = np.argpartition(-similarities, count - 1)[:count]
        best = best[np.argsort(-similarities[best], kind="stable")]
        at = best if rows is None else rows[best]
        return [
            (int(self.notes[i]), self.chunks[i].decode(), float(similarities[j])) for i, j in zip(at, best, strict=True)
        ]

    # ------------------------------------------------------------ snapshot on disk

    def save(self, path: Path, generation: str) -> None:
        """Write atomically (temp file + rename): a reader sees the old snapshot or the new one."""

        def write(handle: BinaryIO) -> None:
            np.savez(
                handle, notes=self.notes, chunks=self.chunks, vectors=self.vectors, generation=np.asarray(generation)
            )

        replace_file(path, write)

    @classmethod
    def load(cls, path: Path, generation: str | None, dim: int) -> ChunkMatrix | None:
        """The snapshot at `path` if it was written at `generation` (None: at any) with vectors of `dim`, else None."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if generation is not None and str(data["generation"]) != generation:
                    return None
                if data["vectors"].shape[1:] != (dim,):
                    return None
                return cls(data["notes"], data["chunks"], data["vectors"])
        except (OSError, KeyError, ValueError):
            return None


def _split(records: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Record ids `<note id>:<chunk id>` as note ids (int64) and chunk ids (bytes)."""
    notes, chunks = zip(*(record.split(":", 1) for record in records), strict=True)
    return np.asarray(notes, dtype=np.int64), np.asarray(chunks, dtype="S64")
