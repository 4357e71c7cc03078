"""Every version brain replaces or deletes is kept: history, restore, delete to the history, purge,
retention, and who wrote each version."""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from datetime import UTC, datetime, timedelta

from brain.memory.corpus import Corpus
from brain.memory.notes import history, service
from brain.vault.history import History, acting_as
from brain.vault.vault import Vault
from tests.conftest import write


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def versions(vault: Vault, path: str) -> list[tuple[int, str, str, str]]:
    return [(e.v, e.event, e.by, e.command) for e in vault.history.entries(path)]


def test_every_brain_write_keeps_the_bytes_it_replaces_and_an_editors_version_too(brain, vault):
    assert brain("note", "write", "Alpha", "--file", "-", input="first\n").exit_code == 0
    first = (vault.root / "notes/Alpha.md").read_bytes()
    assert brain("note", "edit", "Alpha", "--append", "second").exit_code == 0
    second = (vault.root / "notes/Alpha.md").read_bytes()
    # A person saves in an editor (CRLF, a paragraph), then an agent's edit replaces it.
    edited = second.replace(b"\n", b"\r\n") + b"typed by a person\r\n"
    (vault.root / "notes/Alpha.md").write_bytes(edited)
    assert brain("note", "edit", "Alpha", "--append", "third").exit_code == 0
    assert versions(vault, "notes/Alpha.md") == [
        (1, "create", "cli", "note write"),
        (2, "edit", "cli", "note edit"),
        (3, "outside", "editor", ""),
        (4, "edit", "cli", "note edit"),
    ]
    result = brain("note", "history", "Alpha", "--json")
    listed = json.loads(result.stdout)
    assert [(row["version"], row["by"], row["sha256"], row["current"]) for row in listed["versions"]] == [
        (4, "cli", sha((vault.root / "notes/Alpha.md").read_bytes()), True),
        (3, "editor", sha(edited), False),
        (2, "cli", sha(second), False),
        (1, "cli", sha(first), False),
    ]
    assert listed["exists"] is True and listed["changed_outside"] is False
    text = brain("note", "history", "Alpha").output.splitlines()
    assert text[0] == "notes/Alpha.md: 4 versions"
    assert text[2].startswith("v3    ") and " editor   outside " in text[2] and f"{len(edited):>9,} B" in text[2]
    # --version prints the version exactly as it was, CRLF included.
    assert brain("note", "history", "Alpha", "--version", "3").stdout_bytes == edited


def test_restore_puts_a_version_back_byte_for_byte_and_can_be_undone(brain, vault):
    write(vault, "notes/Beta.md", "---\ntitle: Beta\n---\n\nmade in an editor\r\n")
    original = (vault.root / "notes/Beta.md").read_bytes()
    os.chmod(vault.root / "notes/Beta.md", 0o640)
    assert brain("note", "edit", "Beta", "--append", "agent text").exit_code == 0
    changed = (vault.root / "notes/Beta.md").read_bytes()
    result = brain("note", "restore", "Beta", "--version", "1")
    assert result.output == "restored notes/Beta.md at version 1\n"
    assert (vault.root / "notes/Beta.md").read_bytes() == original
    assert oct(os.stat(vault.root / "notes/Beta.md").st_mode & 0o777) == "0o640"
    # The restore is a version: undo it by restoring the agent's version.
    assert brain("note", "restore", "Beta", "--version", "2").exit_code == 0
    assert (vault.root / "notes/Beta.md").read_bytes() == changed
    assert [e.command for e in vault.history.entries("notes/Beta.md")] == [
        "",
        "note edit",
        "note restore",
        "note restore",
    ]
    again = brain("note", "restore", "Beta", "--version", "4")
    assert again.output == "notes/Beta.md already holds version 4; nothing written\n"


def test_bad_restores_are_one_line_errors_and_change_nothing(brain, vault):
    write(vault, "notes/Gamma.md", "# Gamma\n")
    write(vault, "a/Twin.md", "# Twin\n")
    write(vault, "b/Twin.md", "# Twin\n")
    assert brain("note", "edit", "Gamma", "--append", "x").exit_code == 0
    before = {p: p.read_bytes() for p in (vault.root / "notes").iterdir()}
    log = vault.history.log_path("notes/Gamma.md").read_bytes()
    unknown = brain("note", "restore", "Gamma", "--version", "9")
    assert (unknown.exit_code, unknown.output) == (
        1,
        "error: 'notes/Gamma.md' has no version 9; its versions are 1-2\n",
    )
    bare = brain("note", "restore", "Gamma")
    assert bare.exit_code == 1 and bare.output.startswith("error: 'notes/Gamma.md' exists; give the version")
    ambiguous = brain("note", "history", "Twin")
    assert ambiguous.exit_code == 1 and "'Twin' matches 2 notes (a/Twin.md, b/Twin.md)" in ambiguous.output
    missing = brain("note", "history", "Nothing")
    assert missing.exit_code == 1 and missing.output.startswith("error: no note named 'Nothing'")
    assert {p: p.read_bytes() for p in (vault.root / "notes").iterdir()} == before
    assert vault.history.log_path("notes/Gamma.md").read_bytes() == log


