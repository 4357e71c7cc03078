"""Search quality of all-MiniLM-L6-v2 on int8 kernels against the same weights in float, fusion held fixed.

    python -m benchmarks.studies.int8_quality                       # every set both embedders know
    python -m benchmarks.studies.int8_quality --sets musique example --embedders minilm-float minilm

The int8 kernels (brain/index/embedders/int8_kernels.py) change the vectors a little; the rule is
that no set loses more than 0.5 points of recall@5 (session recall@5 on the conversational sets).
Each set is indexed once per embedder (vaults and their vectors kept under
benchmarks/.cache/retrieval/<embedder>/, as benchmarks/quality/retrieval_eval.py keeps them) and
searched with this checkout's own `search.run` in text, vector and hybrid mode: the text half is
the same for both, so any change is the vectors'. Sets: MuSiQue and HotpotQA (one note per passage,
../shared/benchmarks/retrieval/), vault-example's labelled queries, and, where
benchmarks/conversations.py is present, the conversational sets built from them (`<set>-sessions`
like LoCoMo, `<set>-history` like LongMemEval; needs `pip install chitchat-dataset`).
Results go to benchmarks/results/int8-quality.json.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import time

from benchmarks import harness
from benchmarks.retrieval import example_vault, load_set, number_of, prepared_vault, public_sets
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search import service as search_module

RESULTS = harness.RESULTS / "int8-quality.json"
SETS = (
    "musique",
    "hotpotqa",
    "example",
    "musique-sessions",
    "musique-history",
    "hotpotqa-sessions",
    "hotpotqa-history",
)
MODES = ("text", "vector", "hybrid")


def questions_and_vault(name: str, embedder: str):
    base, _, protocol = name.partition("-")
    if protocol:
        if importlib.util.find_spec("benchmarks.conversations") is None:
            print(f"{name}: skipped (benchmarks/conversations.py is not in this checkout)", flush=True)
            return None
        return importlib.import_module("benchmarks.conversations").conversation_vault(base, protocol, embedder)
    if name == "example":
        from tests.helpers.labelled_queries import QUERIES  # any one of a query's notes in the top 5 finds it

        return example_vault(embedder), [(query, [set(paths)]) for query, paths in QUERIES.items()]
    if public_sets("skipping MuSiQue and HotpotQA") is None:
        return None
    passages, wanted = load_set(name)  # each supporting passage is an item to find
    return prepared_vault(name, passages, embedder), [(query, [{n} for n in sorted(notes)]) for query, notes in wanted]


def measure(index, questions, mode: str) -> dict:
    recall = mrr = 0.0
    for query, items in questions:
        hits = search_module.run(index, query, mode=mode, limit=10)
        ranked = [hit.path if isinstance(next(iter(items[0])), str) else number_of(hit.path) for hit in hits]
        top5, every = set(ranked[:5]), set().union(*items)
        recall += sum(1 for notes in items if notes & top5) / len(items)
        mrr += next((1.0 / rank for rank, n in enumerate(ranked, start=1) if n in every), 0.0)
    return {"recall@5": round(recall / len(questions), 4), "mrr@10": round(mrr / len(questions), 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--embedders", nargs="+", default=["minilm-float", "minilm"])
    args = parser.parse_args()
    results: dict = {}
    for name in args.sets:
        for embedder in args.embedders:
            found = questions_and_vault(name, embedder)
            if found is None:
                break
            vault, questions = found
            started = time.perf_counter()
            index = open_index(vault)
            report = index_vault(index)
            row = {
                "embedder": index.embedder.id,
                "questions": len(questions),
                "embedded": report.embed.embedded if report.embed else 0,
                "index_seconds": round(time.perf_counter() - started, 1),
            }
            row |= {mode: measure(index, questions, mode) for mode in MODES}
            row["machine"] = harness.machine()
            results.setdefault(name, {})[embedder] = row
            print(name, embedder, json.dumps(row), flush=True)
            harness.merge_json(RESULTS, {name: harness.load_json(RESULTS).get(name, {}) | results[name]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
