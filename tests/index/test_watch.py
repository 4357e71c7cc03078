"""The watcher: editors' ways of saving, renames, moves, deletes, bad files, and a burst of 500
changes that must end equal to a fresh reindex. Lexical embedder, real watchdog, real Chroma."""

from __future__ import annotations

import os
import random

import pytest

from brain.index.engine import forget, open_index
from brain.index.search import search
from brain.index.sync.sync import reindex_vault
from brain.index.watch.fresh import ignored
from brain.index.watch.watch import Watcher
from brain.memory.corpus import Corpus
from brain.note_files import SkipKind
from tests.conftest import lexical_vault, note_text, put, state


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault
    forget(vault.root)


@pytest.fixture
def watcher(vault):
    put(vault, "notes/start.md", note_text("Start", "already here before the watcher"))
    batches = []
    with Watcher(open_index(vault), debounce=0.1, on_batch=batches.append) as running:
        running.batches_seen = batches
        yield running


def settle(watcher: Watcher) -> None:
    assert watcher.wait_idle(timeout=60), "watcher did not settle"


def paths(vault, query: str) -> list[str]:
    return [hit.path for hit in search(open_index(vault), query, mode="text", limit=20)]


def test_editor_temp_and_swap_files_are_ignored():
    for name in (
        "notes/.a.md.swp",
        "notes/a.md~",
        "notes/4913",
        "notes/.#a.md",
        "notes/.brain-x1.tmp",
        "notes/a.md.tmp",
        ".obsidian/workspace.json",
        ".brain/index/catalog.sqlite3",
        "notes/a.txt",
    ):
        assert ignored(name), name
    assert not ignored("notes/a.md") and not ignored("deep/er/Note Title.md")


def test_create_edit_rename_move_delete(vault, watcher):
    assert paths(vault, "already") == ["notes/start.md"]  # caught up at start
    put(vault, "notes/new.md", note_text("New", "fresh pineapple"))
    settle(watcher)
    assert paths(vault, "pineapple") == ["notes/new.md"]
    put(vault, "notes/new.md", note_text("New", "now mango instead"))
    settle(watcher)
    assert paths(vault, "mango") == ["notes/new.md"] and paths(vault, "pineapple") == []
    index = open_index(vault)
    identity = index.catalog.stamps()["notes/new.md"].id
    os.rename(vault.root / "notes/new.md", vault.root / "notes/renamed.md")
    settle(watcher)
    assert paths(vault, "mango") == ["notes/renamed.md"] and index.catalog.stamps()["notes/renamed.md"].id == identity
    (vault.root / "archive/2026").mkdir(parents=True)
    os.rename(vault.root / "notes/renamed.md", vault.root / "archive/2026/renamed.md")
    settle(watcher)
    assert paths(vault, "mango") == ["archive/2026/renamed.md"]
    assert index.catalog.stamps()["archive/2026/renamed.md"].id == identity
    os.rename(vault.root / "archive", vault.root / "old")  # a whole folder
    settle(watcher)
    assert paths(vault, "mango") == ["old/2026/renamed.md"]
    (vault.root / "old/2026/renamed.md").unlink()
    settle(watcher)
    assert paths(vault, "mango") == []
    assert "old/2026/renamed.md" not in [h.path for h in search(open_index(vault), "mango", mode="vector", limit=5)]
    assert watcher.batches_seen and all(not batch.errors for batch in watcher.batches_seen)


def test_save_by_rename_and_swap_files(vault, watcher):
    target = vault.root / "notes/start.md"
    (vault.root / "notes/.start.md.swp").write_bytes(b"\x00vim swap")  # vim's swap file
    (vault.root / "notes/4913").write_text("")  # vim's write test
    temp = vault.root / "notes/start.md.tmp"
    temp.write_text(note_text("Start", "saved by rename with kiwi"))
    os.replace(temp, target)  # the editor's atomic save
    (vault.root / "notes/start.md~").write_text("backup kiwi")
    settle(watcher)
    assert paths(vault, "kiwi") == ["notes/start.md"]
    assert set(open_index(vault).catalog.stamps()) == {"notes/start.md"}


def test_a_bad_file_does_not_stop_the_watcher(vault, watcher):
    (vault.root / "notes/binary.md").write_bytes(b"\x00\x01\xff" * 1000)
    put(vault, "notes/broken.md", "---\ntitle: [oops\n---\nbody with papaya\n")
    settle(watcher)
    put(vault, "notes/after.md", note_text("After", "still watching lychee"))
    settle(watcher)
    assert paths(vault, "lychee") == ["notes/after.md"] and paths(vault, "papaya") == ["notes/broken.md"]
    assert open_index(vault).catalog.skipped()["notes/binary.md"].kind is SkipKind.BINARY


def test_readers_trust_the_catalog_while_the_watcher_runs(vault, watcher):
    index = open_index(vault)
    assert index.watcher_alive()
    corpus = Corpus(vault)
    assert [n.path for n in corpus.notes()] == ["notes/start.md"]
    put(vault, "notes/two.md", note_text("Two", "x"))
    settle(watcher)
    assert [n.path for n in corpus.notes()] == ["notes/start.md", "notes/two.md"]


def test_a_burst_of_500_changes_ends_equal_to_a_fresh_reindex(vault, watcher):
    rng = random.Random(7)
    live: list[str] = ["notes/start.md"]
    for step in range(500):
        action = rng.random()
        if action < 0.45 or len(live) < 5:
            path = f"burst/{rng.choice('abc')}/n{step}.md"
            put(vault, path, note_text(f"N{step}", f"word{step} " * rng.randint(1, 30)))
            live.append(path)
        elif action < 0.7:
            path = rng.choice(live)
            put(vault, path, note_text(f"E{step}", f"edited{step} text"))
        elif action < 0.85:
            source = live.pop(rng.randrange(len(live)))
            target = f"moved/m{step}.md"
            os.makedirs(vault.root / "moved", exist_ok=True)
            os.replace(vault.root / source, vault.root / target)
            live.append(target)
        else:
            (vault.root / live.pop(rng.randrange(len(live)))).unlink()
    settle(watcher)
    watched = state(vault)
    assert len(watched["notes"]) == len(live) and watched["pending"] == []
    watcher.stop()
    reindex_vault(open_index(vault))
    assert state(vault) == watched
