"""Fit the absolute relevance of search hits on ONE data set, choose the floor, report both on all.

    python -m benchmarks.studies.relevance_select                      # the default embedder
    python -m benchmarks.studies.relevance_select --embedder e5-small  # or lexical

For every labelled query of every set, each mode's candidates are taken with brain's own
`search.scored_candidates` (limit 10: the best 30 of each ranking), with their evidence: the
similarity of the best chunk and the word score (index/relevance.py). Then, offline:

1. the curves: per mode, a logistic regression on MuSiQue's candidates, the passages a question
   needs against the others, the two classes weighed equally, over sqrt(word score) (text), the
   similarity (vector), or similarity + k * sqrt(word score) (hybrid; k from 0.05 to 2 chosen
   like the fusion was, by recall@5 + MRR@10 on MuSiQue). The other sets are reported, never
   used to fit.
2. the ranking: recall@5, hit@5 and MRR@10 when the candidates are ordered by the fitted score,
   beside the min-max fusion it replaces (each list scaled to 0..1 over its top 30, summed with
   equal weights).
3. the default floor, per mode: the lowest multiple of 0.05 at which every off-topic query on
   vault-example is left with no hit (tests/helpers/labelled_queries.py's OFF_TOPIC), but never
   above the highest at which a set loses a needed note from its top 5. The table has, for every
   mode and floor, what is kept and the share of off-topic queries hidden (on the public sets,
   vault-example's own queries, about a payments service).

Prints the curves as brain/memory/search/relevance.py writes them. Measures the vaults
benchmarks/quality/retrieval_eval.py measures (benchmarks/retrieval.py builds them when missing).
Writes benchmarks/results/relevance-select.json under the embedder's name.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from benchmarks import harness, retrieval
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search import service as search_module
from brain.memory.search.relevance import Calibration

RESULTS = harness.RESULTS / "relevance-select.json"
MODES = ("text", "vector", "hybrid")
DEPTH = 30  # search.ranked's depth for limit 10
FLOORS = [round(0.05 * step, 2) for step in range(21)]


def features(mode: str, similarity: float | None, words: float | None) -> list[float]:
    root = math.sqrt(max(words or 0.0, 0.0))
    return {"text": [root], "vector": [similarity or 0.0], "hybrid": [similarity or 0.0, root]}[mode]


def candidates(name: str, embedder: str) -> dict:
    """Per mode: (rows of (note id, features), relevant ids) per labelled query, rows per off-topic
    query, and for hybrid the two lists the min-max fusion read."""
    from tests.helpers.labelled_queries import OFF_TOPIC, QUERIES

    if name == "example":
        vault = retrieval.example_vault(embedder)
        questions = list(QUERIES.items())
        off_topic = list(OFF_TOPIC)
    else:
        passages, questions = retrieval.load_set(name)
        vault = retrieval.prepared_vault(name, passages, embedder)
        off_topic = list(QUERIES)
    index = open_index(vault)
    index_vault(index)
    ids = {path: stamp.id for path, stamp in index.catalog.stamps().items()}
    out: dict = {}
    for mode in MODES:
        labelled, off, lists = [], [], []
        for query, wanted in questions:
            if name == "example":
                relevant = {ids[path] for path in wanted}
            else:
                relevant = {note for path, note in ids.items() if retrieval.number_of(path) in wanted}
            found = search_module.scored_candidates(index, query, mode, None, DEPTH)
            labelled.append(([(c.note_id, features(mode, c.similarity, c.words)) for c in found], relevant))
            if mode == "hybrid":
                text = search_module.text_ranking(index, query, None, DEPTH, strict=True)
                dense = [(n, s) for n, s, _ in search_module.dense_ranking(index, query, None, DEPTH)]
                lists.append((text, dense))
        for query in off_topic:
            found = search_module.scored_candidates(index, query, mode, None, DEPTH)
            off.append([(c.note_id, features(mode, c.similarity, c.words)) for c in found])
        out[mode] = {"labelled": labelled, "off": off, "lists": lists}
    return out


def fit(labelled: list) -> np.ndarray:
    """Logistic regression (weights, then the bias), the two classes weighed equally."""
    x = np.array([row for rows, _ in labelled for _, row in rows], dtype=float).reshape(-1, len(labelled[0][0][0][1]))
    y = np.array([note in relevant for rows, relevant in labelled for note, _ in rows], dtype=float)
    x = np.hstack([x, np.ones((len(x), 1))])
    weights = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    w = np.zeros(x.shape[1])
    for _ in range(20000):
        p = 1 / (1 + np.exp(-x @ w))
        w -= x.T @ ((p - y) * weights) / len(y)
    return w


def scored(rows: list, w: np.ndarray) -> list[tuple[float, int]]:
    out = [(1 / (1 + math.exp(-(float(np.dot(w[:-1], row)) + w[-1]))), note) for note, row in rows]
    return sorted(out, key=lambda item: (-item[0], item[1]))


def quality(ranked: list[tuple[list[int], set]]) -> dict:
    recall = mrr = hit = 0.0
    for order, relevant in ranked:
        top5 = set(order[:5])
        recall += len(relevant & top5) / max(len(relevant), 1)
        hit += bool(relevant & top5)
        rank = next((r for r, note in enumerate(order[:10], start=1) if note in relevant), None)
        mrr += 1.0 / rank if rank else 0.0
    n = len(ranked)
    return {"recall@5": round(recall / n, 3), "hit@5": round(hit / n, 3), "mrr@10": round(mrr / n, 3)}


def minmax(text: list, dense: list) -> list[int]:
    scores: dict[int, float] = {}
    for ranking in (text, dense):
        if not ranking:
            continue
        high, low = max(s for _, s in ranking), min(s for _, s in ranking)
        for note, s in ranking:
            scores[note] = scores.get(note, 0.0) + 0.5 * ((s - low) / (high - low) if high > low else 1.0)
    return [note for note, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


def hybrid_curve(labelled: list) -> tuple[np.ndarray, dict]:
    """Hybrid: the share of the word score chosen like the fusion was (recall@5 + MRR@10 on the
    fitting set, similarity + k * sqrt(word score)), then the curve fitted on that one number."""
    tried = {}
    for k in [round(0.05 * step, 2) for step in range(1, 41)]:
        combined = [([(note, [row[0] + k * row[1]]) for note, row in rows], relevant) for rows, relevant in labelled]
        w = fit(combined)
        tried[k] = quality([([n for _, n in scored(rows, w)], relevant) for rows, relevant in combined])
    best = max(tried, key=lambda k: (tried[k]["recall@5"] + tried[k]["mrr@10"], -k))
    combined = [([(note, [row[0] + best * row[1]]) for note, row in rows], relevant) for rows, relevant in labelled]
    a, bias = fit(combined)
    return np.array([a, a * best, bias]), {"chosen_k": best, "tried": tried}


def report(data: dict, curves: dict) -> dict:
    table: dict = {}
    for name, modes in data.items():
        table[name] = {}
        for mode, found in modes.items():
            w = curves[mode]
            ranked = [(scored(rows, w), relevant) for rows, relevant in found["labelled"]]
            by_floor = {}
            for floor in FLOORS:
                kept = [([n for s, n in order if s >= floor], relevant) for order, relevant in ranked]
                hidden = sum(1 for rows in found["off"] if all(s < floor for s, _ in scored(rows, w)))
                by_floor[floor] = {**quality(kept), "off_topic_hidden": round(hidden / len(found["off"]), 3)}
            entry = {"scored": by_floor[0.0], "by_floor": by_floor}
            if mode == "hybrid":
                fused = [
                    (minmax(t, d), relevant)
                    for (t, d), (_, relevant) in zip(found["lists"], found["labelled"], strict=True)
                ]
                entry["minmax_fusion"] = quality(fused)
            table[name][mode] = entry
    return table


def floors(table: dict) -> dict:
    """Per mode: the highest floor at which no set loses a needed note from its top 5, the lowest at
    which vault-example's off-topic queries all go unanswered, and the default: the lowest that
    hides them all, but never above the highest that keeps every needed note."""
    chosen = {}
    for mode in MODES:
        entries = [modes[mode]["by_floor"] for modes in table.values()]
        safe = 0.0
        for floor in FLOORS:
            if any(entry[floor]["recall@5"] < entry[0.0]["recall@5"] for entry in entries):
                break
            safe = floor
        off = table["example"][mode]["by_floor"]
        hiding = next((f for f in FLOORS if off[f]["off_topic_hidden"] == 1.0), None)
        default = safe if hiding is None else min(hiding, safe)
        chosen[mode] = {"keeping_recall": safe, "hiding_off_topic": hiding, "default": default}
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--embedder", default="default", help="the vaults' [index] embedder (default, e5-small, lexical)"
    )
    args = parser.parse_args()
    sets = ["musique", "hotpotqa", "example"]
    if retrieval.public_sets(instead="only vault-example can be measured, and nothing fitted") is None:
        return 1
    data = {name: candidates(name, args.embedder) for name in sets}
    curves = {mode: fit(data["musique"][mode]["labelled"]) for mode in ("text", "vector")}
    curves["hybrid"], choice = hybrid_curve(data["musique"]["hybrid"]["labelled"])
    print(f"hybrid: similarity + {choice['chosen_k']} * sqrt(word score)")
    table = report(data, curves)
    chosen = floors(table)
    for mode, w in curves.items():
        similarity = float(w[0]) if mode != "text" else 0.0
        words = float(w[-2]) if mode != "vector" else 0.0
        curve = Calibration(round(similarity, 2), round(words, 2), round(float(w[-1]), 2), chosen[mode]["default"])
        print(f"{mode:7} {curve}  floors {chosen[mode]}")
    for name, modes in table.items():
        for mode, entry in modes.items():
            fused = f"  min-max fusion {entry['minmax_fusion']}" if "minmax_fusion" in entry else ""
            at = {f: entry["by_floor"][f] for f in (0.1, 0.15, 0.2, 0.25)}
            print(f"{name:9} {mode:7} scored {entry['scored']}{fused}")
            print(f"{'':17} by floor {at}")
    harness.merge_json(
        RESULTS,
        {
            args.embedder: {
                "curves": {m: [round(float(v), 3) for v in w] for m, w in curves.items()},
                "hybrid_choice": choice,
                "floors": chosen,
                "table": table,
            }
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
