"""Writers at once lose nothing: two brain processes and an editor on one note lose no acknowledged
write, and brain writers never refuse each other as if one were an editor.

Each writer is a separate process appending numbered lines through `edit_note` (the path the
CLI and MCP take), retrying when brain refuses a write (a conflict is not an acknowledgement).
The "editor" rewrites the file in place the way some editors and sync tools save: truncate,
then write, on one open file, which leaves the file empty for a moment. Before the write
lock, re-check and truncated-read guard, appends were lost to each other and to empty reads."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain.memory.corpus import Corpus
from brain.memory.tips.note import Tip, render_tip, tip_from_note
from tests.conftest import REPO

WRITER = r"""
import sys, time
from brain.errors import WriteConflict
from brain.memory.corpus import Corpus
from brain.memory.notes.service import edit_note
from brain.vault.vault import Vault

root, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
vault = Vault(root)
for number in range(count):
    line = f"- {tag}-{number:03d}"
    while True:
        try:
            edit_note(Corpus(vault), "Shared", "append", content=line, section="Log")
        except WriteConflict:
            time.sleep(0.001)
            continue
        print(line, flush=True)  # acknowledged
        break
"""

EDITOR = r"""
import os, sys, time
path, stop = sys.argv[1], sys.argv[2]
saves = 0
while not os.path.exists(stop):
    with open(path, "r+b") as handle:  # one open file: a save that cannot itself drop brain's writes
        data = handle.read()
        handle.seek(0)
        handle.truncate()
        handle.flush()
        time.sleep(0.002)  # the moment the file is empty on disk
        handle.write(data)
    saves += 1
    time.sleep(0.02)
print(saves)
"""


def test_two_writers_and_an_editor_lose_no_acknowledged_write(vault, tmp_path: Path):
    note = vault.root / "notes" / "Shared.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text("---\ntitle: Shared\n---\n\nA note two agents and an editor share.\n\n## Log\n- start\n")
    stop = tmp_path / "stop"
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(note), str(stop)], stdout=subprocess.PIPE, text=True)
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(vault.root), tag, "40"], stdout=subprocess.PIPE, text=True)
        for tag in ("alpha", "beta")
    ]
    try:
        outputs = [writer.communicate(timeout=60)[0] for writer in writers]
    finally:
        stop.touch()
        saves = int(editor.communicate(timeout=10)[0] or 0)
    assert [writer.returncode for writer in writers] == [0, 0]
    acknowledged = [line for output in outputs for line in output.splitlines()]
    assert len(acknowledged) == 80
    assert saves >= 5  # the editor really was saving all along
    time.sleep(0.01)
    lines = note.read_text().split("\n")
    missing = [line for line in acknowledged if line not in lines]
    assert missing == []
    assert lines[:8] == [
        "---",
        "title: Shared",
        "---",
        "",
        "A note two agents and an editor share.",
        "",
        "## Log",
        "- start",
    ]


# ---------------------------------------------------------------- a save between re-check and rename


def _save_right_after_the_recheck(monkeypatch, save) -> None:
    """Make an editor's save land exactly in the window between brain's last re-check and its rename."""
    from brain.vault import fileswap

    recheck = fileswap._recheck

    def recheck_then_editor_saves(relative, path, expected):
        recheck(relative, path, expected)
        save(path)

    monkeypatch.setattr(fileswap, "_recheck", recheck_then_editor_saves)


def _by_rename(path: Path) -> None:
    editor_temp = path.with_name(".editor-save.tmp")
    editor_temp.write_text("# Shared\n\neditor's save by rename\n")
    os.replace(editor_temp, path)


def _in_place(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(b"# Shared\n\neditor's save in place\n")


@pytest.mark.parametrize("save, kept", [(_by_rename, "editor's save by rename"), (_in_place, "editor's save in place")])
def test_a_save_between_the_recheck_and_the_rename_is_detected_and_kept(vault, monkeypatch, save, kept):
    """The last window: a save in the microseconds after the re-check was overwritten silently.
    The note is now exchanged with brain's temp file, so what it replaced is compared and put back."""
    from brain.errors import WriteConflict
    from brain.memory.corpus import Corpus
    from brain.memory.notes.service import edit_note

    note = vault.root / "notes" / "Shared.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("# Shared\n\nfirst\n")
    _save_right_after_the_recheck(monkeypatch, save)
    with pytest.raises(WriteConflict, match="changed on disk while brain wrote it; nothing was written"):
        edit_note(Corpus(vault), "Shared", "append", content="brain's line")
    assert note.read_text() == f"# Shared\n\n{kept}\n"  # the editor's save, whole
    assert sorted(p.name for p in note.parent.iterdir()) == ["Shared.md"]  # no temp file left behind
    monkeypatch.undo()
    edit_note(Corpus(vault), "Shared", "append", content="brain's line")  # a retry goes through
    assert note.read_text() == f"# Shared\n\n{kept}\n\nbrain's line\n"


