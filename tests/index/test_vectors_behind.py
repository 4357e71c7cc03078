"""The embedded Chroma store written behind (vectors/vectors.py): an edit goes to the snapshot's journal
and the catalog's list of what Chroma lacks, searches see it at once, and Chroma catches up later
(`brain index --vectors`, a large backlog, an idle watcher) to hold exactly what the catalog says.
A Chroma server is still written at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from contextlib import closing

import numpy as np
import pytest

from brain.index.engine import open_index
from brain.index.sync import sync
from brain.index.sync.consistency import check_vectors
from brain.index.sync.sync import catch_up_vectors, index_vault
from brain.index.vectors.vectors import STAMP_KEY, record_id
from brain.index.watch.watch import Watcher
from brain.vault.vault import Vault
from tests.conftest import lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("A", "## One\nalpha words\n## Two\nbeta words"))
    put(vault, "notes/b.md", note_text("B", "gamma words"))
    assert "3 chunks embedded" in brain(vault, "index")  # a first index writes Chroma as it goes
    yield vault


def brain(vault: Vault, *args: str) -> str:
    result = run_brain(*args, "--vault", str(vault.root))
    assert result.exit_code == 0, result.output
    return result.output


def chroma_records(vault: Vault) -> dict[str, dict]:
    """Every record of the vault's chunk collection, read straight from Chroma: id -> metadata."""
    with closing(open_index(vault)) as index:
        got = index.vectors.collection(create=False).get(include=["metadatas"])
        return dict(zip(got["ids"], got["metadatas"], strict=True))


def catalog_records(vault: Vault) -> set[str]:
    with closing(open_index(vault)) as index:
        return {record_id(note, chunk) for note, chunk in index.catalog.chunk_ids()}


def behind(vault: Vault) -> list[str]:
    with closing(open_index(vault)) as index:
        return index.catalog.behind()


def edit_b(vault: Vault) -> None:
    put(vault, "notes/b.md", note_text("B", "gamma words and a zebrafinch"))


def test_an_edit_leaves_chroma_behind_and_search_sees_it_at_once(vault):
    before = chroma_records(vault)
    assert set(before) == catalog_records(vault) and behind(vault) == []
    edit_b(vault)
    assert "1 chunk embedded" in brain(vault, "index")

    now = catalog_records(vault)
    new = sorted(now - set(before))
    old = sorted(set(before) - now)
    assert len(new) == 1 and len(old) == 1 and new[0].split(":")[0] == old[0].split(":")[0]
    assert chroma_records(vault) == before  # Chroma untouched
    assert behind(vault) == sorted([*new, *old])
    found = brain(vault, "search", "zebrafinch", "--mode", "vector", "--limit", "1")
    assert " 1. B  [note]  notes/b.md" in found
    assert "Chroma lacks 2 chunks written since" in brain(vault, "status")


def test_the_catch_up_makes_chroma_equal_to_the_catalog(vault):
    edit_b(vault)
    put(vault, "notes/c.md", note_text("C", "delta words"))
    (vault.root / "archive").mkdir()
    (vault.root / "notes/a.md").rename(vault.root / "archive/a.md")  # kept chunks: new metadata only
    brain(vault, "index")
    assert behind(vault)
    output = brain(vault, "index", "--vectors")
    assert "Chroma caught up: 4 written, 1 deleted" in output  # b's new chunk, c's, a's two moved; b's old
    records = chroma_records(vault)
    assert set(records) == catalog_records(vault) and behind(vault) == []
    assert sorted({meta["path"] for meta in records.values()}) == ["archive/a.md", "notes/b.md", "notes/c.md"]
    with closing(open_index(vault)) as index:
        copy = index.vectors.matrix()
        got = index.vectors.collection(create=False).get(include=["embeddings"])
        stored = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))
        held = {
            record_id(note, chunk.decode()): copy.vectors[row]
            for row, (note, chunk) in enumerate(zip(copy.notes.tolist(), copy.chunks.tolist(), strict=True))
        }
        assert held.keys() == stored.keys()
        assert max(float(np.abs(held[key] - stored[key]).max()) for key in held) < 1e-6
        assert check_vectors(index).consistent
    assert "Chroma lacks" not in brain(vault, "status")


