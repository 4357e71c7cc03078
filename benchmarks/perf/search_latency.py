"""Per-query search latency for every mode at 1k and 10k notes (in-process, warm), JSON out.

    python benchmarks/search_latency.py --size 1k --label after      # or --size 10k

The vault is the generated one of benchmarks/run.py (fixed seed). Its chunks are embedded by the
lexical embedder (same dimension and chunk count as the real model, minutes instead of an hour at
10k), while every query is embedded by the real model, so each figure is FTS5 + the real query
embedding + the vector search over every chunk + fusion (+ the reranker when there is one).
Measured twice: `fresh` (the search alone, on an index known current) and `no_watcher` (`search()`
as a process calls it with no watcher running: its first search stat-scans the vault, later ones
re-check only what file events reported once a scan costs 5 ms or more, see index/watch/fresh.py; a 1k
vault scans faster than that, so there every search still scans). The machine is shared: figures are noisy.
Writes benchmarks/results/search-latency.json under `--label` and `--size`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from retrieval_eval import reranker_available
from run import RealQueries, fresh_vault, lexical_config, percentile, queries

from brain.index import search as search_module
from brain.index.embedders.embedders import LexicalFallbackEmbedder, load_embedder
from brain.index.engine import forget, open_index
from brain.index.sync.sync import index_vault
from brain.vault import Vault

RESULTS = HERE / "results" / "search-latency.json"


def timed(call, items: list[str]) -> dict:
    for query in items[:5]:
        call(query)  # warm
    times = []
    for query in items:
        started = time.perf_counter()
        call(query)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1)}


def measure(size: str, count: int) -> dict:
    root = fresh_vault(size, "latency")
    lexical_config(root)
    vault = Vault(root)
    lexical = LexicalFallbackEmbedder()
    index = open_index(vault, embedder=lexical)
    started = time.perf_counter()
    report = index_vault(index)
    result = {
        "notes": report.notes,
        "chunks": index.catalog.chunk_count(),
        "build_seconds_lexical": round(time.perf_counter() - started, 1),
    }
    real = load_embedder("default")
    index = open_index(vault, embedder=RealQueries(real, lexical))
    items = queries(count)
    modes = [("text", {"mode": "text"}), ("vector", {"mode": "vector"}), ("hybrid", {"mode": "hybrid"})]
    if reranker_available():
        modes.append(("hybrid+rerank", {"mode": "hybrid", "rerank": True}))
    result["fresh"] = {}
    for label, kwargs in modes:
        result["fresh"][label] = timed(lambda q, kw=kwargs: search_module.run(index, q, limit=10, **kw), items)
        print(size, "fresh", label, result["fresh"][label], flush=True)
    result["no_watcher"] = {}
    for label, kwargs in modes[:3]:
        result["no_watcher"][label] = timed(
            lambda q, kw=kwargs: search_module.search(open_index(vault), q, limit=10, **kw), items[:40]
        )
        print(size, "no_watcher", label, result["no_watcher"][label], flush=True)
    result["query_embedding_only"] = timed(lambda q: real.embed([q]), items)
    forget(root)
    return result


def measure_mcp(size: str, count: int) -> dict:
    """MCP `search` round trips against `brain mcp` on the same vault, no other brain process
    running: the server follows file events itself, so no call stats the vault. The server
    embeds queries with the vault's configured embedder (the lexical one here), so the real
    model's query cost (`query_embedding_only` above) comes on top."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    root = fresh_vault(size, "latency-mcp")
    lexical_config(root)
    index_vault(open_index(Vault(root)))
    forget(root)
    items = queries(count)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "brain", "mcp", "--vault", str(root)], env=env)
    times: list[float] = []

    async def session_run() -> None:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await anyio.sleep(3)  # the server's catch-up scan and watcher start
                for number, query in enumerate(items[:10] + items):
                    started = time.perf_counter()
                    await session.call_tool("search", {"query": query, "limit": 10})
                    if number >= 10:
                        times.append((time.perf_counter() - started) * 1000)

    anyio.run(session_run)
    return {
        "p50_ms": round(percentile(times, 0.5), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
        "calls": len(times),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="search latency per mode")
    parser.add_argument("--size", choices=("1k", "10k"), default="1k")
    parser.add_argument("--label", default="current")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--mcp", action="store_true", help="also time MCP search round trips (a `brain mcp` subprocess)"
    )
    args = parser.parse_args()
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    result = measure(args.size, args.queries)
    if args.mcp:
        result["mcp_search_hybrid_lexical_queries"] = measure_mcp(args.size, args.queries)
        print(args.size, "mcp", result["mcp_search_hybrid_lexical_queries"], flush=True)
    import resource

    result["peak_rss_mb_whole_run"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["machine"] = {
        "cpus": os.cpu_count(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "note": "2-core machine shared with other engineers' jobs: latency is noisy",
    }
    stored.setdefault(args.label, {})[args.size] = result
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(stored, indent=2) + "\n")
    print(f"wrote {RESULTS} [{args.label}][{args.size}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
