"""A rename keeps links working: every wikilink to the note is rewritten, as Obsidian does, and
nothing else in the linking notes changes."""

from __future__ import annotations

import json
import os

from brain.markdown.links import rewrite_links
from tests.conftest import write


def files(vault) -> dict[str, bytes]:
    """Every file of the vault, brain's history and journal too (not the index, not lock files), with its bytes."""
    return {
        path.relative_to(vault.root).as_posix(): path.read_bytes()
        for path in sorted(vault.root.rglob("*"))
        if path.is_file() and "index" not in path.relative_to(vault.root).parts and path.suffix != ".lock"
    }


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
        "moved": True,
        "links_updated": 1,
        "notes_updated": ["notes/Links.md"],
        "failed": [],
    }
    assert (vault.root / "notes/Links.md").read_text() == "[[Memory First]] and [[adr-007]]\n"
    assert (vault.root / "notes/adr-007.md").read_text() == "---\ntitle: Memory First\n---\nbody\n"


def test_a_file_name_another_note_has_is_refused_and_its_links_stay_unambiguous(brain, vault):
    write(vault, "notes/Draft.md", "# Draft\n")
    write(vault, "other/Final Plan.md", "# Final Plan\n")
    write(vault, "notes/Links.md", "[[Draft]] and [[Final Plan]]\n")
    write(vault, "notes/Cause.md", '---\ncaused_by: "[[Final Plan]]"\n---\nbody\n')
    before = files(vault)
    refused = brain("note", "move", "Draft", "notes/Final Plan.md")
    assert (refused.exit_code, refused.stdout, refused.stderr) == (
        1,
        "",
        "error: other/Final Plan.md already answers to 'Final Plan'; moving notes/Draft.md to notes/Final Plan.md "
        "would make [[Final Plan]] match two notes. Choose another file name\n",
    )
    assert files(vault) == before
    assert "ambiguous-link" not in brain("doctor").output
    assert not (vault.root / ".brain/journal/moves/PENDING.json").exists()


def test_a_move_onto_its_own_path_changes_nothing_and_adds_no_version(brain, vault):
    write(vault, "notes/Same.md", "# Same\n")
    write(vault, "notes/Links.md", "[[Same]]\n")
    assert brain("note", "edit", "Same", "--append", "more").exit_code == 0
    log = vault.history.entries("notes/Same.md")
    for destination in ("notes", "notes/Same.md", "notes/"):
        result = brain("note", "move", "Same", destination)
        assert result.output == "notes/Same.md is there already; nothing moved\n"  # issue 40, 4: not "moved"
    moved = json.loads(brain("note", "move", "Same", "notes", "--json").stdout)
    assert (moved["moved"], moved["path"], moved["moved_from"], moved["links_updated"]) == (
        False,
        "notes/Same.md",
        "notes/Same.md",
        0,
    )
    assert vault.history.entries("notes/Same.md") == log
    assert vault.history.entries("notes/Links.md") == []


def test_a_move_onto_a_file_that_exists_is_refused_and_changes_nothing(brain, vault):
    """Issue 40, 4: `note move Beta Alpha.md` with Alpha.md there said "moved", moved nothing, and
    rewrote every link to Beta so it pointed at Alpha."""
    write(vault, "Alpha.md", "---\ntitle: Alpha\n---\nalpha body\n")
    write(vault, "Beta.md", "---\ntitle: Beta\n---\nbeta body\n")
    write(vault, "One.md", "see [[Beta]]\n")
    write(vault, "notes/Two.md", "and [[Beta]] too\n")
    write(vault, "notes/Alpha.md", "another alpha\n")
    before = files(vault)
    for destination, why in [
        ("Alpha.md", "'Alpha.md' exists already; move the note to another name"),
        ("notes/Alpha.md", "'notes/Alpha.md' exists already; move the note to another name"),
        ("alpha.md", "Alpha.md already answers to 'alpha'"),  # another file, the same name
    ]:
        refused = brain("note", "move", "Beta", destination)
        assert (refused.exit_code, refused.stdout) == (1, ""), destination
        assert refused.stderr.startswith(f"error: {why}"), refused.stderr
        assert files(vault) == before
    write(vault, "notes/Beta.md", "a third note named Beta\n")  # `notes` now holds a Beta.md of its own
    before = files(vault)
    refused = brain("note", "move", "Beta.md", "notes")
    assert refused.stderr == "error: 'notes/Beta.md' exists already; move the note to another name\n"
    assert files(vault) == before


TRICKY = (
    "| note | why |\n"
    "| --- | --- |\n"
    "| [[Old\\|the old one]] | a table |\n"
    "By file: [[Old.md]], [[Old.md#Plan|plan]].\n"
    "Inline `[[Old]]` and ``a ` [[Old]]`` stay; <!-- [[Old]] --> and %% [[Old]] %% too.\n"
    "$$\n[[Old]]\n$$\n"
    "Markdown: [x](Old.md), [y](../notes/Old.md#Plan), [z](<Old.md>), [url](https://example.com/Old.md).\n"
)


