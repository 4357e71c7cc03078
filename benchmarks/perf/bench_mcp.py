"""The MCP server's own cost per tool call: a round trip over stdio minus the library call it wraps.

For each tool, the same operation is timed twice on copies of the same vault, alternately: once
as a direct call into the library (warm `Corpus`, index listener attached, in this process), once
as `session.call_tool` against a `brain mcp` subprocess through the SDK's stdio client. Overhead = round trip - library, at p50
and at p95. It covers argument validation, the worker-thread hop, formatting the result, JSON-RPC
and the pipe both ways. A ping round trip is reported as the protocol's floor.

    python -m benchmarks.perf.bench_mcp [--iterations 200] [--vault vault-example]

Writes benchmarks/results/mcp.json and prints a table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from benchmarks import harness
from benchmarks.harness import REPO, percentile
from brain.memory.causal import graph as causal
from brain.memory.causal import neighbourhood as context_builder
from brain.memory.corpus import Corpus
from brain.memory.episodes import service as episodes
from brain.memory.front_door import open_memory
from brain.memory.notes import service as notes
from brain.memory.patterns import service as patterns
from brain.vault.vault import Vault

RESULTS = harness.RESULTS / "mcp.json"


@dataclass(frozen=True)
class Case:
    tool: str
    arguments: Callable[[int], dict[str, Any]]
    library: Callable[[Vault, Corpus, int], Any]


def _episode(i: int, side: str) -> dict[str, Any]:
    return {
        "task": "Benchmark episode",
        "outcome": "success",
        "session": f"2026-04-01-bench-{side}-{i}",
        "decisions": [{"id": "d001", "type": "design", "chosen": "A", "options": ["A", "B"], "rationale": "faster"}],
        "lessons": ["Measure it"],
    }


def _search_case() -> Case | None:
    try:
        from brain.memory.search.service import search
    except ImportError:
        return None
    return Case(
        "search",
        lambda i: {"query": "idempotency retries", "mode": "text", "limit": 10},
        lambda v, c, i: search(c.open_index(), "idempotency retries", mode="text", limit=10),
    )


def cases() -> list[Case]:
    episode = "EPISODE-2026-03-02-session-01"
    found = [
        Case("read_note", lambda i: {"name": episode}, lambda v, c, i: notes.read_note(c, episode)),
        Case(
            "build_context",
            lambda i: {"name": episode, "depth": 2, "budget": 2000},
            lambda v, c, i: context_builder.build_context(c, episode, depth=2, budget=2000),
        ),
        Case(
            "query_episodes",
            lambda i: {"outcome": "failure"},
            lambda v, c, i: episodes.list_episodes(c, outcome="failure"),
        ),
        Case(
            "get_decision_sequence",
            lambda i: {"episode": episode},
            lambda v, c, i: episodes.decision_sequence(c, episode),
        ),
        Case(
            "query_patterns",
            lambda i: {"min_success_rate": 0.5},
            lambda v, c, i: patterns.list_patterns(c, min_success_rate=0.5),
        ),
        Case("get_antipatterns", lambda i: {}, lambda v, c, i: patterns.antipatterns(c)),
        Case(
            "get_causal_path",
            lambda i: {
                "source": "PATTERN-idempotency-keys-on-writes",
                "target": "ANTIPATTERN-retry-without-idempotency",
            },
            lambda v, c, i: causal.find_path(
                c, "PATTERN-idempotency-keys-on-writes", "ANTIPATTERN-retry-without-idempotency"
            ),
        ),
        Case(
            "write_note",
            lambda i: {"title": f"Bench note mcp {i}", "content": "A benchmark note.\n"},
            lambda v, c, i: notes.write_note(c, f"Bench note lib {i}", "A benchmark note.\n"),
        ),
        Case(
            "edit_note",
            lambda i: {"name": "Bench note mcp 0", "operation": "append", "content": f"- line {i}"},
            lambda v, c, i: notes.edit_note(c, "Bench note lib 0", "append", content=f"- line {i}"),
        ),
        Case(
            "store_episode",
            lambda i: _episode(i, "mcp"),
            lambda v, c, i: episodes.store_episode(c, episodes.episode_from_data(_episode(i, "lib"))[0]),
        ),
        Case(
            "add_pattern",
            lambda i: {"name": "bench pattern mcp", "outcome": "success", "trigger": "t", "action": "a"},
            lambda v, c, i: patterns.add_pattern(c, "bench pattern lib", outcome="success", trigger="t", action="a"),
        ),
    ]
    search_case = _search_case()
    return found + ([search_case] if search_case else [])


async def library_and_roundtrip(
    library_root: Path, server_root: Path, all_cases: list[Case], iterations: int, warmup: int
):
    """Per tool: library call and tool call alternate, so load on the machine hits both alike."""
    memory = open_memory(library_root)  # as build_server does: writes update the catalog at once on both sides
    vault, corpus = memory.vault, memory.corpus
    env = {
        key: value for key, value in os.environ.items() if key.startswith(("PYTHON", "HF_", "XDG_", "BRAIN_EMBEDDING"))
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "brain", "mcp", "--vault", str(server_root)], env=env
    )
    library: dict[str, list[float]] = {}
    roundtrip: dict[str, list[float]] = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pings = []
                for i in range(warmup + iterations):
                    start = time.perf_counter()
                    await session.send_ping()
                    if i >= warmup:
                        pings.append((time.perf_counter() - start) * 1000)
                roundtrip["(ping)"] = pings
                for case in all_cases:
                    library[case.tool], roundtrip[case.tool] = [], []
                    for i in range(warmup + iterations):
                        start = time.perf_counter()
                        case.library(vault, corpus, i)
                        direct = time.perf_counter() - start
                        arguments = case.arguments(i)
                        start = time.perf_counter()
                        result = await session.call_tool(case.tool, arguments)
                        trip = time.perf_counter() - start
                        if result.is_error:
                            raise RuntimeError(f"{case.tool} failed: {result.content[0].text}")
                        if i >= warmup:
                            library[case.tool].append(direct * 1000)
                            roundtrip[case.tool].append(trip * 1000)
    return library, roundtrip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--vault", type=Path, default=REPO / "vault-example", help="Vault to copy and measure on.")
    options = parser.parse_args()

    all_cases = cases()
    with tempfile.TemporaryDirectory() as scratch:
        library_root, server_root = Path(scratch) / "library", Path(scratch) / "server"
        shutil.copytree(options.vault, library_root)
        shutil.copytree(options.vault, server_root)
        note_count = len(list(Vault(library_root).iter_files()))
        library, roundtrip = anyio.run(
            library_and_roundtrip, library_root, server_root, all_cases, options.iterations, options.warmup
        )

    tools = {}
    for case in all_cases:
        lib, rt = library[case.tool], roundtrip[case.tool]
        tools[case.tool] = {
            "library_ms": {"p50": percentile(lib, 0.5), "p95": percentile(lib, 0.95)},
            "roundtrip_ms": {"p50": percentile(rt, 0.5), "p95": percentile(rt, 0.95)},
            "overhead_ms": {
                "p50": percentile(rt, 0.5) - percentile(lib, 0.5),
                "p95": percentile(rt, 0.95) - percentile(lib, 0.95),
            },
        }
    overheads = [tool["overhead_ms"]["p50"] for tool in tools.values()]
    pings = roundtrip["(ping)"]
    report = {
        "benchmark": "mcp server overhead per tool call over stdio",
        "vault": f"{options.vault.name} ({note_count} notes)",
        "iterations": options.iterations,
        "warmup": options.warmup,
        "machine": harness.machine(),
        "median_overhead_ms": statistics.median(overheads),
        "ping_roundtrip_ms": {"p50": percentile(pings, 0.5), "p95": percentile(pings, 0.95)},
        "tools": tools,
    }
    harness.write_json(RESULTS, report)

    where = f"{report['machine']['cpus']} CPUs, load {report['machine']['load_avg']}"
    print(f"{report['benchmark']}: {report['vault']}, {options.iterations} calls per tool, {where}")
    print(f"{'tool':24} {'library p50':>12} {'round trip p50':>15} {'overhead p50':>13} {'overhead p95':>13}")
    for name, row in tools.items():
        print(
            f"{name:24} {row['library_ms']['p50']:10.2f}ms {row['roundtrip_ms']['p50']:13.2f}ms "
            f"{row['overhead_ms']['p50']:11.2f}ms {row['overhead_ms']['p95']:11.2f}ms"
        )
    ping = report["ping_roundtrip_ms"]
    print(f"protocol floor (ping round trip): p50 {ping['p50']:.2f} ms, p95 {ping['p95']:.2f} ms")
    print(
        f"median overhead p50 across tools: {report['median_overhead_ms']:.2f} ms; written to {RESULTS.relative_to(REPO)}"
    )


if __name__ == "__main__":
    main()
