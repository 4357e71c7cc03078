"""Hybrid search: BM25 from the catalog's FTS5 table and dense similarity over chunk vectors.

Filters (type, folder, tags, frontmatter fields, dates) are applied before ranking: the allowed
notes come from SQL; BM25 ranks every match and keeps the best allowed ones; the dense side ranks
exactly the allowed notes' chunks (an exact in-memory copy of the vectors, see index/vectors/matrix.py).
So a note that would rank low without the filter is still found with it.

The candidates are BM25's best and the notes whose chunks are nearest the query (a note's dense
similarity is its best chunk's cosine; each chunk is embedded with the note's title and its
section heading, see index/vectors/chunking.py). Each candidate is scored on the absolute scale of
search/relevance.py from its own evidence, both halves measured exactly for it: that score is
what a hit shows and what the floor (`[search] min_score`) is applied to. The hits at or above
the floor are then ordered by weighted reciprocal rank fusion of the two halves (`fused`): the
candidates ranked by their word score and by their similarity, TEXT_WEIGHT and 1 - TEXT_WEIGHT
(each times the half's confidence for the query) over RRF_K + rank. So in hybrid mode a hit's score is its relevance, not its rank, and a hit may
show a lower score than the one after it. The fusion was chosen on multi-hop and conversational
sets together and reported on others held out (benchmarks/studies/fusion_select.py,
docs/benchmarks.md): ordering by the absolute score had put hybrid search under its own BM25
half on long conversation sessions. In hybrid mode, words found in more than half the notes are
left out of the BM25 query (their IDF is ~0), see `informative_words`; when no word is left the
dense half ranks alone.

`rerank=True` re-orders the top RERANK_CANDIDATES at or above the floor with a cross-encoder
(search/rerank.py); a hit's score is then the sigmoid of the cross-encoder's logit.

Freshness: `search()` first brings the catalog up to date (nothing while `brain watch` runs) and
embeds what changed only when that is small (SEARCH_EMBED_NOTES notes, SEARCH_EMBED_BYTES bytes):
a search answers within its budget with what is indexed, and `search_report` says how many notes
still wait for `brain index` or the watcher.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Literal, get_args

from brain.errors import IndexBusy, Remedy, UsageError
from brain.index.engine import Index
from brain.markdown.lines import split_lines
from brain.memory.projects.note import SCOPED_TYPES
from brain.memory.search.relevance import (
    TEXT,
    Calibration,
    calibration,
    floor_for,
    idf_total,
    similarities,
    word_scores,
)

SearchMode = Literal["hybrid", "text", "vector"]
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
MAX_TERMS = 6
MAX_LIMIT = 1000  # most hits one search returns
RERANK_CANDIDATES = 20
CLOSEST = 3  # when no hit reaches the floor, this many candidates under it are named
SEARCH_EMBED_NOTES, SEARCH_EMBED_BYTES = 100, 24_576  # a short wait for the model at most; more waits for `brain index`
BM25_WEIGHTS = (8.0, 3.0, 2.0, 1.0)  # title, tags, frontmatter text, body
# Hybrid order (not score): weighted reciprocal rank fusion (`fused`), chosen by benchmarks/studies/fusion_select.py.
RRF_K, TEXT_WEIGHT = 1.0, 0.55
SNIPPET_CHARS = 200
_WORD = re.compile(r"\w+", re.UNICODE)
_DAY = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
STOPWORDS = frozenset(
    "a an and are as at be by for from has have how i in is it its of on or that the this to was were what when "
    "where which who why will with".split()
)


@dataclass(frozen=True)
class SearchFilters:
    types: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    since: str | None = None
    until: str | None = None
    project: str | None = None  # the scope of a project (`brain.memory.projects.note`); None: every project


@dataclass(frozen=True)
class SearchHit:
    """One hit. `score` is its relevance on the absolute scale of search/relevance.py, 0..1: the same
    for a note and a query whatever else is found (with rerank, the sigmoid of the cross-encoder's
    logit). Its evidence: `similarity`, the cosine similarity of its best chunk (None in text mode,
    or for a note not embedded yet), and `words`, its word score (None in vector mode)."""

    path: str
    title: str
    type: str
    section: str | None
    snippet: str
    score: float
    similarity: float | None = None
    words: float | None = None


@dataclass(frozen=True)
class SearchReport:
    hits: list[SearchHit]
    pending: int  # notes changed since their vectors were made, not yet in dense search
    min_score: float = 0.0  # the floor the search applied
    closest: list[SearchHit] = field(default_factory=list)  # when no hit reaches the floor: the best under it


@dataclass(frozen=True)
class Candidate:
    note_id: int
    score: float
    similarity: float | None
    words: float | None
    chunk: str | None  # the best chunk's id, for the hit's section and snippet
    order: float = 0.0  # what the hits are ordered by: the score, or in hybrid mode the fusion (`fused`)


def search(
    index: Index,
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    filters: SearchFilters | None = None,
    rerank: bool = False,
    min_score: float | None = None,
) -> list[SearchHit]:
    """Notes matching `query` by meaning and by words, best first (see the module doc)."""
    return search_report(index, query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score).hits


def search_report(
    index: Index,
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    filters: SearchFilters | None = None,
    rerank: bool | None = None,
    min_score: float | None = None,
) -> SearchReport:
    """`search`, how many notes still wait for their vectors, and the closest notes when none matches.

    What every front end calls: `rerank=None` takes the vault's `[search] rerank`."""
    _check(query, mode, limit)
    rerank = index.config.rerank if rerank is None else rerank
    pending = freshen(index, vectors=mode != "text")
    with index.catalog.reading():  # one state of the catalog for the whole answer, whatever commits meanwhile
        found = ranked(index, query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score)
    lacking = index.vectors.lacking if mode != "text" and index.has_vectors() else 0  # another process writes them
    return replace(found, pending=pending + lacking)


