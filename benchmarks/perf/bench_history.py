"""The cost of keeping every version: a brain edit of a 10 KB note with the history on and off, and
the history's size after 10,000 edits of one note; write JSON.

    python -m benchmarks.perf.bench_history                 # 400 timed edits each way, 10,000 for the size
    python -m benchmarks.perf.bench_history --edits 100 --size-edits 2000

Edits go through `brain.memory.notes.service.edit_note` (what `brain note edit --set` and MCP
edit_note call) on a vault without an index, so the figure is the write path alone: read under
the write lock, history `before` (usually nothing to do: brain stored the version when it wrote
it), the atomic write with its fsync, history `after` (one zlib-compressed object, no fsync, one
log line). "Off" is the same vault with its history store pointed at a folder that does not exist
(the store then keeps nothing, as in a plain folder used as a vault). The two are interleaved
edit by edit so both see the same disk and load. Then one note is edited `--size-edits` times and
the store's size is read (objects, log, bytes on disk), before and after a prune with the default
retention (`max_versions` 100). Results: benchmarks/results/history.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path

from benchmarks.harness import RESULTS, machine, percentile, timed, write_json
from brain.memory.corpus import Corpus
from brain.memory.notes import service
from brain.vault.history import History
from brain.vault.init import init_vault


def ten_kb_note() -> str:
    lines = [f"- [fact] line {number} of a note about memory, routing and agents #bench" for number in range(150)]
    return "---\ntitle: Bench\ncounter: 0\n---\n\n# Bench\n\n## Observations\n" + "\n".join(lines) + "\n"


def disk_bytes(folder: Path) -> int:
    return sum(path.stat().st_blocks * 512 for path in folder.rglob("*") if path.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=400)
    parser.add_argument("--size-edits", type=int, default=10_000)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="brain-history-bench-"))
    try:
        vault, _ = init_vault(scratch / "vault")
        (vault.root / "notes").mkdir()
        (vault.root / "notes/On.md").write_text(ten_kb_note())
        (vault.root / "notes/Off.md").write_text(ten_kb_note())
        size = (vault.root / "notes/On.md").stat().st_size
        corpus = Corpus(vault)
        kept, off = vault.history, History(scratch / "no-such-folder")
        timings: dict[str, list[float]] = {"on": [], "off": []}
        for number in range(1, args.edits + 1):
            for mode, name in (("on", "On"), ("off", "Off")):
                vault.history = kept if mode == "on" else off
                edit = partial(service.edit_note, corpus, name, "set_frontmatter", frontmatter={"counter": number})
                timings[mode].append(timed(edit).wall_ms)
        vault.history = kept
        latency = {
            mode: {
                "p50_ms": round(percentile(values, 0.5), 3),
                "p95_ms": round(percentile(values, 0.95), 3),
                "mean_ms": round(sum(values) / len(values), 3),
            }
            for mode, values in timings.items()
        }
        latency["p95_overhead_ms"] = round(latency["on"]["p95_ms"] - latency["off"]["p95_ms"], 3)

        (vault.root / "notes/Size.md").write_text(ten_kb_note())
        start = time.perf_counter()
        for number in range(1, args.size_edits + 1):
            service.edit_note(corpus, "Size", "set_frontmatter", frontmatter={"counter": number})
        seconds = time.perf_counter() - start
        store = vault.brain_dir / "history"
        log = vault.history.log_path("notes/Size.md")
        usage = vault.history.usage()
        before = {
            "versions": len(vault.history.entries("notes/Size.md")),
            "log_bytes": log.stat().st_size,
            "store_bytes_apparent": usage.bytes,
            "store_bytes_on_disk": disk_bytes(store),
            "objects": usage.objects,
        }
        start = time.perf_counter()
        pruned = vault.history.prune(keep_days=90, max_versions=100)
        prune_seconds = time.perf_counter() - start
        usage = vault.history.usage()
        after = {
            "versions": len(vault.history.entries("notes/Size.md")),
            "store_bytes_apparent": usage.bytes,
            "store_bytes_on_disk": disk_bytes(store),
            "objects": usage.objects,
            "pruned_versions": pruned.versions,
            "prune_seconds": round(prune_seconds, 3),
        }
        report = {
            "benchmark": "history",
            "machine": machine(),
            "note_bytes": size,
            "timed_edits_each": args.edits,
            "edit_latency": latency,
            "size_after_edits": {
                "edits": args.size_edits,
                "edits_per_second": round(args.size_edits / seconds, 1),
                "before_prune": before,
                "after_prune_max_versions_100": after,
            },
        }
        write_json(RESULTS / "history.json", report)
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
