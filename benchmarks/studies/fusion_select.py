"""Choose how hybrid search orders its hits on SOME sets, then report the choice on the others.

    python -m benchmarks.studies.fusion_select                       # the default embedder
    python -m benchmarks.studies.fusion_select --embedder e5-small

Hybrid search scores each candidate on the absolute scale of memory/search/relevance.py (what a user
sees: a hit's score, the floor) and orders the hits by a fusion of its two halves. This study
chooses that fusion. The sets, multi-hop and conversational (benchmarks/conversations.py):

- chosen on: MuSiQue (one note per passage), `musique-sessions` (like LoCoMo: long sessions of
  two people talking) and `musique-history` (like LongMemEval: one user's chat history);
- reported on, never used to choose: the same three built from HotpotQA and vault-example's 32
  labelled queries (its 16 paraphrase queries also alone, `example-paraphrase`); `--sets` may add
  both public sets split into one note per sentence (`musique-split`, `hotpotqa-split`: turn level).

For every query the candidates are taken once with brain's own `search.scored_candidates` (BM25's
best 30 and the dense side's best 30, each with both halves' evidence measured exactly), with
the two rankings they came from (`search.text_ranking` as hybrid calls it, `search.dense_ranking`),
and the product's text and vector modes (`search.run`). Then every variant below orders the
candidates at or above the hybrid floor, offline: recall@5 (session recall@5 on the
conversational sets; hit@5 on vault-example) and MRR@10. The winner has the best mean of
recall@5 + MRR@10 over the choosing sets among the variants at or above both halves' recall@5
on each of them and at or above today's hybrid search (so no choosing set loses). Variants live
here; the product carries only the chosen one. After a change to search, `--fresh` measures
every query again (the product's three modes are read from `search.run`).

Writes benchmarks/results/fusion-select.json under `<embedder>/<label>`.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable

from benchmarks import conversations, harness, retrieval
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search import service as search_module
from brain.memory.search.relevance import calibration

RESULTS = harness.RESULTS / "fusion-select.json"
DEPTH = 30  # search.ranked's depth for limit 10
CHOOSE = ("musique", "musique-sessions", "musique-history")
REPORT = ("hotpotqa", "hotpotqa-sessions", "hotpotqa-history", "example")

# A candidate: (note id, text rank or None, BM25 or None, dense rank or None, cosine or None,
# similarity, word score, absolute score): ranks are 1-based places in the two lists.
Row = tuple
Query = dict  # {"rows": [Row], "items": [set of note ids], "text": [ids], "vector": [ids], "hybrid": [ids]}


def questions_of(name: str, embedder: str):
    """(vault, [(query, items)]) where an item is a set of note paths' numbers (or paths, for vault-example)."""
    if name == "example":
        from tests.helpers.labelled_queries import QUERIES

        return retrieval.example_vault(embedder), [(q, [set(paths)]) for q, paths in QUERIES.items()]
    base, _, protocol = name.partition("-")
    if protocol in conversations.PROTOCOLS:
        return conversations.conversation_vault(base, protocol, embedder)
    if protocol == "split":
        vault, questions, _ = retrieval.split_vault(base, embedder)
        return vault, questions
    passages, wanted = retrieval.load_set(name)
    return retrieval.prepared_vault(name, passages, embedder), [(q, [{n} for n in sorted(w)]) for q, w in wanted]


def collect(name: str, embedder: str, fresh: bool = False) -> list[Query]:
    """Every query's candidates and the product's three modes, kept in .cache/fusion/<embedder>/<set>.json
    for the next run (`fresh`: measured again, as after a change to search)."""
    kept = harness.CACHE / "fusion" / embedder / f"{name}.json"
    if kept.is_file() and not fresh:
        found = json.loads(kept.read_text(encoding="utf-8"))
        for query in found:
            query["items"] = [set(item) for item in query["items"]]
        return found
    vault, questions = questions_of(name, embedder)
    index = open_index(vault)
    index_vault(index)
    ids = {path: stamp.id for path, stamp in index.catalog.stamps().items()}
    key = (lambda path: path) if name == "example" else retrieval.number_of
    note_of = {note: key(path) for path, note in ids.items()}
    out = []
    for query, items in questions:
        text = search_module.text_ranking(index, query, None, DEPTH, strict=True)
        dense = search_module.dense_ranking(index, query, None, DEPTH)
        text_rank = {note: (rank, score) for rank, (note, score) in enumerate(text, start=1)}
        dense_rank = {note: (rank, score) for rank, (note, score, _) in enumerate(dense, start=1)}
        rows = []
        for c in search_module.scored_candidates(index, query, "hybrid", None, DEPTH):
            t, d = text_rank.get(c.note_id, (None, None)), dense_rank.get(c.note_id, (None, None))
            rows.append((note_of[c.note_id], t[0], t[1], d[0], d[1], c.similarity, c.words, c.score))
        modes = {}
        for mode in ("text", "vector", "hybrid"):
            modes[mode] = [key(hit.path) for hit in search_module.run(index, query, mode=mode, limit=10)]
        out.append({"query": query, "rows": rows, "items": items, **modes})
    saved = [
        {**query, "items": [sorted(item) for item in query["items"]], "embedder": index.embedder.id} for query in out
    ]
    harness.write_json(kept, saved)
    for query in out:
        query["embedder"] = index.embedder.id
    return out


