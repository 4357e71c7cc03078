"""The watcher: editors' ways of saving, renames, moves, deletes, bad files, and a burst of 500
changes that must end equal to a fresh reindex; a watcher that holds its lock but does not work
makes no reader stale. Lexical embedder, real watchdog, real Chroma."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain.index.engine import open_index
from brain.index.heartbeat import BEAT_FILE, STALE_SECONDS, Beat, current, write_beat
from brain.index.sync.sync import reindex_vault
from brain.index.watch.fresh import ignored
from brain.index.watch.watch import Watcher
from brain.memory.corpus import Corpus
from brain.memory.search.service import search
from brain.vault.init import init_vault
from brain.vault.note_files import SkipKind
from tests.conftest import REPO, lexical_vault, note_text, put, run_brain, state


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


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


# ---------------------------------------------------------------- the heartbeat
# Readers trust the catalog only while the watcher's heartbeat is recent and says it has applied
# every event it saw. A watcher suspended with SIGSTOP (Ctrl-Z) stops beating: `note read` then
# checks the files itself and finds a note saved in an editor meanwhile (it answered "no note
# named" for as long as the watcher stayed stopped).


def test_only_a_recent_idle_beat_is_current(tmp_path: Path) -> None:
    now = time.time()
    write_beat(tmp_path, Beat(1, now, True, now))
    assert current(tmp_path, now + 0.5)
    assert not current(tmp_path, now + STALE_SECONDS + 0.1)  # suspended or hung
    write_beat(tmp_path, Beat(1, now, False, now))
    assert not current(tmp_path, now)  # busy: events seen and not yet applied
    (tmp_path / BEAT_FILE).write_text("[]")
    assert not current(tmp_path, now)


def test_a_suspended_watcher_leaves_reads_exact(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    (vault.root / "notes").mkdir(exist_ok=True)
    (vault.root / "notes" / "Before.md").write_text("# Before\n\nold body\n")
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    watcher = subprocess.Popen(
        [sys.executable, "-m", "brain", "watch", "--vault", str(vault.root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        beat = vault.index_dir / BEAT_FILE
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (beat.exists() and json.loads(beat.read_text())["idle"]):
            time.sleep(0.05)
        assert beat.exists(), "the watcher never beat"
        os.kill(watcher.pid, signal.SIGSTOP)
        time.sleep(STALE_SECONDS + 0.5)
        (vault.root / "notes" / "Saved in an editor.md").write_text("# Saved in an editor\n\nnew note\n")
        (vault.root / "notes" / "Before.md").write_text("# Before\n\nedited body\n")
        read = run_brain("note", "read", "Saved in an editor", "--vault", str(vault.root))
        assert read.exit_code == 0 and "new note" in read.output, read.output
        edited = run_brain("note", "read", "Before", "--vault", str(vault.root))
        assert "edited body" in edited.output
        found = run_brain("search", "editor", "--mode", "text", "--vault", str(vault.root))
        assert "notes/Saved in an editor.md" in found.output
    finally:
        os.kill(watcher.pid, signal.SIGCONT)
        watcher.terminate()
        watcher.wait(timeout=30)
