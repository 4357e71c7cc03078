"""Names typed in NFC or NFD find the same note, true NFC/NFD duplicates are reported and never
created, and a symlink into `.brain/` (or to anything that is not a note) is neither indexed nor read."""

from __future__ import annotations

import json
import os

import pytest

from brain.errors import NoteExists, UnsafePath
from brain.vault.note_files import Skip, SkipKind, note_files
from tests.conftest import write

NFC, NFD = "Caf\u00e9", "Cafe\u0301"


@pytest.mark.parametrize("on_disk, typed", [(NFD, NFC), (NFC, NFD)])
@pytest.mark.parametrize("indexed", [False, True])
def test_a_name_finds_the_note_whichever_way_it_was_typed(vault, brain, on_disk, typed, indexed):
    write(vault, f"notes/{on_disk}.md", "a note about coffee\n")
    if indexed:
        assert brain("index", "--no-embed").exit_code == 0
    for name in (typed, f"notes/{typed}.md", f"[[{typed}]]", typed.upper()):
        result = brain("note", "read", name, "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["path"] == f"notes/{on_disk}.md"  # the path stays as it is on disk
    assert brain("note", "edit", typed, "--append", "more").exit_code == 0
    assert sorted(os.listdir(vault.root / "notes")) == [f"{on_disk}.md"]
    assert (vault.root / "notes" / f"{on_disk}.md").read_text() == "a note about coffee\n\nmore\n"


def test_nfc_and_nfd_duplicates_are_reported_by_doctor(vault, brain):
    write(vault, f"notes/{NFC}.md", "one\n")
    write(vault, f"notes/{NFD}.md", "two\n")
    lines = brain("doctor").stdout.splitlines()
    assert lines[:2] == [
        f"duplicate-name  notes/{NFD}.md: 'notes/{NFD}.md' and 'notes/{NFC}.md' are one name written in two Unicode forms (NFC and NFD)",
        "                fix: merge them into one note (read each by its exact path), then delete the other",
    ]
    # each stays readable by its exact path
    assert json.loads(brain("note", "read", f"notes/{NFD}.md", "--json").stdout)["body"] == "two\n"
    assert json.loads(brain("note", "read", f"notes/{NFC}.md", "--json").stdout)["body"] == "one\n"


def test_a_write_or_move_that_would_create_a_second_form_is_refused(vault, brain):
    write(vault, f"notes/{NFD}.md", "---\ntitle: Something else\n---\nbody\n")  # its title does not say Café
    result = brain("note", "write", NFC, "--folder", "notes")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        f"error: 'notes/{NFD}.md' already exists; give --overwrite to replace its body, or edit it\n",
    )
    with pytest.raises(NoteExists, match="another Unicode form"):  # the vault refuses it whoever asks
        vault.write(f"notes/{NFC}.md", "second\n", create=True)
    with pytest.raises(NoteExists, match="another Unicode form"):
        vault.write(f"notes/{NFC}.md", "second\n")
    (vault.root / "folders" / NFD).mkdir(parents=True)  # a folder named in NFD: no second one in NFC
    with pytest.raises(NoteExists, match=f"already exists as '{NFD}'"):
        vault.write(f"folders/{NFC}/new.md", "x\n", create=True)
    write(vault, "loose.md", "x\n")
    with pytest.raises(NoteExists, match=f"already exists as '{NFD}'"):
        vault.move("loose.md", f"folders/{NFC}/loose.md")
    assert os.listdir(vault.root / "folders") == [NFD]
    write(vault, "other/x.md", "x\n")
    moved = brain("note", "move", "other/x.md", f"notes/{NFC}.md")
    assert moved.exit_code == 1 and "another Unicode form" in moved.stderr and len(moved.stderr.splitlines()) == 1
    assert sorted(os.listdir(vault.root / "notes")) == [f"{NFD}.md"]
    assert (vault.root / "other/x.md").exists()


def test_renaming_a_note_to_its_other_form_is_allowed(vault, brain):
    write(vault, f"notes/{NFD}.md", "body\n")
    assert brain("note", "move", f"notes/{NFD}.md", f"notes/{NFC}.md").exit_code == 0
    assert os.listdir(vault.root / "notes") == [f"{NFC}.md"]


def test_a_symlink_into_brain_state_is_not_indexed_or_read(vault, brain):
    write(vault, "notes/real.md", "real note\n")
    (vault.root / "notes/config.md").symlink_to(vault.brain_dir / "config.toml")
    (vault.root / "notes/state.md").symlink_to(vault.root / ".obsidian/x.md")
    write(vault, ".obsidian/x.md", "editor state\n")
    (vault.root / "notes/alias.md").symlink_to(vault.root / "notes/real.md")  # a link to a note is a note
    found, left_out = note_files(vault.root)
    assert sorted(found) == ["notes/alias.md", "notes/real.md"]
    assert left_out == {
        "notes/config.md": Skip(
            SkipKind.SYMLINK_TO_NON_NOTE,
            "symlink leads to '.brain/config.toml', which is not a note file; not followed",
        ),
        "notes/state.md": Skip(
            SkipKind.SYMLINK_TO_NON_NOTE, "symlink leads to '.obsidian/x.md', which is not a note file; not followed"
        ),
    }
    assert note_files(vault.root, ["notes/config.md", "notes/state.md", "notes/real.md"]) == (
        {"notes/real.md": found["notes/real.md"]},
        left_out,
    )  # the same rule for listed paths
    with pytest.raises(UnsafePath, match=r"leads into \.brain/"):
        vault.read("notes/config.md")
    assert brain("index", "--no-embed").exit_code == 0
    result = brain("note", "read", "config")
    assert result.exit_code == 1 and "embedder" not in result.output + result.stderr
    doctor = brain("doctor").stdout
    assert "notes/config.md: symlink leads to '.brain/config.toml', which is not a note file; not followed" in doctor
    assert "fix: remove the link" in doctor
    hits = brain("search", "embedder", "--mode", "lexical", "--json").stdout
    assert "config" not in hits


def test_a_long_lived_corpus_sees_twins_come_and_go(vault, brain):
    """The MCP server keeps one Corpus and updates its resolver in place: twins follow the files."""
    from brain.memory.corpus import Corpus

    write(vault, f"notes/{NFC}.md", "one\n")
    assert brain("index", "--no-embed").exit_code == 0
    corpus = Corpus(vault)
    resolver = corpus.resolver()
    assert resolver.twins == []
    write(vault, f"notes/{NFD}.md", "two\n")
    assert corpus.resolver().twins == [[f"notes/{NFD}.md", f"notes/{NFC}.md"]]
    (vault.root / "notes" / f"{NFC}.md").unlink()
    assert corpus.resolver().twins == []
    assert corpus.resolver() is resolver  # updated in place, not rebuilt
    assert corpus.get(NFC).path == f"notes/{NFD}.md" and corpus.get(f"notes/{NFC}.md").path == f"notes/{NFD}.md"


def test_nfc_and_nfd_titles_make_one_note(vault, brain):
    brain("note", "write", "Cafe\u0301")  # NFD
    assert brain("note", "write", "Caf\u00e9").exit_code == 1  # NFC: the same note, not a second one
    assert sorted(p.name for p in (vault.root / "notes").iterdir()) == ["Caf\u00e9.md"]