def test_exchange_swaps_two_files(tmp_path):
    from brain.vault.fileswap import exchange

    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text("a")
    second.write_text("b")
    assert exchange(first, second)  # Linux with glibc >= 2.28 on a local file system, as CI runs
    assert (first.read_text(), second.read_text()) == ("b", "a")
    with pytest.raises(FileNotFoundError):
        exchange(first, tmp_path / "missing")


# ---------------------------------------------------------------- brain writers at once
# Eight processes give feedback on one tip at the same moment. Each read-change-write runs under
# the vault's write lock, so every call succeeds and every count adds up; before, the tip was read
# outside the lock and 3-4 of 8 calls failed with "changed on disk".


GIVER = r"""
import os, sys, time
from brain.memory.corpus import Corpus
from brain.memory.tips.service import record_feedback
from brain.vault.vault import Vault

root, go = sys.argv[1], sys.argv[2]
vault = Vault(root)
corpus = Corpus(vault)
corpus.resolver()  # parsed before the start, so the calls overlap
while not os.path.exists(go):
    time.sleep(0.001)
record_feedback(corpus, "TIP-shared", helped=True)
print("ok", flush=True)
"""


def test_eight_feedback_calls_at_once_all_count(vault, tmp_path: Path):
    tip = Tip(title="TIP-shared", category="strategy", tip="Read the log first", trigger="a failure")
    (vault.root / "tips" / "TIP-shared.md").write_text(render_tip(tip), encoding="utf-8")
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    givers = [
        subprocess.Popen(
            [sys.executable, "-c", GIVER, str(vault.root), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(8)
    ]
    time.sleep(3)
    go.touch()
    outputs = [giver.communicate(timeout=120) for giver in givers]
    assert [(out, err.strip().splitlines()[-1:] if err.strip() else []) for out, err in outputs] == [("ok\n", [])] * 8
    assert tip_from_note(Corpus(vault).get("TIP-shared")).helped == 8


SUPERSEDER = r"""
import os, sys, time
from brain.errors import BrainError
from brain.memory.corpus import Corpus
from brain.memory.facts.service import supersede_fact
from brain.vault.vault import Vault

root, go, value = sys.argv[1], sys.argv[2], sys.argv[3]
vault = Vault(root)
corpus = Corpus(vault)
corpus.resolver()
while not os.path.exists(go):
    time.sleep(0.001)
try:
    supersede_fact(corpus, sys.argv[4], value)
    print("ok", flush=True)
except BrainError as error:
    print(f"refused: {error}", flush=True)
"""


def test_supersedes_of_one_fact_at_once_leave_one_current_value_and_no_editor_conflict(vault, tmp_path: Path):
    from brain.memory.facts.recall import recall_facts
    from brain.memory.facts.service import record_fact

    first = record_fact(Corpus(vault), "preference", "theme", "dark", namespace="user:alice")
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", SUPERSEDER, str(vault.root), str(go), f"colour-{n}", first.fact.title],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for n in range(4)
    ]
    time.sleep(3)
    go.touch()
    said = [writer.communicate(timeout=120)[0].strip() for writer in writers]
    assert said.count("ok") == 1
    refusals = [line for line in said if line != "ok"]
    assert all("is already closed (superseded by" in line for line in refusals), refusals
    assert not any("changed on disk" in line for line in refusals)
    current = recall_facts(Corpus(vault), namespaces=["user:alice"], subject="theme")
    assert len(current.hits) == 1
