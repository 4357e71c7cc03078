"""`brain init` and `brain note ...` through the CLI, including hostile input."""

import json

from tests.conftest import run_brain, write


def snapshot(vault):
    return {p.relative_to(vault.root).as_posix(): p.read_bytes() for p in vault.root.rglob("*") if p.is_file()}


def test_init_creates_and_reports(tmp_path):
    result = run_brain("init", str(tmp_path / "v"))
    assert result.exit_code == 0 and "created: episodes/" in result.output
    again = run_brain("init", str(tmp_path / "v"))
    assert "nothing changed" in again.output
    (tmp_path / "file").write_text("x")
    bad = run_brain("init", str(tmp_path / "file"))
    assert bad.exit_code == 2 and "is a file" in bad.output  # the path given is no folder: a usage error


def test_write_then_read_from_stdin_and_file(brain, vault, tmp_path):
    result = brain(
        "note",
        "write",
        "Ledger Overview",
        "--folder",
        "decisions",
        "--tag",
        "ledger",
        "--field",
        "owner=sam",
        "--field",
        "priority=2",
        input=None,
    )
    assert result.exit_code == 0 and "created decisions/Ledger Overview.md" in result.output
    body = tmp_path / "body.md"
    body.write_text("The ledger service.\n\n## Relations\n- part_of [[Platform]]\n")
    result = brain("note", "write", "Service Map", "-f", str(body))
    assert "created notes/Service Map.md" in result.output
    read = json.loads(brain("note", "read", "Service Map", "--json").output)
    assert read["relations"] == [{"type": "part_of", "target": "Platform", "context": None, "line": 10}]
    meta = json.loads(brain("note", "read", "decisions/Ledger Overview.md", "--json").output)["frontmatter"]
    assert meta["owner"] == "sam" and meta["priority"] == 2 and meta["tags"] == ["ledger"]
    stdin = brain("note", "write", "From Stdin", "-f", "-", input="piped body\n")
    assert (stdin.exit_code, stdin.output) == (0, "created notes/From Stdin.md\n")
    assert brain("note", "read", "From Stdin").output.endswith("piped body\n")


def test_write_refuses_to_clobber_and_overwrite_keeps_frontmatter(brain, vault):
    brain("note", "write", "Keep", "-f", "-", "--field", "owner=sam", input="one\n")
    again = brain("note", "write", "Keep", "-f", "-", input="two\n")
    assert again.exit_code == 1 and "already exists" in again.output
    replaced = brain("note", "write", "Keep", "-f", "-", "--overwrite", input="three\n")
    assert (replaced.exit_code, replaced.output) == (0, "updated notes/Keep.md\n")
    text = (vault.root / "notes/Keep.md").read_text()
    assert text.endswith("\nthree\n") and "owner: sam" in text and "one" not in text


def test_note_write_refuses_a_title_another_folder_has(brain, vault) -> None:
    assert brain("note", "write", "Plan", "--folder", "a").exit_code == 0
    second = brain("note", "write", "Plan", "--folder", "b")
    assert (second.exit_code, second.stderr) == (
        1,
        "error: 'a/Plan.md' already exists; give --overwrite to replace its body, or edit it\n",
    )
    assert not (vault.root / "b").exists()


def test_hostile_titles_and_folders_stay_inside(brain, vault):
    before = snapshot(vault)
    escape = brain("note", "write", "x", "--folder", "../../outside", input="")
    assert escape.exit_code == 1 and "inside the vault" in escape.output
    absolute = brain("note", "write", "x", "--folder", "/tmp", input="")
    assert absolute.exit_code == 1 and "absolute" in absolute.output
    reserved = brain("note", "write", "CON")
    assert (reserved.exit_code, reserved.output) == (
        1,
        "error: title 'CON' does not make a usable file name; choose another title\n",
    )
    bad_field = brain("note", "write", "y", "--field", "no equals sign")
    assert bad_field.exit_code == 2 and "key=value" in bad_field.output
    assert snapshot(vault) == before
    sneaky = brain("note", "write", "../../etc/passwd")
    assert (sneaky.exit_code, sneaky.output) == (0, "created notes/-..-etc-passwd.md\n")
    assert (vault.root / "notes/-..-etc-passwd.md").is_file()


def test_edit_operations_change_only_their_part(brain, vault):
    write(
        vault, "notes/E.md", "---\ntitle: E\nkeep: me # comment\n---\nintro\n\n## Log\n- first\n\n## Other\nuntouched\n"
    )
    edits = {
        "append": ["--append", "- second", "--section", "Log"],
        "set_frontmatter": ["--set", "status=done"],
        "find_replace": ["--find", "intro", "--replace", "Intro."],
    }
    for operation, edit in edits.items():
        result = brain("note", "edit", "E", *edit)
        assert (result.exit_code, result.output) == (0, f"edited notes/E.md ({operation})\n"), edit
    text = (vault.root / "notes/E.md").read_text()
    assert (
        text
        == "---\ntitle: E\nkeep: me # comment\nstatus: done\n---\nIntro.\n\n## Log\n- first\n- second\n\n## Other\nuntouched\n"
    )
    missing = brain("note", "edit", "E", "--find", "absent", "--replace", "x")
    assert missing.exit_code == 1 and "does not occur" in missing.output
    both = brain("note", "edit", "E", "--append", "a", "--prepend", "b")
    assert both.exit_code == 2 and "exactly one" in both.output
    assert (vault.root / "notes/E.md").read_text() == text


