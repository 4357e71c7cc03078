"""The catalog: incremental scans, moves, deletes, skipped files, the stored parsed form, the
Corpus reading from it, and concurrent indexers in separate processes.

Plumbing tests: the deterministic lexical embedder (config `embedder = "lexical"`), real SQLite,
real embedded Chroma.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.errors import IndexMismatch, Remedy
from brain.index.catalog import codec, schema
from brain.index.catalog.catalog import SCHEMA_VERSION, Catalog
from brain.index.engine import open_index
from brain.index.sync import reading
from brain.index.sync.scan import scan
from brain.index.sync.sync import index_vault, reindex_vault
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.vault.note_files import Skip, SkipKind, parse_bytes
from tests.conftest import REPO, lexical_vault, note_text, put, state

EXAMPLE = REPO / "vault-example"


@pytest.fixture
def lvault(tmp_path: Path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


# ---------------------------------------------------------------- the stored parsed form


def test_codec_round_trips_every_example_note():
    for path in sorted(EXAMPLE.rglob("*.md")):
        relative = path.relative_to(EXAMPLE).as_posix()
        note = parse_bytes(path.read_bytes(), relative)
        again = codec.decode(codec.encode(note), codec.encode_frontmatter(note.frontmatter), note.text, relative)
        assert again == note, relative


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                "---\n",
                "title: x\n",
                "tags: [a, b]\n",
                "## S\n",
                "### d001: T\n",
                "- [c] o #t (x)\n",
                "## Relations\n",
                "- rel [[A|b]]\n",
                "## Causal Relationships\n",
                "- causes [[B]] (weight: 0.5)\n",
                "```\n",
                "\r\n",
                "\x00",
                "[[",
                "]]",
                "n: 1.5\n",
                "\n",
            ]
        )
        | st.text(max_size=10),
        max_size=30,
    ).map("".join)
)
def test_codec_round_trips_any_text(text):
    note = parse_note(text, "a/b.md")
    assert codec.decode(codec.encode(note), codec.encode_frontmatter(note.frontmatter), note.text, "a/b.md") == note


# ---------------------------------------------------------------- incremental scans


def test_unchanged_files_are_not_reparsed_and_touches_are_not_either(lvault, monkeypatch):
    for number in range(5):
        put(lvault, f"notes/n{number}.md", note_text(f"N{number}", f"body {number}"))
    first = index_vault(open_index(lvault), embed=False)
    assert len(first.scan.added) == 5 and first.scan.parsed == 5
    calls = []
    monkeypatch.setattr(reading, "parse_bytes", lambda data, rel: calls.append(rel) or parse_bytes(data, rel))
    again = index_vault(open_index(lvault), embed=False)
    assert again.scan.changes == 0 and again.scan.parsed == 0 and calls == []
    path = lvault.root / "notes/n1.md"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))  # stat changes, bytes do not
    touched = index_vault(open_index(lvault), embed=False)
    assert touched.scan.touched == 1 and touched.scan.parsed == 0 and calls == []
    put(lvault, "notes/n2.md", note_text("N2", "new words here"))
    edited = index_vault(open_index(lvault), embed=False)
    assert edited.scan.changed == ["notes/n2.md"] and calls == ["notes/n2.md"]


def test_moved_file_keeps_its_identity_and_vectors(lvault):
    put(lvault, "notes/a.md", note_text("Alpha", "## Part\nsome words about alpha\n## Other\nmore"))
    index_vault(open_index(lvault))
    index = open_index(lvault)
    before = index.catalog.stamps()["notes/a.md"].id
    (lvault.root / "archive").mkdir()
    os.replace(lvault.root / "notes/a.md", lvault.root / "archive/a.md")
    report = index_vault(open_index(lvault), catch_up=True)  # Chroma's records written at once, not behind
    assert report.scan.moved == [("notes/a.md", "archive/a.md")] and not report.scan.added and not report.scan.removed
    assert index.catalog.stamps()["archive/a.md"].id == before
    assert report.embed.embedded == 0 and report.embed.kept > 0  # same title, same chunks: nothing re-embedded
    metas = index.vectors.collection().get(include=["metadatas"])["metadatas"]
    assert {meta["path"] for meta in metas} == {"archive/a.md"}


def test_deleted_note_leaves_fts_and_vectors(lvault):
    put(lvault, "notes/keep.md", note_text("Keep", "ordinary words"))
    put(lvault, "notes/gone.md", note_text("Gone", "zebra quokka words"))
    index_vault(open_index(lvault))
    index = open_index(lvault)
    assert index.catalog.db.execute("SELECT COUNT(*) FROM fts WHERE fts MATCH 'quokka'").fetchone()[0] == 1
    count = index.vectors.count()
    (lvault.root / "notes/gone.md").unlink()
    report = index_vault(open_index(lvault), catch_up=True)  # Chroma's records deleted at once, not behind
    assert report.scan.removed == ["notes/gone.md"] and report.embed.deleted >= 1
    assert index.catalog.db.execute("SELECT COUNT(*) FROM fts WHERE fts MATCH 'quokka'").fetchone()[0] == 0
    assert index.vectors.count() == count - report.embed.deleted
    assert all(
        meta["path"] == "notes/keep.md" for meta in index.vectors.collection().get(include=["metadatas"])["metadatas"]
    )
    assert (
        index.catalog.db.execute(
            "SELECT COUNT(*) FROM chunks c LEFT JOIN notes n ON n.id = c.note_id WHERE n.id IS NULL"
        ).fetchone()[0]
        == 0
    )


def test_bad_files_are_skipped_or_flagged_never_fatal(lvault, tmp_path):
    put(lvault, "notes/fine.md", note_text("Fine", "ok"))
    (lvault.root / "notes/binary.md").write_bytes(b"\x00\xff\xfe" * 50)
    (lvault.root / "notes/latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    (lvault.root / "notes/link.md").symlink_to(outside)
    (lvault.root / "notes/loop-a.md").symlink_to(lvault.root / "notes/loop-b.md")  # unreadable even for root
    (lvault.root / "notes/loop-b.md").symlink_to(lvault.root / "notes/loop-a.md")
    report = index_vault(open_index(lvault))
    index = open_index(lvault)
    skipped = index.catalog.skipped()
    assert skipped["notes/link.md"] == Skip(SkipKind.OUTSIDE_SYMLINK, "symlink leads outside the vault; not followed")
    assert skipped["notes/binary.md"] == Skip(SkipKind.BINARY, "binary file (NUL bytes); kept out of search")
    loop = Skip(SkipKind.UNREADABLE, "cannot be read: Too many levels of symbolic links")
    assert skipped["notes/loop-a.md"] == skipped["notes/loop-b.md"] == loop
    assert (
        report.scan.skipped["notes/loop-a.md"] == loop
        and report.scan.skipped["notes/link.md"].kind is SkipKind.OUTSIDE_SYMLINK
    )
    assert "notes/fine.md" in index.catalog.stamps() and "notes/latin1.md" in index.catalog.stamps()
    assert report.embed is not None
    paths = {meta["path"] for meta in index.vectors.collection().get(include=["metadatas"])["metadatas"]}
    assert "notes/binary.md" not in paths and "notes/link.md" not in paths
    binary = next(note for note in Corpus(lvault).notes() if note.path == "notes/binary.md")
    assert any("UTF-8" in problem for problem in binary.problems)  # still a note, for doctor


def test_skipped_files_of_a_version_2_catalog_get_their_kind(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    db = sqlite3.connect(path)
    schema.MIGRATIONS[1](db)
    schema.MIGRATIONS[2](db)
    db.execute("PRAGMA user_version=2")
    reasons = {
        "a.md": "symlink leads outside the vault; not followed",
        "b.md": "binary file (NUL bytes); kept out of search",
        "c.md": "cannot be read: Permission denied",
    }
    db.executemany("INSERT INTO skipped(path, reason) VALUES(?, ?)", list(reasons.items()))
    db.commit()
    db.close()
    kinds = {p: skip.kind for p, skip in Catalog(path).skipped().items()}
    assert kinds == {"a.md": SkipKind.OUTSIDE_SYMLINK, "b.md": SkipKind.BINARY, "c.md": SkipKind.UNREADABLE}


def test_newer_schema_is_refused_with_a_reindex_hint(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(IndexMismatch, match="written by a newer brain") as refused:
        Catalog(path)
    assert refused.value.remedies == (Remedy("reindex"),)


# ---------------------------------------------------------------- the Corpus on the catalog


def test_corpus_reads_notes_from_the_catalog_without_parsing(tmp_path, monkeypatch):
    vault = lexical_vault(tmp_path / "vault")
    shutil.copytree(EXAMPLE, vault.root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".brain"))
    direct = Corpus(vault).notes()  # no index yet: read from the files, and no index is created
    assert not (vault.index_dir / "catalog.sqlite3").exists()
    index_vault(open_index(vault), embed=False)
    import brain.memory.corpus as corpus_module

    calls = []
    monkeypatch.setattr(corpus_module, "parse_bytes", lambda *a: calls.append(a) or parse_bytes(*a))
    monkeypatch.setattr(reading, "parse_bytes", lambda *a: calls.append(a) or parse_bytes(*a))
    corpus = Corpus(vault)
    assert corpus.notes() == direct and calls == []
    graph = corpus.derived  # caches survive while nothing changes
    from brain.memory.causal.graph import causal_graph

    built = causal_graph(corpus)
    assert causal_graph(corpus) is built
    put(vault, "notes/new.md", note_text("Brand New", "text"))
    assert corpus.get("Brand New").path == "notes/new.md" and len(calls) == 1
    assert "causal_graph" not in graph


def test_corpus_sees_brain_writes_through_the_sync_hook(lvault):
    from brain.index.sync.attach import attach
    from brain.index.vault_index import VaultIndex

    put(lvault, "notes/a.md", note_text("A", "a"))
    vault_index = VaultIndex(lvault)
    index = vault_index.open()
    index_vault(index, embed=False)
    attach(lvault, vault_index)
    lvault.write("notes/b.md", note_text("B", "b"), create=True)
    assert "notes/b.md" in index.catalog.stamps()  # at once, before any scan
    lvault.move("notes/b.md", "archive/b.md")
    assert "archive/b.md" in index.catalog.stamps() and "notes/b.md" not in index.catalog.stamps()
    lvault.delete("archive/b.md")
    assert set(index.catalog.stamps()) == {"notes/a.md"}


def test_cached_stamps_follow_our_own_commits_and_reload_after_anyone_elses(lvault):
    for n in range(6):
        put(lvault, f"notes/n{n}.md", note_text(f"N{n}", "word"))
    index = open_index(lvault)
    catalog = index.catalog
    scan(index)
    first = catalog.stamps()
    # Several commits of our own in a row (as a scan's batches are): the cache is patched once, when asked.
    put(lvault, "notes/n0.md", note_text("N0", "changed"))
    (lvault.root / "notes/n1.md").unlink()
    put(lvault, "notes/n9.md", note_text("N9", "new"))
    scan(index, paths=["notes/n0.md"])
    scan(index, paths=["notes/n1.md", "notes/n9.md"])
    assert catalog.stamps() == Catalog(catalog.path).stamps() and first["notes/n1.md"].id not in {
        s.id for s in catalog.stamps().values()
    }
    assert "notes/n1.md" in first  # a dict already handed out is never changed
    # Another connection's commit in between: the next stamps are read again, not patched.
    other = Catalog(catalog.path)
    with other.write():
        other.remove(other.stamps()["notes/n2.md"].id)
    put(lvault, "notes/n3.md", note_text("N3", "changed"))
    scan(index, paths=["notes/n3.md"])
    assert catalog.stamps() == Catalog(catalog.path).stamps() and "notes/n2.md" not in catalog.stamps()


# ---------------------------------------------------------------- concurrency


WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from brain.vault.vault import Vault
    from brain.index.engine import open_index
    from brain.index.vault_index import VaultIndex
    from brain.index.sync.attach import attach
    from brain.index.sync.sync import index_vault
    vault = Vault(Path(sys.argv[1]))
    role = sys.argv[2]
    if role == "writer":
        attach(vault, VaultIndex(vault))
        for n in range(40):
            vault.write(f"w/{sys.argv[3]}-{n}.md", f"---\\ntitle: W{sys.argv[3]}{n}\\n---\\nwords {n}\\n")
            if n % 10 == 0:
                vault.delete(f"seed/s{n + (5 if sys.argv[3] == 'y' else 0)}.md")
    else:
        index = open_index(vault)
        for _ in range(4):
            index_vault(index)
            time.sleep(0.05)
    """
)


def test_two_indexers_and_writers_in_parallel_end_equal_to_a_fresh_reindex(lvault):
    for n in range(60):
        put(lvault, f"seed/s{n}.md", note_text(f"S{n}", f"seed text {n}\n## Part\nmore {n}"))
    index_vault(open_index(lvault))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(lvault.root), role, tag], env=env)
        for role, tag in (("indexer", "a"), ("indexer", "b"), ("writer", "x"), ("writer", "y"))
    ]
    for proc in procs:
        assert proc.wait(timeout=180) == 0
    index_vault(open_index(lvault))  # the writers' last changes (a writer's hook may have run before an indexer's scan)
    after = state(lvault)
    assert len(after["notes"]) == 60 - 8 + 80 and after["pending"] == []
    reindex_vault(open_index(lvault))
    assert state(lvault) == after
    assert scan(open_index(lvault)).changes == 0


def test_an_older_schema_is_migrated_step_by_step(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX notes_filter")  # undo steps 2 and 3
    db.execute("ALTER TABLE skipped DROP COLUMN kind")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    catalog = Catalog(path)
    assert catalog.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert catalog.db.execute("SELECT name FROM sqlite_master WHERE name = 'notes_filter'").fetchone()
