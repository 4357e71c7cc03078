"""Choose the hybrid fusion on ONE data set, then report the choice on the others.

    python -m benchmarks.studies.fusion_select                 # choose on musique, report hotpotqa and example
    python -m benchmarks.studies.fusion_select --choose-on hotpotqa

For every query of every set the two halves are computed once with brain's own rankings
(`search.text_ranking` as hybrid mode calls it, `search.dense_ranking`), then each fusion variant
below is scored offline: recall@5 and MRR@10 (hit@5 for vault-example). The variant with the best
recall@5 + MRR@10 on the choosing set wins; the other sets are reported, never used to choose.
Variants live here, not in brain/: the product carries only the chosen fusion.

Measures the vaults benchmarks/quality/retrieval_eval.py measures (benchmarks/retrieval.py builds them when missing).
Writes benchmarks/results/fusion-select.json.
"""

from __future__ import annotations

import argparse

from benchmarks import harness, retrieval
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search import service as search_module

RESULTS = harness.RESULTS / "fusion-select.json"
DEPTH = 30


def halves(name: str) -> list[tuple[list, list, set]]:
    """(text ranking, dense ranking, relevant note ids) per query of a set."""
    if name == "example":
        from tests.helpers.labelled_queries import QUERIES

        vault = retrieval.example_vault()
        questions = list(QUERIES.items())
    else:
        passages, questions = retrieval.load_set(name)
        vault = retrieval.prepared_vault(name, passages)
    index = open_index(vault)
    index_vault(index)
    ids = {path: stamp.id for path, stamp in index.catalog.stamps().items()}
    out = []
    for query, wanted in questions:
        if name == "example":
            relevant = {ids[p] for p in wanted}
        else:
            relevant = {ids[p] for p in ids if retrieval.number_of(p) in wanted}
        text = search_module.text_ranking(index, query, None, DEPTH, strict=True)
        dense = [(n, s) for n, s, _ in search_module.dense_ranking(index, query, None, DEPTH)]
        out.append((text, dense, relevant))
    return out


# ---------------------------------------------------------------- fusion variants


def rrf(k: float, text_weight: float):
    def fuse(text, dense):
        scores: dict[int, float] = {}
        for ranking, weight in ((text, text_weight), (dense, 1 - text_weight)):
            for rank, (n, _) in enumerate(ranking, start=1):
                scores[n] = scores.get(n, 0.0) + weight / (k + rank)
        return scores

    return fuse


def minmax(text_weight: float):
    def fuse(text, dense):
        scores: dict[int, float] = {}
        for ranking, weight in ((text, text_weight), (dense, 1 - text_weight)):
            if not ranking:
                continue
            values = [s for _, s in ranking]
            low, high = min(values), max(values)
            for n, s in ranking:
                scores[n] = scores.get(n, 0.0) + weight * ((s - low) / (high - low) if high > low else 1.0)
        return scores

    return fuse


def zscore(text_weight: float):
    def fuse(text, dense):
        scores: dict[int, float] = {}
        for ranking, weight in ((text, text_weight), (dense, 1 - text_weight)):
            if len(ranking) < 2:
                continue
            values = [s for _, s in ranking]
            mean = sum(values) / len(values)
            std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5 or 1.0
            floor = (min(values) - mean) / std
            for n, s in ranking:
                scores[n] = scores.get(n, 0.0) + weight * ((s - mean) / std - floor)
        return scores

    return fuse


def topscaled(text_weight: float):
    """Scores divided by the list's best (the old `weighted` fusion)."""

    def fuse(text, dense):
        scores: dict[int, float] = {}
        for ranking, weight in ((text, text_weight), (dense, 1 - text_weight)):
            top = max((s for _, s in ranking), default=0.0)
            for n, s in ranking:
                if top > 0:
                    scores[n] = scores.get(n, 0.0) + weight * max(s, 0.0) / top
        return scores

    return fuse


def variants() -> dict:
    found = {"text": lambda t, d: {n: s for n, s in t}, "vector": lambda t, d: {n: s for n, s in d}}
    for k in (5, 10, 20, 30, 60):
        for w in (0.3, 0.4, 0.5, 0.6, 0.7):
            found[f"rrf k={k} text={w}"] = rrf(k, w)
    for w in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        found[f"minmax text={w}"] = minmax(w)
        found[f"zscore text={w}"] = zscore(w)
        found[f"topscaled text={w}"] = topscaled(w)
    return found


def score(queries: list, fuse) -> dict:
    recall = mrr = hit5 = 0.0
    for text, dense, relevant in queries:
        fused = fuse(text, dense)
        ranked = [n for n, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))][:10]
        recall += len(relevant & set(ranked[:5])) / max(len(relevant), 1)
        rank = next((r for r, n in enumerate(ranked, start=1) if n in relevant), None)
        mrr += 1.0 / rank if rank else 0.0
        hit5 += rank is not None and rank <= 5
    n = len(queries)
    return {"recall@5": round(recall / n, 3), "mrr@10": round(mrr / n, 3), "hit@5": round(hit5 / n, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--choose-on", default="musique", choices=retrieval.SETS)
    args = parser.parse_args()
    sets = [args.choose_on] + [s for s in retrieval.SETS if s != args.choose_on]
    if retrieval.public_sets(instead="only vault-example can be measured") is None:
        sets = [s for s in sets if s == "example"]
    data = {name: halves(name) for name in sets}
    table = {name: {label: score(data[name], fuse) for label, fuse in variants().items()} for name in sets}
    chooser = table[sets[0]]
    fused_only = {k: v for k, v in chooser.items() if k not in ("text", "vector")}
    best = max(fused_only, key=lambda k: fused_only[k]["recall@5"] + fused_only[k]["mrr@10"])
    print(f"chosen on {sets[0]}: {best}")
    for name in sets:
        rows = table[name]
        print(
            f"{name:9} text {rows['text']}  vector {rows['vector']}  chosen {rows[best]}  rrf60 {rows['rrf k=60 text=0.5']}"
        )
    harness.write_json(RESULTS, {"chosen_on": sets[0], "chosen": best, "table": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