def freshen(index: Index, *, vectors: bool) -> int:
    """Before a read: the catalog brought up to date (`fresh.ensure_fresh`) and, for the
    dense modes, embedding what changed when it is small. Returns the notes left waiting."""
    from brain.index.sync.embedding import embed_pending
    from brain.index.watch.fresh import ensure_fresh

    watched = ensure_fresh(index)
    if not vectors:
        return 0
    waiting = index.catalog.pending_vectors()
    if not waiting or watched:  # a watcher embeds them
        return len(waiting)
    stamps = index.catalog.stamps()
    size = sum(stamps[path].size for _, path in waiting if path in stamps)
    if len(waiting) <= SEARCH_EMBED_NOTES and size <= SEARCH_EMBED_BYTES:
        try:
            embed_pending(index, wait=0)  # a read never waits for a writer: that writer embeds them
        except IndexBusy:
            return len(waiting)
        return len(index.catalog.pending_vectors())
    return len(waiting)


def _check(query: str, mode: str, limit: int) -> None:
    if mode not in MODES:
        raise UsageError(f"search mode '{mode}' is not one of {', '.join(MODES)}")
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    if not query or not query.strip():
        raise UsageError("the search query is empty; give some words to look for")


def run(
    index: Index,
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    filters: SearchFilters | None = None,
    rerank: bool = False,
    min_score: float | None = None,
) -> list[SearchHit]:
    """The search itself, on an index already brought up to date."""
    return ranked(index, query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score).hits


def ranked(
    index: Index,
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    filters: SearchFilters | None = None,
    rerank: bool = False,
    min_score: float | None = None,
) -> SearchReport:
    """The hits at or above the floor (`min_score`, else the vault's `[search] min_score`, else the
    default of the mode and embedder, see search/relevance.py), best first (in hybrid mode by the
    fusion, `fused`); when there is none, the CLOSEST candidates under it, in the same order."""
    _check(query, mode, limit)
    curve = calibration(mode, None if mode == "text" else index.embedder.id)
    floor = floor_for(curve, index.config.search_min_score if min_score is None else min_score)
    where, params = filter_sql(filters or SearchFilters())
    allowed = allowed_ids(index, where, params) if where else None
    candidates = scored_candidates(index, query, mode, allowed, max(limit * 3, 30))
    passing = [candidate for candidate in candidates if candidate.score >= floor]
    if rerank:
        passing = _reranked(index, query, passing[: max(RERANK_CANDIDATES, limit)])
    if passing:
        return SearchReport(_hits(index, query, passing[:limit]), 0, floor)
    return SearchReport([], 0, floor, _hits(index, query, candidates[:CLOSEST]))


