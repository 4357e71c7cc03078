"""The recall journal's append alone, on its own small vault: JSON out.

    python benchmarks/bench_journal.py            # 2,000 appends after 50 to warm up

`bench_facts.py` times the same append inside its 100,000-fact run, where the machine is busy with
the rest of that run; this isolates it. Each append takes the journal lock, checks the chain's end
(remembered in the process), writes one line on an O_APPEND descriptor (checked: a short write is an
error), records the new end and rewrites the anchor in place (one pwrite).
Results: benchmarks/results/journal.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run import RESULTS, machine, percentile

from brain.memory.facts import journal as fact_journal
from brain.memory.facts import journal_check
from brain.vault_init import init_vault

RECORD = {
    "at": "2026-11-23T10:00:00+00:00",
    "caller": "bench",
    "query": "token lifetime",
    "filters": {"kind": "config"},
    "facts": [{"id": f"FACT-{n}", "version": 1, "score": 0.5} for n in range(10)],
}


def main() -> int:
    parser = argparse.ArgumentParser(description="journal append benchmark")
    parser.add_argument("--appends", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        vault, _ = init_vault(Path(folder) / "vault")
        for _ in range(50):
            fact_journal.append(vault, RECORD)
        times = []
        for _ in range(args.appends):
            started = time.perf_counter()
            fact_journal.append(vault, RECORD)
            times.append((time.perf_counter() - started) * 1000)
        check = journal_check.verify(vault)
    result = {
        "appends": args.appends,
        "p50_ms": round(percentile(times, 0.5), 3),
        "p95_ms": round(percentile(times, 0.95), 3),
        "p99_ms": round(percentile(times, 0.99), 3),
        "max_ms": round(max(times), 3),
        "target_ms": 1,
        "records": check.records,
        "chain_verified": check.ok,
        "machine": machine(),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "journal.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
