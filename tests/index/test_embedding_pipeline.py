"""The first index: progress counts chunks, an interrupted run is taken up where it stopped, and
`brain status` says how far embedding has come."""

from __future__ import annotations

import io

import pytest

from brain.cli.progress import Bar, clock, progress_line
from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.index.engine import open_index
from brain.index.sync import embedding
from brain.index.sync.sync import index_vault
from tests.conftest import lexical_vault, note_text, put, run_brain


class Counting(LexicalFallbackEmbedder):
    """The lexical embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


def three_sections(vault, count: int) -> None:
    for n in range(count):
        body = f"## One\nfirst part of note {n}\n## Two\nsecond part {n}\n## Three\nthird part {n}"
        put(vault, f"notes/n{n:02d}.md", note_text(f"Note {n}", body))


def test_progress_counts_chunks(vault):
    three_sections(vault, 4)  # 4 notes x 3 sections
    index = open_index(vault, embedder=Counting())
    calls: list[tuple[str, int, int]] = []
    index_vault(index, progress=lambda *call: calls.append(call))
    assert calls == [
        ("notes", 0, 4),
        ("notes", 4, 4),
        ("chunking", 0, 4),
        ("chunking", 4, 4),
        ("embedding", 0, 12),
        ("embedding", 12, 12),
    ]


def test_progress_follows_each_batch_of_the_model(vault, real_embedder):
    three_sections(vault, 12)  # 36 chunks: batches of 32 and 4
    index = open_index(vault, embedder=real_embedder)
    calls: list[tuple[str, int, int]] = []
    report = index_vault(index, progress=lambda *call: calls.append(call))
    assert report.embed.embedded == 36
    assert [call for call in calls if call[0] == "embedding"] == [
        ("embedding", 0, 36),
        ("embedding", 32, 36),
        ("embedding", 36, 36),
    ]


def test_an_interrupted_index_goes_on_where_it_stopped(vault, monkeypatch):
    monkeypatch.setattr(embedding, "WINDOW", 6)  # windows of two notes (3 chunks each)
    three_sections(vault, 10)  # 30 chunks in 5 windows
    embedder = Counting()
    index = open_index(vault, embedder=embedder)

    def stop_in_the_third_window(stage: str, done: int, total: int) -> None:
        if stage == "embedding" and done >= 18:
            raise KeyboardInterrupt  # what Ctrl-C raises

    with pytest.raises(KeyboardInterrupt):
        index_vault(index, progress=stop_in_the_third_window)
    catalog = index.catalog
    assert len(embedder.texts) == 18  # the model ran three windows
    assert catalog.embedded_chunk_count() == 12  # two were written; the third was lost with the stop
    assert len(catalog.pending_vectors()) == 6

    status = run_brain("status", "--vault", str(vault.root))
    assert "vectors   12 of 30 chunks embedded in " in status.output
    assert "0 files changed and 6 notes without vectors since the last index" in status.output

    embedder.texts.clear()
    report = index_vault(index)
    assert report.embed.embedded == len(embedder.texts) == 18  # the rest, nothing twice
    assert report.embed.notes == 6
    assert catalog.embedded_chunk_count() == catalog.chunk_count() == 30
    assert index.vectors.count() == 30
    status = run_brain("status", "--vault", str(vault.root))
    assert "vectors   30 chunks in " in status.output


def test_status_before_any_vector(vault):
    three_sections(vault, 2)
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    status = run_brain("status", "--vault", str(vault.root))
    vectors = next(line for line in status.output.splitlines() if line.startswith("vectors"))
    assert (
        vectors
        == f"vectors   0 chunks embedded in {vault.root}/.brain/index/chroma (embedded Chroma) (2 notes not yet)"
    )


def test_progress_line():
    assert progress_line("embedding", 0, 3200, 0.0, "chunks") == "embedding [------------------------] 0/3,200 chunks"
    assert (
        progress_line("embedding", 1234, 3200, 30.0, "chunks")
        == "embedding [#########---------------] 1,234/3,200 chunks  41.1/s  0:48 left"
    )
    assert progress_line("embedding", 3200, 3200, 75.0, "chunks") == (
        "embedding [########################] 3,200/3,200 chunks  42.7/s  in 1:15"
    )
    assert (
        progress_line("scanning", 55, 55, 0.2, "notes") == "scanning  [########################] 55/55 notes  in 0:00"
    )
    assert (
        progress_line("embedding", 10, 100, 0.5) == "embedding [##----------------------] 10/100"
    )  # too soon for a rate
    assert [clock(s) for s in (0, 59.6, 61, 3599, 3723)] == ["0:00", "1:00", "1:01", "59:59", "1:02:03"]


def test_bar_draws_in_place_and_ends_its_line():
    stream = io.StringIO()
    bar = Bar(stream, "embedding", "chunks")
    bar.update(0, 3)
    bar.update(3, 3)
    bar.close()  # already closed by the last step: no second newline
    assert stream.getvalue() == (
        "\rembedding [------------------------] 0/3 chunks\rembedding [########################] 3/3 chunks  in 0:00\n"
    )
