"""Issue 10 item 12 and issue 9: bad config, busy locks, an unreachable Chroma and bad arguments
each get one line naming what is wrong, never a traceback, and leave every file as it was."""

from __future__ import annotations

import socket

import pytest
from filelock import FileLock

from brain.index import engine
from brain.index.engine import forget
from tests.conftest import write


@pytest.fixture(autouse=True)
def _forget_indexes(vault):
    yield
    forget(vault.root)


def _config(vault, body: str) -> None:
    (vault.brain_dir / "config.toml").write_text("[index]\n" + body + "\n", encoding="utf-8")


def _one_line_error(result, *parts: str) -> str:
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "body, parts",
    [
        ('embedder = "bogus"', ("embedder", "'bogus'", "default, minilm, e5-small, lexical")),
        ("embedder = 3", ("embedder", "3", "default, minilm, e5-small, lexical")),
        ('chroma_url = "ftp://example.org"', ("chroma_url", "'ftp://example.org'", "http://127.0.0.1:8000")),
        ('chroma_url = "http://127.0.0.1:99999"', ("chroma_url", "99999", "port")),
        ('model_path = "/no/such/model"', ("model_path", "'/no/such/model'", "model.onnx")),
    ],
)
def test_invalid_config_values_are_one_line_errors(vault, brain, body, parts):
    _config(vault, body)
    line = _one_line_error(brain("index", "--no-embed"), *parts)
    assert "config.toml" in line
    assert not (vault.index_dir / "catalog.sqlite3").exists()


def test_an_index_lock_held_too_long_is_a_one_line_error(vault, brain, monkeypatch):
    brain("index", "--no-embed")
    forget(vault.root)
    monkeypatch.setattr(engine, "LOCK_TIMEOUT", 0.2)
    with FileLock(str(vault.index_dir / "index.lock")):
        write(vault, "notes/a.md", "# A\n")
        _one_line_error(brain("index", "--no-embed"), "index.lock", "another brain process")


def test_a_second_watcher_is_refused_at_once(vault, brain):
    """Item 12: a second `brain watch` ran a full index, then died on a filelock.Timeout traceback."""
    brain("index", "--no-embed")
    write(vault, "notes/new.md", "# New\n")
    forget(vault.root)
    with FileLock(str(vault.index_dir / "watch.lock")):
        _one_line_error(brain("watch", "--no-embed"), "already watching", str(vault.root))
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
    _one_line_error(brain("index", "--chroma-url", url), url, "Chroma server")
    forget(vault.root)
    brain("index", "--no-embed")
    forget(vault.root)
    _config(vault, f'embedder = "lexical"\nchroma_url = "{url}"')
    _one_line_error(brain("search", "alpha", "--mode", "vector"), url)


def test_graph_export_into_a_missing_folder_or_onto_a_folder(vault, brain, tmp_path):
    _one_line_error(
        brain("graph", "export", "--output", str(tmp_path / "missing" / "g.md")), "missing", "does not exist"
    )
    _one_line_error(brain("graph", "export", "--output", str(tmp_path)), str(tmp_path), "is a folder")


def test_export_into_an_unwritable_place(vault, brain):
    _one_line_error(brain("export", "ai-agents", "/proc/x"), "/proc/x")


@pytest.mark.parametrize("port", ["99999", "-1", "0"])
def test_mcp_port_out_of_range(brain, port):
    result = brain("mcp", "--http", "--port", port)
    assert result.exit_code == 2
    assert "Invalid value for '--port'" in result.stderr


def test_a_public_host_needs_a_token_and_an_empty_token_is_refused(brain, monkeypatch):
    """Item 13: a non-loopback --host served without a token; an empty BRAIN_MCP_TOKEN disabled auth."""
    monkeypatch.delenv("BRAIN_MCP_TOKEN", raising=False)
    _one_line_error(brain("mcp", "--http", "--host", "0.0.0.0"), "0.0.0.0", "BRAIN_MCP_TOKEN", "--insecure")
    monkeypatch.setenv("BRAIN_MCP_TOKEN", "  ")
    _one_line_error(brain("mcp", "--http"), "BRAIN_MCP_TOKEN is set but empty")


@pytest.mark.parametrize("folder", [".git", ".obsidian", "templates", "node_modules", ".hidden", "a/.secret"])
def test_notes_cannot_be_written_or_moved_where_brain_cannot_read_them(vault, brain, folder):
    """Item 11: a note written into .git or templates succeeded, then `note read` could not find it."""
    _one_line_error(brain("note", "write", "Lost", "--folder", folder), folder.split("/")[-1], "does not read")
    brain("note", "write", "Kept")
    _one_line_error(brain("note", "move", "Kept", folder), folder.split("/")[-1], "does not read")
    assert brain("note", "read", "Kept").exit_code == 0


def test_long_folder_names_and_line_breaks_in_titles(vault, brain):
    _one_line_error(brain("note", "write", "T", "--folder", "x" * 300), "255-byte")
    _one_line_error(brain("note", "write", "two\nlines"), "'title' must be one line")


def test_nfc_and_nfd_titles_make_one_note(vault, brain):
    brain("note", "write", "Cafe\u0301")  # NFD
    assert brain("note", "write", "Caf\u00e9").exit_code == 1  # NFC: the same note, not a second one
    assert sorted(p.name for p in (vault.root / "notes").iterdir()) == ["Caf\u00e9.md"]


def test_a_moved_vault_keeps_its_vectors(tmp_path, brain):
    """Item 7: after `mv`, vector search returned nothing (the collection name hashed the path)."""
    from brain.index.engine import open_index
    from brain.index.search import search
    from brain.index.vectors.identity import collection_name
    from brain.vault import Vault
    from tests.conftest import lexical_vault

    first = lexical_vault(tmp_path / "before")
    write(first, "notes/a.md", "# Alpha\n\nquartz lattice resonance\n")
    assert brain("index", "--vault", str(first.root)).exit_code == 0
    before = collection_name(first.root, "lexical")
    forget(first.root)
    moved = tmp_path / "after"
    first.root.rename(moved)
    hits = search(open_index(Vault(moved)), "quartz lattice resonance", mode="vector")
    forget(moved)
    assert [hit.path for hit in hits] == ["notes/a.md"]
    assert collection_name(moved, "lexical") == before  # the same vectors, nothing re-embedded
