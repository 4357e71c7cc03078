"""How relevant a note is to a search query, on one absolute scale from 0 to 1.

A hit's score is measured on the note and the query alone, so nothing else a search finds (its
other hits, `limit`, a filter) moves it, and a score means the same from one query to the next. It
is a logistic curve over two pieces of evidence:

- similarity: the cosine similarity between the query and the note's best-matching chunk;
- word score: the note's BM25 over the query's words divided by the sum of those words' IDF, a
  word no note holds counted too: how much of the query the note holds, each word weighed by its
  rarity (about 1 when every word is once in the body, more in the title, at most 2.2; 0 when no
  word is there). FTS5's BM25 gives a word in more than half the notes no weight, so hybrid search
  leaves such words out and text mode counts them only in a query made of nothing else (see
  search.informative_words).

Each mode counts the evidence it measures (text: the words; vector: the similarity; hybrid: both),
with the weights fitted on MuSiQue's questions (benchmarks/studies/relevance_select.py): the
passages a question needs against the other candidates of its search, the two classes weighed
equally, so 0.5 is a hit that looks as much like a needed passage as like a distractor. Cosine
similarities are on each model's own scale (unrelated texts reach about 0.2 with all-MiniLM-L6-v2,
0.8 with multilingual-e5-small), so the weights are per embedder.

A search shows no hit under a floor: `[search] min_score` in `.brain/config.toml` (or the search's
own `min_score`), else the curve's default, chosen on the same data: the lowest that leaves every
off-topic query on vault-example unanswered, but never above the highest at which a labelled query
of any set loses a needed note from its top 5. Where one kind of evidence cannot tell a weak match
from nothing (text mode; the lexical embedder's hybrid search) that is 0: every candidate is shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brain.errors import InvalidInput

if TYPE_CHECKING:
    from collections.abc import Sequence

    from brain.index.engine import Index


@dataclass(frozen=True)
class Calibration:
    """relevance = 1 / (1 + e^-z), z = bias + similarity_weight * similarity + word_weight *
    sqrt(word score); `floor`: the default floor of the mode and embedder it is for."""

    similarity_weight: float
    word_weight: float
    bias: float
    floor: float

    def relevance(self, similarity: float | None, words: float | None) -> float:
        z = (
            self.bias
            + self.similarity_weight * (similarity or 0.0)
            + self.word_weight * math.sqrt(max(words or 0.0, 0.0))
        )
        return 1.0 / (1.0 + math.exp(-min(max(z, -60.0), 60.0)))


# Fitted and chosen by benchmarks/studies/relevance_select.py (it prints them); text mode reads no vectors.
TEXT = Calibration(0.0, 7.88, -5.33, floor=0.0)
DENSE: dict[str, dict[str, Calibration]] = {
    "minilm": {
        "vector": Calibration(16.36, 0.0, -6.33, floor=0.1),
        "hybrid": Calibration(10.17, 3.56, -5.46, floor=0.15),
    },
    "e5-small": {
        "vector": Calibration(43.84, 0.0, -36.29, floor=0.2),
        "hybrid": Calibration(41.08, 2.05, -34.66, floor=0.3),
    },
    "lexical": {
        "vector": Calibration(1.06, 0.0, -0.42, floor=0.4),
        "hybrid": Calibration(3.88, 6.98, -5.17, floor=0.0),
    },
}


def embedder_family(embedder_id: str) -> str:
    """The calibration an embedder's similarities take: any other ONNX model is read as MiniLM's."""
    if embedder_id.startswith("lexical-hash"):
        return "lexical"
    if embedder_id.startswith("multilingual-e5-small"):
        return "e5-small"
    return "minilm"


def calibration(mode: str, embedder_id: str | None) -> Calibration:
    """The curve for a search mode; text mode reads no vectors and takes no embedder."""
    return TEXT if mode == "text" or embedder_id is None else DENSE[embedder_family(embedder_id)][mode]


def floor_for(curve: Calibration, min_score: float | None) -> float:
    """The floor a search applies: `min_score` when one is given, else the curve's default."""
    if min_score is None:
        return curve.floor
    if isinstance(min_score, bool) or not isinstance(min_score, int | float) or not 0.0 <= min_score <= 1.0:
        raise InvalidInput(f"min_score must be between 0 and 1, got {min_score!r}")
    return float(min_score)


# ---------------------------------------------------------------- the evidence


def idf(matching: int, total: int) -> float:
    """FTS5's BM25 IDF of a word `matching` notes of `total` hold (at least 1e-6, as FTS5 floors it)."""
    value = math.log((total - matching + 0.5) / (matching + 0.5))
    return value if value > 0.0 else 1e-6


def idf_total(index: Index, query_words: Sequence[str], scored_words: Sequence[str]) -> float:
    """What a note holding all of the query's weight would score before saturation: the IDF of the
    words BM25 scores, plus that of the query's words no note holds (each then a word it cannot match)."""
    total = max(index.catalog.searchable_count(), 1)
    frequencies = {
        word: index.catalog.document_frequency(word) for word in dict.fromkeys([*query_words, *scored_words])
    }
    counted = [word for word in frequencies if word in scored_words or frequencies[word] == 0]
    return sum(idf(frequencies[word], total) for word in counted)


def word_scores(
    index: Index,
    words: Sequence[str],
    weight: float,
    note_ids: Sequence[int],
    known: dict[int, float],
    *,
    complete: bool,
    bm25_weights: tuple[float, ...],
) -> dict[int, float]:
    """Each note's word score: its BM25 over `words`, from `known` or asked of the catalog (unless
    `known` holds every match), over `weight` (see `idf_total`)."""
    if not words or weight <= 0.0:
        return dict.fromkeys(note_ids, 0.0)
    found = {note_id: known[note_id] for note_id in note_ids if note_id in known}
    missing = [note_id for note_id in note_ids if note_id not in found]
    if missing and not complete:
        expression = " OR ".join(f'"{word}"' for word in words)
        found.update(index.catalog.bm25_of(expression, bm25_weights, missing))
    return {note_id: found.get(note_id, 0.0) / weight for note_id in note_ids}


def similarities(index: Index, vector: Sequence[float], note_ids: Sequence[int]) -> dict[int, tuple[float, str]]:
    """Each note's best chunk, (cosine similarity, chunk id), for notes that have vectors."""
    best: dict[int, tuple[float, str]] = {}
    for hit in index.vectors.query(vector, 1 << 30, list(note_ids)):
        if hit.note_id not in best:  # nearest first
            best[hit.note_id] = (hit.similarity, hit.chunk_id)
    return best
