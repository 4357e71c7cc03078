"""Catalog and vectors agree, or `status` and `doctor` say they do not and `brain index` repairs it.

Also: a copied vault on a Chroma server gets a collection of its own; a moved one keeps its vectors.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from brain.index.engine import open_index
from brain.index.sync.sync import update_paths
from brain.index.vectors.identity import collection_name, is_copy, vault_identity
from brain.index.vectors.vectors import STAMP_KEY, record_id
from brain.memory.search.service import search
from brain.vault.vault import Vault
from tests.conftest import REPO, lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("A", "## One\nalpha words\n## Two\nbeta words"))
    put(vault, "notes/b.md", note_text("B", "gamma words"))
    assert "3 chunks embedded" in brain(vault, "index")
    yield vault


def brain(vault: Vault, *args: str) -> str:
    result = run_brain(*args, "--vault", str(vault.root))
    assert result.exit_code == 0, result.output
    return result.output


def status_line(vault: Vault) -> str:
    return next(line for line in brain(vault, "status").splitlines() if line.startswith("index"))


def assert_repaired(vault: Vault, lost: int, embedded: int) -> None:
    """doctor names the loss, `brain index` embeds the notes that lost vectors, and all is fresh again."""
    assert "stale-index     .brain/index: the vector store lacks" in brain(vault, "doctor")
    line = brain(vault, "index").strip()
    assert line.endswith(
        f"vectors: {embedded} chunks embedded, 0 unchanged, 0 deleted (lexical-hash-v1:384); "
        f"{lost} of them had been lost from the vector store"
    )
    assert status_line(vault).startswith("index     up to date")
    assert "stale-index" not in brain(vault, "doctor")
    assert json.loads(brain(vault, "status", "--json"))["vectors_missing"] == 0
    hits = json.loads(brain(vault, "search", "alpha", "--json"))
    assert hits["results"][0]["path"] == "notes/a.md" if isinstance(hits, dict) else hits[0]["path"] == "notes/a.md"


def test_a_deleted_vector_store_is_reported_and_embedded_again(vault):
    shutil.rmtree(vault.index_dir / "chroma")
    assert status_line(vault).startswith(
        "index     the vector store lacks 3 of 3 chunks (2 notes); run `brain index` to repair it"
    )
    found = json.loads(brain(vault, "status", "--json"))
    assert not (vault.index_dir / "chroma").exists()  # status only reads: it made no empty store
    assert (found["fresh"], found["vectors_missing"], found["vectors_missing_notes"], found["vectors_extra"]) == (
        False,
        3,
        2,
        0,
    )
    assert_repaired(vault, 3, 3)


def test_records_lost_from_the_collection_are_embedded_again(vault):
    collection = open_index(vault).vectors.collection(create=False)
    a_id = open_index(vault).catalog.db.execute("SELECT id FROM notes WHERE path = 'notes/a.md'").fetchone()[0]
    collection.delete(
        ids=[next(record for record in collection.get(include=[])["ids"] if record.startswith(f"{a_id}:"))]
    )
    assert status_line(vault).startswith("index     the vector store lacks 1 of 3 chunks (1 note)")
    assert_repaired(vault, 1, 2)  # the note that lost one of its two chunks is embedded again whole


def test_records_the_catalog_does_not_know_are_dropped(vault):
    store = open_index(vault).vectors
    store.collection().upsert(ids=["999:stray"], embeddings=[[0.1] * store.dim], metadatas=[{"path": "gone.md"}])
    assert status_line(vault).startswith(
        "index     the vector store holds 1 chunk the catalog does not know; run `brain index`"
    )
    assert "the vector store holds 1 chunk the catalog does not know" in brain(vault, "doctor")
    assert (
        brain(vault, "index")
        .strip()
        .endswith("vectors: 0 chunks embedded, 0 unchanged, 1 deleted (lexical-hash-v1:384)")
    )
    assert status_line(vault).startswith("index     up to date")
    assert store.record_ids() == {record for record in store.record_ids() if not record.startswith("999:")}


def test_a_changed_vault_id_finds_its_collection_empty_and_refills_it(vault):
    (vault.brain_dir / "vault-id").write_text("someone-else-0123456789\n")
    assert status_line(vault).startswith("index     the vector store lacks 3 of 3 chunks (2 notes)")
    assert_repaired(vault, 3, 3)


# ---------------------------------------------------------------- the check without opening Chroma

# `brain status` and `brain index` in a process of their own, which then says whether it imported chromadb.
STATUS_AND_INDEX = """
import sys
from typer.testing import CliRunner
from brain.cli import app
for command in ("status", "index"):
    print(CliRunner().invoke(app, [command, "--vault", sys.argv[1]], catch_exceptions=False).output, end="")
