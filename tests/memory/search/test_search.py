"""Search's plumbing: words find the note, its section and a snippet; filters apply before ranking;
edits are seen without an explicit index; bad arguments are clear errors.

The tests use the lexical embedder and run twice: on the embedded store and against a real
`chroma run` server (the `chroma_url` fixture). Ranking by meaning is in test_search_quality.py.
"""

from __future__ import annotations

import pytest

from brain.errors import InvalidInput
from brain.index.engine import open_index
from brain.memory.search.service import SearchFilters, search
from tests.conftest import lexical_vault, note_text, put


@pytest.fixture(params=["embedded", "server"])
def chroma_url(request) -> str | None:
    return request.getfixturevalue("chroma_server") if request.param == "server" else None


@pytest.fixture
def vault(tmp_path, chroma_url):
    vault = lexical_vault(tmp_path / "vault")
    open_index(vault, chroma_url=chroma_url)
    yield vault


# ---------------------------------------------------------------- plumbing (lexical embedder)


def test_words_find_the_note_section_and_snippet(vault):
    put(
        vault,
        "animals/quokka.md",
        note_text(
            "Quokka", "## Diet\nLeaves and grass.\n\n## Habitat\nThe quokka lives on Rottnest Island, off Perth."
        ),
    )
    put(vault, "animals/other.md", note_text("Wombat", "## Habitat\nBurrows in forests."))
    for mode in ("text", "hybrid", "vector"):
        hits = search(open_index(vault), "Rottnest island quokka", mode=mode, limit=5)
        assert hits[0].path == "animals/quokka.md" and hits[0].title == "Quokka" and hits[0].type == "note", mode
        assert hits[0].section == "Habitat" and "Rottnest" in hits[0].snippet and hits[0].score > 0, mode


def test_filters_apply_before_ranking(vault):
    for n in range(40):
        put(
            vault,
            f"ops/deploy-{n}.md",
            note_text(
                f"Deploy {n}",
                "deploy rollback canary deploy rollback canary release",
                type="episode",
                outcome="success",
                date="2026-03-01",
            ),
        )
    put(
        vault,
        "tips/rare.md",
        note_text(
            "Rare",
            "one mention of rollback among many other words about gardening and tomatoes",
            type="tip",
            outcome="failure",
            tags="[rare, garden]",
            date="2020-01-05",
        ),
    )
    for mode in ("text", "vector", "hybrid"):
        assert "tips/rare.md" not in [
            h.path for h in search(open_index(vault), "deploy rollback canary", mode=mode, limit=5)
        ], mode
        for filters in (
            SearchFilters(types=("tip",)),
            SearchFilters(folders=("tips",)),
            SearchFilters(tags=("rare",)),
            SearchFilters(fields=(("outcome", "failure"),)),
            SearchFilters(until="2020-12-31"),
            SearchFilters(tags=("garden", "rare"), since="2020-01-01", until="2020-01"),
        ):
            hits = search(open_index(vault), "deploy rollback canary", mode=mode, limit=5, filters=filters)
            assert [h.path for h in hits] == ["tips/rare.md"], (mode, filters)
        hits = search(
            open_index(vault),
            "deploy rollback canary",
            mode=mode,
            limit=50,
            filters=SearchFilters(types=("episode",), since="2026-03-01"),
        )
        assert len(hits) == 40 and all(h.type == "episode" for h in hits)
        assert search(open_index(vault), "deploy", mode=mode, filters=SearchFilters(tags=("rare", "missing"))) == []


def test_search_sees_edits_without_an_explicit_index(vault):
    put(vault, "n/a.md", note_text("A", "apples"))
    assert [h.path for h in search(open_index(vault), "apples")] == ["n/a.md"]
    put(vault, "n/a.md", note_text("A", "bananas now"))
    put(vault, "n/b.md", note_text("B", "apples again"))
    assert [h.path for h in search(open_index(vault), "bananas", mode="text")] == ["n/a.md"]
    assert [h.path for h in search(open_index(vault), "apples", mode="vector", limit=1)] == ["n/b.md"]
    (vault.root / "n/b.md").unlink()
    assert "n/b.md" not in [h.path for h in search(open_index(vault), "apples", limit=5)]


def test_bad_arguments_are_clear_errors(vault):
    put(vault, "n/a.md", note_text("A", "apples"))
    with pytest.raises(InvalidInput, match="mode"):
        search(open_index(vault), "x", mode="fuzzy")
    with pytest.raises(InvalidInput, match="limit"):
        search(open_index(vault), "x", limit=0)
    with pytest.raises(InvalidInput, match="empty"):
        search(open_index(vault), "  ")
    with pytest.raises(InvalidInput, match="YYYY-MM-DD"):
        search(open_index(vault), "x", filters=SearchFilters(since="last week"))
    assert search(open_index(vault), "!!! ???", mode="text") == []


def test_filtered_dense_ranking_is_exact_and_sees_new_writes(vault):
    test_filters_apply_before_ranking(vault)
    put(vault, "tips/new.md", note_text("New", "rollback canary new tip", type="tip"))
    hits = search(
        open_index(vault), "rollback canary new tip", mode="vector", limit=5, filters=SearchFilters(types=("tip",))
    )
    assert {h.path for h in hits} == {"tips/rare.md", "tips/new.md"}  # the copy was refreshed after the write