def test_brain_index_catches_up_once_the_backlog_passes_its_size(vault, monkeypatch):
    monkeypatch.setattr(sync, "CATCH_UP_AT", 3)
    edit_b(vault)  # 2 records behind: under the size
    with closing(open_index(vault)) as index:
        assert index_vault(index).caught_up is None
    assert len(behind(vault)) == 2
    put(vault, "notes/c.md", note_text("C", "delta words"))  # 3: caught up
    with closing(open_index(vault)) as index:
        caught = index_vault(index).caught_up
    assert caught is not None and (caught.upserted, caught.deleted, caught.lost) == (2, 1, 0)
    assert set(chroma_records(vault)) == catalog_records(vault) and behind(vault) == []


KILLED_AFTER_COMMIT = textwrap.dedent(
    """
    import os, sys
    from brain.index.engine import open_index
    from brain.index.sync import embedding
    from brain.index.sync.sync import index_vault
    from brain.vault.vault import Vault

    def die(index):  # called right after each window's catalog transaction commits
        os._exit(9)

    embedding.keep_in_bounds = die
    index_vault(open_index(Vault(sys.argv[1])))
    """
)


def test_a_process_killed_between_the_journal_and_the_catch_up_loses_nothing(vault):
    before = chroma_records(vault)
    edit_b(vault)
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_COMMIT, str(vault.root)], capture_output=True)
    assert killed.returncode == 9, killed.stderr
    assert len(behind(vault)) == 2 and chroma_records(vault) == before  # committed, Chroma not written
    found = brain(vault, "search", "zebrafinch", "--mode", "vector", "--limit", "1")
    assert " 1. B  [note]  notes/b.md" in found
    assert "0 chunks embedded" in brain(vault, "index", "--vectors")  # nothing embedded again
    assert set(chroma_records(vault)) == catalog_records(vault) and behind(vault) == []


def test_the_consistency_check_counts_the_backlog_as_known(vault):
    edit_b(vault)
    brain(vault, "index")
    with closing(open_index(vault)) as index:
        check = check_vectors(index)
        assert check.consistent and check.behind == 2
        index.catalog.put_meta(STAMP_KEY, None)  # no stamp to trust: the full check, ids compared
        check = check_vectors(index)
        assert check.consistent and (check.stored, check.expected, check.behind) == (3, 3, 2)
        # damage is still damage: a record Chroma lost that it is not behind on
        lost = next(r for r in sorted(catalog_records(vault)) if r not in index.catalog.behind())
        index.vectors.collection().delete(ids=[lost])
        index.catalog.put_meta(STAMP_KEY, None)
        check = check_vectors(index)
        assert not check.consistent and check.missing == 1 and check.missing_notes == (int(lost.split(":")[0]),)


def test_a_chroma_server_is_still_written_at_once(tmp_path, chroma_server):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("A", "server side words"))
    with closing(open_index(vault, chroma_url=chroma_server)) as index:
        index_vault(index)
        put(vault, "notes/a.md", note_text("A", "server side words and a zebrafinch"))
        index_vault(index)
        assert index.catalog.behind_count() == 0
        chunks = {chunk for _, chunk in index.catalog.chunk_ids()}
        assert index.vectors.held(chunks) == chunks


def test_an_idle_watcher_brings_chroma_up_to_date(vault):
    with closing(open_index(vault)) as index:
        watcher = Watcher(index, debounce=0.05)
        watcher.idle_catch_up = 0.3
        with watcher:
            edit_b(vault)
            assert watcher.wait_idle(timeout=30)
            for _ in range(200):
                if index.catalog.behind_count() == 0 and watcher.wait_idle(timeout=30):
                    break
                watcher._stop.wait(0.05)
            assert index.catalog.behind_count() == 0
    assert set(chroma_records(vault)) == catalog_records(vault)


def test_catch_up_without_a_backlog_does_nothing(vault):
    with closing(open_index(vault)) as index:
        assert catch_up_vectors(index) is None