def test_delete_moves_the_note_to_the_history_and_restore_brings_it_back(brain, vault):
    write(vault, "notes/Delta.md", "---\ntitle: Delta Note\n---\nbody\n")
    original = (vault.root / "notes/Delta.md").read_bytes()
    result = brain("note", "delete", "Delta Note")
    assert result.output.startswith("deleted notes/Delta.md (kept in the history")
    assert not (vault.root / "notes/Delta.md").exists()
    listed = brain("note", "history", "Delta Note").output.splitlines()  # found by its title, though deleted
    assert listed[0] == "notes/Delta.md: 1 version (deleted; `restore` brings it back)"
    assert " cli      note delete      deleted" in listed[1]
    back = brain("note", "restore", "Delta Note")
    assert back.output == "brought back notes/Delta.md at version 1\n"
    assert (vault.root / "notes/Delta.md").read_bytes() == original
    assert brain("note", "read", "Delta Note").exit_code == 0


def test_purge_deletes_the_note_and_every_version_for_good_with_a_receipt(brain, vault):
    write(vault, "notes/Secret.md", "# Secret\nhunter2\n")
    write(vault, "notes/Other.md", "# Other\nkept\n")
    assert brain("note", "edit", "Secret", "--append", "hunter3").exit_code == 0
    assert brain("note", "edit", "Other", "--append", "also kept").exit_code == 0
    result = brain("note", "delete", "Secret", "--purge", "--json")
    assert result.exit_code == 0, result.output
    done = json.loads(result.stdout)
    assert (done["path"], done["file_deleted"], done["versions_purged"], done["objects_purged"]) == (
        "notes/Secret.md",
        True,
        2,
        2,
    )
    receipt = json.loads((vault.root / done["receipt"]).read_text())
    assert receipt["by"] == "cli" and receipt["command"] == "note delete"
    assert receipt["stores_purged"] == ["files", "history"] and len(receipt["version_sha256"]) == 2
    stored = [
        zlib.decompress(p.read_bytes()) for p in (vault.root / ".brain/history/objects").rglob("*") if p.is_file()
    ]
    assert not any(b"hunter" in data for data in stored)
    assert any(b"also kept" in data for data in stored)  # other notes' versions stay
    gone = brain("note", "restore", "Secret")
    assert gone.exit_code == 1 and "no note named 'Secret'" in gone.output


def test_every_writer_is_named_and_moves_keep_the_log(vault):
    corpus = Corpus(vault)
    with acting_as("mcp", "write_note"):
        service.write_note(corpus, "Epsilon", "one")
    with acting_as("importer", "import ai-agents"):
        service.edit_note(corpus, "Epsilon", "append", content="two")
    service.move_note(corpus, "Epsilon", "archive")
    assert versions(vault, "archive/Epsilon.md") == [
        (1, "create", "mcp", "write_note"),
        (2, "edit", "importer", "import ai-agents"),
        (3, "move", "brain", ""),
    ]
    assert vault.history.entries("notes/Epsilon.md") == []
    assert vault.history.entries("archive/Epsilon.md")[-1].moved_from == "notes/Epsilon.md"


def test_an_unchanged_version_costs_nothing_and_a_copy_without_brain_is_complete(vault, tmp_path):
    corpus = Corpus(vault)
    service.write_note(corpus, "Zeta", "same")
    for _ in range(3):
        service.edit_note(corpus, "Zeta", "append", content="x")
        history.restore_note(corpus, "Zeta", 1)
    objects = [p for p in (vault.root / ".brain/history/objects").rglob("*") if p.is_file()]
    assert len(objects) == 2  # "same" and "same + x", stored once each
    # History never changes what a note holds: the file is exactly what brain wrote.
    assert (vault.root / "notes/Zeta.md").read_bytes() == vault.history.version_bytes(
        vault.history.entries("notes/Zeta.md")[0].sha256 or ""
    )


