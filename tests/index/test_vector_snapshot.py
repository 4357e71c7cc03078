"""The snapshot of the vectors on disk takes a write by appending to its journal, never by being
written whole: a base (memory-mapped) and the journal's records since, named by a head.

Real vaults with the lexical embedder, the CLI, and the files on disk; the reader beside a writer is
another process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.vectors import snapshot
from brain.index.vectors.matrix import ChunkMatrix
from brain.index.vectors.vectors import GENERATION_KEY
from tests.conftest import lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    for number in range(40):
        put(
            vault,
            f"notes/n{number}.md",
            note_text(f"Note {number}", f"apples {number} and pears\n\n## More\nplums {number}"),
        )
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    return vault


def _head(vault) -> dict:
    index = open_index(vault)
    try:
        return json.loads(index.vectors.snapshot_path.read_text(encoding="utf-8"))
    finally:
        index.close()


def _base_files(vault, base: str) -> dict[str, int]:
    """Each file of a base, by name, and its inode (the same inode: never written again)."""
    return {path.name: path.stat().st_ino for path in vault.index_dir.glob(f"{base}.*")}


def _snapshot_and_chroma(vault) -> tuple[ChunkMatrix, ChunkMatrix]:
    """The current snapshot as a new process loads it, and the vectors Chroma holds."""
    index = open_index(vault)
    try:
        store = index.vectors
        loaded = snapshot.load(store.snapshot_path, index.catalog.get_meta(GENERATION_KEY), store.dim)
        assert loaded is not None
        with index.locked():
            return loaded[0], store._matrix_from_chroma()
    finally:
        index.close()


def _rows(matrix: ChunkMatrix) -> dict[tuple[int, bytes], list[float]]:
    return {
        (note, chunk): np.round(matrix.gather(np.asarray([row])), 5)[0].tolist()
        for row, (note, chunk) in enumerate(zip(matrix.notes.tolist(), matrix.chunks.tolist(), strict=True))
    }


def _note_numbers(vault, matrix: ChunkMatrix) -> list[int]:
    """The number in the name of each row's note (notes/n<number>.md)."""
    index = open_index(vault)
    try:
        paths = {stamp.id: path for path, stamp in index.catalog.stamps().items()}
    finally:
        index.close()
    return [int(Path(paths[note]).stem[1:]) for note in matrix.notes.tolist() if note in paths]


