"""What a person wrote survives brain: an edit never loses or changes what it does not manage (block
keys of a CRLF note, bytes past the parse limit, invalid UTF-8, line endings, the file mode, a
save made meanwhile), and a write brain could not read back whole is refused, not recorded cut."""

from __future__ import annotations

import json
import os
import stat

import pytest

from brain.errors import InvalidInput, WriteConflict
from brain.memory.corpus import Corpus
from brain.memory.notes.service import edit_note
from brain.memory.patterns.service import record_pattern_evidence
from brain.vault.note_files import MAX_NOTE_BYTES
from tests.conftest import use_lexical

CRLF_NOTE = (
    "---\r\ntitle: T\r\nstatus: open\r\ntags:\r\n  - a\r\n  - b\r\naliases:\r\n  - Tee\r\nmeta:\r\n  owner: me\r\n---\r\n"
    "\r\n# T\r\n\r\n## Log\r\n- one\r\n"
)


def _edit(vault, name, operation, **kwargs):
    return edit_note(Corpus(vault), name, operation, **kwargs)


def test_crlf_note_keeps_block_keys_when_one_key_is_set(vault, brain):
    """`--set status=closed` on a CRLF note keeps `tags:`, `aliases:` and `meta:` (it deleted them)."""
    path = vault.root / "notes" / "T.md"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(CRLF_NOTE.encode())
    result = brain("note", "edit", "T", "--set", "status=closed")
    assert result.exit_code == 0, result.output
    assert path.read_bytes().decode() == CRLF_NOTE.replace("status: open", "status: closed")


def test_crlf_pattern_evidence_keeps_block_keys(vault):
    path = vault.root / "patterns" / "PATTERN-x.md"
    path.write_bytes(
        b"---\r\ntitle: X\r\ntype: pattern\r\ntrigger: t\r\nsuccess_rate: 1.0\r\noccurrences: 1\r\n"
        b"tags:\r\n  - keep\r\n---\r\n\r\n## Evidence Episodes\r\n- [[E1]] - success\r\n"
    )
    record_pattern_evidence(Corpus(vault), "X", outcome="failure", episode="E2")
    text = path.read_bytes().decode()
    assert "tags:\r\n  - keep\r\n" in text
    assert "occurrences: 2\r\n" in text
    assert "\n" not in text.replace("\r\n", "")