def test_retention_prunes_old_versions_but_keeps_each_notes_newest(vault):
    corpus = Corpus(vault)
    service.write_note(corpus, "Eta", "v1")
    for number in range(2, 7):
        service.edit_note(corpus, "Eta", "append", content=f"v{number}")
    store = History(vault.brain_dir)
    pruned = store.prune(keep_days=None, max_versions=2)
    assert (pruned.versions, pruned.objects) == (4, 4)
    assert [e.v for e in vault.history.entries("notes/Eta.md")] == [5, 6]
    later = datetime.now(UTC) + timedelta(days=400)
    store.prune(keep_days=90, max_versions=None, now=later)
    assert [e.v for e in vault.history.entries("notes/Eta.md")] == [6]  # the newest always stays
    (vault.brain_dir / "config.toml").write_text("[history]\nmax_versions = 0\n")
    from brain.config import load_config
    from brain.errors import InvalidInput

    try:
        load_config(vault.brain_dir)
    except InvalidInput as error:
        assert "[history] max_versions must be a whole number of at least 1 (got 0)" in str(error)
    else:
        raise AssertionError("max_versions = 0 was accepted")


def test_brain_index_prunes_and_doctor_reports_the_size(brain, vault):
    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n\n[history]\nmax_versions = 1\n')
    write(vault, "notes/Theta.md", "# Theta\n")
    for number in range(3):
        assert brain("note", "edit", "Theta", "--append", f"line {number}").exit_code == 0
    assert len(vault.history.entries("notes/Theta.md")) == 4
    indexed = brain("index", "--no-embed")
    assert "history: 3 old versions pruned" in indexed.output
    assert [e.v for e in vault.history.entries("notes/Theta.md")] == [4]
    doctor = brain("doctor")
    assert "history: 1 version of 1 note, " in doctor.output and " in .brain/history" in doctor.output
    usage = vault.history.usage()
    reported = json.loads(brain("doctor", "--json").output)
    assert reported["history"] == {
        "notes": 1,
        "versions": 1,
        "objects": usage.objects,
        "bytes": usage.bytes,
        "path": ".brain/history",
    }
    assert usage.bytes > 0 and reported["findings"] == []
    # At most once a day: the next index leaves the history alone; a forced prune applies it.
    assert brain("note", "edit", "Theta", "--append", "later").exit_code == 0
    assert "history:" not in brain("index", "--no-embed").output
    assert history.prune_history(vault, force=True).versions == 1


