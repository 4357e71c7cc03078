"""Wall time of `brain status` and of a no-op `brain index`, each a fresh process, JSON out.

    python -m benchmarks.perf.status_latency --label after [--runs 5]
    git archive main | tar -x -C /tmp/brain-main   # another commit's brain, for a "before" figure:
    python -m benchmarks.perf.status_latency --label before --brain-src /tmp/brain-main

A copy of `vault-example/` is indexed with the real model (`brain index`), then each command runs
`--runs` times as its own process (as a person or an agent runs it); the figure is the median wall
time. `python -X importtime -m brain status` then tells whether chromadb was imported and which
imports cost most. The machine may be shared: say so beside the figures.
Writes benchmarks/results/status-latency.json under `--label`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import REPO

RESULTS = harness.RESULTS / "status-latency.json"


SOURCE = REPO  # the brain measured (--brain-src)


def brain(*args: str, python_flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    # cwd too: `python -m` puts the working directory first on sys.path, before PYTHONPATH.
    return subprocess.run(
        [sys.executable, *python_flags, "-m", "brain", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=SOURCE,
    )


def median_seconds(args: tuple[str, ...], runs: int) -> dict:
    times = [milliseconds / 1000 for milliseconds in harness.measure(lambda _: brain(*args), range(runs))]
    return {"median_s": round(statistics.median(times), 3), "runs_s": [round(t, 3) for t in times]}


def imports(vault: Path) -> dict:
    """chromadb imported or not, and the costliest imports (cumulative microseconds)."""
    rows = harness.import_times(brain("status", "--vault", str(vault), python_flags=("-X", "importtime")).stderr)
    names = {name for _, name in rows}
    top = sorted(rows, reverse=True)[:10]
    return {"chromadb_imported": "chromadb" in names, "top_cumulative_us": [[us, name] for us, name in top]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="current")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--brain-src", type=Path, default=REPO, help="the source tree whose brain is measured")
    args = parser.parse_args()
    global SOURCE
    SOURCE = args.brain_src.resolve()
    with tempfile.TemporaryDirectory() as temp:
        vault = Path(temp) / "vault"
        shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns("index"))
        first = brain("index", "--vault", str(vault)).stdout.strip()
        if "all-MiniLM" not in first:
            sys.exit(f"the real model is not in use (brain index said: {first})")
        result = {
            "vault": "vault-example (copy, indexed with the real model)",
            "brain_src": str(SOURCE),
            "status": median_seconds(("status", "--vault", str(vault)), args.runs),
            "index_noop": median_seconds(("index", "--vault", str(vault)), args.runs),
            "help": median_seconds(("--help",), args.runs),  # the floor: interpreter + CLI start
            "status_imports": imports(vault),
        }
    print(json.dumps(result, indent=2))
    harness.merge_json(RESULTS, {args.label: result})
    print(f"wrote {RESULTS} [{args.label}]")


if __name__ == "__main__":
    main()
