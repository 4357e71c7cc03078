"""What every benchmark shares: where things are, timing and percentiles, the machine and its load,
JSON results, and the data kept outside the repository (../shared).

Benchmarks run as modules from the repository's root (`python -m benchmarks.perf.status_latency`):
Python then puts the root first on sys.path, so the checkout's own brain is the one measured.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"  # committed: a run's JSON goes in with the figures it gives
CACHE = REPO / "benchmarks" / ".cache"  # generated vaults and embeddings kept between runs (not committed)
SHARED = REPO.parent / "shared"  # data sets too big, or not ours, to commit: next to the repository

Item = TypeVar("Item")


# ---------------------------------------------------------------- timing


def percentile(values: list[float], q: float) -> float:
    """The measured value at rank round(q * (n - 1)) of the sorted values (no interpolation)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def p50_p95(values_ms: list[float], digits: int = 1) -> dict[str, float]:
    return {"p50_ms": round(percentile(values_ms, 0.5), digits), "p95_ms": round(percentile(values_ms, 0.95), digits)}


class Timing(NamedTuple):
    wall_ms: float
    cpu_ms: float  # this thread's CPU time: what the call costs when it gets a core on a shared machine


def timed(call: Callable[[], object]) -> Timing:
    """Wall and CPU milliseconds of one call (a thread the call hands work to is not counted in cpu_ms)."""
    cpu, started = time.thread_time(), time.perf_counter()
    call()
    return Timing((time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000)


def measure(call: Callable[[Item], object], items: Iterable[Item], warm: int = 0) -> list[float]:
    """Wall milliseconds of call(item) for each item, after untimed calls on the first `warm` items."""
    items = list(items)
    for item in items[:warm]:
        call(item)
    times = []
    for item in items:
        started = time.perf_counter()
        call(item)
        times.append((time.perf_counter() - started) * 1000)
    return times


def process_seconds(argv: list[str], **options: Any) -> float:
    """Wall seconds of one process, start to exit (it must succeed: `subprocess.run` options pass through)."""
    started = time.perf_counter()
    subprocess.run(argv, check=True, **options)
    return time.perf_counter() - started


def byte_compile(package: Path) -> None:
    """Compile a source tree's modules first, as pip does when it installs a package, so that no
    process measured afterwards pays for compiling them."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def import_times(stderr: str) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of every import a `python -X importtime` run reported."""
    rows = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name.strip()))
    return rows


# ---------------------------------------------------------------- what a result records


def machine(note: str | None = None) -> dict[str, Any]:
    """The machine and its load as figures are taken: the reference machine is shared, so they move with it."""
    found: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_avg": [round(load, 2) for load in os.getloadavg()],
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return found | ({"note": note} if note else {})


def load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def merge_json(path: Path, entries: dict[str, Any]) -> Path:
    """Write `entries` over the same top-level keys of the file, keeping the others (several labels,
    sizes or runs share one file). The file is read just before: another run may have written it."""
    return write_json(path, load_json(path) | entries)


# ---------------------------------------------------------------- vaults and data


def use_embedder(root: Path, embedder: str) -> None:
    """Configure the vault at `root` to index with `embedder` (default, lexical, e5-small ...)."""
    (root / ".brain").mkdir(parents=True, exist_ok=True)
    (root / ".brain" / "config.toml").write_text(f'[index]\nembedder = "{embedder}"\n', encoding="utf-8")


def shared(relative: str, instead: str) -> Path | None:
    """The folder ../shared/<relative> next to the repository, or None after saying that it is missing
    and what the benchmark does `instead`."""
    folder = SHARED / relative
    if folder.is_dir():
        return folder
    print(f"{folder} is missing (kept outside this repository, next to it in ../shared): {instead}", flush=True)
    return None