def test_a_plain_folder_used_as_a_vault_keeps_no_history(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    plain = Vault(root)
    (root / "n.md").write_text("# N\n")
    plain.write("n.md", "# N changed\n")
    plain.delete("n.md")
    assert sorted(p.name for p in root.rglob("*")) == []


def test_an_import_is_named_as_the_importer(brain, vault):
    from tests.conftest import AI_AGENTS

    source = AI_AGENTS / "v2" / "episodes"
    assert brain("import", "ai-agents", str(source)).exit_code == 0
    (first,) = sorted((vault.root / "episodes").glob("*.md"))[:1]
    relative = first.relative_to(vault.root).as_posix()
    first.write_bytes(first.read_bytes() + b"\nA note a person added.\n")
    edited = first.read_bytes()
    assert brain("import", "ai-agents", str(source)).exit_code == 0
    entries = vault.history.entries(relative)
    assert [(e.event, e.by, e.command) for e in entries] == [("create", "importer", "import ai-agents")]
    assert first.read_bytes() == edited  # an unchanged re-import writes nothing, so no version is due


def test_pattern_evidence_and_a_fact_supersede_are_versions_named_by_their_command(brain, vault):
    added = ("pattern", "add", "Retry with backoff", "--trigger", "flaky call", "--action", "retry")
    assert brain(*added).exit_code == 0
    assert brain("pattern", "add", "Retry with backoff", "--outcome", "failure").exit_code == 0
    (pattern,) = [p.relative_to(vault.root).as_posix() for p in (vault.root / "patterns").glob("*.md")]
    assert versions(vault, pattern) == [(1, "create", "cli", "pattern add"), (2, "edit", "cli", "pattern add")]
    fact = json.loads(brain("fact", "record", "preference", "theme", "dark", "--json").output)["fact"]
    assert brain("fact", "supersede", fact["id"], "light").exit_code == 0
    assert versions(vault, fact["path"]) == [(1, "create", "cli", "fact record"), (2, "edit", "cli", "fact supersede")]
    first = vault.history.entries(fact["path"])[0].sha256 or ""
    assert b"value: dark" in vault.history.version_bytes(first)


def test_note_list_and_recent_from_the_cli(brain, vault):
    write(vault, "notes/A.md", "---\ntags: [adr, auth]\n---\n# A\n")
    write(vault, "notes/deep/B.md", "---\ntype: episode\n---\n# B\n")
    write(vault, "archive/Old.md", "# Old\n")
    old = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()
    os.utime(vault.root / "archive/Old.md", (old, old))
    listed = json.loads(brain("note", "list", "--folder", "notes", "--json").output)
    assert (listed["count"], [row["path"] for row in listed["notes"]]) == (2, ["notes/A.md", "notes/deep/B.md"])
    assert listed["notes"][0] | {"modified": None} == {
        "path": "notes/A.md",
        "title": "A",
        "type": "note",
        "tags": ["adr", "auth"],
        "modified": None,
    }
    assert [r["path"] for r in json.loads(brain("note", "list", "--type", "episode", "--json").output)["notes"]] == [
        "notes/deep/B.md"
    ]
    tagged = brain("note", "list", "--tag", "auth").output.splitlines()
    assert len(tagged) == 1 and tagged[0].endswith("  note  notes/A.md  #adr #auth")
    assert brain("note", "list", "--tag", "nothing").output == "no notes match\n"
    assert json.loads(brain("note", "list", "--json").output)["count"] == 3
    recent = json.loads(brain("recent", "--since", "1d", "--json").output)
    assert sorted(row["path"] for row in recent["notes"]) == ["notes/A.md", "notes/deep/B.md"]
    assert [r["path"] for r in json.loads(brain("recent", "--since", "2026-01-01", "--json").output)["notes"]][
        -1
    ] == "archive/Old.md"  # newest first: the old note comes last
    assert [r["path"] for r in json.loads(brain("recent", "--type", "episode", "--json").output)["notes"]] == [
        "notes/deep/B.md"
    ]
    refused = brain("recent", "--since", "yesterday")
    assert refused.exit_code == 2 and refused.stderr.startswith("error: --since 'yesterday' is neither a span")


def test_a_span_reaching_before_the_year_1_is_refused_naming_since_and_the_longest(brain, vault):
    """`timedelta` and `datetime` overflow past the year 1: the span is refused in one line that names
    --since and the longest span of that unit, however many digits it has."""
    from datetime import UTC, datetime

    longest = (datetime.now(UTC) - datetime.min.replace(tzinfo=UTC)).days // 7
    for given in ("10000000w", "99999999999999w", "9" * 5000 + "w"):
        refused = brain("recent", "--since", given)
        assert refused.exit_code == 2, given
        assert refused.stderr == (
            f"error: --since '{given}' reaches back before the year 1; give a span from 0 to {longest}w, "
            "or an ISO date\n"
        )
    assert brain("recent", "--since", f"{longest}w").exit_code == 0
    days = (datetime.now(UTC) - datetime.min.replace(tzinfo=UTC)).days
    assert f"from 0 to {days}d," in brain("recent", "--since", "10000000000d").stderr


def test_a_restore_onto_a_note_changed_meanwhile_is_refused_and_keeps_the_change(vault, monkeypatch):
    import pytest

    from brain.errors import WriteConflict

    corpus = Corpus(vault)
    service.write_note(corpus, "Eta", "one")
    service.edit_note(corpus, "Eta", "append", content="two")
    path = vault.root / "notes/Eta.md"
    real_write = vault.write

    def typed_meanwhile(relative, data, **options):  # a person saves between brain's read and its write
        path.write_text("typed meanwhile\n")
        return real_write(relative, data, **options)

    monkeypatch.setattr(vault, "write", typed_meanwhile)
    with pytest.raises(WriteConflict):
        history.restore_note(corpus, "Eta", 1)
    assert path.read_text() == "typed meanwhile\n"
    assert [e.event for e in vault.history.entries("notes/Eta.md")] == ["create", "edit"]


def test_a_note_deleted_in_an_editor_is_found_in_the_history_and_restored(brain, vault):
    """Deleted outside brain (no deletion in its log): its versions were kept but no name reached them."""
    assert brain("note", "write", "Kappa", "--file", "-", input="kept\n").exit_code == 0
    kept = (vault.root / "notes/Kappa.md").read_bytes()
    (vault.root / "notes/Kappa.md").unlink()  # a person deletes the file
    listed = json.loads(brain("note", "history", "Kappa", "--json").output)
    assert (listed["path"], listed["exists"], [row["version"] for row in listed["versions"]]) == (
        "notes/Kappa.md",
        False,
        [1],
    )
    restored = brain("note", "restore", "Kappa")
    assert restored.output == "brought back notes/Kappa.md at version 1\n"
    assert (vault.root / "notes/Kappa.md").read_bytes() == kept
