"""The recall journal's append alone, on its own small vault: JSON out.

    python -m benchmarks.perf.bench_journal       # 2,000 appends after 50 to warm up

`bench_facts` times the same append inside its 100,000-fact run, where the machine is busy with
the rest of that run; this isolates it. Each append takes the journal lock, checks the chain's end
(remembered in the process), writes one line on an O_APPEND descriptor (checked: a short write is an
error), records the new end and rewrites the anchor in place (one pwrite).
Results: benchmarks/results/journal.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from benchmarks.harness import RESULTS, machine, measure, percentile, write_json
from brain.memory.facts import journal as fact_journal
from brain.memory.facts import journal_check
from brain.vault.init import init_vault

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
        times = measure(lambda _: fact_journal.append(vault, RECORD), range(args.appends))
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
    write_json(RESULTS / "journal.json", result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
