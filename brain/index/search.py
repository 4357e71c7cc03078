"""Hybrid search: BM25 from the catalog's FTS5 table and dense similarity over chunk vectors, fused.

Filters (type, folder, tags, frontmatter fields, dates) are applied before ranking: the allowed
notes come from SQL; BM25 ranks every match and keeps the best allowed ones; the dense side ranks
exactly the allowed notes' chunks (an exact in-memory copy of the vectors, see index/vectors/matrix.py).
So a note that would rank low without the filter is still found with it.

A note's dense score is its best chunk's cosine similarity (each chunk is embedded with the note's
title and its section heading, see vectors/chunking.py). Fusion was chosen on one data set and reported on
the others (benchmarks/studies/fusion_select.py: 46 variants of reciprocal-rank, min-max, z-score and
top-scaled fusion, chosen on MuSiQue): each list's scores are min-max scaled over its top
NORM_DEPTH and summed with equal weights. Reciprocal rank fusion (k=60), the previous choice,
fell below dense search alone on MuSiQue (recall@5 0.593 against 0.610); min-max fusion gives
0.636 there, and on the held-out sets HotpotQA 0.800 (text 0.770, vector 0.785) and vault-example
(hit@5 1.000 against 0.938 for each half). In hybrid mode, words found in more than half the notes
are left out of the BM25 query (their IDF is ~0), see `informative_words`; when no word is left
the dense half ranks alone.

`rerank=True` re-orders the fused top RERANK_CANDIDATES with a cross-encoder (index/rerank.py).

Freshness: `search()` first brings the catalog up to date (nothing while `brain watch` runs) and
embeds what changed only when that is small (SEARCH_EMBED_NOTES notes, SEARCH_EMBED_BYTES bytes):
a search answers within its budget with what is indexed, and `search_report` says how many notes
still wait for `brain index` or the watcher.
"""

from __future__ import annotations

import functools
import math
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, get_args

from brain.errors import Remedy, UsageError
from brain.index.engine import Index
from brain.notes.lines import split_lines

SearchMode = Literal["hybrid", "text", "vector"]
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
TEXT_WEIGHT = 0.5  # chosen on MuSiQue, see the module doc
NORM_DEPTH = 30  # min-max scaling over each list's top 30 (as chosen), so `limit` cannot move it
MAX_TERMS = 6
MAX_LIMIT = 1000  # most hits one search returns
RERANK_CANDIDATES = 20
SEARCH_EMBED_NOTES, SEARCH_EMBED_BYTES = 100, 24_576  # a short wait for the model at most; more waits for `brain index`
BM25_WEIGHTS = (8.0, 3.0, 2.0, 1.0)  # title, tags, frontmatter text, body
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


@dataclass(frozen=True)
class SearchHit:
    """One hit. `score` is rank-meaningful in every mode: the hit's relevance relative to the best
    hit of the same search (1.0 = the best; 0.5 = half as relevant by the mode's own measure).
    `raw_score` is that measure: BM25 (text), cosine similarity (vector), the fused min-max sum
    (hybrid, 0..1) or the reranker's logit (with rerank, whose relevance is its sigmoid)."""

    path: str
    title: str
    type: str
    section: str | None
    snippet: str
    score: float
    raw_score: float = 0.0


@dataclass(frozen=True)
class SearchReport:
    hits: list[SearchHit]
    pending: int  # notes changed since their vectors were made, not yet in dense search


def search(
    index: Index,
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    filters: SearchFilters | None = None,
    rerank: bool = False,
) -> list[SearchHit]:
    """Notes matching `query` by meaning and by words, best first (see the module doc)."""
    return search_report(index, query, mode=mode, limit=limit, filters=filters, rerank=rerank).hits


def search_report(
    index: Index,
    query: str,
    *,
    mode: str = "hybrid",
    limit: int = 10,
    filters: SearchFilters | None = None,
    rerank: bool = False,
) -> SearchReport:
    """`search`, and how many notes still wait for their vectors."""
    _check(query, mode, limit)
    pending = freshen(index, vectors=mode != "text")
    return SearchReport(run(index, query, mode=mode, limit=limit, filters=filters, rerank=rerank), pending)


def freshen(index: Index, *, vectors: bool) -> int:
    """Before a read: the catalog brought up to date (`fresh.ensure_fresh`) and, for the
    dense modes, embedding what changed when it is small. Returns the notes left waiting."""
    from brain.index.sync.embedding import embed_pending
    from brain.index.watch.fresh import ensure_fresh

    watched = ensure_fresh(index)
    if not vectors:
        return 0
    waiting = index.catalog.pending_vectors()
    if not waiting:
        return 0
    stamps = index.catalog.stamps()
    size = sum(stamps[path].size for _, path in waiting if path in stamps)
    if not watched and len(waiting) <= SEARCH_EMBED_NOTES and size <= SEARCH_EMBED_BYTES:
        embed_pending(index)
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
) -> list[SearchHit]:
    """The search itself, on an index already brought up to date."""
    _check(query, mode, limit)
    where, params = filter_sql(filters or SearchFilters())
    depth = max(limit * 3, 30)
    allowed = allowed_ids(index, where, params) if where else None
    text: list[tuple[int, float]] = []
    dense: list[tuple[int, float, str]] = []
    if mode == "hybrid":  # SQLite and the model both release the GIL: run the two halves at once
        pending = _pool().submit(text_ranking, index, query, allowed, depth, strict=True)
        dense = dense_ranking(index, query, allowed, depth)
        text = pending.result()
    elif mode == "text":
        text = text_ranking(index, query, allowed, depth)
    else:
        dense = dense_ranking(index, query, allowed, depth)
    if mode == "text":
        ranked = [(note_id, score) for note_id, score in text]
    elif mode == "vector":
        ranked = [(note_id, score) for note_id, score, _ in dense]
    else:
        ranked = fuse(text, [(n, s) for n, s, _ in dense])
    best_chunk = {note_id: chunk for note_id, _, chunk in dense}
    if rerank:
        from brain.index.rerank import rerank_notes

        ranked = rerank_notes(index, query, ranked[: max(RERANK_CANDIDATES, limit)], best_chunk)
    return _hits(index, query, ranked[:limit], best_chunk, logits=rerank)


