"""What goes wrong ends a command in one line naming what is wrong, never a traceback, and leaves
every file as it was: bad config, busy locks, an unreachable Chroma, bad arguments, bytes that are
not UTF-8, over-long paths and filters, values nested too deep, journal lines that are not records,
names holding a line break. A usage error (what the command line alone shows wrong: a bad value, a
path that names nothing, options that do not go together) exits with 2, also in one line."""

from __future__ import annotations

import json
import socket

import pytest
from filelock import FileLock

from brain.index import engine
from tests.conftest import DATA, use_lexical, write

LOAN = json.loads((DATA / "runs" / "loan-42.json").read_text(encoding="utf-8"))


def _config(vault, body: str) -> None:
    (vault.brain_dir / "config.toml").write_text("[index]\n" + body + "\n", encoding="utf-8")


def one_line(result, *parts: str, code: int = 1) -> str:
    """The error of a command that failed: exit `code` (2: a usage error), nothing on stdout, one
    `error: ` line holding `parts`."""
    assert result.exit_code == code, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ")
    line = result.stderr.rstrip("\n")
    for part in parts:
        assert part in line, line
    return line


@pytest.mark.parametrize(
    "body, parts",
    [
        ('embedder = "bogus"', ("embedder", "'bogus'", "default, minilm, minilm-float, e5-small, lexical")),
        ("embedder = 3", ("embedder", "3", "default, minilm, minilm-float, e5-small, lexical")),
        ('chroma_url = "ftp://example.org"', ("chroma_url", "'ftp://example.org'", "http://127.0.0.1:8000")),
        ('chroma_url = "http://127.0.0.1:99999"', ("chroma_url", "99999", "port")),
        ('model_path = "/no/such/model"', ("model_path", "'/no/such/model'", "model.onnx")),
    ],
)
def test_invalid_config_values_are_one_line_errors(vault, brain, body, parts):
    _config(vault, body)
    line = one_line(brain("index", "--no-embed"), *parts)
    assert "config.toml" in line
    assert not (vault.index_dir / "catalog.sqlite3").exists()


def test_an_index_lock_held_too_long_is_a_one_line_error(vault, brain, monkeypatch):
    brain("index", "--no-embed")
    monkeypatch.setattr(engine, "LOCK_TIMEOUT", 0.2)
    with FileLock(str(vault.index_dir / "index.lock")):
        write(vault, "notes/a.md", "# A\n")
        one_line(brain("index", "--no-embed"), "index.lock", "another brain process")


def test_a_second_watcher_is_refused_at_once(vault, brain):
    """Refused before it indexes anything (it used to run a full index, then die on a lock's traceback)."""
    brain("index", "--no-embed")
    write(vault, "notes/new.md", "# New\n")
    with FileLock(str(vault.index_dir / "watch.lock")):
        one_line(brain("watch", "--no-embed"), "already watching", str(vault.root))
    status = brain("status", "--json")
    assert '"changed_files": 1' in status.output  # the refused watcher indexed nothing


def _dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_an_unreachable_chroma_server_is_named_not_silently_empty(vault, brain):
    url = _dead_url()
    write(vault, "notes/a.md", "# Alpha\n\nsome words about alpha\n")
    one_line(brain("index", "--chroma-url", url), url, "Chroma server")
    brain("index", "--no-embed")
    _config(vault, f'embedder = "lexical"\nchroma_url = "{url}"')
    one_line(brain("search", "alpha", "--mode", "vector"), url)


def test_graph_export_into_a_missing_folder_or_onto_a_folder(vault, brain, tmp_path):
    missing = brain("graph", "export", "--output", str(tmp_path / "missing" / "g.md"))
    one_line(missing, "missing", "does not exist", code=2)
    one_line(brain("graph", "export", "--output", str(tmp_path)), str(tmp_path), "is a folder", code=2)


def test_export_into_an_unwritable_place(vault, brain):
    one_line(brain("export", "ai-agents", "/proc/x"), "/proc/x")


@pytest.mark.parametrize("port", ["99999", "-1", "0"])
def test_mcp_port_out_of_range(brain, port):
    result = brain("mcp", "--http", "--port", port)
    assert result.exit_code == 2
    assert result.stderr == f"error: --port: {port} is out of range; give 1 to 65535\n"


def test_a_public_host_needs_a_token_and_an_empty_token_is_refused(brain, monkeypatch):
    """A non-loopback --host never serves without a token, and an empty BRAIN_MCP_TOKEN is no token."""
    monkeypatch.delenv("BRAIN_MCP_TOKEN", raising=False)
    one_line(brain("mcp", "--http", "--host", "0.0.0.0"), "0.0.0.0", "BRAIN_MCP_TOKEN", "--insecure", code=2)
    monkeypatch.setenv("BRAIN_MCP_TOKEN", "  ")
    one_line(brain("mcp", "--http"), "BRAIN_MCP_TOKEN is set but empty", code=2)