# ---------------------------------------------------------------- the variants: a score per row, higher first


def absolute(_: str) -> Callable:
    return lambda rows: {row[0]: row[7] for row in rows}


def rrf(k: float, text_weight: float) -> Callable:
    """Reciprocal rank fusion of the two lists (a note absent from a list has nothing from it)."""

    def fuse(rows):
        return {
            row[0]: (text_weight / (k + row[1]) if row[1] else 0.0)
            + ((1 - text_weight) / (k + row[3]) if row[3] else 0.0)
            for row in rows
        }

    return fuse


def rrf_exact(k: float, text_weight: float) -> Callable:
    """RRF over the candidates ranked by each half's exact evidence (every candidate is in both)."""

    def fuse(rows, halves=False):
        by_words = {
            row[0]: r for r, row in enumerate(sorted(rows, key=lambda row: (-(row[6] or 0.0), -row[7])), start=1)
        }
        by_sim = {row[0]: r for r, row in enumerate(sorted(rows, key=lambda row: (-(row[5] or 0.0), -row[7])), start=1)}
        if halves:  # each half's 1 / (k + rank), unweighted
            return {n: 1.0 / (k + r) for n, r in by_words.items()}, {n: 1.0 / (k + r) for n, r in by_sim.items()}
        return {row[0]: text_weight / (k + by_words[row[0]]) + (1 - text_weight) / (k + by_sim[row[0]]) for row in rows}

    return fuse


def rrf_confident(k: float, text_weight: float, embedder_id: str) -> Callable:
    """`rrf_exact`, each half's weight times its confidence for this query: the relevance its own
    curve gives its best candidate (text mode's curve over the best word score, vector mode's over
    the best similarity), so a half that found nothing much has little say."""
    text_curve, vector_curve = calibration("text", None), calibration("vector", embedder_id)
    exact = rrf_exact(k, 1.0)

    def fuse(rows):
        by_words, by_sim = exact(rows, halves=True)
        text_confidence = text_curve.relevance(None, max((row[6] or 0.0 for row in rows), default=0.0))
        vector_confidence = vector_curve.relevance(max((row[5] or 0.0 for row in rows), default=0.0), None)
        wt, wd = text_weight * text_confidence, (1 - text_weight) * vector_confidence
        return {note: wt * by_words[note] + wd * by_sim[note] for note in by_words}

    return fuse


def minmax(text_weight: float) -> Callable:
    """Each list scaled to 0..1 over its own top 30 (the fusion the absolute score replaced, at 0.5)."""

    def fuse(rows):
        out = {row[0]: 0.0 for row in rows}
        for column, weight in ((2, text_weight), (4, 1 - text_weight)):
            values = [row[column] for row in rows if row[column] is not None]
            if not values:
                continue
            low, high = min(values), max(values)
            for row in rows:
                if row[column] is not None:
                    out[row[0]] += weight * ((row[column] - low) / (high - low) if high > low else 1.0)
        return out

    return fuse


def minmax_exact(text_weight: float) -> Callable:
    """The exact evidence of every candidate (word score, similarity) scaled to 0..1 over the candidates."""

    def fuse(rows):
        out = {row[0]: 0.0 for row in rows}
        for column, weight in ((6, text_weight), (5, 1 - text_weight)):
            values = [row[column] or 0.0 for row in rows]
            low, high = min(values), max(values)
            for row in rows:
                out[row[0]] += weight * (((row[column] or 0.0) - low) / (high - low) if high > low else 1.0)
        return out

    return fuse


def convex(text_weight: float, embedder_id: str) -> Callable:
    """A convex combination of the halves' own calibrated scores (text mode's and vector mode's curves)."""
    text_curve, vector_curve = calibration("text", None), calibration("vector", embedder_id)

    def fuse(rows):
        return {
            row[0]: text_weight * text_curve.relevance(None, row[6])
            + (1 - text_weight) * vector_curve.relevance(row[5], None)
            for row in rows
        }

    return fuse


def linear(k: float) -> Callable:
    """similarity + k * sqrt(word score): the absolute score's own evidence at another ratio (it is 0.35
    for all-MiniLM-L6-v2, whose curve is monotone in this sum)."""
    return lambda rows: {row[0]: (row[5] or 0.0) + k * math.sqrt(max(row[6] or 0.0, 0.0)) for row in rows}


