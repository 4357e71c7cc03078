"""The snapshot of a vault's chunk vectors on disk (`matrix.ChunkMatrix`), kept up to date by appending.

A snapshot is a base, written whole, and a journal of the writes made since, appended to:

- `vectors-<embedder>.head`: JSON naming the base, how many journal records belong to the snapshot,
  and the catalog's vectors generation they stand for. It is the only file replaced in place
  (atomically), so a reader sees one snapshot or the next, never a mix.
- `<base>.notes.npy`, `<base>.chunks.npy`, `<base>.vectors.npy`: every row when the base was written.
  The vectors are memory-mapped: a one-shot search reads the pages it multiplies, through the OS's
  file cache, and several processes share one copy of them.
- `<base>.log`: fixed-size records, a chunk's vector added or a chunk removed, in the order of the
  writes. A writer (under the index lock) appends past the records the head counts, then writes a
  new head. Records past the head's count are a write that never finished: ignored, and overwritten.

A write costs its own rows, not the vault's: editing one note appends a few records. The base is
written again (compacted) only when the journal passes a share of it (`COMPACT_SHARE`), under a new
name: a reader that has the old one open keeps reading it, and the old files are deleted once the new
head is in place (a reader that lost the race reads the head again).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from brain.index.vectors.matrix import ChunkMatrix, unit_rows
from brain.vault.atomic import replace_file, write_json

COMPACT_SHARE = 0.25  # the journal's records, as a share of the base's rows, past which the base is written again
COMPACT_FLOOR = 4096  # ... but a journal of fewer records than this is never worth it
PARTS = ("notes.npy", "chunks.npy", "vectors.npy", "log")
WRITE_BLOCK = 16384  # rows of vectors written at a time
_ATTEMPTS = 3  # a compaction may delete the files a reader was about to open: it reads the head again


def _record(dim: int) -> np.dtype:
    """One journal record: a chunk added (with its vector) or removed."""
    return np.dtype([("note", "<i8"), ("chunk", "S64"), ("removed", "?"), ("vector", "<f4", (dim,))])


@dataclass
class Journal:
    """Where the next writes of a snapshot go: its base, and the records the head counts."""

    head: Path
    base: str
    dim: int
    records: int  # journal records that are part of the snapshot (or will be, at the next `commit`)
    base_rows: int

    @property
    def log(self) -> Path:
        return self.head.with_name(f"{self.base}.log")

    def add(self, records: list[str], vectors: np.ndarray) -> None:
        notes, chunks = _keys(records)
        self._append(notes, chunks, False, unit_rows(vectors, len(records), self.dim))

    def remove(self, records: list[str]) -> None:
        notes, chunks = _keys(records)
        self._append(notes, chunks, True, np.zeros((len(records), self.dim), np.float32))

    def _append(self, notes: np.ndarray, chunks: np.ndarray, removed: bool, vectors: np.ndarray) -> None:
        if not len(notes):
            return
        entries = np.zeros(len(notes), dtype=_record(self.dim))
        entries["note"], entries["chunk"], entries["removed"], entries["vector"] = notes, chunks, removed, vectors
        if self.records and not self.log.exists():  # deleted under brain: the snapshot is written whole instead
            raise FileNotFoundError(self.log)
        with open(self.log, "r+b" if self.records else "wb") as handle:
            handle.seek(self.records * entries.itemsize)  # past a write that never finished, if any
            handle.write(entries.tobytes())
            handle.truncate()
        self.records += len(entries)

    @property
    def worth_compacting(self) -> bool:
        return self.records > max(COMPACT_FLOOR, COMPACT_SHARE * self.base_rows)

    def commit(self, generation: str) -> None:
        """The records appended so far are the snapshot of `generation` (durable first, then named)."""
        if self.log.exists():
            with open(self.log, "rb+") as handle:
                os.fsync(handle.fileno())
        _write_head(self.head, generation, self.base, self.dim, self.records)


def save(matrix: ChunkMatrix, head: Path, generation: str) -> Journal:
    """Write `matrix` whole as a new base with an empty journal, then point the head at it and delete
    the files of the snapshot before (compaction). The journal of the new snapshot is returned."""
    base = f"{head.stem}.{secrets.token_hex(6)}"
    _write_array(head.with_name(f"{base}.notes.npy"), matrix.notes)
    _write_array(head.with_name(f"{base}.chunks.npy"), matrix.chunks.astype("S64"))
    _write_vectors(head.with_name(f"{base}.vectors.npy"), matrix)
    _write_head(head, generation, base, matrix.dim, 0)
    remove_others(head, keep=base)
    return Journal(head, base, matrix.dim, 0, len(matrix))


def load(head: Path, generation: str | None, dim: int, *, trailing: bool = False) -> tuple[ChunkMatrix, Journal] | None:
    """The snapshot named by `head` if it stands for `generation` (None: any) with vectors of `dim`,
    and its journal; None when there is none, or it is of another generation or dimension.
    `trailing`: with every whole record the journal holds past the head's count too (a write whose
    head was never written: a chunk's vector there is exact, as its id is its text's hash; only a
    caller that keeps the chunks the catalog lists may ask for them)."""
    for _ in range(_ATTEMPTS):
        named = _read_head(head)
        if named is None or named.get("dim") != dim:
            return None
        if generation is not None and named.get("generation") != generation:
            return None
        base, records = str(named["base"]), int(named["records"])
        try:
            notes = np.load(head.with_name(f"{base}.notes.npy"), allow_pickle=False)
            chunks = np.load(head.with_name(f"{base}.chunks.npy"), allow_pickle=False)
            vectors = _mapped(head.with_name(f"{base}.vectors.npy"))
            journal = _read_log(head.with_name(f"{base}.log"), dim, None if trailing else records)
        except FileNotFoundError:
            continue  # compacted meanwhile: the head names another base now
        except (OSError, ValueError):
            return None
        if vectors.ndim != 2 or vectors.shape[1:] != (dim,) or not len(notes) == len(vectors) == len(chunks):
            return None
        if journal is None:
            return None
        matrix = _replayed(ChunkMatrix(notes, chunks, vectors), journal)
        return matrix, Journal(head, base, dim, records, len(notes))
    return None


def remove_all(head: Path) -> None:
    """The snapshot is gone (it would hold vectors just deleted): its head and every base."""
    head.unlink(missing_ok=True)
    remove_others(head, keep=None)


def remove_others(head: Path, keep: str | None) -> None:
    """Delete the files of every base of this snapshot but `keep` (and the one-file snapshot brain kept
    before it had a journal)."""
    with contextlib.suppress(OSError):
        head.with_suffix(".npz").unlink(missing_ok=True)
    prefix = f"{head.stem}."
    for entry in _entries(head.parent):
        if entry.startswith(prefix) and entry != head.name and not entry.startswith(f"{keep}."):
            if any(entry.endswith(f".{part}") for part in PARTS):
                with contextlib.suppress(OSError):
                    (head.parent / entry).unlink()


def _entries(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _write_array(path: Path, array: np.ndarray) -> None:
    def write(handle: BinaryIO) -> None:
        np.save(handle, array, allow_pickle=False)

    replace_file(path, write)


def _write_vectors(path: Path, matrix: ChunkMatrix) -> None:
    """The vectors as a `.npy` file, written a block of rows at a time: a copy of every vector at
    once would double what the process holds (430 MB more at 50,000 notes)."""

    def write(handle: BinaryIO) -> None:
        shape = (len(matrix), matrix.dim)
        header = {"descr": np.lib.format.dtype_to_descr(np.dtype("<f4")), "fortran_order": False, "shape": shape}
        np.lib.format.write_array_header_1_0(handle, header)
        for start in range(0, len(matrix), WRITE_BLOCK):
            rows = np.arange(start, min(start + WRITE_BLOCK, len(matrix)))
            handle.write(matrix.gather(rows).astype("<f4", copy=False).tobytes())

    replace_file(path, write)


def _write_head(head: Path, generation: str, base: str, dim: int, records: int) -> None:
    write_json(head, {"generation": generation, "base": base, "dim": dim, "records": records}, indent=None)


def _read_head(head: Path) -> dict[str, Any] | None:
    try:
        named = json.loads(head.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(named, dict) or not {"generation", "base", "dim", "records"} <= named.keys():
        return None
    return named


def _mapped(path: Path) -> np.ndarray:
    """The array in `path`, memory-mapped (read in full when empty: an empty file cannot be mapped)."""
    try:
        mapped: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError:
        mapped = np.load(path, allow_pickle=False)
    return mapped


def _read_log(path: Path, dim: int, records: int | None) -> np.ndarray | None:
    """The first `records` records of the journal (None: every whole one); None if it holds fewer
    (it was cut short)."""
    record = _record(dim)
    if records is None:
        records = path.stat().st_size // record.itemsize if path.exists() else 0
    if not records:
        return np.zeros(0, dtype=record)
    entries = np.fromfile(path, dtype=record, count=records)
    return entries if len(entries) == records else None


def _replayed(matrix: ChunkMatrix, journal: np.ndarray) -> ChunkMatrix:
    """The base with the journal's writes applied: each chunk the journal names is as its last record
    says (added with that vector, or removed), every other chunk as the base holds it."""
    if not len(journal):
        return matrix
    last: dict[tuple[int, bytes], int] = {}
    for number, (note, chunk, removed) in enumerate(
        zip(journal["note"].tolist(), journal["chunk"].tolist(), journal["removed"].tolist(), strict=True)
    ):
        last[(note, chunk)] = -1 if removed else number
    notes = np.asarray([note for note, _ in last], dtype=np.int64)
    chunks = np.asarray([chunk for _, chunk in last], dtype="S64")
    added = np.asarray(sorted(number for number in last.values() if number >= 0), dtype=np.int64)
    kept = matrix.remove_rows(matrix.rows_of(notes, chunks))
    return kept.appended(
        journal["note"][added], journal["chunk"][added], np.ascontiguousarray(journal["vector"][added])
    )


def _keys(records: list[str]) -> tuple[np.ndarray, np.ndarray]:
    notes, chunks = zip(*(record.split(":", 1) for record in records), strict=True) if records else ((), ())
    return np.asarray(notes, dtype=np.int64), np.asarray(chunks, dtype="S64")