@pytest.mark.parametrize("folder", [".git", ".obsidian", "templates", "node_modules", ".hidden", "a/.secret"])
def test_notes_cannot_be_written_or_moved_where_brain_cannot_read_them(vault, brain, folder):
    """A note brain would not read back (in .git, in templates) is never written there."""
    one_line(brain("note", "write", "Lost", "--folder", folder), folder.split("/")[-1], "does not read")
    brain("note", "write", "Kept")
    one_line(brain("note", "move", "Kept", folder), folder.split("/")[-1], "does not read")
    assert brain("note", "read", "Kept").exit_code == 0


def test_long_folder_names_and_line_breaks_in_titles(vault, brain):
    one_line(brain("note", "write", "T", "--folder", "x" * 300), "255-byte")
    one_line(brain("note", "write", "two\nlines"), "'title' must be one line")


# ---------------------------------------------------------------- bad bytes, long paths, deep values, torn journals


@pytest.fixture
def lexical(vault):
    use_lexical(vault)
    yield vault


@pytest.mark.parametrize(
    "args",
    [
        ("note", "write", "A\udcffb"),
        ("fact", "record", "preference", "al\udcffice", "tea"),
        ("fact", "recall", "al\udcffice"),
        ("context", "save", "x\udcffy", "--project", "p", "--action-type", "decision"),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_a_byte_that_is_not_utf8_is_named(vault, brain, args):
    message = one_line(brain(*args), code=2)
    assert "\\xff" in message and message.endswith("is not UTF-8 text; give it in UTF-8")
    assert not list((vault.root / "notes").glob("*")) and not list((vault.root / "facts").glob("*"))


LONG = "/tmp/" + "a" * 300 + "/x"


@pytest.mark.parametrize(
    "args",
    [
        ("graph", "export", "-o", LONG),
        ("run", "record", "-f", LONG, "--tenant", "acme"),
        ("episode", "extract", LONG),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_an_over_long_path_is_one_line(vault, brain, args):
    message = one_line(brain(*args))
    assert "too long" in message, message


def test_a_huge_folder_filter_is_no_sqlite_error(lexical, brain):
    write(lexical, "notes/a%b/Note.md", "# Note\n\nabout payments\n")
    write(lexical, "notes/axb/Other.md", "# Other\n\nabout payments\n")
    done = brain("search", "payments", "--mode", "text", "--folder", "a%" * 30000)
    assert done.exit_code == 0 and done.output == "no note matches 'payments'\n"
    only = brain("search", "payments", "--mode", "text", "--folder", "notes/a%b")
    assert "notes/a%b/Note.md" in only.output and "Other" not in only.output  # % means itself


def test_deeply_nested_values_are_refused_in_one_line(vault, brain):
    deep = "[" * 3000 + "]" * 3000
    assert one_line(brain("fact", "record", "config", "x", deep)).endswith(
        "the fact value nests more than 64 levels deep; brain does not read values nested that deeply"
    )
    assert one_line(brain("fact", "record", "config", "x", "a: " + "[" * 300 + "]" * 300)).endswith(
        "the fact value nests more than 64 levels deep; brain does not read values nested that deeply"
    )


def test_journal_lines_that_are_not_records(vault, brain):
    assert brain("fact", "record", "preference", "alice", "tea").exit_code == 0
    assert brain("fact", "recall", "alice").exit_code == 0
    journal = vault.brain_dir / "journal" / "recall.jsonl"
    first = journal.read_text()
    journal.write_text(first + "[]\n" + json.dumps({"results": [1]}) + "\n" + json.dumps({"filters": 5}) + "\n")
    doctor = brain("doctor")
    for line in (2, 3, 4):
        assert f".brain/journal/recall.jsonl:{line}: not a JSON record (edited or truncated)" in doctor.output
    listed = brain("fact", "journal")
    assert listed.exit_code == 0 and listed.output.startswith("#1 ")
    assert brain("fact", "replay", "1").exit_code in (0, 1)  # an answer, not a traceback


def test_a_name_with_a_line_break_is_echoed_on_one_line(vault, brain):
    message = one_line(brain("note", "read", "no such\nnote"))
    assert "no such\\nnote" in message


# ---------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    "args",
    [
        ("note", "edit", "U"),
        ("note", "edit", "U", "--append", "a", "--prepend", "b"),
        ("context", "save", "text", "--action-type", "research"),
        ("run", "record", "-f", "-"),
        ("run", "recall", "loan"),  # no tenant
        ("episode", "store"),  # neither --file nor --session, --task and --outcome
        ("fact", "record", "preference", "theme", "dark", "--file", "-"),  # the value twice
    ],
)
def test_usage_errors_exit_2(brain, vault, args) -> None:
    write(vault, "notes/U.md", "# U\n")
    result = brain(*args, input=json.dumps(LOAN))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert (vault.root / "notes/U.md").read_text() == "# U\n"