def scored_candidates(index: Index, query: str, mode: str, allowed: list[int] | None, depth: int) -> list[Candidate]:
    """The best `depth` of each ranking the mode has, each scored from its own evidence
    (search/relevance.py), best first: by that score in text and vector mode, by the fusion of the
    two rankings in hybrid mode (`fused`)."""
    text: list[tuple[int, float]] = []
    dense: list[tuple[int, float, str]] = []
    vector: Sequence[float] = ()
    if mode == "hybrid":  # SQLite and the model both release the GIL: run the two halves at once
        pending = _pool().submit(text_ranking, index, query, allowed, depth, strict=True)
        vector = _query_vector(index, query)
        dense = dense_ranking(index, query, allowed, depth, vector)
        text = pending.result()
    elif mode == "text":
        text = text_ranking(index, query, allowed, depth)
    else:
        vector = _query_vector(index, query)
        dense = dense_ranking(index, query, allowed, depth, vector)
    ids = list(dict.fromkeys([note_id for note_id, _ in text] + [note_id for note_id, _, _ in dense]))
    best = {note_id: (similarity, chunk) for note_id, similarity, chunk in dense}
    if mode == "hybrid":  # BM25's candidates that the dense half did not reach
        best.update(similarities(index, vector, [note_id for note_id in ids if note_id not in best]))
    words: dict[int, float] = {}
    if mode != "vector":
        # Unfiltered, the text ranking scored these very words (a filtered one scores every word).
        scored_words = informative_words(index, query, strict=mode == "hybrid")
        unfiltered = allowed is None
        words = word_scores(
            index,
            scored_words,
            idf_total(index, query_words(query), scored_words),
            ids,
            dict(text) if unfiltered else {},
            complete=unfiltered and len(text) < depth,
            bm25_weights=BM25_WEIGHTS,
        )
    curve = calibration(mode, None if mode == "text" else index.embedder.id)
    candidates = []
    for note_id in ids:
        similarity, chunk = best.get(note_id, (None, None))
        word_score = words.get(note_id)
        score = curve.relevance(similarity, word_score)
        candidates.append(Candidate(note_id, score, similarity, word_score, chunk, score))
    if mode == "hybrid":
        order = fused(candidates, calibration("vector", index.embedder.id))
        candidates = [replace(candidate, order=order[candidate.note_id]) for candidate in candidates]
    return sorted(candidates, key=lambda candidate: (-candidate.order, -candidate.score, candidate.note_id))


def fused(candidates: Sequence[Candidate], vector_curve: Calibration) -> dict[int, float]:
    """Weighted reciprocal rank fusion over the candidates. Each is ranked (from 1) by its word score
    and by its similarity, both measured for every candidate (ties go to the higher score), and
    gets text / (RRF_K + its rank by words) + dense / (RRF_K + its rank by similarity). The halves'
    weights, TEXT_WEIGHT and 1 - TEXT_WEIGHT, are each times the half's confidence for this query:
    the relevance its own curve (text mode's, vector mode's) gives its best candidate. A small k
    lets each half's first places decide, so when one half is weak for a query (dense similarity
    over a long conversation) the other's best still reach the top 5; the confidence keeps a half
    that found nothing much (a word or two shared by chance) from taking a place at the top."""
    text_confidence = TEXT.relevance(None, max((_words_of(c) for c in candidates), default=0.0))
    dense_confidence = vector_curve.relevance(max((_similarity_of(c) for c in candidates), default=0.0), None)
    order: dict[int, float] = {}
    for weight, evidence in (
        (TEXT_WEIGHT * text_confidence, _words_of),
        ((1.0 - TEXT_WEIGHT) * dense_confidence, _similarity_of),
    ):
        ranking = sorted(candidates, key=lambda candidate: (-evidence(candidate), -candidate.score, candidate.note_id))
        for rank, candidate in enumerate(ranking, start=1):
            order[candidate.note_id] = order.get(candidate.note_id, 0.0) + weight / (RRF_K + rank)
    return order


def _words_of(candidate: Candidate) -> float:
    return candidate.words or 0.0


def _similarity_of(candidate: Candidate) -> float:
    return candidate.similarity or 0.0


def _query_vector(index: Index, query: str) -> list[float]:
    from brain.index.embedders.embedders import query_vector  # loaded with the embedder, not with search

    return query_vector(index.embedder, query)


