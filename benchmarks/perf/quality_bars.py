"""Measure every row of the design's Quality bars on a generated vault; write JSON, print a table.

    python -m benchmarks.perf.quality_bars --size 1k            # or 10k; --only ROW to run one row
    python -m benchmarks.perf.quality_bars --size 10k --only search

Rows: cold (cold catalog, no embeddings), rescan (unchanged vault), embed (pipeline vs the raw
model, same run, same chunks), search (hybrid p50/p95, warm), causal (path and antipatterns at
N patterns, warm), watch (edit -> searchable), memory (peak RSS of an index run).
Results: benchmarks/results/quality[-SIZE].json. Vaults are generated under benchmarks/.cache/.

What each row measures, where it is not obvious:
- embed: embedding all 10k notes with the real model takes about an hour on 2 cores (the model
  runs ~2,500 tokens/s here), so the row embeds a subset (EMBED_NOTES notes) through the whole
  pipeline (chunking, tokenizing, batching, the model, Chroma writes, catalog) and times the raw
  model (onnxruntime session only) on exactly those chunks in the same run.
- search: the notes' vectors are written by the lexical embedder (same dimension, same chunk
  count as the real model would give, minutes instead of an hour); each query is embedded by
  the real model. Latency is FTS5 + real query embedding + an exact scan of all chunk vectors + fusion.
  Measured twice: with a watcher running (readers trust the catalog) and without (the first
  search stats the whole vault; later ones re-check the paths file events reported, index/watch/fresh.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time

from benchmarks.generate_vault import SIZES
from benchmarks.harness import (
    CACHE,
    REPO,
    RESULTS,
    load_json,
    machine,
    measure,
    p50_p95,
    percentile,
    use_embedder,
    write_json,
)
from benchmarks.perf.generated import RealQueries, fresh_vault, queries
from brain.index.embedders.embedders import LexicalFallbackEmbedder, load_embedder
from brain.index.engine import Index, open_index
from brain.vault.vault import Vault

EMBED_NOTES = 60
TARGETS = {
    "cold": ">= 1000 notes/s",
    "rescan": "<= 1 s",
    "embed": ">= 0.90 of raw model",
    "search": "p95 <= 50 ms",
    "causal": "<= 100 ms",
    "watch": "p95 <= 2 s",
    "memory": "<= 1024 MB",
}


# ---------------------------------------------------------------- rows


def _cold_runs(size: str, count: int) -> tuple[int, list[float], list[float]]:
    from brain.index.sync.sync import index_vault

    walls, cpus = [], []
    for _ in range(count):
        root = fresh_vault(size)
        use_embedder(root, "lexical")
        vault = Vault(root)
        cpu = time.process_time() + _children_cpu()
        started = time.perf_counter()
        report = index_vault(open_index(vault), embed=False)
        walls.append(report.notes / (time.perf_counter() - started))
        cpus.append(report.notes / (time.process_time() + _children_cpu() - cpu))
    return report.notes, walls, cpus


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def row_cold(size: str) -> dict:
    """Wall-clock notes/s (the target), and notes per CPU-second (what two idle cores would give
    at most twice of), with the YAML loader brain uses (libyaml's, when PyYAML has it)."""
    from brain.markdown import frontmatter_yaml

    notes, walls, cpus = _cold_runs(size, 2)
    return {
        "notes": notes,
        "notes_per_s": round(max(walls), 1),
        "runs_notes_per_s": [round(r, 1) for r in walls],
        "notes_per_cpu_s": round(max(cpus), 1),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "yaml_loader": frontmatter_yaml._yaml_classes()[0].__mro__[1].__name__,
        "ok": max(walls) >= 1000,
    }


def row_rescan(size: str) -> dict:
    from brain.index.sync.scan import scan
    from brain.index.sync.sync import index_vault

    root = fresh_vault(size)
    use_embedder(root, "lexical")
    vault = Vault(root)
    index_vault(open_index(vault), embed=False)
    index = open_index(vault)
    times = []
    for _ in range(7):
        started = time.perf_counter()
        result = scan(index)
        times.append(time.perf_counter() - started)
        assert result.changes == 0
    return {
        "seconds_median": round(statistics.median(times), 3),
        "seconds_max": round(max(times), 3),
        "ok": statistics.median(times) <= 1.0,
    }


def row_embed(size: str) -> dict:
    from brain.index.sync.sync import index_vault
    from brain.index.vectors.chunking import chunk_note

    source = fresh_vault(size)
    runs = []
    for attempt in range(3):
        root = CACHE / "work" / "embed"
        shutil.rmtree(root, ignore_errors=True)
        (root / ".brain").mkdir(parents=True)
        files = sorted(source.rglob("*.md"))
        for path in random.Random(attempt).sample(files, EMBED_NOTES):
            target = root / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        vault = Vault(root)
        index = open_index(vault)
        embedder = index.embedder
        index_vault(open_index(vault), embed=False)
        index.vectors.collection()  # one-time set-up (Chroma client, tokenizer copy) is not throughput
        texts = [c.text for note in index.catalog.load().values() for c in chunk_note(note, embedder.id, index.spans)]
        raw_before = raw_model_throughput(embedder, texts)  # the raw model just before and after the
        report = index_vault(open_index(vault), embed=True)  # pipeline, so a change of machine load shows
        raw_after = raw_model_throughput(embedder, texts)
        pipeline = report.embed.embedded / report.embed.seconds
        raw = (raw_before + raw_after) / 2
        tokens = sum(len(e.ids) for e in embedder.tokenize(texts))
        runs.append(
            {
                "chunks": len(texts),
                "tokens": tokens,
                "pipeline_chunks_per_s": round(pipeline, 2),
                "raw_chunks_per_s_before_after": [round(raw_before, 2), round(raw_after, 2)],
                "ratio": round(pipeline / raw, 3),
            }
        )
    ratio = statistics.median(r["ratio"] for r in runs)
    return {"embedder": embedder.id, "runs": runs, "ratio": round(ratio, 3), "ok": ratio >= 0.9}


def raw_model_throughput(embedder, texts: list[str]) -> float:
    """Texts per second through the model alone (tokenizing and batching untimed), on the same
    batches embed() makes."""
    prepared = embedder.batches(embedder.tokenize(texts))
    start = time.perf_counter()
    for _, ids, mask in prepared:
        embedder.run_batch(ids, mask)
    return len(texts) / (time.perf_counter() - start)


def _time_searches(index: Index, items: list[str], **kwargs) -> list[float]:
    from brain.memory.search.service import search

    return measure(lambda query: search(index, query, **kwargs), items, warm=5)


def row_search(size: str) -> dict:
    from brain.index.sync.sync import index_vault
    from brain.index.watch.watch import Watcher
    from brain.memory.search.service import SearchFilters

    root = fresh_vault(size, "search")
    use_embedder(root, "lexical")
    vault = Vault(root)
    lexical = LexicalFallbackEmbedder()
    index = open_index(vault, embedder=lexical)
    started = time.perf_counter()
    report = index_vault(index)
    build = time.perf_counter() - started
    real = load_embedder("default")
    index.close()
    index = open_index(vault, embedder=RealQueries(real, lexical))  # the real model's queries from now on
    items = queries(100)
    result = {"notes": report.notes, "chunks": index.catalog.chunk_count(), "build_seconds_lexical": round(build, 1)}
    no_watch = _time_searches(index, items)
    filtered_no_watch = _time_searches(index, items[:40], filters=SearchFilters(types=("episode",), since="2026-03-10"))
    with Watcher(index, embed=False):
        watched = _time_searches(index, items)
        filtered = _time_searches(index, items[:40], filters=SearchFilters(types=("episode",), since="2026-03-10"))
        text_only = _time_searches(index, items[:40], mode="text")
    query_embed = measure(lambda query: real.embed([query]), items)
    for name, values in (
        ("with_watcher", watched),
        ("without_watcher", no_watch),
        ("filtered_with_watcher", filtered),
        ("filtered_without_watcher", filtered_no_watch),
        ("text_mode_with_watcher", text_only),
        ("query_embedding_only", query_embed),
    ):
        result[name] = p50_p95(values)
    result["ok"] = result["with_watcher"]["p95_ms"] <= 50
    return result


def row_causal(size: str) -> dict:
    from brain.index.sync.sync import index_vault
    from brain.index.watch.watch import Watcher
    from brain.memory.causal.graph import causal_graph, find_path
    from brain.memory.corpus import Corpus
    from brain.memory.patterns.service import antipatterns

    root = fresh_vault(size, "causal", patterns_only=True)
    use_embedder(root, "lexical")
    vault = Vault(root)
    index_vault(open_index(vault), embed=False)
    corpus = Corpus(vault)
    started = time.perf_counter()
    graph = causal_graph(corpus)
    cold_graph = time.perf_counter() - started
    rng = random.Random(5)
    nodes = [n for n in graph.nodes if not n.startswith("missing:")]
    pairs = [(graph.nodes[a]["title"], graph.nodes[b]["title"]) for a, b in (rng.sample(nodes, 2) for _ in range(40))]

    def path_and_antipatterns() -> dict:
        path = p50_p95(measure(lambda pair: find_path(corpus, *pair, max_depth=5), pairs))
        anti = p50_p95(measure(lambda _: antipatterns(corpus), range(20)))
        return {
            "path_p50_ms": path["p50_ms"],
            "path_p95_ms": path["p95_ms"],
            "antipatterns_p50_ms": anti["p50_ms"],
            "antipatterns_p95_ms": anti["p95_ms"],
        }

    path_and_antipatterns()  # warm
    result = {"patterns": len(nodes), "edges": len(graph.edges), "first_graph_build_s": round(cold_graph, 2)}
    result["without_watcher"] = path_and_antipatterns()
    with Watcher(corpus.open_index(), embed=False):  # the watcher of the reads' own index
        result["with_watcher"] = watched = path_and_antipatterns()
    result["ok"] = max(watched["path_p95_ms"], watched["antipatterns_p95_ms"]) <= 100
    return result


TOPICS = [
    "a purple giraffe painting in the lobby",
    "baking sourdough bread on friday mornings",
    "a chess tournament against the interns",
    "learning to play the bagpipes",
    "a volcano erupting in iceland",
    "knitting wool scarves for penguins",
    "a hot air balloon ride over cappadocia",
    "growing tomatoes on the office roof",
    "a jazz concert in new orleans",
    "teaching a parrot to speak french",
    "skydiving over the swiss alps",
    "a pottery class making blue vases",
    "surfing giant waves in portugal",
    "building a treehouse for squirrels",
    "running a marathon through tokyo",
]


def _edit_latency(index: Index, edits: int, mode: str) -> list[float]:
    """Seconds from appending a section with a new word to a random note until a search finds it.

    text: the catalog has it and the note's vectors include the new chunk (hash vectors are too
    sparse for Chroma's HNSW to find one unique word, so the vector store is checked directly);
    vector: the real model's dense search for the new section's topic returns the note, with
    the new section as its best chunk.
    """
    from brain.memory.search.service import search

    vault = index.vault
    files = sorted(p for p in vault.root.rglob("*.md") if ".brain" not in p.parts)
    rng = random.Random(11)
    latencies = []
    for number in range(edits):
        path = rng.choice(files)
        token = f"zqx{number}marker"
        relative = path.relative_to(vault.root).as_posix()
        started = time.perf_counter()
        topic = TOPICS[number % len(TOPICS)]
        with path.open("a", encoding="utf-8") as handle:  # an editor saving an edit
            handle.write(f"\n## Update {token}\n{topic.capitalize()}.\n")
        while True:
            hits = search(index, topic if mode == "vector" else token, mode=mode, limit=3)
            if hits and hits[0].path == relative:
                if mode == "vector" and hits[0].section == f"Update {token}":
                    break
                stamp = index.catalog.stamps().get(relative)
                if (
                    mode == "text"
                    and stamp
                    and any(
                        token in (section or "") for _, section, _, _ in index.catalog.chunk_rows(stamp.id).values()
                    )
                ):
                    break
            if time.perf_counter() - started > 30:
                raise RuntimeError(f"edit of {relative} never became searchable: {hits[:2]}")
            time.sleep(0.02)
        latencies.append(time.perf_counter() - started)
        time.sleep(0.1)
    return latencies


def seconds_p50_p95(seconds: list[float]) -> dict:
    return {"p50_s": round(percentile(seconds, 0.5), 2), "p95_s": round(percentile(seconds, 0.95), 2)}


def row_watch(size: str) -> dict:
    from brain.index.sync.sync import index_vault
    from brain.index.watch.watch import Watcher

    result = {}
    root = fresh_vault(size, "watch")
    use_embedder(root, "lexical")
    vault = Vault(root)
    index = open_index(vault)
    index_vault(index)
    with Watcher(index):
        lat = _edit_latency(index, 20, "text")
    result[f"{size}_vault_lexical_embedder"] = seconds_p50_p95(lat)
    # the real model: its vectors must be current before a dense hit can show the new words
    small = CACHE / "work" / "watch-real"
    shutil.rmtree(small, ignore_errors=True)
    shutil.copytree(REPO / "vault-example", small, ignore=shutil.ignore_patterns(".brain"))
    (small / ".brain").mkdir()
    vault = Vault(small)
    index = open_index(vault)
    index_vault(index)
    with Watcher(index):
        lat = _edit_latency(index, 15, "vector")
    result["example_vault_real_model_vector_mode"] = seconds_p50_p95(lat)
    result["ok"] = all(v["p95_s"] <= 2 for k, v in result.items() if isinstance(v, dict))
    return result


MEMORY_SCRIPT = """
import json, resource, sys, shutil, random
from pathlib import Path
from brain.vault.vault import Vault
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
root = Path({root!r})
vault = Vault(root)
index_vault(open_index(vault), embed=False)               # the whole catalog, process pool included
keep = set(random.Random(1).sample(sorted(p for p in root.rglob('*.md')), {subset}))
for path in root.rglob('*.md'):               # embed a subset with the real model (see module doc)
    if path not in keep:
        path.unlink()
index_vault(open_index(vault))
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({{"main_mb": round(own, 1), "largest_worker_mb": round(workers, 1)}}))
"""


def row_memory(size: str) -> dict:
    root = fresh_vault(size, "memory")
    script = MEMORY_SCRIPT.format(root=str(root), subset=EMBED_NOTES)
    started = time.perf_counter()
    # cwd: `python -c` puts the working directory first on sys.path, so the checkout's brain is measured
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True, cwd=REPO)
    peaks = json.loads(done.stdout.strip().splitlines()[-1])
    peak = max(peaks.values())
    return {
        "peak_rss_mb": peak,
        **peaks,
        "seconds": round(time.perf_counter() - started, 1),
        "note": f"one process: cold catalog of all notes (parse pool workers measured apart), then the real model on {EMBED_NOTES} notes",
        "ok": peak <= 1024,
    }


