"""Freshness before a read in a process without a watcher: a stat scan on the first read, then the
paths file events report (index/watch/fresh.py). Every change made before a read is in what it returns."""

from __future__ import annotations

import os
from contextlib import closing

import pytest

from brain.index.engine import Follower, open_index
from brain.index.sync.sync import index_vault
from brain.index.watch import fresh
from brain.index.watch.watch import Watcher
from brain.memory.corpus import Corpus
from tests.conftest import lexical_vault, note_text, put


@pytest.fixture
def vault(tmp_path, monkeypatch):
    monkeypatch.setattr(fresh, "TRACK_FROM_SCAN_MS", 0.0)  # these vaults are small: follow them anyway
    monkeypatch.setattr(fresh, "TRACK_AFTER_SECONDS", 0.0)  # ... and at once
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/first.md", note_text("First", "the first note"))
    with closing(open_index(vault)) as index:
        index_vault(index, embed=False)
    return vault


@pytest.fixture
def corpus(vault):
    """A long-lived reader of the vault; closing it stops its tracker (as a process's exit does)."""
    reader = Corpus(vault)
    yield reader
    reader.close()


def titles(corpus: Corpus) -> list[str]:
    return sorted(note.title for note in corpus.notes())


def tracker(corpus: Corpus) -> Follower | None:
    """The file-event follower the corpus's index started, if any (nothing is opened to look)."""
    index = corpus.vault_index.is_open()
    return index.reads.tracker if index is not None else None


def test_a_one_shot_read_starts_no_tracker_and_a_second_read_does(corpus):
    assert titles(corpus) == ["First"]
    assert tracker(corpus) is None
    assert titles(corpus) == ["First"]
    found = tracker(corpus)
    assert found is not None and found.alive()


def test_every_change_made_just_before_a_tracked_read_is_seen(vault, corpus):
    titles(corpus), titles(corpus)  # the second read starts the tracker
    assert tracker(corpus) is not None
    for round_ in range(30):  # no sleep between the write and the read: the marker orders them
        put(vault, "notes/first.md", note_text("First", f"body {round_}"))
        assert corpus.get("First").body.strip().endswith(f"body {round_}")
    put(vault, "deep/new/folder/second.md", note_text("Second", "in a new folder"))
    assert titles(corpus) == ["First", "Second"]
    os.replace(vault.root / "deep/new/folder/second.md", vault.root / "notes/second.md")
    assert corpus.get("Second").path == "notes/second.md"
    (vault.root / "notes/first.md").unlink()
    assert titles(corpus) == ["Second"]
    os.rename(vault.root / "notes", vault.root / "moved")  # a folder move raises no per-file events
    assert corpus.get("Second").path == "moved/second.md"


def test_a_one_shot_command_reading_twice_in_a_moment_starts_no_tracker(corpus, monkeypatch):
    """A CLI call or a hook reads its vault more than once in a fraction of a second: a tracker (watchdog,
    two threads, a kernel watch per folder) would cost it more than its stat scans."""
    monkeypatch.setattr(fresh, "TRACK_AFTER_SECONDS", 1.0)  # the default
    for _ in range(3):
        titles(corpus)
    assert tracker(corpus) is None
    reads = corpus.open_index().reads
    assert reads.first is not None
    reads.first -= 1.0  # the process has been reading this vault for a second
    titles(corpus)
    found = tracker(corpus)
    assert found is not None and found.alive()


def test_a_small_vault_is_not_followed(corpus, monkeypatch):
    monkeypatch.setattr(fresh, "TRACK_FROM_SCAN_MS", 5.0)  # the default: a one-note vault scans in well under that
    for _ in range(3):
        titles(corpus)
    assert tracker(corpus) is None


def test_reads_stay_right_when_the_tracker_stops(vault, corpus):
    titles(corpus), titles(corpus)
    found = tracker(corpus)
    assert found is not None
    found.stop()
    put(vault, "notes/third.md", note_text("Third", "after the observer stopped"))
    assert titles(corpus) == ["First", "Third"]  # a dead tracker means a full scan


def test_a_tracker_takes_no_lock_so_brain_watch_can_start_beside_it(vault, corpus):
    titles(corpus), titles(corpus)
    with closing(open_index(vault)) as other, Watcher(other, embed=False) as watcher:
        put(vault, "notes/fourth.md", note_text("Fourth", "while watched"))
        assert watcher.wait_idle()
        assert titles(corpus) == ["First", "Fourth"]


def test_the_marker_files_leave_nothing_behind(vault, corpus):
    for _ in range(5):
        titles(corpus)
    assert not [name for name in os.listdir(vault.index_dir) if name.startswith("fresh-")]


def test_after_each_kind_of_change_a_long_lived_corpus_matches_a_new_one(vault, corpus):
    """The corpus reloads only changed rows, patches its resolver, and the catalog patches its
    stamps after its own writes: each must end where a fresh start would."""
    calls: list[str] = []

    def title_of(note):
        calls.append(note.path)
        return note.title

    def check() -> None:
        fresh_corpus = Corpus(vault)
        assert [(n.path, n.title, n.body) for n in corpus.notes()] == [
            (n.path, n.title, n.body) for n in fresh_corpus.notes()
        ]
        for note in fresh_corpus.notes():
            assert corpus.get(note.title).path == note.path
        fresh_corpus.close()
        index = corpus.open_index()
        from brain.index.catalog.catalog import Catalog

        assert index.catalog.stamps() == Catalog(index.catalog.path).stamps()

    titles(corpus), titles(corpus)
    for number in range(5):
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", "text"))
    check()
    assert sorted(corpus.memo("title", note, title_of) for note in corpus.notes()) == [
        "First",
        *(f"Note {n}" for n in range(5)),
    ]
    calls.clear()
    put(vault, "notes/n1.md", note_text("Renamed one", "new text"))  # an edit that changes the title
    check()
    with pytest.raises(Exception, match="no note named 'Note 1'"):
        corpus.get("Note 1")
    (vault.root / "notes/n2.md").unlink()  # a removal
    os.replace(vault.root / "notes/n3.md", vault.root / "notes/moved.md")  # a move
    check()
    assert sorted(corpus.memo("title", note, title_of) for note in corpus.notes()) == [
        "First",
        "Note 0",
        "Note 3",
        "Note 4",
        "Renamed one",
    ]
    assert sorted(calls) == ["notes/moved.md", "notes/n1.md"]  # only the changed notes were computed again


def test_a_following_server_sees_a_change_made_just_before_its_read(vault):
    """The MCP server follows its vault (a watcher, which batches events after a debounce) and
    tracks the events for its own reads, so a read right after an edit already has it."""
    from brain.index.watch.watch import follow
    from brain.memory.search.service import search

    index = open_index(vault)
    watcher = follow(index, embed=False)
    assert watcher is not None and watcher.caught_up.wait(30)
    try:
        for round_ in range(10):
            put(vault, "notes/first.md", note_text("First", f"zebra{round_} grazing"))
            hits = search(index, f"zebra{round_}", mode="text")
            assert [hit.path for hit in hits] == ["notes/first.md"]
    finally:
        watcher.stop()
        index.close()
