"""The embedded vector store's size on disk is bounded by what it holds: `brain reindex` leaves no old
segment folder behind, and writers killed mid-batch on a small disk never grow a segment past its bound.

Lexical embedder throughout (these are about the files, not meaning).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import struct
import time
from pathlib import Path

import pytest

from brain.index.vectors.hnsw_files import clear_unused_capacity
from tests.conftest import lexical_vault, note_text, put, run_brain
from tests.helpers.disk_faults import brain as disk_brain
from tests.helpers.disk_faults import small_disk, start_brain
from tests.helpers.hnsw_files import FREED, HEADER, past_elements, plant_freed, sizes


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


def _disk_bytes(folder: Path) -> int:
    """What the folder's files take on disk (blocks, not apparent sizes: a sparse file counts as written)."""
    return sum(os.stat(Path(top) / name).st_blocks * 512 for top, _, names in os.walk(folder) for name in names)


def _segments(chroma: Path) -> list[str]:
    return sorted(entry.name for entry in chroma.iterdir() if entry.is_dir())


def test_reindex_leaves_no_old_segment_folder_behind(vault):
    for number in range(300):
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", f"apples {number} and pears\n\n## More\nplums"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    chroma = vault.index_dir / "chroma"
    assert run_brain("reindex", "--vault", str(vault.root)).exit_code == 0
    once, segments = _disk_bytes(chroma), _segments(chroma)
    assert len(segments) == 1
    for _ in range(2):
        assert run_brain("reindex", "--vault", str(vault.root)).exit_code == 0
    thrice = _disk_bytes(chroma)
    assert len(_segments(chroma)) == 1 and _segments(chroma) != segments  # a new segment, the old one gone
    assert abs(thrice - once) <= once * 0.05, (once, thrice)


# ---------------------------------------------------------------- the bound, independently of brain's code

_HEADER = struct.Struct("<iQQQQQQiIQQQdQ")  # hnswlib's header as Chroma persists it


