"""Per-query search latency for every mode at 1k and 10k notes (in-process, warm), JSON out.

    python -m benchmarks.perf.search_latency --size 1k --label after      # or --size 10k

The vault is the generated one of benchmarks/perf/quality_bars.py (fixed seed). Its chunks are embedded by the
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
import os
import resource
import sys
import time

from benchmarks import harness
from benchmarks.harness import REPO, measure, p50_p95, use_embedder
from benchmarks.perf.generated import RealQueries, fresh_vault, queries
from benchmarks.retrieval import search_modes
from brain.index.embedders.embedders import LexicalFallbackEmbedder, load_embedder
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search import service as search_module
from brain.vault.vault import Vault

RESULTS = harness.RESULTS / "search-latency.json"


def warm_p50_p95(call, items: list[str]) -> dict:
    return p50_p95(measure(call, items, warm=5))


def latency_by_mode(size: str, count: int) -> dict:
    root = fresh_vault(size, "latency")
    use_embedder(root, "lexical")
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
    modes = search_modes()
    result["fresh"] = {}
    for label, kwargs in modes:
        result["fresh"][label] = warm_p50_p95(lambda q, kw=kwargs: search_module.run(index, q, limit=10, **kw), items)
        print(size, "fresh", label, result["fresh"][label], flush=True)
    result["no_watcher"] = {}
    for label, kwargs in modes[:3]:
        result["no_watcher"][label] = warm_p50_p95(
            lambda q, kw=kwargs: search_module.search(index, q, limit=10, **kw), items[:40]
        )
        print(size, "no_watcher", label, result["no_watcher"][label], flush=True)
    result["query_embedding_only"] = warm_p50_p95(lambda q: real.embed([q]), items)
    return result


def measure_mcp(size: str, count: int) -> dict:
    """MCP `search` round trips against `brain mcp` on the same vault, no other brain process
    running: the server follows file events itself, so no call stats the vault. The server
    embeds queries with the vault's configured embedder (the lexical one here), so the real
    model's query cost (`query_embedding_only` above) comes on top."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    root = fresh_vault(size, "latency-mcp")
    use_embedder(root, "lexical")
    index_vault(open_index(Vault(root)))
    items = queries(count)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
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
    return {**p50_p95(times), "calls": len(times)}


def main() -> int:
    parser = argparse.ArgumentParser(description="search latency per mode")
    parser.add_argument("--size", choices=("1k", "10k"), default="1k")
    parser.add_argument("--label", default="current")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--mcp", action="store_true", help="also time MCP search round trips (a `brain mcp` subprocess)"
    )
    args = parser.parse_args()
    result = latency_by_mode(args.size, args.queries)
    if args.mcp:
        result["mcp_search_hybrid_lexical_queries"] = measure_mcp(args.size, args.queries)
        print(args.size, "mcp", result["mcp_search_hybrid_lexical_queries"], flush=True)
    result["peak_rss_mb_whole_run"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["machine"] = harness.machine(note="2-core machine shared with other engineers' jobs: latency is noisy")
    sizes = harness.load_json(RESULTS).get(args.label, {})
    harness.merge_json(RESULTS, {args.label: sizes | {args.size: result}})
    print(f"wrote {RESULTS} [{args.label}][{args.size}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
