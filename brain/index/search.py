"""Hybrid search: BM25 from the catalog's FTS5 table and dense similarity from Chroma, fused.

Filters (type, folder, tags, frontmatter fields, dates) are applied before ranking: the allowed
notes come from SQL; BM25 ranks every match and keeps the best allowed ones; the dense side ranks
exactly the allowed notes' chunks (fetched by id when few, else from an in-memory copy of the
vectors). So a note that would rank low without the filter is still found with it.

A note's dense score is its best chunk's cosine similarity. Fusion was chosen by measurement
(benchmarks/fusion_eval.py, 32 labelled queries on vault-example, all-MiniLM-L6-v2 int8):
reciprocal rank fusion, `sum 1 / (60 + rank)` over the two lists, scored MRR@10 0.898 against
0.823 for BM25 alone, 0.866 for dense alone and 0.888-0.897 for weighted sums of max-scaled
scores (text weight 0.3-0.7; that variant lives in the benchmark); it beat both halves on the paraphrase and the keyword queries
(tests/test_search.py keeps it so). In hybrid mode, words found in more than half the notes are
left out of the BM25 query (their IDF is ~0), see `informative_words`.

Freshness: `search()` first calls `sync.ensure_fresh`: nothing while `brain watch` runs on the
vault; otherwise a stat scan of the vault (re-parsing only changed files) and, for the dense
modes, embedding the chunks of notes that changed.
"""

from __future__ import annotations

import functools
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from brain.errors import InvalidInput
from brain.index.engine import Index
from brain.index.sync import ensure_fresh
from brain.notes.lines import split_lines

MODES = ("hybrid", "text", "vector")
SearchMode = Literal[MODES]
RRF_K = 60
MAX_TERMS = 6
EXACT_NOTES, EXACT_CHUNKS = 400, 400  # filtered dense search is exact (no approximate index) up to this size
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
    path: str
    title: str
    type: str
    section: str | None
    snippet: str
    score: float


def search(index: Index, query: str, *, mode: str = "hybrid", limit: int = 10, filters: SearchFilters | None = None) -> list[SearchHit]:
    """Notes matching `query` by meaning and by words, best first (see the module doc)."""
    _check(query, mode, limit)
    ensure_fresh(index, vectors=mode != "text")
    return run(index, query, mode=mode, limit=limit, filters=filters)


def _check(query: str, mode: str, limit: int) -> None:
    if mode not in MODES:
        raise InvalidInput(f"search mode '{mode}' is not one of {', '.join(MODES)}")
    if not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise InvalidInput(f"limit must be between 1 and 1000, got {limit}")
    if not query or not query.strip():
        raise InvalidInput("the search query is empty; give some words to look for")


def run(index: Index, query: str, *, mode: str = "hybrid", limit: int = 10, filters: SearchFilters | None = None) -> list[SearchHit]:
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
    return _hits(index, query, ranked[:limit], best_chunk)


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
            escaped = folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            parts.append("(n.folder = ? OR n.folder LIKE ? ESCAPE '\\')")
            params += [folder, f"{escaped}/%"]
        clauses.append("(" + " OR ".join(parts) + ")")
    for tag in filters.tags:
        clauses.append("EXISTS (SELECT 1 FROM tags t WHERE t.note_id = n.id AND t.tag = ?)")
        params.append(tag.strip().lstrip("#").lower())
    for key, value in filters.fields:
        key = key.strip()
        if not key or '"' in key or "\\" in key:
            raise InvalidInput(f"field name '{key}' cannot be filtered on; use a plain frontmatter key")
        # json_each on a scalar yields the scalar itself, so this matches `outcome: success` and
        # `owners: [sam, ada]` alike.
        clauses.append(
            f"EXISTS (SELECT 1 FROM json_each(n.frontmatter, '$.\"{key}\"') j "
            "WHERE LOWER(CAST(j.value AS TEXT)) IN (LOWER(?), ?))"
        )
        params += [value.strip(), {"true": "1", "false": "0"}.get(value.strip().lower(), value.strip())]
    for name, value, operator in (("since", filters.since, ">="), ("until", filters.until, "<=")):
        if value is None:
            continue
        value = value.strip()
        if not _DAY.match(value):
            raise InvalidInput(f"--{name} '{value}' is not a date; use YYYY-MM-DD (or YYYY-MM, YYYY)")
        clauses.append(f"substr(n.date, 1, {len(value)}) {operator} ?")
        params.append(value)
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


def text_ranking(index: Index, query: str, allowed: list[int] | None, depth: int, *, strict: bool = False) -> list[tuple[int, float]]:
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
    """(note id, best chunk similarity, best chunk id), best first."""
    if allowed is not None and not allowed:
        return []
    vector = index.embedder.embed([query])[0]
    keys = index.catalog.chunk_keys(allowed) if allowed is not None and len(allowed) <= EXACT_NOTES else None
    if keys is not None and len(keys) <= EXACT_CHUNKS:
        hits = index.vectors.exact(vector, keys, depth * 3)  # exact: a filter must never lose an allowed note
    elif allowed is not None:
        hits = index.vectors.filtered(vector, allowed, depth * 3)  # exact too, from an in-memory copy
    else:
        hits = index.vectors.query(vector, depth * 3)
    best: dict[int, tuple[float, str]] = {}
    for hit in hits:
        if hit.note_id not in best or hit.similarity > best[hit.note_id][0]:
            best[hit.note_id] = (hit.similarity, hit.chunk_id)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    return [(note_id, score, chunk) for note_id, (score, chunk) in ranked[:depth]]


def fuse(text: list[tuple[int, float]], dense: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """One ranking from two: reciprocal rank fusion, the sum of 1 / (60 + rank) over both lists."""
    scores: dict[int, float] = {}
    for ranking in (text, dense):
        for rank, (note_id, _) in enumerate(ranking, start=1):
            scores[note_id] = scores.get(note_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


# ---------------------------------------------------------------- hits


def _hits(index: Index, query: str, ranked: list[tuple[int, float]], best_chunk: dict[int, str]) -> list[SearchHit]:
    info = index.catalog.info([note_id for note_id, _ in ranked])
    spans = index.catalog.chunk_spans([(n, best_chunk[n]) for n, _ in ranked if n in best_chunk])
    words = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if w not in STOPWORDS]
    hits = []
    for note_id, score in ranked:
        if note_id not in info:
            continue  # removed since the vectors were written
        path, title, note_type, text = info[note_id]
        span = spans.get((note_id, best_chunk.get(note_id, "")))
        section, start, end = span if span else _lexical_section(index, path, text, words)
        hits.append(SearchHit(path, title, note_type, section, snippet(text[start:end] or text, words), round(score, 6)))
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
            best = (found, section.heading, offsets[min(section.start + 1, len(offsets) - 1)], offsets[min(section.end, len(offsets) - 1)])
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
