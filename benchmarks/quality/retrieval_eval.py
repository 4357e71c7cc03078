"""Search quality on public multi-hop sets (MuSiQue, HotpotQA) and vault-example's labelled queries.

    python -m benchmarks.quality.retrieval_eval                      # every set, every mode
    python -m benchmarks.quality.retrieval_eval --sets musique --label before
    python -m benchmarks.quality.retrieval_eval --embedders minilm e5-small --label e5   # both, one run
    python -m benchmarks.quality.retrieval_eval --split --sets musique hotpotqa            # one note per sentence

One vault per public set, one note per passage (title = the passage's title, body = its text),
indexed with brain's own default embedder; every question is searched against the whole vault with
brain's own `search.run`. Metrics per mode (text, vector, hybrid, hybrid+rerank):
- recall@5: share of a question's supporting passages among the top 5 notes, averaged;
- mrr@10: 1 / rank of the first supporting passage in the top 10 (0 if none), averaged;
- latency p50/p95 of each query (in-process, warm, index already fresh; the machine is shared).
vault-example's 32 labelled queries (tests/helpers/labelled_queries.py) report hit@5 and mrr@10.

The data sets live in ../shared/benchmarks/retrieval/ (not in this repository); when that folder is
missing the public sets are skipped with a message saying so. Results are merged into
benchmarks/results/retrieval.json under `--label` (default "current"). With `--embedders`, each
embedder runs in its own process (so peak memory is its own), one after the other, and its results
go under `<label>/<embedder>`, with its model load time, indexing rate and peak memory.

`--split` (issue 23, point 5: turn-level retrieval) splits the public sets' passages into single
sentences, one note each, titled with the passage's title; labels follow the sentence that holds
the answer (the rule is in benchmarks/retrieval.py, `load_split`; benchmarks/studies/turn_level.py
measures the context and per-field BM25 variants). Results go under `<label>/split` (and
`/split/<embedder>`), sets `musique-split` ...
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

from benchmarks import harness
from benchmarks.harness import REPO, merge_json, p50_p95
from benchmarks.retrieval import (
    CACHE,
    SETS,
    example_vault,
    load_set,
    number_of,
    prepared_vault,
    public_sets,
    search_modes,
    split_vault,
)
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search import service as search_module

RESULTS = harness.RESULTS / "retrieval.json"


# ---------------------------------------------------------------- measuring


def evaluate_public(index, questions: list[tuple[str, list[set[int]]]], kwargs: dict) -> dict:
    """Each question has items to find (a supporting passage, or the sentences holding one hop's
    answer); an item is found when any of its notes is in the top 5."""
    recall = mrr = 0.0
    times = []
    for query, _ in questions[:3]:
        search_module.run(index, query, limit=10, **kwargs)  # warm
    for query, items in questions:
        started = time.perf_counter()
        hits = search_module.run(index, query, limit=10, **kwargs)
        times.append((time.perf_counter() - started) * 1000)
        ranked = [number_of(hit.path) for hit in hits]
        top5, every = set(ranked[:5]), set().union(*items)
        recall += sum(1 for notes in items if notes & top5) / len(items)
        mrr += next((1.0 / rank for rank, n in enumerate(ranked, start=1) if n in every), 0.0)
    n = len(questions)
    return {
        "recall@5": round(recall / n, 3),
        "mrr@10": round(mrr / n, 3),
        **p50_p95(times),
    }


def evaluate_example(index, kwargs: dict) -> dict:
    from tests.helpers.labelled_queries import KEYWORDS, PARAPHRASE

    result = {}
    for set_name, queries in (("paraphrase", PARAPHRASE), ("keywords", KEYWORDS), ("all", {**PARAPHRASE, **KEYWORDS})):
        hit5 = mrr = 0.0
        for query, relevant in queries.items():
            paths = [hit.path for hit in search_module.run(index, query, limit=10, **kwargs)]
            rank = next((i for i, path in enumerate(paths, start=1) if path in relevant), None)
            hit5 += rank is not None and rank <= 5
            mrr += 1.0 / rank if rank else 0.0
        result[set_name] = {"hit@5": round(hit5 / len(queries), 3), "mrr@10": round(mrr / len(queries), 3)}
    return result


def run_set(name: str, embedder: str = "default", split: bool = False) -> dict | None:
    facts: dict = {}
    if name == "example":
        vault = example_vault(embedder)
        questions = None
    else:
        if public_sets(instead=f"skipping {name}") is None:
            return None
        if split:
            vault, questions, facts = split_vault(name, embedder)
        else:
            passages, wanted = load_set(name)
            vault = prepared_vault(name, passages, embedder)
            questions = [(query, [{n} for n in sorted(notes)]) for query, notes in wanted]
    index = open_index(vault)
    started = time.perf_counter()
    report = index_vault(index)
    built = time.perf_counter() - started
    embedded = report.embed.embedded if report.embed else 0
    result = {
        "notes": report.notes,
        "chunks": index.catalog.chunk_count(),
        "embedder": index.embedder.id,
        "index_seconds": round(built, 1),
        "chunks_embedded": embedded,
        **facts,
        "modes": {},
    }
    if embedded >= 100:  # a fresh index: its rate means something
        result["chunks_per_s"] = round(embedded / built, 1)
    if questions is not None:
        result["questions"] = len(questions)
    for label, kwargs in search_modes():
        scores = evaluate_example(index, kwargs) if questions is None else evaluate_public(index, questions, kwargs)
        result["modes"][label] = scores
        print(f"{name + ('-split' if split else ''):15} {label:14} {json.dumps(scores)}", flush=True)
    return result


def load_times(embedder: str) -> dict:
    """Seconds to load the embedder in a fresh process: cold (e5: its ONNX built into an empty cache) and cached."""
    if embedder == "default":
        return {}
    code = (
        "import time; t = time.perf_counter(); from brain.index.embedders.embedders import load_embedder; "
        f"e = load_embedder({embedder!r}); e.embed(['warm']); print(time.perf_counter() - t)"
    )
    found = {}
    cold_cache = CACHE / "cold-cache"
    shutil.rmtree(cold_cache, ignore_errors=True)
    for label in ("cold_s", "cached_s"):  # the first run builds into the empty cache, the second finds it there
        env = {"XDG_CACHE_HOME": str(cold_cache)}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env={**os.environ, **env}
        )
        found[label] = round(float(done.stdout.strip().splitlines()[-1]), 2) if done.returncode == 0 else None
    shutil.rmtree(cold_cache, ignore_errors=True)
    print(f"load {embedder}: {found}", flush=True)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description="search quality on public multi-hop sets and vault-example")
    parser.add_argument("--sets", nargs="*", choices=SETS, default=list(SETS))
    parser.add_argument("--label", default="current", help="key under which results are stored (before, after ...)")
    parser.add_argument(
        "--embedder", default="default", help="the vaults' [index] embedder (default, minilm, e5-small ...)"
    )
    parser.add_argument(
        "--embedders", nargs="+", help="several embedders, each in its own process, one after the other"
    )
    parser.add_argument("--split", action="store_true", help="the public sets split into one note per sentence")
    args = parser.parse_args()
    if args.split and "example" in args.sets:
        args.sets = [name for name in args.sets if name != "example"]  # vault-example's notes are kept whole
    if args.embedders:
        for embedder in args.embedders:
            command = [sys.executable, "-m", __spec__.name, "--sets", *args.sets, "--label", args.label]
            command += ["--embedder", embedder, *(["--split"] if args.split else [])]
            if subprocess.run(command, cwd=REPO).returncode:
                return 1
        return 0
    label = args.label + ("/split" if args.split else "")
    label = label if args.embedder == "default" else f"{label}/{args.embedder}"
    entry = harness.load_json(RESULTS).get(label, {})
    entry["load"] = load_times(args.embedder)
    for name in args.sets:
        found = run_set(name, args.embedder, args.split)
        if found is not None:
            entry[name + ("-split" if args.split else "")] = found
    entry["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    entry["machine"] = harness.machine(note="2-core machine shared with other jobs: latency is noisy")
    merge_json(RESULTS, {label: entry})
    print(f"wrote {RESULTS} [{label}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
