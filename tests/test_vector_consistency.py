"""Catalog and vectors agree, or `status` and `doctor` say they do not and `brain index` repairs it.

Also: a copied vault on a Chroma server gets a collection of its own; a moved one keeps its vectors.
"""

from __future__ import annotations

import json
import shutil

import pytest

from brain.index.engine import forget, open_index
from brain.index.vectors import collection_name, is_copy, vault_identity
from brain.vault import Vault

from conftest import lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("A", "## One\nalpha words\n## Two\nbeta words"))
    put(vault, "notes/b.md", note_text("B", "gamma words"))
    assert "3 chunks embedded" in brain(vault, "index")
    yield vault
    forget(vault.root)


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
    assert line.endswith(f"vectors: {embedded} chunks embedded, 0 unchanged, 0 deleted (lexical-hash-v1:384); "
                         f"{lost} of them had been lost from the vector store")
    assert status_line(vault).startswith("index     up to date")
    assert "stale-index" not in brain(vault, "doctor")
    assert json.loads(brain(vault, "status", "--json"))["vectors_missing"] == 0
    hits = json.loads(brain(vault, "search", "alpha", "--json"))
    assert hits["results"][0]["path"] == "notes/a.md" if isinstance(hits, dict) else hits[0]["path"] == "notes/a.md"


def test_a_deleted_vector_store_is_reported_and_embedded_again(vault):
    forget(vault.root)  # close this process's embedded Chroma before its folder goes
    shutil.rmtree(vault.index_dir / "chroma")
    assert status_line(vault).startswith("index     the vector store lacks 3 of 3 chunks (2 notes); run `brain index` to repair it")
    found = json.loads(brain(vault, "status", "--json"))
    assert not (vault.index_dir / "chroma").exists()  # status only reads: it made no empty store
    assert (found["fresh"], found["vectors_missing"], found["vectors_missing_notes"], found["vectors_extra"]) == (False, 3, 2, 0)
    assert_repaired(vault, 3, 3)


def test_records_lost_from_the_collection_are_embedded_again(vault):
    collection = open_index(vault).vectors.collection(create=False)
    a_id = open_index(vault).catalog.db.execute("SELECT id FROM notes WHERE path = 'notes/a.md'").fetchone()[0]
    collection.delete(ids=[next(record for record in collection.get(include=[])["ids"] if record.startswith(f"{a_id}:"))])
    assert status_line(vault).startswith("index     the vector store lacks 1 of 3 chunks (1 notes)")
    assert_repaired(vault, 1, 2)  # the note that lost one of its two chunks is embedded again whole


def test_records_the_catalog_does_not_know_are_dropped(vault):
    store = open_index(vault).vectors
    store.collection().upsert(ids=["999:stray"], embeddings=[[0.1] * store.dim], metadatas=[{"path": "gone.md"}])
    assert status_line(vault).startswith("index     the vector store holds 1 chunks the catalog does not know; run `brain index`")
    assert "the vector store holds 1 chunks the catalog does not know" in brain(vault, "doctor")
    assert brain(vault, "index").strip().endswith("vectors: 0 chunks embedded, 0 unchanged, 1 deleted (lexical-hash-v1:384)")
    assert status_line(vault).startswith("index     up to date")
    assert store.record_ids() == {record for record in store.record_ids() if not record.startswith("999:")}


def test_a_changed_vault_id_finds_its_collection_empty_and_refills_it(vault):
    forget(vault.root)
    (vault.brain_dir / "vault-id").write_text("someone-else-0123456789\n")
    assert status_line(vault).startswith("index     the vector store lacks 3 of 3 chunks (2 notes)")
    assert_repaired(vault, 3, 3)


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
    config.write_text(config.read_text().replace('# chroma_url = "http://127.0.0.1:8000"', f'chroma_url = "{chroma_server}"'))
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
    assert "1 chunks embedded" in brain(copy, "index")
    assert status_line(original).startswith("index     up to date")  # the original's collection is untouched
    assert open_index(original).vectors.count() == 3 and open_index(copy).vectors.count() == 4
    runs = {open_index(vault).vectors.other_collection("runs").name for vault in (original, copy)}  # recorded runs' vectors too
    assert runs == {collection_name(original.root, "runs"), collection_name(copy.root, "runs")} and len(runs) == 2
    forget(copy.root)

    forget(original.root)
    moved = Vault(tmp_path / "moved")
    shutil.move(original.root, moved.root)
    assert status_line(moved).startswith("index     up to date")
    assert vault_identity(moved.root) == identity
    assert "0 chunks embedded, 0 unchanged, 0 deleted" in brain(moved, "index")
    forget(moved.root)