def relative_scores(raw: list[float], *, logits: bool = False) -> list[float]:
    """Each score relative to the best (1.0), in the order given; the ranking is not changed.

    A BM25 score of a small vault is tiny (2e-06) and a fused score of the last candidate is 0:
    neither says how a hit compares with the best. A logit (reranker) is made a probability first
    (its sigmoid), so a negative one still ranks below a positive one."""
    values = [1.0 / (1.0 + math.exp(-min(max(score, -60.0), 60.0))) for score in raw] if logits else list(raw)
    best = max(values, default=0.0)
    if best <= 0.0:
        return [1.0 if value == best else 0.0 for value in values]
    return [max(value, 0.0) / best for value in values]


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
        clauses.append("EXISTS (SELECT 1 FROM tags t WHERE t.note_id = n.id AND t.tag = ?)")
        params.append(tag.strip().lstrip("#").lower())
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
    return " AND ".join(clauses), params


def allowed_ids(index: Index, where: str, params: list[Any]) -> list[int]:
    return index.catalog.ids_where(where, params)


# ---------------------------------------------------------------- the two rankings


def informative_words(index: Index, query: str, *, strict: bool = False) -> list[str]:
    """The query's words that can move a BM25 score, rarest first, at most MAX_TERMS.

    FTS5's BM25 gives a word found in more than half the notes an IDF of ~0 (1e-6), so it adds
    nothing to any score but still costs its whole posting list; dropping such words and capping
    the count keeps the ranking and bounds the time. When every word is that common, `strict`
    (hybrid search) returns none: the dense half ranks alone rather than fused with noise; text
    mode keeps them all. A filtered search keeps every word: its notes may match only common ones.
    """
    words = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if w not in STOPWORDS] or [
        w.lower() for w in _WORD.findall(query)
    ]
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


def dense_ranking(index: Index, query: str, allowed: list[int] | None, depth: int) -> list[tuple[int, float, str]]:
    """(note id, best chunk similarity, best chunk id), best first. Exact, filtered before ranking."""
    if allowed is not None and not allowed:
        return []
    from brain.index.embedders.embedders import query_vector  # loaded with the embedder, not with search

    vector = query_vector(index.embedder, query)
    best: dict[int, tuple[float, str]] = {}
    for hit in index.vectors.query(vector, depth * 3, allowed):
        if hit.note_id not in best or hit.similarity > best[hit.note_id][0]:
            best[hit.note_id] = (hit.similarity, hit.chunk_id)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    return [(note_id, score, chunk) for note_id, (score, chunk) in ranked[:depth]]


def fuse(text: list[tuple[int, float]], dense: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """One ranking from two: each list's scores min-max scaled over its top NORM_DEPTH (below that,
    0), summed with weights TEXT_WEIGHT and 1 - TEXT_WEIGHT. A list that is empty adds nothing,
    so a half without signal for the query leaves the other to rank alone."""
    scores: dict[int, float] = {}
    for ranking, weight in ((text, TEXT_WEIGHT), (dense, 1.0 - TEXT_WEIGHT)):
        head = [score for _, score in ranking[:NORM_DEPTH]]
        if not head:
            continue
        high, low = max(head), min(head)
        for note_id, score in ranking:
            scaled = (score - low) / (high - low) if high > low else 1.0
            scores[note_id] = scores.get(note_id, 0.0) + weight * max(scaled, 0.0)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


# ---------------------------------------------------------------- hits


def _hits(
    index: Index, query: str, ranked: list[tuple[int, float]], best_chunk: dict[int, str], *, logits: bool = False
) -> list[SearchHit]:
    info = index.catalog.info([note_id for note_id, _ in ranked])
    relative = dict(
        zip([note_id for note_id, _ in ranked], relative_scores([s for _, s in ranked], logits=logits), strict=True)
    )
    spans = index.catalog.chunk_spans([(n, best_chunk[n]) for n, _ in ranked if n in best_chunk])
    words = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if w not in STOPWORDS]
    hits = []
    for note_id, score in ranked:
        if note_id not in info:
            continue  # removed since the vectors were written
        path, title, note_type, text = info[note_id]
        span = spans.get((note_id, best_chunk.get(note_id, "")))
        section, start, end = span if span else _lexical_section(index, path, text, words)
        hits.append(
            SearchHit(
                path,
                title,
                note_type,
                section,
                snippet(text[start:end] or text, words),
                round(relative[note_id], 4),
                float(f"{score:.6g}"),  # six significant digits: a BM25 score may be 2e-06
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
