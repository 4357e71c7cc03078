"""Issue 10 item 3: two brain processes and an editor on one note; no acknowledged write is lost.

Each writer is a separate process appending numbered lines through `edit_note` (the path the
CLI and MCP take), retrying when brain refuses a write (a conflict is not an acknowledgement).
The "editor" rewrites the file in place the way some editors and sync tools save: truncate,
then write, on one open file, which leaves the file empty for a moment. Before the write
lock, re-check and truncated-read guard, appends were lost to each other and to empty reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

WRITER = r"""
import sys, time
from brain.errors import WriteConflict
from brain.memory.corpus import Corpus
from brain.memory.notes.service import edit_note
from brain.vault import Vault

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
    from brain import fileswap

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
    """Item 3's last window: a save in the microseconds after the re-check was overwritten silently.
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
    from brain.fileswap import exchange

    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text("a")
    second.write_text("b")
    assert exchange(first, second)  # Linux with glibc >= 2.28 on a local file system, as CI runs
    assert (first.read_text(), second.read_text()) == ("b", "a")
    with pytest.raises(FileNotFoundError):
        exchange(first, tmp_path / "missing")