def variants(embedder_id: str) -> dict[str, Callable]:
    found: dict[str, Callable] = {"absolute (issue 34)": absolute("")}
    for k in (0.2, 0.35, 0.5, 0.7, 1.0, 1.5, 2.0):
        found[f"linear k={k}"] = linear(k)
    weights = (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8)
    for k in (1, 2, 3, 5, 10, 20, 30, 60):
        for w in weights:
            found[f"rrf k={k} text={w}"] = rrf(k, w)
            found[f"rrf-exact k={k} text={w}"] = rrf_exact(k, w)
            found[f"rrf-confident k={k} text={w}"] = rrf_confident(k, w, embedder_id)
    for w in (0.2, *weights):
        found[f"minmax text={w}"] = minmax(w)
        found[f"minmax-exact text={w}"] = minmax_exact(w)
        found[f"convex text={w}"] = convex(w, embedder_id)
    return found


# ---------------------------------------------------------------- measuring


def quality(orders: list[list], queries: list[Query]) -> dict:
    recall = mrr = hit = hit3 = 0.0
    for order, query in zip(orders, queries, strict=True):
        top5 = set(order[:5])
        items = query["items"]
        recall += sum(1 for notes in items if notes & top5) / len(items)
        every = set().union(*items)
        hit += bool(every & top5)
        hit3 += bool(every & set(order[:3]))
        rank = next((r for r, note in enumerate(order[:10], start=1) if note in every), None)
        mrr += 1.0 / rank if rank else 0.0
    n = len(queries)
    return {
        "recall@5": round(recall / n, 3),
        "hit@5": round(hit / n, 3),
        "hit@3": round(hit3 / n, 3),
        "mrr@10": round(mrr / n, 3),
    }


def ordered(fuse: Callable, query: Query, floor: float) -> list:
    """The candidates at or above the floor in the variant's order (fused over every candidate, so
    the floor hides hits and never reorders them); ties go to the higher absolute score."""
    rows = query["rows"]
    scores, absolute_score = fuse(rows), {row[0]: row[7] for row in rows}
    passing = [item for item in scores.items() if absolute_score[item[0]] >= floor]
    ties = sorted(passing, key=lambda item: (-item[1], -absolute_score[item[0]], str(item[0])))
    return [note for note, _ in ties][:10]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="default", help="the vaults' [index] embedder (default, e5-small)")
    parser.add_argument("--sets", nargs="*", default=[*CHOOSE, *REPORT])
    parser.add_argument("--fresh", action="store_true", help="measure every query again (after a change to search)")
    parser.add_argument(
        "--label", default="current", help="key of the results under the embedder's (before, after ...)"
    )
    args = parser.parse_args()
    if retrieval.public_sets(instead="nothing to choose on") is None:
        return 1
    data = {}
    for name in args.sets:
        data[name] = collect(name, args.embedder, args.fresh)
        print(f"collected {name}: {len(data[name])} queries", flush=True)
    embedder_id = next(iter(data.values()))[0]["embedder"]
    if "example" in data:  # its paraphrase queries alone: the notes they need share (almost) no word with them
        from tests.helpers.labelled_queries import PARAPHRASE

        data["example-paraphrase"] = [query for query in data["example"] if query["query"] in PARAPHRASE]
    floor = calibration("hybrid", embedder_id).floor
    table: dict = {}
    for name, queries in data.items():
        rows = {mode: quality([q[mode] for q in queries], queries) for mode in ("text", "vector", "hybrid")}
        for label, fuse in variants(embedder_id).items():
            rows[label] = quality([ordered(fuse, q, floor) for q in queries], queries)
        table[name] = rows
    choosing = [name for name in CHOOSE if name in table]
    fused = [label for label in table[choosing[0]] if label not in ("text", "vector", "hybrid")]

    def fair(label: str) -> bool:
        """recall@5 at or above both halves and at or above today's hybrid search on every choosing set."""
        return all(
            table[s][label]["recall@5"]
            >= max(table[s]["text"]["recall@5"], table[s]["vector"]["recall@5"], table[s]["hybrid"]["recall@5"])
            for s in choosing
        )

    def merit(label: str) -> float:
        return sum(table[s][label]["recall@5"] + table[s][label]["mrr@10"] for s in choosing) / len(choosing)

    eligible = [label for label in fused if fair(label)] or fused
    best = max(eligible, key=lambda label: (merit(label), label))
    ranking = sorted(fused, key=lambda label: -merit(label))
    print(f"chosen on {', '.join(choosing)}: {best} (of {len(eligible)} variants at or above both halves and today)")
    for name, rows in table.items():
        shown = {k: rows[k] for k in ("text", "vector", "hybrid", "absolute (issue 34)", best)}
        print(f"{name:18} " + "  ".join(f"{k}: {v['recall@5']}/{v['mrr@10']}" for k, v in shown.items()))
    print("top variants on the choosing sets:", [(label, round(merit(label), 3)) for label in ranking[:12]])
    harness.merge_json(
        RESULTS,
        {
            f"{args.embedder}/{args.label}": {
                "embedder": embedder_id,
                "floor": floor,
                "chosen_on": choosing,
                "chosen": best,
                "merit": {label: round(merit(label), 4) for label in ranking},
                "table": table,
                "machine": harness.machine(),
            }
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