def _vector_segments(chroma: Path) -> list[tuple[str, int, int | None, int]]:
    """(segment folder, records its collection holds, elements of its HNSW index, bytes its files take)."""
    with contextlib.closing(sqlite3.connect(f"file:{chroma / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT s.id, (SELECT COUNT(*) FROM embeddings e JOIN segments m ON e.segment_id = m.id "
            "WHERE m.collection = s.collection AND m.scope = 'METADATA') FROM segments s WHERE s.scope = 'VECTOR'"
        ).fetchall()
    found = []
    for segment, records in rows:
        folder = chroma / segment
        elements = None
        if (folder / "header.bin").is_file() and (folder / "header.bin").stat().st_size >= _HEADER.size:
            elements = _HEADER.unpack((folder / "header.bin").read_bytes()[: _HEADER.size])[3]
        taken = (
            sum(max(item.stat().st_size, item.stat().st_blocks * 512) for item in folder.iterdir())
            if folder.is_dir()
            else 0
        )
        found.append((segment, records, elements, taken))
    return found


def _within_bound(chroma: Path, killed: bool = False) -> None:
    """What brain promises (docs/promises.md): a segment's HNSW index holds at most twice its records and
    1,024 elements more, and its files no more than those elements take (1,676 bytes each at 384 dimensions,
    link lists and ids included) and 1 MiB; no folder is left that no collection uses, but one a writer
    killed while it replaced a segment left behind (at most one: the next write removes it)."""
    listed = _vector_segments(chroma)
    left = {entry.name for entry in chroma.iterdir() if entry.is_dir()} - {s for s, *_ in listed}
    assert len(left) <= killed, left
    for segment, records, elements, taken in listed:
        allowed = 2 * records + 1024
        assert (elements or 0) <= allowed, (segment, records, elements)
        assert taken <= allowed * (1676 + 4 + 68 + 256) + 100 + (1 << 20), (segment, records, taken)


def test_writers_killed_mid_batch_on_a_small_disk_never_grow_the_store_past_its_bound(tmp_path):
    """Every note changed again and again (Chroma keeps a deleted record's slot: each change adds an
    element for good), `brain index` killed mid-batch every other time, a search beside each writer,
    on a 64 MB disk: the store stays within its bound after every run, and the last run leaves the
    catalog and the vectors in step. Each writer brings Chroma up to date (`--vectors`): a plain
    `brain index` of this many records writes them behind, to the snapshot only."""
    rounds = random.Random(18)
    with small_disk(tmp_path, 64) as (disk, limit):
        vault = lexical_vault(disk / "vault")
        root = str(vault.root)
        for number in range(NOTES):
            put(vault, f"notes/n{number}.md", note_text(f"Note {number}", _text(number, 0)))
        assert disk_brain("index", "--vault", root, file_limit=limit).returncode == 0
        chroma = vault.index_dir / "chroma"
        seen = {segment for segment, *_ in _vector_segments(chroma)}
        for round_ in range(1, 13):
            for number in range(NOTES):
                put(vault, f"notes/n{number}.md", note_text(f"Note {number}", _text(number, round_)))
            writer = start_brain("index", "--vectors", "--vault", root, file_limit=limit)
            search = disk_brain("search", "orchard apples", "--mode", "vector", "--vault", root, file_limit=limit)
            assert search.returncode == 0 and "Traceback" not in search.stderr, search.stderr[-500:]
            if round_ % 2:
                time.sleep(rounds.uniform(0.2, 1.5))
                writer.kill()  # mid-batch, or wherever it is by now
            _, errors = writer.communicate(timeout=300)
            assert "Traceback" not in errors, errors[-800:]
            _within_bound(chroma, killed=bool(round_ % 2))
            seen |= {segment for segment, *_ in _vector_segments(chroma)}
        assert len(seen) > 1  # the segment grew out of its bound and was rebuilt, under another id
        done = disk_brain("index", "--vectors", "--vault", root, file_limit=limit)
        assert done.returncode == 0, done.stderr
        _within_bound(chroma)
        doctor = json.loads(disk_brain("doctor", "--json", "--vault", root, file_limit=limit).stdout)
        assert [finding for finding in doctor["findings"] if finding["kind"] in ("vector-store", "stale-index")] == []
        assert [segment["in_bounds"] for segment in doctor["vectors"]] == [True]
        found = disk_brain("search", "orchard 7 round 12", "--mode", "vector", "--limit", "1", "--vault", root)
        assert " 1. Note 7  [note]  notes/n7.md" in found.stdout


NOTES = 300


def _text(number: int, round_: int) -> str:
    """Every chunk of the note changes from one round to the next."""
    return (
        f"orchard {number} round {round_}\n\n## Harvest\napples pears {number % 13} in round {round_}\n\n"
        f"## Round\norchard {number} round {round_}\n"
    )


def test_a_segment_grown_past_its_bound_is_reported_then_rebuilt_from_brains_vectors(vault):
    """A `link_lists.bin` of 2 GB (sparse, as the reports show them) for 100 records: doctor names it,
    and the next `brain index` replaces the segment from brain's own copy of the vectors, never reading it."""
    for number in range(50):
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", f"orchard {number}\n\n## More\nplums {number}"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    chroma = vault.index_dir / "chroma"
    [(segment, records, _, _)] = _vector_segments(chroma)
    assert records == 100
    with open(chroma / segment / "link_lists.bin", "ab") as grown:
        grown.truncate(2 << 30)
    doctor = run_brain("doctor", "--vault", str(vault.root))
    assert f"vector-store    .brain/index/chroma/{segment}: the vector segment {segment} (" in doctor.output
    assert "fix: run `brain index`: it rebuilds the segment from brain's own vectors (or deletes it)" in doctor.output
    assert doctor.output.count("OUT OF BOUNDS") == 1
    indexed = run_brain("index", "--vault", str(vault.root))
    assert indexed.exit_code == 0
    _within_bound(chroma)
    [(rebuilt, records, _, taken)] = _vector_segments(chroma)
    assert rebuilt != segment and records == 100 and taken < 1 << 20
    assert not (chroma / segment).exists()
    after = run_brain("doctor", "--json", "--vault", str(vault.root))
    assert [finding["kind"] for finding in json.loads(after.output)["findings"]] == []
    found = run_brain("search", "orchard 7", "--mode", "vector", "--limit", "1", "--vault", str(vault.root))
    assert " 1. Note 7  [note]  notes/n7.md" in found.output
    assert "not in vector search yet" not in found.output


# ---------------------------------------------------------------- what a segment holds past its elements


def test_a_write_leaves_nothing_a_process_freed_in_a_segments_unused_capacity(vault):
    """Issue 40: hnswlib writes a new index's whole capacity from malloc'd memory, which held a
    secret `brain redact` was removing. After any write, each segment holds zeros past its elements,
    its files keep their sizes, and every note is still found by its vectors."""
    for number in range(3):
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", f"orchard {number} apples"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    chroma = vault.index_dir / "chroma"
    planted = plant_freed(chroma)
    assert len(planted) == 2 and len(past_elements(chroma)) == 2
    put(vault, "notes/n3.md", note_text("Note 3", "orchard 3 pears"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    assert sizes(chroma, planted) == planted
    assert past_elements(chroma) == {}
    assert [path for path in chroma.rglob("*") if path.is_file() and FREED in path.read_bytes()] == []
    for number in range(4):
        found = run_brain("search", f"orchard {number}", "--mode", "vector", "--limit", "1", "--vault", str(vault.root))
        assert f" 1. Note {number}  [note]  notes/n{number}.md" in found.output, found.output


@pytest.mark.parametrize(
    ("field", "changed"),
    [
        (0, lambda fields: 2),  # a format version Chroma's hnswlib does not write
        (3, lambda fields: fields[2] + 1),  # more elements than its capacity
        (4, lambda fields: 0),  # elements of no size
        (1, lambda fields: 8),  # level 0 not at the start of an element
    ],
    ids=["version", "elements", "size", "offset"],
)
def test_a_segment_whose_header_is_not_hnswlibs_is_left_as_it_is(vault, field, changed):
    put(vault, "notes/n0.md", note_text("Note 0", "orchard apples"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    chroma = vault.index_dir / "chroma"
    plant_freed(chroma)
    [header] = chroma.glob("*/header.bin")
    data = header.read_bytes()
    fields = list(HEADER.unpack(data[: HEADER.size]))
    fields[field] = changed(fields)
    header.write_bytes(HEADER.pack(*fields) + data[HEADER.size :])
    before = {path: path.read_bytes() for path in (header.parent / "data_level0.bin", header.parent / "length.bin")}
    clear_unused_capacity(chroma)
    assert {path: path.read_bytes() for path in before} == before