print("chromadb imported:", "chromadb" in sys.modules)
"""

# Another process deletes records straight through chromadb, behind brain's back.
RAW_DELETE = """
import sys
import chromadb
client = chromadb.PersistentClient(path=sys.argv[1])
client.get_collection(sys.argv[2]).delete(ids=sys.argv[3:])
"""


def python(script: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def status_and_index_elsewhere(vault: Vault) -> tuple[str, str, bool]:
    """(the status index line, the index summary, whether chromadb was imported) from another process."""
    output = python(STATUS_AND_INDEX, str(vault.root)).splitlines()
    index_line = next(line for line in output if line.startswith("index"))
    return index_line, output[-2], output[-1] == "chromadb imported: True"


def test_an_unchanged_store_is_trusted_without_opening_chroma(vault):
    index_line, summary, imported = status_and_index_elsewhere(vault)  # the stamp brain's own writes recorded
    assert index_line.startswith("index     up to date") and summary.endswith(
        "vectors: 0 chunks embedded, 0 unchanged, 0 deleted (lexical-hash-v1:384)"
    )
    assert not imported

    catalog = open_index(vault).catalog
    catalog.put_meta(STAMP_KEY, None)  # no stamp: the next check is a full one, and records it
    generation = catalog.generation()
    assert status_line(vault).startswith("index     up to date")
    assert (
        catalog.get_meta(STAMP_KEY) is not None and catalog.generation() == generation
    )  # bookkeeping, not a catalog change
    assert not status_and_index_elsewhere(vault)[2]

    assert "3 chunks embedded" in brain(vault, "reindex")  # the store emptied by brain, then filled by it
    index_line, summary, imported = status_and_index_elsewhere(vault)
    assert index_line.startswith("index     up to date") and " 0 chunks embedded" in summary and not imported


def lose_a_record_elsewhere(vault: Vault) -> None:
    """Delete one of notes/a.md's two records through chromadb in another process."""
    index = open_index(vault)
    a_id = index.catalog.db.execute("SELECT id FROM notes WHERE path = 'notes/a.md'").fetchone()[0]
    chunk = next(chunk for note, chunk in index.catalog.chunk_ids() if note == a_id)
    name = index.vectors.name
    python(RAW_DELETE, str(vault.index_dir / "chroma"), name, record_id(a_id, chunk))


def test_records_deleted_by_another_process_are_found_after_the_stamp_was_recorded(vault):
    assert not status_and_index_elsewhere(vault)[2]  # trusted by its stamp
    lose_a_record_elsewhere(vault)
    assert status_line(vault).startswith("index     the vector store lacks 1 of 3 chunks (1 note)")
    assert_repaired(vault, 1, 2)
    index_line, summary, imported = status_and_index_elsewhere(vault)  # the repair vouched for the store again
    assert index_line.startswith("index     up to date") and " 0 chunks embedded" in summary and not imported


def test_brains_own_write_after_someone_elses_change_vouches_for_nothing(vault):
    lose_a_record_elsewhere(vault)
    put(vault, "notes/c.md", note_text("C", "delta words"))
    update_paths(open_index(vault), ["notes/c.md"])  # a write through brain embeds c, but cannot vouch for the loss
    assert status_line(vault).startswith("index     the vector store lacks 1 of 4 chunks (1 note)")
    assert_repaired(vault, 1, 2)


# ---------------------------------------------------------------- copies and moves on a server


def test_which_folder_is_a_copy(tmp_path):
    original = lexical_vault(tmp_path / "original").root
    identity = vault_identity(original)
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    assert vault_identity(copy) == identity
    assert is_copy(str(original), copy)  # the original still exists with the same id
    assert not is_copy(str(copy), copy) and not is_copy(None, copy)  # its own claim, or none
    (original / ".brain" / "vault-id").write_text("renewed-0123456789\n")
    assert not is_copy(str(original), copy)  # the other folder has another id now: not ours
    shutil.rmtree(original)
    assert not is_copy(str(original), copy)  # the claimer is gone: this is a move


def test_a_copied_vault_gets_its_own_collection_and_a_moved_one_keeps_its_vectors(tmp_path, chroma_server):
    original = lexical_vault(tmp_path / "original")
    config = original.brain_dir / "config.toml"
    config.write_text(
        config.read_text().replace('# chroma_url = "http://127.0.0.1:8000"', f'chroma_url = "{chroma_server}"')
    )
    put(original, "notes/a.md", note_text("A", "## One\nalpha words\n## Two\nbeta words"))
    put(original, "notes/b.md", note_text("B", "gamma words"))
    assert "3 chunks embedded" in brain(original, "index")
    identity = vault_identity(original.root)

    copy = Vault(tmp_path / "copy")
    shutil.copytree(original.root, copy.root)
    # The copy's catalog says 3 chunks are embedded; its vectors would be the original's.
    assert status_line(copy).startswith("index     the vector store lacks 3 of 3 chunks (2 notes)")
    assert vault_identity(copy.root) != identity
    assert "3 chunks embedded" in brain(copy, "index")
    put(copy, "notes/c.md", note_text("C", "only in the copy"))
    assert "1 chunk embedded" in brain(copy, "index")
    assert status_line(original).startswith("index     up to date")  # the original's collection is untouched
    assert open_index(original).vectors.count() == 3 and open_index(copy).vectors.count() == 4
    runs = {
        open_index(vault).vectors.other_collection("runs").name for vault in (original, copy)
    }  # recorded runs' vectors too
    assert runs == {collection_name(original.root, "runs"), collection_name(copy.root, "runs")} and len(runs) == 2

    moved = Vault(tmp_path / "moved")
    shutil.move(original.root, moved.root)
    assert status_line(moved).startswith("index     up to date")
    assert vault_identity(moved.root) == identity
    assert "0 chunks embedded, 0 unchanged, 0 deleted" in brain(moved, "index")


def test_a_moved_vault_keeps_its_vectors(tmp_path):
    """After `mv`, vector search finds what it found before (the collection's name is not the path's hash)."""
    first = lexical_vault(tmp_path / "before")
    put(first, "notes/a.md", "# Alpha\n\nquartz lattice resonance\n")
    assert run_brain("index", "--vault", str(first.root)).exit_code == 0
    before = collection_name(first.root, "lexical")
    moved = tmp_path / "after"
    first.root.rename(moved)
    hits = search(open_index(Vault(moved)), "quartz lattice resonance", mode="vector")
    assert [hit.path for hit in hits] == ["notes/a.md"]
    assert collection_name(moved, "lexical") == before  # the same vectors, nothing re-embedded