def _reranked(index: Index, query: str, candidates: list[Candidate]) -> list[Candidate]:
    """The candidates in the cross-encoder's order, each scored by its logit's sigmoid."""
    from brain.memory.search.rerank import rerank_notes

    by_id = {candidate.note_id: candidate for candidate in candidates}
    order = rerank_notes(
        index,
        query,
        [(candidate.note_id, candidate.score) for candidate in candidates],
        {candidate.note_id: candidate.chunk for candidate in candidates if candidate.chunk},
    )
    return [
        replace(by_id[note_id], score=1.0 / (1.0 + math.exp(-min(max(logit, -60.0), 60.0)))) for note_id, logit in order
    ]


# ---------------------------------------------------------------- filters


def filter_sql(filters: SearchFilters) -> tuple[str, list[Any]]:
    """SQL conditions on the `notes` table (alias n) and their parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.types:
        clauses.append(f"n.type IN ({','.join('?' * len(filters.types))})")
        params += [t.strip().lower() for t in filters.types]
    if filters.folders:
        parts = []
        for folder in filters.folders:
            folder = folder.strip().strip("/")
            # A prefix compared as text, not a LIKE pattern: a long folder name is no "pattern too
            # complex" (SQLite's LIKE limit), and % or _ in it mean themselves. ASCII case is
            # ignored, as LIKE ignored it.
            parts.append("(n.folder = ? OR lower(substr(n.folder, 1, ?)) = lower(?))")
            params += [folder, len(folder) + 1, f"{folder}/"]
        clauses.append("(" + " OR ".join(parts) + ")")
    for tag in filters.tags:
        # the tag or one nested under it (`project` finds `project/mobile`, as Obsidian's tag search does)
        wanted = tag.strip().lstrip("#").lower()
        clauses.append(
            "EXISTS (SELECT 1 FROM tags t WHERE t.note_id = n.id AND (t.tag = ? OR substr(t.tag, 1, ?) = ?))"
        )
        params += [wanted, len(wanted) + 1, f"{wanted}/"]
    for key, value in filters.fields:
        key = key.strip()
        if not key or '"' in key or "\\" in key:
            raise UsageError(f"field name '{key}' cannot be filtered on; use a plain frontmatter key")
        # json_each on a scalar yields the scalar itself, so this matches `outcome: success` and
        # `owners: [sam, ada]` alike.
        clauses.append(
            f"EXISTS (SELECT 1 FROM json_each(n.frontmatter, '$.\"{key}\"') j "
            "WHERE LOWER(CAST(j.value AS TEXT)) IN (LOWER(?), ?))"
        )
        params += [value.strip(), {"true": "1", "false": "0"}.get(value.strip().lower(), value.strip())]
    for named, bound, operator in ((Remedy("since"), filters.since, ">="), (Remedy("until"), filters.until, "<=")):
        if bound is None:
            continue
        day = bound.strip()
        if not _DAY.match(day):
            raise UsageError(named, f" '{day}' is not a date; use YYYY-MM-DD (or YYYY-MM, YYYY)")
        try:  # 2026-13-45 or 2026-02-30 has the shape of a date but is none
            date.fromisoformat((day + "-01-01")[:10] if len(day) < 10 else day)
        except ValueError:
            raise UsageError(named, f" '{day}' is not a real date (no such month or day)") from None
        clauses.append(f"substr(n.date, 1, {len(day)}) {operator} ?")
        params.append(day)
    if filters.project is not None:
        clauses.append(_project_sql())
        params.append(filters.project)
    return " AND ".join(clauses), params


def _project_sql() -> str:
    """The rule of `brain.memory.projects.note.in_scope`, on the catalog's frontmatter column."""
    scoped = ", ".join(f"'{kind}'" for kind in sorted(SCOPED_TYPES))
    own = "json_extract(n.frontmatter, '$.project')"
    return f"(n.type NOT IN ({scoped}) OR CAST({own} AS TEXT) = ? OR ({own} IS NULL AND n.type != 'episode'))"


def allowed_ids(index: Index, where: str, params: list[Any]) -> list[int]:
    return index.catalog.ids_where(where, params)


# ---------------------------------------------------------------- the two rankings