ROWS = {
    "cold": row_cold,
    "rescan": row_rescan,
    "embed": row_embed,
    "search": row_search,
    "causal": row_causal,
    "watch": row_watch,
    "memory": row_memory,
}


def main() -> int:
    parser = argparse.ArgumentParser(description="brain quality-bar benchmarks")
    parser.add_argument("--size", choices=sorted(SIZES), default="1k")
    parser.add_argument("--only", choices=sorted(ROWS), action="append")
    args = parser.parse_args()
    out = RESULTS / f"quality-{args.size}.json"
    results = load_json(out).get("rows", {})
    for name in args.only or list(ROWS):
        started = time.perf_counter()
        print(f"running {name} at {args.size} ...", flush=True)
        results[name] = {
            **ROWS[name](args.size),
            "target": TARGETS[name],
            "elapsed_s": round(time.perf_counter() - started, 1),
        }
        print(json.dumps(results[name]), flush=True)
        write_json(out, {"size": args.size, "machine": machine(), "rows": results})
    print(f"\n{'row':8} {'ok':3} result")
    for name, row in results.items():
        shown = {k: v for k, v in row.items() if k not in ("target", "elapsed_s", "ok")}
        print(f"{name:8} {'yes' if row.get('ok') else 'NO ':3} {json.dumps(shown)[:150]}  target {row['target']}")
    merge_results()
    return 0


def merge_results() -> None:
    """benchmarks/results/quality.json: every size's latest rows together."""
    merged = {path.stem.removeprefix("quality-"): load_json(path) for path in sorted(RESULTS.glob("quality-*.json"))}
    write_json(RESULTS / "quality.json", merged)


if __name__ == "__main__":
    threading.excepthook = lambda args: print(f"thread error: {args.exc_value}", file=sys.stderr)
    raise SystemExit(main())