def test_an_edit_appends_its_chunks_to_the_journal_and_leaves_the_base_alone(vault):
    head = _head(vault)
    assert head["records"] == 0
    base = _base_files(vault, head["base"])
    assert sorted(base) == [f"{head['base']}.{part}" for part in ("chunks.npy", "notes.npy", "vectors.npy")]

    put(vault, "notes/n3.md", note_text("Note 3", "apples 3 and quinces\n\n## More\nplums 3"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0

    after = _head(vault)
    assert after["base"] == head["base"] and int(after["generation"]) > int(head["generation"])
    assert after["records"] == 2  # the new first chunk added, the old one removed
    assert {
        name: inode for name, inode in _base_files(vault, head["base"]).items() if not name.endswith(".log")
    } == base
    loaded, chroma = _snapshot_and_chroma(vault)
    assert len(loaded) == len(chroma) == 80
    assert _rows(loaded) == _rows(chroma)


def test_a_deleted_note_leaves_the_snapshot_through_the_journal(vault):
    head = _head(vault)
    (vault.root / "notes" / "n7.md").unlink()
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0

    after = _head(vault)
    assert after["base"] == head["base"] and after["records"] == 2
    loaded, chroma = _snapshot_and_chroma(vault)
    assert len(loaded) == 78 and 7 not in set(_note_numbers(vault, loaded))
    assert _rows(loaded) == _rows(chroma)


def test_the_journal_is_compacted_into_a_new_base_past_its_share(vault, monkeypatch):
    monkeypatch.setattr(snapshot, "COMPACT_FLOOR", 0)
    monkeypatch.setattr(snapshot, "COMPACT_SHARE", 0.04)  # a base of 80 rows: past 3.2 records
    head = _head(vault)
    put(vault, "notes/n1.md", note_text("Note 1", "apples 1 and figs\n\n## More\nplums 1"))
    index = open_index(vault)  # in this process: the patched share applies
    index_vault(index)
    index.close()
    assert _head(vault)["records"] == 2  # two records: not past the floor yet

    put(vault, "notes/n2.md", note_text("Note 2", "apples 2 and figs\n\n## More\nplums 2"))
    index = open_index(vault)
    index_vault(index)
    index.close()
    after = _head(vault)
    assert after["base"] != head["base"] and after["records"] == 0  # written whole, journal empty
    assert not list(vault.index_dir.glob(f"{head['base']}.*"))  # the old base's files are gone
    loaded, chroma = _snapshot_and_chroma(vault)
    assert len(loaded) == 80 and _rows(loaded) == _rows(chroma)


def test_a_write_that_never_finished_is_ignored_and_overwritten(vault):
    head = _head(vault)
    index = open_index(vault)
    store = index.vectors
    loaded = snapshot.load(store.snapshot_path, None, store.dim)
    assert loaded is not None
    _, journal = loaded
    journal.add(["999:dead"], np.ones((1, store.dim), np.float32))  # appended, never committed (a crash)
    index.close()
    assert _head(vault) == head
    matrix, _ = _snapshot_and_chroma(vault)
    assert 999 not in set(matrix.notes.tolist())

    put(vault, "notes/n5.md", note_text("Note 5", "apples 5 and limes\n\n## More\nplums 5"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    assert _head(vault)["records"] == 2  # written over the unfinished record
    loaded_now, chroma = _snapshot_and_chroma(vault)
    assert 999 not in set(loaded_now.notes.tolist()) and _rows(loaded_now) == _rows(chroma)


def test_a_snapshot_older_than_the_catalog_is_rebuilt_from_chroma(vault):
    head_path = vault.index_dir / next(path.name for path in vault.index_dir.glob("*.head"))
    old_head = head_path.read_bytes()
    put(vault, "notes/n9.md", note_text("Note 9", "apples 9 and melons\n\n## More\nplums 9"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    head_path.write_bytes(old_head)  # as if the write's snapshot were never saved: a generation behind

    result = run_brain("search", "melons", "--mode", "vector", "--vault", str(vault.root))
    assert result.exit_code == 0 and "Note 9" in result.output
    rebuilt = _head(vault)
    assert rebuilt["base"] != json.loads(old_head)["base"] and rebuilt["records"] == 0
    index = open_index(vault)
    assert rebuilt["generation"] == index.catalog.get_meta(GENERATION_KEY)
    index.close()
    loaded, chroma = _snapshot_and_chroma(vault)
    assert _rows(loaded) == _rows(chroma)


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import numpy as np
    from brain.index.vectors import snapshot
    from brain.index.vectors.matrix import ChunkMatrix

    head, dim = Path(sys.argv[1]), 8
    snapshot.COMPACT_FLOOR = 10  # compact often: readers meet deleted bases
    first = ChunkMatrix.from_records(["0:c0"], np.eye(dim, dtype=np.float32)[:1], dim)
    journal = snapshot.save(first, head, "1")
    matrix = first
    for row in range(1, 300):
        vector = np.full((1, dim), float(row), np.float32)
        journal.add([f"{row}:c{row}"], vector)
        matrix = matrix.upsert([f"{row}:c{row}"], vector)
        if journal.worth_compacting:
            journal = snapshot.save(matrix, head, str(row + 1))
        else:
            journal.commit(str(row + 1))
    """
)


def test_a_reader_beside_a_writing_process_sees_one_whole_snapshot_or_the_next(tmp_path):
    head = tmp_path / "vectors-x.head"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(head)], env=env)
    seen: list[int] = []
    try:
        while writer.poll() is None or len(seen) < 5:
            loaded = snapshot.load(head, None, 8)
            if loaded is None:
                continue  # before the first head
            matrix = loaded[0]
            rows = len(matrix)
            # rows 0 .. rows-1, each once, each with its own vector: no record torn or missing
            assert sorted(matrix.notes.tolist()) == list(range(rows))
            expected = np.where(matrix.notes[:, None] == 0, np.eye(8)[0], np.full(8, 8**-0.5))
            assert np.allclose(matrix.gather(np.arange(rows)), expected, atol=1e-6)
            seen.append(rows)
    finally:
        writer.wait(timeout=60)
    assert writer.returncode == 0
    assert len(snapshot.load(head, "300", 8)[0]) == 300  # type: ignore[index]
    assert len(set(seen)) > 1  # it read while the snapshot grew


def test_the_copy_in_parts_answers_as_one_dense_matrix_through_many_writes():
    """Random upserts and removals against a plain dict of vectors: the rows, their vectors and the
    nearest chunks agree after every write, while the copy keeps a few parts."""
    rng = np.random.default_rng(7)
    dim = 6
    matrix = ChunkMatrix.empty(dim)
    model: dict[tuple[int, bytes], np.ndarray] = {}
    for step in range(300):
        keys = [(int(rng.integers(0, 40)), f"c{int(rng.integers(0, 5))}") for _ in range(int(rng.integers(1, 6)))]
        records = list(dict.fromkeys(f"{note}:{chunk}" for note, chunk in keys))
        if step % 3 == 2:
            matrix = matrix.remove(records)
            for record in records:
                note, chunk = record.split(":")
                model.pop((int(note), chunk.encode()), None)
        else:
            vectors = rng.standard_normal((len(records), dim)).astype(np.float32)
            matrix = matrix.upsert(records, vectors)
            for record, vector in zip(records, vectors, strict=True):
                note, chunk = record.split(":")
                model[(int(note), chunk.encode())] = vector / np.linalg.norm(vector)
        held = dict(zip(zip(matrix.notes.tolist(), matrix.chunks.tolist(), strict=True), matrix.vectors, strict=True))
        assert held.keys() == model.keys() and len(matrix) == len(model)
        assert all(np.allclose(held[key], model[key], atol=1e-6) for key in model)
        assert len(matrix._parts) <= 12 and matrix.held <= 2 * len(matrix) + 1024
        query = rng.standard_normal(dim).astype(np.float32)
        if model:
            best = max(model, key=lambda key: float(model[key] @ query))
            note, chunk, _ = matrix.nearest(query, 1)[0]
            assert (note, chunk.encode()) == best
