"""The stat scan (note_files, then scan's comparison with the catalog's stamps): one listing per folder,
one stat per note file, and a change in either the mtime or the size is seen."""

from __future__ import annotations

import os
from contextlib import closing

from brain.index.engine import open_index
from brain.index.sync.scan import scan
from brain.vault.note_files import SkipKind, note_files
from tests.conftest import lexical_vault, note_text, put


def test_note_files_lists_each_note_once_with_its_stat_and_leaves_the_rest_out(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    root = vault.root
    put(vault, "notes/a.md", note_text("A", "alpha"))
    put(vault, "notes/deep/b.MD", note_text("B", "beta"))
    put(vault, "notes/.hidden.md", "hidden")
    put(vault, "notes/picture.png", "not a note")
    put(vault, ".git/c.md", "git's")
    put(vault, "templates/t.md", "a template")
    os.mkfifo(root / "notes/pipe.md")  # named like a note, no regular file
    os.symlink(root / "notes/a.md", root / "notes/link.md")  # inside the vault: followed
    outside = tmp_path / "outside.md"
    outside.write_text("elsewhere")
    os.symlink(outside, root / "notes/out.md")

    found, left_out = note_files(root)

    a = os.stat(root / "notes/a.md")
    b = os.stat(root / "notes/deep/b.MD")
    assert found == {
        "notes/a.md": (a.st_mtime_ns, a.st_size),
        "notes/deep/b.MD": (b.st_mtime_ns, b.st_size),
        "notes/link.md": (a.st_mtime_ns, a.st_size),
    }
    assert {path: skip.kind for path, skip in left_out.items()} == {"notes/out.md": SkipKind.OUTSIDE_SYMLINK}


def test_a_scan_sees_a_change_of_mtime_alone_or_of_size_alone(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("A", "alpha words"))
    put(vault, "notes/b.md", note_text("B", "beta words"))
    put(vault, "notes/c.md", note_text("C", "gamma words"))
    with closing(open_index(vault)) as index:
        assert sorted(scan(index).added) == ["notes/a.md", "notes/b.md", "notes/c.md"]
        assert scan(index).changes == 0

        a = vault.root / "notes/a.md"
        put(vault, "notes/a.md", note_text("A", "alpha wordz"))  # same size, new mtime
        b = vault.root / "notes/b.md"
        kept = os.stat(b).st_mtime_ns
        put(vault, "notes/b.md", note_text("B", "beta words, longer"))
        os.utime(b, ns=(kept, kept))  # new size, the old mtime
        os.utime(a, ns=(kept + 7_000_000_000, kept + 7_000_000_000))

        result = scan(index)
        assert sorted(result.changed) == ["notes/a.md", "notes/b.md"] and not result.added and not result.removed
        assert index.catalog.stamps()["notes/b.md"].size == os.stat(b).st_size


def test_the_stamps_are_read_from_their_own_index_not_from_the_notes_text(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    with closing(open_index(vault)) as index:
        plan = index.catalog.db.execute(
            "EXPLAIN QUERY PLAN SELECT id, path, mtime_ns, size, sha256 FROM notes"
        ).fetchall()
    assert [row[3] for row in plan] == ["SCAN notes USING COVERING INDEX notes_stamp"]