def test_a_note_over_the_parse_limit_is_never_truncated_by_an_edit(vault):
    """A 50 MB note keeps every byte through an edit (it became 5,242,891 bytes)."""
    path = vault.root / "notes" / "big.md"
    path.parent.mkdir(exist_ok=True)
    data = b"---\ntitle: Big\n---\n\n" + b"line of prose\n" * (MAX_NOTE_BYTES // 14 + 1000)
    path.write_bytes(data)
    with pytest.raises(InvalidInput, match="too large to edit"):
        _edit(vault, "notes/big.md", "append", content="more")
    assert path.read_bytes() == data


@pytest.mark.parametrize("breaker", ["\u2028", "\x85", "\x0c", "\x0b", "\u2029", "\x1c"])
def test_unicode_line_breaks_do_not_move_section_edits(vault, breaker):
    """A U+2028 above `## Notes` moves no section edit (`--replace-section Log` deleted the wrong lines)."""
    path = vault.root / "notes" / "U.md"
    path.parent.mkdir(exist_ok=True)
    original = f"---\ntitle: U\n---\n\nintro{breaker}more{breaker}\n\n## Notes\nkeep me\n\n## Log\nold\n"
    path.write_bytes(original.encode("utf-8"))
    _edit(vault, "U", "replace_section", section="Log", content="new")
    assert path.read_bytes().decode("utf-8") == original.replace("old\n", "new\n")


def test_a_note_with_invalid_utf8_is_not_rewritten(vault):
    """A note with invalid UTF-8 is not rewritten (an edit turned those bytes into U+FFFD)."""
    path = vault.root / "notes" / "latin.md"
    path.parent.mkdir(exist_ok=True)
    data = b"---\ntitle: Latin\n---\n\ncaf\xe9 au lait\n"
    path.write_bytes(data)
    with pytest.raises(InvalidInput, match=r"not valid UTF-8 \(byte 25\)"):
        _edit(vault, "Latin", "append", content="more")
    assert path.read_bytes() == data


def test_appends_to_a_crlf_note_stay_crlf(vault):
    """Appends to a CRLF note add CRLF lines (they added bare LF lines, or `\\r\\r\\n`)."""
    path = vault.root / "notes" / "T.md"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(CRLF_NOTE.encode())
    _edit(vault, "T", "append", content="first\nsecond\n")
    _edit(vault, "T", "append", content="third", section="Log")
    _edit(vault, "T", "prepend", content="top\n")
    _edit(vault, "T", "replace_section", section="Extra", content="x\ny")
    text = path.read_bytes().decode()
    assert "\r\r" not in text
    assert "\n" not in text.replace("\r\n", "")
    assert text.endswith("## Log\r\n- one\r\n\r\nfirst\r\nsecond\r\nthird\r\n\r\n## Extra\r\nx\r\ny\r\n")


def test_an_edit_keeps_the_file_mode(vault):
    """An edit keeps a 0644 file 0644 (every edit made it 0600)."""
    path = vault.root / "notes" / "M.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text("---\ntitle: M\n---\n\nbody\n")
    os.chmod(path, 0o644)
    _edit(vault, "M", "append", content="more")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    os.chmod(path, 0o640)
    _edit(vault, "M", "set_frontmatter", frontmatter={"status": "x"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_read_that_looks_truncated_is_refused(vault, monkeypatch):
    """A file an editor is rewriting in place reads empty for a moment: brain refuses the read, it once wrote one line back."""
    path = vault.root / "notes" / "R.md"
    path.parent.mkdir(exist_ok=True)
    full = "---\ntitle: R\n---\n\n" + "prose\n" * 50
    path.write_text(full)
    corpus = Corpus(vault)
    corpus.resolver()  # the catalog / corpus now knows the full note
    path.write_text("")  # the editor truncated it and has not written yet
    with pytest.raises(WriteConflict, match="looks truncated"):
        edit_note(corpus, "R", "append", content="agent line")
    assert path.read_text() == ""


def test_the_write_is_rechecked_right_before_the_rename(vault, monkeypatch):
    """A change made between brain's check and its rename is not overwritten."""
    path = vault.root / "notes" / "C.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text("---\ntitle: C\n---\n\nbody\n")
    real_fsync = os.fsync

    def editor_saves_meanwhile(fd):
        real_fsync(fd)
        path.write_text("---\ntitle: C\n---\n\nthe editor's version\n")

    monkeypatch.setattr(os, "fsync", editor_saves_meanwhile)
    with pytest.raises(WriteConflict):
        _edit(vault, "C", "append", content="agent line")
    assert path.read_text() == "---\ntitle: C\n---\n\nthe editor's version\n"


# ---------------------------------------------------------------- writes brain could not read back whole
# A run or a fact over the 5 MiB a note may hold was "recorded", then read back cut (no decisions,
# no longer a fact): such a write is refused in one line.


LIMIT = f"over the {MAX_NOTE_BYTES // 2**20} MiB a note may hold (brain reads no more of a note back); nothing was written. Make it smaller"


@pytest.fixture
def lexical(vault):
    use_lexical(vault)
    yield vault


def one_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    return result.stderr.rstrip("\n")


def test_a_run_over_the_limit_is_refused(lexical, brain):
    snapshot = {
        "query": "a big run",
        "finalContent": "done",
        "decisions": [{"stageId": "s1", "chosen": "x"}],
        "narrative": "n" * (MAX_NOTE_BYTES + 10),
    }
    message = one_line(brain("run", "record", "-f", "-", "--tenant", "acme", input=json.dumps(snapshot)))
    assert message.endswith(LIMIT)
    assert not list((lexical.root / "runs").rglob("*.md"))


def test_a_fact_over_the_limit_is_refused(vault, brain):
    message = one_line(brain("fact", "record", "config", "blob", json.dumps("v" * (6 * 2**20))))
    assert message.endswith(LIMIT)
    assert not list((vault.root / "facts").glob("*.md"))


def test_a_note_edit_that_would_pass_the_limit_is_refused(vault, brain):
    assert brain("note", "write", "Grows", "-f", "-", input="start\n").exit_code == 0
    path = vault.root / "notes" / "Grows.md"
    before = path.read_bytes()
    message = one_line(brain("note", "edit", "Grows", "--append", "x" * (MAX_NOTE_BYTES + 1)))
    assert message.endswith(LIMIT) and path.read_bytes() == before
