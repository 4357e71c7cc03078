"""Measure text, vector and fused search on vault-example's labelled queries, with the real model.

    python benchmarks/fusion_eval.py            # prints a table, writes benchmarks/results/fusion.json

Metrics per query set: hit@1, hit@5 (a relevant note in the top k), MRR@10.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the labelled query set lives beside the test that keeps fusion honest
sys.path.insert(0, str(HERE.parent))

from labelled_queries import KEYWORDS, PARAPHRASE  # noqa: E402

from brain.index import search as search_module  # noqa: E402
from brain.index.engine import open_index  # noqa: E402
from brain.index.sync import index_vault  # noqa: E402
from brain.vault import Vault  # noqa: E402

VARIANTS = [("text", "text", None), ("vector", "vector", None), ("rrf", "hybrid", None)]  # what brain runs
VARIANTS += [(f"weighted {w:.1f}", "hybrid", w) for w in (0.3, 0.4, 0.5, 0.6, 0.7)]  # the alternative, kept here


def weighted_fusion(text_weight: float):
    """Scores scaled by each list's top score, then a weighted sum: the fusion RRF was measured against."""

    def fuse(text: list[tuple[int, float]], dense: list[tuple[int, float]]) -> list[tuple[int, float]]:
        scores: dict[int, float] = {}
        for ranking, weight in ((text, text_weight), (dense, 1.0 - text_weight)):
            top = max((score for _, score in ranking), default=0.0)
            if top <= 0:
                continue
            for note_id, score in ranking:
                scores[note_id] = scores.get(note_id, 0.0) + weight * max(score, 0.0) / top
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))

    return fuse


def prepared_vault(source: Path) -> Vault:
    target = Path(tempfile.mkdtemp(prefix="brain-fusion-")) / "vault"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".brain"))
    (target / ".brain").mkdir()
    return Vault(target)


def evaluate(index, queries: dict[str, list[str]], mode: str, weight: float | None) -> dict:
    hit1 = hit5 = mrr = 0.0
    misses = []
    product_fusion = search_module.fuse
    if weight is not None:
        search_module.fuse = weighted_fusion(weight)  # the variant replaces brain's fusion for this run only
    try:
        rankings = {query: [hit.path for hit in search_module.run(index, query, mode=mode, limit=10)] for query in queries}
    finally:
        search_module.fuse = product_fusion
    for query, relevant in queries.items():
        paths = rankings[query]
        rank = next((i for i, path in enumerate(paths, start=1) if path in relevant), None)
        hit1 += rank == 1
        hit5 += rank is not None and rank <= 5
        mrr += 1.0 / rank if rank else 0.0
        if rank is None or rank > 5:
            misses.append(query)
    n = len(queries)
    return {"hit@1": round(hit1 / n, 3), "hit@5": round(hit5 / n, 3), "mrr@10": round(mrr / n, 3), "missed@5": misses}


def main() -> int:
    vault = prepared_vault(HERE.parent / "vault-example")
    index = open_index(vault)
    index_vault(index)
    print(f"embedder {index.embedder.id}; {len(PARAPHRASE)} paraphrase + {len(KEYWORDS)} keyword queries")
    results = {}
    print(f"{'variant':14} {'set':10} {'hit@1':>6} {'hit@5':>6} {'mrr@10':>7}")
    for name, mode, weight in VARIANTS:
        results[name] = {}
        for set_name, queries in (("paraphrase", PARAPHRASE), ("keywords", KEYWORDS), ("all", {**PARAPHRASE, **KEYWORDS})):
            scores = evaluate(index, queries, mode, weight)
            results[name][set_name] = scores
            print(f"{name:14} {set_name:10} {scores['hit@1']:6.3f} {scores['hit@5']:6.3f} {scores['mrr@10']:7.3f}")
    out = HERE / "results" / "fusion.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"embedder": index.embedder.id, "results": results}, indent=2) + "\n")
    shutil.rmtree(vault.root.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
