"""How brain's costs grow with the vault (issue 44): 1k, 10k and 50k generated notes, JSON out.

    python -m benchmarks.perf.bench_scale --label after --sizes 1k 10k 50k
    python -m benchmarks.perf.bench_scale --label before --brain ../main/.venv/bin/brain   # another checkout

For each size, on a fresh copy of the generated vault (benchmarks/generate_vault.py, fixed seed)
indexed with the lexical embedder (the same vectors and chunks shapes as the model, minutes instead
of hours at 50k), every figure is a whole `brain` process, as a user or an agent's hook runs it:

- `cold_index`: the first `brain index` (wall seconds, peak RSS);
- `edit_index`: one note edited (a sentence appended), then `brain index`, `--edits` times (median
  and worst wall seconds, peak RSS): the work of one change, which should not grow with the vault;
- `search`: one-shot `brain search` (hybrid), `--runs` queries after one untimed (p50, p95, RSS);
- `session_start`: the session-start hook, `--runs` times after the vault's warm-up and one untimed
  run (p50, p95);
- `disk`: the notes' bytes and `.brain/`'s (what its files take on disk), and their ratio.

The machine is shared: the load average is recorded before and after each size.
Writes benchmarks/results/scale.json under `--label` and the size.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import percentile, use_embedder
from benchmarks.perf.generated import fresh_vault, queries

RESULTS = harness.RESULTS / "scale.json"


def timed_process(argv: list[str], stdin: str = "") -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one process, which must succeed."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.perf_counter()
        subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", report.name, *argv],
            input=stdin,
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        )
        wall = time.perf_counter() - started
        peak_kb = int(report.read().split()[-1])
    return round(wall, 3), round(peak_kb / 1024)


def disk_bytes(folder: Path) -> int:
    """What the files under `folder` take on disk (blocks, so a sparse file counts what it holds)."""
    return sum(entry.stat().st_blocks * 512 for entry in folder.rglob("*") if entry.is_file())


def note_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*.md") if ".brain" not in path.parts)


def figures(brain: list[str], size: str, runs: int, edits: int) -> dict:
    root = fresh_vault(size, "scale")
    use_embedder(root, "lexical")
    vault = ["--vault", str(root)]
    found: dict = {"machine_before": harness.machine()}
    wall, peak = timed_process([*brain, "index", *vault])
    found["cold_index"] = {"s": wall, "peak_mb": peak}

    edited = sorted((root / "notes").rglob("*.md"))[0]
    walls, peaks = [], []
    for number in range(edits):
        with edited.open("a", encoding="utf-8") as handle:
            handle.write(f"\nEdit {number}: the retry budget moved to the gateway, zebrafinch{number}.\n")
        wall, peak = timed_process([*brain, "index", *vault])
        walls.append(wall)
        peaks.append(peak)
    found["edit_index"] = {
        "median_s": statistics.median(walls),
        "max_s": max(walls),
        "peak_mb": max(peaks),
        "all_s": walls,
    }

    asked = queries(runs + 1)
    timed_process([*brain, "search", asked[0], *vault])  # the OS's file cache warmed, as for any later search
    searches = [timed_process([*brain, "search", query, *vault]) for query in asked[1:]]
    walls = [wall for wall, _ in searches]
    found["search"] = {
        "p50_s": percentile(walls, 0.5),
        "p95_s": percentile(walls, 0.95),
        "peak_mb": max(peak for _, peak in searches),
    }

    start = json.dumps({"session_id": "scale-bench", "hook_event_name": "SessionStart", "source": "startup"})
    hook = [*brain, "hooks", "run", "session-start", *vault]
    # The first session start in a vault warms it up in the background (every pattern and tip
    # embedded); done first, as bench_hooks does, so that no timed hook runs beside it.
    timed_process([*brain, "hooks", "run", "warm", *vault])
    timed_process(hook, start)
    walls = [timed_process(hook, start)[0] for _ in range(runs)]
    found["session_start"] = {"p50_s": percentile(walls, 0.5), "p95_s": percentile(walls, 0.95)}

    notes, index = note_bytes(root), disk_bytes(root / ".brain")
    found["disk"] = {
        "notes_mb": round(notes / 2**20, 1),
        "brain_mb": round(index / 2**20, 1),
        "ratio": round(index / notes, 2),
    }
    found["files"] = sorted(
        f"{path.name} {round(path.stat().st_size / 2**20, 1)} MB"
        for path in (root / ".brain" / "index").iterdir()
        if path.is_file() and path.stat().st_size > 2**20
    )
    found["machine_after"] = harness.machine()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--sizes", nargs="+", default=["1k", "10k"])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--brain", default=None, help="the brain program to measure (default: this checkout's)")
    args = parser.parse_args()
    program = args.brain or str(Path(sys.executable).parent / "brain")
    harness.byte_compile(harness.REPO / "brain")  # as installed: no process compiles brain's modules
    for size in args.sizes:
        result = figures([program], size, args.runs, args.edits)
        harness.merge_json(RESULTS, {args.label: harness.load_json(RESULTS).get(args.label, {}) | {size: result}})
        print(
            size, json.dumps({key: value for key, value in result.items() if not key.startswith("machine")}), flush=True
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
