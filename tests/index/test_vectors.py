"""The vector store: only new chunks are embedded, embedders never mix, reindex starts clean."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from brain.errors import IndexMismatch, Remedy
from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault, reindex_vault
from brain.index.vectors.identity import collection_name
from brain.memory.search.service import search
from tests.conftest import REPO, lexical_vault, note_text, put


class Counting(LexicalFallbackEmbedder):
    """The lexical embedder, counting what it is asked to embed."""

    def __init__(self, dim: int = 384):
        super().__init__(dim)
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


def test_only_changed_chunks_are_embedded(vault):
    embedder = Counting()
    index = open_index(vault, embedder=embedder)
    put(vault, "notes/a.md", note_text("A", "## One\nfirst part\n## Two\nsecond part\n## Three\nthird part"))
    put(vault, "notes/b.md", note_text("B", "## One\nother note"))
    first = index_vault(index)
    assert first.embed.embedded == len(embedder.texts) == 4  # a: One, Two, Three; b: One
    embedder.texts.clear()
    assert index_vault(index).embed.embedded == 0 and embedder.texts == []
    put(vault, "notes/a.md", note_text("A", "## One\nfirst part\n## Two\nsecond part, edited\n## Three\nthird part"))
    report = index_vault(index)
    assert report.embed.embedded == 1 and report.embed.kept == 2 and report.embed.deleted == 1
    assert len(embedder.texts) == 1 and "edited" in embedder.texts[0]


def test_a_different_embedder_is_refused_with_a_reindex_hint(vault):
    put(vault, "notes/a.md", note_text("A", "alpha words"))
    index_vault(open_index(vault))
    index = open_index(vault, embedder=LexicalFallbackEmbedder(dim=128))  # another id: lexical-hash-v1:128
    with pytest.raises(IndexMismatch) as refused:
        search(index, "alpha", mode="vector")
    assert refused.value.remedies == (Remedy("reindex"),)
    with pytest.raises(IndexMismatch) as refused:
        index_vault(index)
    assert refused.value.remedies == (Remedy("reindex"),)
    assert [hit.path for hit in search(index, "alpha", mode="text")] == ["notes/a.md"]  # words need no vectors
    report = reindex_vault(index)
    assert report.embed.embedded == 1
    assert [hit.path for hit in search(index, "alpha", mode="vector")] == ["notes/a.md"]
    names = [c if isinstance(c, str) else c.name for c in index.vectors._client.list_collections()]
    assert names == [collection_name(vault.root, "lexical-hash-v1:128")]  # the old embedder's collection is gone


def test_reindex_rebuilds_from_the_notes_alone(vault):
    put(vault, "notes/a.md", note_text("A", "alpha"))
    put(vault, "notes/b.md", note_text("B", "beta"))
    index_vault(open_index(vault))
    index = open_index(vault)
    count = index.vectors.count()
    report = reindex_vault(open_index(vault))
    assert len(report.scan.added) == 2 and index.vectors.count() == count
    no_embed = reindex_vault(open_index(vault), embed=False)
    assert no_embed.embed is None and open_index(vault).vectors.count() == 0
    assert len(open_index(vault).catalog.pending_vectors()) == 2


def test_a_reindex_in_another_process_is_seen_by_this_one(vault):
    put(vault, "notes/a.md", note_text("A", "alpha words"))
    index = open_index(vault)
    index_vault(index)
    assert [hit.path for hit in search(index, "alpha", mode="vector")] == ["notes/a.md"]
    put(vault, "notes/b.md", note_text("B", "beta words"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(
        [sys.executable, "-m", "brain", "reindex", "--vault", str(vault.root)], env=env, check=True, capture_output=True
    )
    # this process's embedded Chroma client is closed and opened again on the new collection
    assert [hit.path for hit in search(index, "beta", mode="vector", limit=1)] == ["notes/b.md"]
    assert index.vectors.collection().count() == 2


def test_vectors_of_another_chunking_version_are_made_again(vault, monkeypatch):
    """When chunking.CHUNKING_VERSION moves (the texts chunks embed changed), a vault embedded with
    the old texts is re-chunked on the next open: every note pending (a search says so), `brain
    index` re-embeds only the chunks whose text changed, and the new version is remembered."""
    import brain.index.engine as engine
    import brain.index.sync.embedding as embedding
    import brain.index.vectors.chunking as chunking
    import brain.index.vectors.vectors as vectors
    from brain.index.vectors.vectors import CHUNKING_KEY
    from brain.memory.search.service import search_report

    embedder = Counting()
    index = open_index(vault, embedder=embedder)
    put(vault, "notes/a.md", note_text("A", "## One\nfirst part\n## Two\nsecond part"))
    put(vault, "notes/b.md", note_text("B", "## One\nother note"))
    for note in range(2, 120):  # over search's embed-at-once budget: the rest waits for `brain index`
        put(vault, f"notes/n{note}.md", note_text(f"N{note}", f"## One\nfiller {note}"))
    index_vault(index)
    assert index.catalog.get_meta(CHUNKING_KEY) == chunking.CHUNKING_VERSION
    index.close()  # the next brain opens it anew
    later = str(int(chunking.CHUNKING_VERSION) + 1)

    # the next brain embeds a note's first section with a marker: only a's and b's "One" chunks change
    def chunk_note(note, *args, **kwargs):
        chunks = chunking.chunk_note(note, *args, **kwargs)
        if note.path not in ("notes/a.md", "notes/b.md"):
            return chunks
        first = chunks[0]
        return [
            type(first)(first.id + "2", first.ord, first.section, first.start, first.end, "v2 " + first.text),
            *chunks[1:],
        ]

    monkeypatch.setattr(embedding, "chunk_note", chunk_note)
    for module in (engine, vectors):
        monkeypatch.setattr(module, "CHUNKING_VERSION", later)
    index = open_index(vault, embedder=embedder)
    assert len(index.catalog.pending_vectors()) == 120 and index.catalog.get_meta(CHUNKING_KEY) == later
    assert search_report(index, "second part", mode="vector").pending == 120  # said, not silently mixed
    embedder.texts.clear()
    report = index_vault(index)
    assert index.catalog.pending_vectors() == [] and report.embed.notes == 120
    assert sorted(embedder.texts) == ["v2 A: One\nfirst part", "v2 B: One\nother note"]
    assert report.embed.embedded == 2 and report.embed.deleted == 2 and report.embed.kept == 119
    assert open_index(vault, embedder=embedder).catalog.pending_vectors() == []  # the version is remembered
