"""Concurrent `search` calls against `brain mcp --http` on loopback: calls per second and latency
for 1, 2, 4 and 8 clients at once, and the same searches while a writer calls `write_note` in a loop.

    python -m benchmarks.perf.mcp_load [--size 1k] [--embedder default] [--clients 1,2,4,8] [--seconds 15]

The vault is the generated one (benchmarks/generate_vault.py, fixed seed), indexed once by
`brain index` with the chosen embedder and kept in benchmarks/.cache/work between runs
(`--fresh` indexes it again). The server is a `brain mcp --http` subprocess on a free port of
127.0.0.1; nothing listens beyond loopback. Each client is a thread with its own MCP session
(initialize, then `tools/call search` in a loop, hybrid mode, queries in the vault's own words),
speaking streamable HTTP with the standard library's http.client: a lean client, so that the
load generator takes as little of the two cores as it can. Every level runs for `--seconds`
after a short warm-up; calls per second count the calls that ended inside the window.

Bounded: at most 16 clients, at most 120 s per level, loopback only. Writes
benchmarks/results/mcp-load.json under `--label` and `--size`, with the machine's load average.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.harness import REPO, percentile, use_embedder
from benchmarks.perf.generated import fresh_vault, queries

RESULTS = harness.RESULTS / "mcp-load.json"
HOST = "127.0.0.1"
MAX_CLIENTS, MAX_SECONDS = 16, 120.0
WARMUP_SECONDS = 2.0
PROTOCOL = "2025-06-18"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def indexed_vault(size: str, embedder: str, fresh: bool) -> Path:
    """The generated vault of `size`, indexed with `embedder` (kept between runs unless `fresh`)."""
    root = harness.CACHE / "work" / f"mcp-load-{size}-{embedder}"
    done = root / ".brain" / "indexed-for-mcp-load"
    if fresh or not done.is_file():
        built = fresh_vault(size, f"mcp-load-{embedder}")
        if root != built:
            import shutil

            shutil.rmtree(root, ignore_errors=True)
            built.rename(root)
        use_embedder(root, embedder)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "brain", "index", "--vault", str(root)], check=True, cwd=REPO)
        print(f"indexed {size} with {embedder} in {time.perf_counter() - started:.0f} s", flush=True)
        done.write_text("indexed\n", encoding="utf-8")
    return root


@contextmanager
def server(root: Path, checkout: Path) -> Iterator[tuple[int, int]]:
    """`brain mcp --http` of `checkout` (its .venv, else this Python) on a free loopback port until
    the block ends; yields the port and the server's process id."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("BRAIN_VAULT", "BRAIN_MCP_TOKEN")}
    python = checkout / ".venv" / "bin" / "python"
    process = subprocess.Popen(
        [
            str(python) if python.is_file() else sys.executable,
            *("-m", "brain", "mcp", "--vault", str(root), "--http", "--host", HOST, "--port", str(port)),
        ],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise SystemExit(f"brain mcp exited: {process.stderr.read().decode() if process.stderr else ''}")
            try:
                socket.create_connection((HOST, port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("brain mcp did not start listening within 120 s") from None
                time.sleep(0.1)
        yield port, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


class Session:
    """One MCP session over streamable HTTP on one keep-alive connection."""

    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection(HOST, port, timeout=120)
        self.headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        self.ids = itertools.count(1)
        status, headers, _ = self._post(
            {
                "jsonrpc": "2.0",
                "id": next(self.ids),
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-load", "version": "0"},
                },
            }
        )
        if status != 200:
            raise RuntimeError(f"initialize answered {status}")
        self.headers["mcp-session-id"] = headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = PROTOCOL
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, message: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        self.connection.request("POST", "/mcp", body=json.dumps(message), headers=self.headers)
        response = self.connection.getresponse()
        body = response.read()
        return response.status, {key.lower(): value for key, value in response.getheaders()}, body

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's result (raises on a transport or protocol error, or a tool error)."""
        status, headers, body = self._post(
            {
                "jsonrpc": "2.0",
                "id": next(self.ids),
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        if status != 200:
            raise RuntimeError(f"{tool} answered HTTP {status}: {body[:200]!r}")
        message = _message(body, headers.get("content-type", ""))
        if "error" in message:
            raise RuntimeError(f"{tool}: {message['error']}")
        found: dict[str, Any] = message["result"]
        if found.get("isError"):
            raise RuntimeError(f"{tool}: {found['content'][0]['text']}")
        return found

    def close(self) -> None:
        self.connection.close()


def _message(body: bytes, content_type: str) -> dict[str, Any]:
    """The JSON-RPC answer in a response body, plain JSON or one server-sent event."""
    text = body.decode()
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        text = next(piece for piece in data if piece)
    parsed: dict[str, Any] = json.loads(text)
    return parsed


def cpu_seconds(pid: int) -> float:
    """CPU seconds a process has used so far, user and system, every thread (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_level(
    port: int, pid: int, clients: int, seconds: float, items: list[str], *, writer: bool = False
) -> dict[str, Any]:
    """`clients` threads searching for `seconds` (after a warm-up), optionally beside one writer.
    `server_cores` is the server's CPU time over the window's wall time: how much of the machine
    it could use (at most 1 while it serves one call at a time, plus what releases the GIL)."""
    sessions = [Session(port) for _ in range(clients)]
    start = threading.Barrier(clients + 1 + int(writer))
    window: dict[str, float] = {}
    latencies: list[list[tuple[float, float]]] = [[] for _ in range(clients)]
    writes: list[tuple[float, float]] = []
    failures: list[str] = []
    stop = threading.Event()

    def searching(number: int) -> None:
        session = sessions[number]
        start.wait()
        for query in itertools.cycle(items[number::clients] or items):
            if stop.is_set():
                return
            began = time.perf_counter()
            try:
                session.call("search", {"query": query, "limit": 10})
            except Exception as error:  # recorded and shown: the level is then not a valid measure
                failures.append(str(error)[:200])
                return
            latencies[number].append((began, time.perf_counter()))

    def writing() -> None:
        session = Session(port)
        start.wait()
        for number in itertools.count():
            if stop.is_set():
                break
            began = time.perf_counter()
            try:
                session.call(
                    "write_note",
                    {
                        "title": f"Load writer {number % 20}",
                        "content": f"Written under load, round {number}: the balance cache returned stale data.\n",
                        "overwrite": True,
                    },
                )
            except Exception as error:
                failures.append(str(error)[:200])
                break
            writes.append((began, time.perf_counter()))
        session.close()

    threads = [threading.Thread(target=searching, args=(n,), daemon=True) for n in range(clients)]
    if writer:
        threads.append(threading.Thread(target=writing, daemon=True))
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    window["from"], window["to"] = began + WARMUP_SECONDS, began + WARMUP_SECONDS + seconds
    load_before = os.getloadavg()[0]
    time.sleep(WARMUP_SECONDS)
    cpu_before = cpu_seconds(pid)
    time.sleep(seconds)
    cpu_used = cpu_seconds(pid) - cpu_before
    stop.set()
    for thread in threads:
        thread.join(timeout=180)
    for session in sessions:
        session.close()
    inside = [
        (end - began_at) * 1000
        for per_client in latencies
        for began_at, end in per_client
        if window["from"] <= end <= window["to"]
    ]
    result: dict[str, Any] = {
        "clients": clients,
        "calls": len(inside),
        "calls_per_s": round(len(inside) / seconds, 1),
        "p50_ms": round(percentile(inside, 0.5), 1) if inside else None,
        "p95_ms": round(percentile(inside, 0.95), 1) if inside else None,
        "server_cores": round(cpu_used / seconds, 2),
        "server_cpu_ms_per_call": round(cpu_used * 1000 / len(inside), 1) if inside else None,
        "load_avg_1m": round((load_before + os.getloadavg()[0]) / 2, 2),
    }
    if writer:
        written = [(end - at) * 1000 for at, end in writes if window["from"] <= end <= window["to"]]
        result["writes"] = len(written)
        result["write_p50_ms"] = round(percentile(written, 0.5), 1) if written else None
    if failures:
        result["failures"] = failures[:5]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=["1k", "10k"], default="1k")
    parser.add_argument("--embedder", default="default", help="the vault's embedder: default (the model) or lexical")
    parser.add_argument("--clients", default="1,2,4,8", help="comma-separated client counts, each at most 16")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per level (at most 120)")
    parser.add_argument("--label", default="current")
    parser.add_argument("--fresh", action="store_true", help="generate and index the vault again")
    parser.add_argument(
        "--checkout", type=Path, default=REPO, help="the checkout whose brain serves (to compare with another branch)"
    )
    parser.add_argument("--no-writer", action="store_true", help="skip the levels with a writer beside the readers")
    args = parser.parse_args()
    levels = [int(part) for part in args.clients.split(",") if part.strip()]
    if not levels or any(not 1 <= level <= MAX_CLIENTS for level in levels):
        parser.error(f"--clients takes counts from 1 to {MAX_CLIENTS}")
    seconds = min(max(args.seconds, 1.0), MAX_SECONDS)
    root = indexed_vault(args.size, args.embedder, args.fresh)
    items = queries(400)
    results: dict[str, Any] = {"readers": [], "readers_with_writer": []}
    with server(root, args.checkout.resolve()) as (port, pid):
        warm = Session(port)
        for query in items[:5]:
            warm.call("search", {"query": query, "limit": 10})
        warm.close()
        for clients in levels:
            level = run_level(port, pid, clients, seconds, items)
            results["readers"].append(level)
            print(args.size, "readers", level, flush=True)
        if not args.no_writer:
            for clients in (1, max(levels)):
                level = run_level(port, pid, clients, seconds, items, writer=True)
                results["readers_with_writer"].append(level)
                print(args.size, "readers + writer", level, flush=True)
    one = next((level for level in results["readers"] if level["clients"] == 1), None)
    four = next((level for level in results["readers"] if level["clients"] == 4), None)
    if one and four and one["calls_per_s"] and one["p95_ms"]:
        results["four_vs_one"] = {
            "throughput": round(four["calls_per_s"] / one["calls_per_s"], 2),
            "p95": round(four["p95_ms"] / one["p95_ms"], 2),
        }
        print("4 clients vs 1:", results["four_vs_one"], flush=True)
    entry = {
        "embedder": args.embedder,
        "checkout": str(args.checkout),
        "seconds_per_level": seconds,
        "machine": harness.machine(),
        **results,
    }
    existing = harness.load_json(RESULTS)
    by_label = existing.get(args.label, {})
    by_label[args.size] = entry
    harness.merge_json(RESULTS, {args.label: by_label})
    print(f"wrote {RESULTS}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
