"""`brain.open` gives the owner of a vault's state in this process: its index, the file-event
tracker of its reads, what the domains keep warm, and the listener that keeps the index current on
brain's own writes. Two opens of one vault are two handles; closing one releases what it holds."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

import brain
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.watch import fresh
from brain.memory.runs.vectors import run_vectors
from brain.vault.vault import Vault
from tests.conftest import lexical_vault, note_text, put


@pytest.fixture
def vault(tmp_path) -> Vault:
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/first.md", note_text("First", "the first note"))
    with closing(open_index(vault)) as index:
        index_vault(index, embed=False)
    return vault


def test_two_opens_of_one_vault_share_no_index(vault):
    with brain.open(vault.root) as one, brain.open(vault.root) as two:
        assert one.index is one.index and one.existing_index() is one.index  # opened once per handle
        assert two.index is not one.index
        assert two.index.catalog is not one.index.catalog
        assert one.corpus.open_index() is one.index  # its services read the handle's own
        assert run_vectors(one.corpus) is run_vectors(one.corpus)
        assert run_vectors(two.corpus) is not run_vectors(one.corpus)


def test_closing_releases_the_index_the_tracker_and_what_the_domains_kept(vault, monkeypatch):
    monkeypatch.setattr(fresh, "TRACK_FROM_SCAN_MS", 0.0)  # a small vault: follow it anyway
    monkeypatch.setattr(fresh, "TRACK_AFTER_SECONDS", 0.0)  # ... and at once
    memory = brain.open(vault.root)
    memory.corpus.notes(), memory.corpus.notes()  # the second read starts following file events
    index = memory.index
    tracker = index.reads.tracker
    assert tracker is not None and tracker.alive()
    run_vectors(memory.corpus)
    assert list(memory.corpus.kept) == ["run vectors"]

    memory.close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed database"):
        index.catalog.db.execute("SELECT 1")
    tracker._observer.join(10)  # stopped at close; its thread ends at its next wake-up
    assert not tracker.alive() and index.reads.tracker is None
    assert memory.corpus.kept == {}
    with brain.open(vault.root) as again:  # opening again starts anew
        assert again.index is not index and again.corpus.notes()[0].title == "First"


def test_a_closed_handle_no_longer_updates_the_index_on_writes(vault):
    with brain.open(vault.root) as reader:
        writer = brain.open(vault.root)
        writer.vault.write("notes/second.md", note_text("Second", "written through brain"), create=True)
        assert "notes/second.md" in reader.index.catalog.stamps()  # the writer's listener updated the catalog
        writer.close()
        writer.vault.write("notes/third.md", note_text("Third", "after the close"), create=True)
        assert "notes/third.md" not in reader.index.catalog.stamps()  # no listener left: the next scan finds it
        assert [note.title for note in reader.corpus.notes()] == ["First", "Second", "Third"]
