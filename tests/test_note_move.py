"""A rename keeps links working: every wikilink to the note is rewritten, as Obsidian does, and
nothing else in the linking notes changes."""

from __future__ import annotations

import json
import os

from conftest import write

from brain.notes.links import rewrite_links

LINKING = (
    "---\r\n"
    "title: Index\r\n"
    'caused_by: "[[Old Name]]"\r\n'
    "---\r\n"
    "See [[Old Name]], [[Old Name|the old one]] and [[Old Name#Plan]].\r\n"
    "Embedded: ![[Old Name]] and by path [[notes/Old Name]] and [[notes/Old Name.md|file]].\r\n"
    "Other: [[Somewhere Else]] stays.\r\n"
    "```\r\n"
    "[[Old Name]] in code is no link\r\n"
    "```\r\n"
)


def test_move_rewrites_every_form_of_link_and_keeps_every_other_byte(brain, vault):
    write(vault, "notes/Old Name.md", "---\ntitle: Old Name\n---\n\n# Old Name\n\n## Plan\nsteps\n")
    (vault.root / "notes/Index.md").write_bytes(LINKING.encode())
    os.chmod(vault.root / "notes/Index.md", 0o600)
    write(vault, "notes/Somewhere Else.md", "# Somewhere Else\n")
    result = brain("note", "move", "Old Name", "archive/New Name.md")
    assert result.output == "moved notes/Old Name.md to archive/New Name.md; 7 links in 1 note updated\n"
    expected = (
        LINKING.replace("[[Old Name", "[[New Name", 5)
        .replace("[[notes/Old Name]]", "[[archive/New Name]]")
        .replace("[[notes/Old Name.md|file]]", "[[archive/New Name.md|file]]")
    )
    assert (vault.root / "notes/Index.md").read_bytes() == expected.encode()
    assert "[[Old Name]] in code is no link" in expected
    assert oct(os.stat(vault.root / "notes/Index.md").st_mode & 0o777) == "0o600"
    # The title followed the new file name; every link resolves to the moved note.
    moved = json.loads(brain("note", "read", "New Name", "--json").stdout)
    assert moved["title"] == "New Name" and moved["path"] == "archive/New Name.md"
    # Each rewrite is a version in the history of the linking note.
    entries = vault.history.entries("notes/Index.md")
    assert [(e.event, e.command) for e in entries] == [("outside", ""), ("edit", "note move")]
    doctor = brain("doctor")
    assert "broken-link" not in doctor.output


def test_a_title_the_user_set_stays_and_links_by_title_still_reach_the_note(brain, vault):
    write(vault, "notes/adr-7.md", "---\ntitle: Memory First\n---\nbody\n")
    write(vault, "notes/Links.md", "[[Memory First]] and [[adr-7]]\n")
    result = brain("note", "move", "adr-7", "notes/adr-007.md", "--json")
    assert json.loads(result.stdout) == {
        "path": "notes/adr-007.md",
        "title": "Memory First",
        "moved_from": "notes/adr-7.md",
        "links_updated": 1,
        "notes_updated": ["notes/Links.md"],
        "failed": [],
    }
    assert (vault.root / "notes/Links.md").read_text() == "[[Memory First]] and [[adr-007]]\n"
    assert (vault.root / "notes/adr-007.md").read_text() == "---\ntitle: Memory First\n---\nbody\n"


def test_a_new_name_another_note_has_is_linked_by_path(brain, vault):
    write(vault, "notes/Draft.md", "# Draft\n")
    write(vault, "other/Final.md", "# Final\n")
    write(vault, "notes/Links.md", "[[Draft]]\n")
    assert brain("note", "move", "Draft", "notes/Final.md").exit_code == 0
    assert (vault.root / "notes/Links.md").read_text() == "[[notes/Final]]\n"


def test_no_update_links_leaves_the_linking_notes_alone(brain, vault):
    write(vault, "notes/A.md", "# A\n")
    write(vault, "notes/B.md", "[[A]]\n")
    result = brain("note", "move", "A", "notes/C.md", "--no-update-links")
    assert result.output == "moved notes/A.md to notes/C.md; 0 links in 0 notes updated\n"
    assert (vault.root / "notes/B.md").read_text() == "[[A]]\n"
    assert vault.history.entries("notes/B.md") == []


def test_rewrite_links_is_pure_and_counts():
    text, count = rewrite_links("a [[X]] b [[ X |y]] c [[Y]]\n", lambda target: "Z" if target == "X" else None)
    assert (text, count) == ("a [[Z]] b [[ Z |y]] c [[Y]]\n", 2)