def test_find_replace_replaces_one_and_refuses_several_unless_told(brain, vault) -> None:
    write(vault, "notes/F.md", "# F\nred, red and red\n")
    several = brain("note", "edit", "F", "--find", "red", "--replace", "blue")
    assert several.exit_code == 1 and "'red' occurs 3 times in notes/F.md; nothing was changed" in several.stderr
    assert (vault.root / "notes/F.md").read_text() == "# F\nred, red and red\n"
    assert brain("note", "edit", "F", "--find", "red,", "--replace", "blue,").exit_code == 0
    assert (vault.root / "notes/F.md").read_text() == "# F\nblue, red and red\n"
    assert brain("note", "edit", "F", "--find", "red", "--replace", "green", "--count", "2").exit_code == 0
    write(vault, "notes/G.md", "a a a\n")
    assert brain("note", "edit", "G", "--find", "a", "--replace", "b", "--all").exit_code == 0
    assert (vault.root / "notes/G.md").read_text() == "b b b\n"


def test_move_and_delete(brain, vault):
    write(vault, "notes/M.md", "# M\n")
    assert (
        brain("note", "move", "M", "archive").output == "moved notes/M.md to archive/M.md; 0 links in 0 notes updated\n"
    )
    assert (vault.root / "archive/M.md").is_file()
    escape = brain("note", "move", "M", "../out")
    assert (escape.exit_code, escape.output) == (
        1,
        "error: '../out/M.md' uses '..'; paths must stay inside the vault\n",
    )
    assert (vault.root / "archive/M.md").is_file()
    assert "deleted archive/M.md" in brain("note", "delete", "M").output
    gone = brain("note", "read", "M")
    assert (gone.exit_code, gone.output) == (1, "error: no note named 'M'; check the name or use its path\n")


def test_malformed_binary_and_empty_notes_never_break_commands(brain, vault):
    write(vault, "notes/broken.md", "---\ntitle: [oops\n---\n# Broken\n")
    (vault.root / "notes/binary.md").write_bytes(b"\x00\xff\xfe" * 100)
    (vault.root / "notes/empty.md").write_bytes(b"")
    write(
        vault,
        "episodes/bad-episode.md",
        "---\ntype: episode\noutcome: great\n---\n## Decisions\n### d001: a\n### d001: b\n",
    )
    for command in (
        ["episode", "list"],
        ["pattern", "list"],
        ["pattern", "antipatterns"],
        ["graph", "export"],
        ["doctor"],
    ):
        result = brain(*command)
        assert result.exit_code == 0, (command, result.output)
    doctor = brain("doctor").output
    assert "malformed frontmatter" in doctor and "not valid UTF-8" in doctor
    assert "outcome 'great'" in doctor and "d001" in doctor
    empty = brain("note", "read", "empty")
    assert (empty.exit_code, empty.output) == (0, "\n")


def test_no_vault_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("BRAIN_VAULT", raising=False)
    monkeypatch.chdir(tmp_path)
    result = run_brain("episode", "list")
    assert result.exit_code == 1
    assert "no vault found" in result.output and "brain init" in result.output


def test_tags_in_a_notes_text_are_found_by_note_list_and_search(brain, vault):
    """Obsidian treats `#security` in the text as a tag: so do `note list --tag` and `search --tag`,
    and a parent tag finds the tags nested under it (`project` finds `#project/mobile`)."""
    body = "The login flow needs review. #security #project/mobile\n\n```\n#notatag\n```\n"
    brain("note", "write", "Threat model", "-f", "-", input=body)
    brain("note", "write", "Plain", "-f", "-", "--tag", "ops", input="Nothing tagged in the text.\n")
    brain("index")
    for tag in ("security", "#Security", "project", "project/mobile"):
        listed = brain("note", "list", "--tag", tag, "--json")
        assert [item["path"] for item in json.loads(listed.output)["notes"]] == ["notes/Threat model.md"], tag
        found = brain("search", "login flow", "--tag", tag, "--mode", "text", "--json")
        assert [hit["path"] for hit in json.loads(found.output)] == ["notes/Threat model.md"], tag
    assert brain("note", "list", "--tag", "notatag").output == "no notes match\n"
    assert brain("note", "list", "--tag", "proj").output == "no notes match\n"
    assert brain("search", "login flow", "--tag", "notatag", "--mode", "text").output.startswith("no ")
    assert json.loads(brain("note", "list", "--tag", "ops", "--json").output)["notes"][0]["tags"] == ["ops"]


def test_a_file_that_reads_as_one_is_a_notes_body_and_a_name_suggested_keeps_its_case(brain, vault):
    """`-f /dev/null` writes an empty note, as `-f -` from an empty stdin does; a folder is refused in
    one line. A name not found suggests notes by their titles as written."""
    empty = brain("note", "write", "Empty", "-f", "/dev/null")
    assert (empty.exit_code, empty.output) == (0, "created notes/Empty.md\n")
    folder = brain("note", "write", "Folder", "-f", str(vault.root))
    assert (folder.exit_code, folder.output) == (
        2,
        f"error: --file '{vault.root}' is a folder; give a file, or - for stdin\n",
    )
    brain("note", "write", "Ledger Overview", "-f", "-", input="x\n")
    missing = brain("note", "read", "Ledger Overveiw")
    assert missing.output == "error: no note named 'Ledger Overveiw'; did you mean 'Ledger Overview'?\n"