def test_links_by_file_name_escaped_pipes_and_markdown_links_follow_but_code_comments_and_math_do_not(brain, vault):
    write(vault, "notes/Old.md", "# Old\n\n## Plan\n")
    write(vault, "notes/Table.md", TRICKY)
    write(vault, "notes/Space Name.md", "# Space Name\n")
    write(vault, "other/Refs.md", "[a](../notes/Space%20Name.md) [b](notes/Space%20Name.md) [c](Space%20Name.md)\n")
    # Before the move: [[Old.md]] and the escaped pipe resolve (no broken link).
    assert "broken-link" not in brain("doctor").output
    result = brain("note", "move", "Old", "archive/New Name.md")
    assert result.output == "moved notes/Old.md to archive/New Name.md; 6 links in 1 note updated\n"
    assert (vault.root / "notes/Table.md").read_text() == (
        "| note | why |\n"
        "| --- | --- |\n"
        "| [[New Name\\|the old one]] | a table |\n"
        "By file: [[New Name.md]], [[New Name.md#Plan|plan]].\n"
        "Inline `[[Old]]` and ``a ` [[Old]]`` stay; <!-- [[Old]] --> and %% [[Old]] %% too.\n"
        "$$\n[[Old]]\n$$\n"
        "Markdown: [x](New%20Name.md), [y](../archive/New%20Name.md#Plan), [z](<New Name.md>), "
        "[url](https://example.com/Old.md).\n"
    )
    assert "broken-link" not in brain("doctor").output
    moved = brain("note", "move", "Space Name", "archive/Spaced Out.md")
    assert moved.output == "moved notes/Space Name.md to archive/Spaced Out.md; 3 links in 1 note updated\n"
    assert (vault.root / "other/Refs.md").read_text() == (
        "[a](../archive/Spaced%20Out.md) [b](archive/Spaced%20Out.md) [c](Spaced%20Out.md)\n"
    )


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


def test_a_move_onto_a_deleted_notes_path_is_refused_and_keeps_both_histories_apart(brain, vault):
    """The two notes' versions would have been merged into one log: refused, nothing changes."""
    write(vault, "notes/Plan.md", "# Plan\nold plan\n")
    assert brain("note", "edit", "Plan", "--append", "more").exit_code == 0
    assert brain("note", "delete", "Plan").exit_code == 0
    write(vault, "drafts/Draft.md", "# Draft\n")
    deleted_log = vault.history.entries("notes/Plan.md")
    refused = brain("note", "move", "Draft", "notes/Plan.md")
    assert (refused.exit_code, refused.stderr) == (
        1,
        "error: 'notes/Plan.md' holds the history of a deleted note; restore that note "
        "(`brain note restore 'notes/Plan.md'`), forget it for good (`brain note delete 'notes/Plan.md' --purge`), "
        "or move to another name\n",
    )
    assert (vault.root / "drafts/Draft.md").read_text() == "# Draft\n" and not (vault.root / "notes/Plan.md").exists()
    assert vault.history.entries("notes/Plan.md") == deleted_log
    assert [e.event for e in vault.history.entries("notes/Plan.md")] == ["outside", "edit", "delete"]
    # Purged, the path is free; the moved note keeps its own history alone.
    assert brain("note", "delete", "notes/Plan.md", "--purge").exit_code == 0
    assert brain("note", "move", "Draft", "notes/Plan.md").exit_code == 0
    assert [(e.event, e.moved_from) for e in vault.history.entries("notes/Plan.md")] == [
        ("outside", None),  # the draft as it was written outside brain, then its move: its own history only
        ("move", "drafts/Draft.md"),
    ]
    # A move back onto its own path in another Unicode form, or onto a new path, is unaffected.
    assert brain("note", "move", "notes/Plan.md", "notes/Plan2.md").exit_code == 0


def test_renaming_a_note_to_its_name_in_another_unicode_form_keeps_its_one_history(vault):
    """The log of `Cafe\u0301` and of `Café` is one file: the move used to merge it with itself, then delete it."""
    nfd, nfc = "notes/Cafe\u0301.md", "notes/Caf\u00e9.md"
    write(vault, nfd, "# Cafe\n")
    vault.write(nfd, "# Cafe\nedited\n")
    assert vault.history.deleted() == []  # its log names it in NFC; the file, named in NFD, is there
    vault.move(nfd, nfc)
    assert [(e.v, e.event) for e in vault.history.entries(nfc)] == [(1, "outside"), (2, "edit"), (3, "move")]