def query_words(query: str) -> list[str]:
    """The query's distinct words, lowercase, without stop words (unless it has nothing else)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
    return [w for w in words if w not in STOPWORDS] or words


def informative_words(index: Index, query: str, *, strict: bool = False) -> list[str]:
    """The query's words that can move a BM25 score, rarest first, at most MAX_TERMS.

    FTS5's BM25 gives a word found in more than half the notes an IDF of ~0 (1e-6), so it adds
    nothing to any score but still costs its whole posting list; dropping such words and capping
    the count keeps the ranking and bounds the time. When every word is that common, `strict`
    (hybrid search) returns none: the dense half ranks alone rather than fused with noise; text
    mode keeps them all. A filtered search keeps every word: its notes may match only common ones.
    """
    words = query_words(query)
    if len(words) <= 2 and not strict:
        return words
    total = max(index.catalog.searchable_count(), 1)
    frequencies = {word: index.catalog.document_frequency(word) for word in words}
    ranked = sorted((w for w in words if frequencies[w] > 0), key=lambda w: frequencies[w])
    useful = [w for w in ranked if frequencies[w] <= total / 2][:MAX_TERMS]
    return useful if useful or strict else words


def text_ranking(
    index: Index, query: str, allowed: list[int] | None, depth: int, *, strict: bool = False
) -> list[tuple[int, float]]:
    if allowed is not None and not allowed:
        return []
    if allowed is not None:
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        words = [w for w in words if w not in STOPWORDS] or words
    else:
        words = informative_words(index, query, strict=strict)
    expression = " OR ".join(f'"{word}"' for word in words) if words else None
    if expression is None:
        return []
    return index.catalog.bm25(expression, BM25_WEIGHTS, depth, None if allowed is None else set(allowed))


@functools.lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="brain-search")


def dense_ranking(
    index: Index, query: str, allowed: list[int] | None, depth: int, vector: Sequence[float] | None = None
) -> list[tuple[int, float, str]]:
    """(note id, best chunk similarity, best chunk id), best first. Exact, filtered before ranking;
    `vector` is the query's, when it is already embedded."""
    if allowed is not None and not allowed:
        return []
    if vector is None:
        vector = _query_vector(index, query)
    best: dict[int, tuple[float, str]] = {}
    for hit in index.vectors.query(vector, depth * 3, allowed):
        if hit.note_id not in best or hit.similarity > best[hit.note_id][0]:
            best[hit.note_id] = (hit.similarity, hit.chunk_id)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    return [(note_id, score, chunk) for note_id, (score, chunk) in ranked[:depth]]


# ---------------------------------------------------------------- hits


def _hits(index: Index, query: str, candidates: list[Candidate]) -> list[SearchHit]:
    info = index.catalog.info([candidate.note_id for candidate in candidates])
    spans = index.catalog.chunk_spans([(c.note_id, c.chunk) for c in candidates if c.chunk is not None])
    words = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if w not in STOPWORDS]
    hits = []
    for candidate in candidates:
        if candidate.note_id not in info:
            continue  # removed since the vectors were written
        path, title, note_type, text = info[candidate.note_id]
        span = spans.get((candidate.note_id, candidate.chunk or ""))
        section, start, end = span if span else _lexical_section(index, path, text, words)
        hits.append(
            SearchHit(
                path,
                title,
                note_type,
                section,
                snippet(text[start:end] or text, words),
                round(candidate.score, 4),
                None if candidate.similarity is None else round(candidate.similarity, 4),
                None if candidate.words is None else round(candidate.words, 4),
            )
        )
    return hits


def _lexical_section(index: Index, path: str, text: str, words: list[str]) -> tuple[str | None, int, int]:
    """The level-2 section holding most of the query's words (or the whole body)."""
    note = index.catalog.load([path]).get(path)
    if note is None:
        return None, 0, len(text)
    offsets = [0]
    for line in split_lines(text):
        offsets.append(offsets[-1] + len(line))
    best: tuple[int, str | None, int, int] = (0, None, offsets[min(note.body_start, len(offsets) - 1)], len(text))
    for section in note.sections:
        if section.level != 2:
            continue
        content = (section.heading + "\n" + section.content).lower()
        found = sum(1 for word in words if word in content)
        if found > best[0]:
            best = (
                found,
                section.heading,
                offsets[min(section.start + 1, len(offsets) - 1)],
                offsets[min(section.end, len(offsets) - 1)],
            )
    return best[1], best[2], best[3]


def snippet(text: str, words: list[str], size: int = SNIPPET_CHARS) -> str:
    """About `size` characters of `text` around the first query word found, on one line."""
    lowered = text.lower()
    positions = [p for p in (lowered.find(word) for word in words) if p >= 0]
    start = max(min(positions) - size // 3, 0) if positions else 0
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    piece = " ".join(text[start : start + size].split())
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + size < len(text.rstrip()) else ""
    return f"{prefix}{piece}{suffix}"
