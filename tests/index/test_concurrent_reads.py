"""Reads from other threads go on beside a write of the index: the catalog's reads see the last
committed state without waiting for an open write transaction, and the vectors' copy is read
without the store's lock, the old copy until the write commits."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import closing
from typing import TypeVar

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.watch import fresh
from brain.memory.search.service import search
from tests.conftest import lexical_vault, note_text, put

T = TypeVar("T")


def elsewhere(call: Callable[[], T], timeout: float = 10.0) -> T:
    """`call()` on another thread, which must finish within `timeout` seconds (a read that waited
    for the write this thread holds would not)."""
    found: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            found.append(call())
        except BaseException as error:
            failed.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the read waited for the write"
    if failed:
        raise failed[0]
    return found[0]


def test_a_read_in_another_thread_sees_the_committed_state_during_a_write(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("Alpha", "the first words"))
    with closing(open_index(vault)) as index:
        index_vault(index)
        catalog = index.catalog
        before = catalog.generation()
        with index.locked(), catalog.write():
            catalog.set_meta("probe", "inside")
            assert catalog.get_meta("probe") == "inside"  # the writing thread sees its own change
            assert elsewhere(lambda: catalog.get_meta("probe")) is None
            assert elsewhere(catalog.generation) == before
            assert elsewhere(lambda: [hit.path for hit in search(index, "first words", mode="text")]) == ["notes/a.md"]
        assert elsewhere(lambda: catalog.get_meta("probe")) == "inside"
        assert elsewhere(catalog.generation) == before + 1


def test_the_vectors_are_read_beside_a_write_from_the_copy_it_started_with(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("Alpha", "## One\nfirst part"))
    with closing(open_index(vault)) as index:
        index_vault(index)
        store = index.vectors
        held = store.matrix()
        assert len(held) == 1
        with store.writing():  # a write batch holds the store's lock
            assert elsewhere(store.matrix) is held
        with index.locked(), index.catalog.write():
            store.written()  # the vectors' generation moves inside this transaction
            # another thread still reads the committed generation: the copy stays, nothing is reloaded
            assert elsewhere(store.matrix) is held
        assert elsewhere(store.matrix) is held  # committed: the generation is this process's own
        put(vault, "notes/b.md", note_text("Beta", "## Two\nsecond part"))
        index_vault(index)
        assert len(elsewhere(store.matrix)) == 2


def test_a_write_rolled_back_leaves_the_vectors_generation_as_it_was(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("Alpha", "## One\nfirst part"))
    with closing(open_index(vault)) as index:
        index_vault(index)
        store = index.vectors
        held = store.matrix()
        try:
            with index.locked(), index.catalog.write():
                store.written()
                raise RuntimeError("stopped")
        except RuntimeError:
            pass
        assert store._pending_generation is None
        assert store.matrix() is held


def test_reads_in_several_threads_each_know_the_events_before_them_at_once(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("Alpha", "the first words"))
    with closing(open_index(vault)) as index:
        index_vault(index)
        tracker = fresh.Tracker(index)
        try:
            assert tracker.take() == (set(), True)  # the first take is the baseline scan
            put(vault, "notes/b.md", note_text("Beta", "more words"))
            barrier = threading.Barrier(4)

            def take() -> tuple[set[str], bool, float]:
                barrier.wait()
                started = time.perf_counter()
                paths, full = tracker.take()
                return paths, full, time.perf_counter() - started

            results: list[tuple[set[str], bool, float]] = []
            threads = [threading.Thread(target=lambda: results.append(take())) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(10)
        finally:
            tracker.stop()
    assert len(results) == 4
    # none waited out the marker's timeout and fell back to a full scan; the edit went to one of them
    assert [full for _, full, _ in results] == [False] * 4
    assert max(seconds for _, _, seconds in results) < fresh.MARKER_WAIT
    assert sorted(path for paths, _, _ in results for path in paths) == ["notes/b.md"]


def test_reads_inside_one_reading_block_see_one_state(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("Alpha", "the first words"))
    with closing(open_index(vault)) as index:
        index_vault(index)
        catalog = index.catalog
        with catalog.reading():
            before = catalog.generation()
            stamps = catalog.stamps()  # a read that takes a snapshot of its own, inside this one
            put(vault, "notes/b.md", note_text("Beta", "more words"))
            elsewhere(lambda: index_vault(index))  # committed by another thread meanwhile
            assert catalog.generation() == before
            assert sorted(catalog.load()) == ["notes/a.md"] == sorted(stamps)
            assert int(catalog.peek_meta("generation") or 0) > before  # the last commit: what the vector store checks
        assert sorted(catalog.load()) == ["notes/a.md", "notes/b.md"]


def test_a_read_that_finds_the_index_busy_leaves_its_changes_to_the_next(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("Alpha", "the first words"))
    with closing(open_index(vault)) as index:
        index_vault(index)
        tracker = fresh.Tracker(index)
        try:
            assert tracker.take() == (set(), True)
            put(vault, "notes/b.md", note_text("Beta", "more words"))
            with index.locked():  # a write under way: the read in another thread cannot apply its take
                assert elsewhere(lambda: fresh._apply(index, tracker)) is False
            # the next take has the edit again, not a scan of the whole vault
            assert tracker.take() == ({"notes/b.md"}, False)
        finally:
            tracker.stop()
