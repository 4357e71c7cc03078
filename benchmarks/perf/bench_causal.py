"""Causal chains at scale: 10,000 contexts in chains up to depth 50 with branching; write JSON.

    python -m benchmarks.perf.bench_causal         # 10,000 contexts (--contexts N for another size)

The vault: contexts grouped in stories; each context's first cause is one of the three notes saved
just before it in its story, a fifth of them name a second, earlier cause (so ancestries are DAGs,
not lists), and a story starts a new root when its longest chain would pass 50 notes. Ten causes
name no note and one story closes a cycle, as real vaults do. Measured on the indexed vault (catalog,
no vectors), through the library calls the CLI and MCP make:

- chain: `build_chain` backward from 300 random notes (deep ones included), first call for each
  note (the caused_by graph is warm, the chain itself is not yet cached) and again (cached);
  forward from 100 notes; `reconstruct_reasoning` for 100 notes.
- stats: `causality_stats` for the whole vault and for one project, warm (cached) and right after
  an edit to one note (the edit makes the catalog reload that note, and the caused_by graph, the
  chain lengths and the stats are rebuilt).

Each is measured with a `brain watch` watcher running (readers trust the catalog) and without one.
Without one, the first read of the process stat-scans every file and later reads re-check only the
paths file events reported (index/watch/fresh.py); `one_shot_stat_scan` is what a read pays when the
process has no tracker (a one-shot command's single read): a scan that finds nothing changed.
Results: benchmarks/results/causal-<N>.json.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
from pathlib import Path

from benchmarks.generate_vault import sentence
from benchmarks.harness import CACHE, RESULTS, Timing, machine, percentile, timed, use_embedder, write_json
from brain.index.engine import open_index
from brain.index.sync.scan import scan
from brain.index.sync.sync import index_vault
from brain.index.watch.watch import Watcher
from brain.memory.causal.chains import build_chain, reconstruct_reasoning
from brain.memory.causal.contexts import ACTION_TYPES
from brain.memory.causal.stats import causality_stats
from brain.memory.corpus import Corpus
from brain.memory.front_door import open_memory
from brain.vault.vault import Vault

MAX_CHAIN = 50
PROJECTS = 20


def generate(root: Path, count: int, seed: int = 11) -> dict:
    """Write `count` context notes; returns the shape of what was written."""
    rng = random.Random(seed)
    shutil.rmtree(root, ignore_errors=True)
    (root / "contexts").mkdir(parents=True)
    longest: list[int] = []  # notes on the longest chain ending at each note
    story_start = 0
    second_parents = 0
    for number in range(count):
        title = f"ctx-{number:05d}"
        recent = list(range(max(story_start, number - 3), number))
        parents: list[int] = []
        if recent:
            first = rng.choice(recent)
            if longest[first] + 1 > MAX_CHAIN:
                story_start, recent = number, []
            else:
                parents.append(first)
                earlier = [index for index in range(story_start, first) if longest[index] <= longest[first]]
                if earlier and rng.random() < 0.2:
                    parents.append(rng.choice(earlier))
                    second_parents += 1
        longest.append(1 + max((longest[index] for index in parents), default=0))
        names = [f"ctx-{index:05d}" for index in parents]
        if number % 1000 == 999:
            names.append(f"never-written-{number}")  # a broken cause
        cause = ""
        if len(names) == 1:
            cause = f'caused_by: "[[{names[0]}]]"\n'
        elif names:
            cause = "caused_by:\n" + "".join(f'  - "[[{name}]]"\n' for name in names)
        minute = number
        created = f"2026-01-{1 + minute // 1440 % 28:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:00Z"
        text = (
            f"---\ntitle: {title}\ntype: context\nproject: project-{number * PROJECTS // count:02d}\n"
            f"action_type: {rng.choice(ACTION_TYPES)}\ncreated: '{created}'\n{cause}rationale: {sentence(rng)}\n---\n\n"
            f"# {title}\n\n{sentence(rng)} {sentence(rng)}\n"
        )
        (root / "contexts" / f"{title}.md").write_text(text, encoding="utf-8")
    # one cycle: the first note of the vault names the second, its own effect
    first = root / "contexts" / "ctx-00000.md"
    first.write_text(
        first.read_text().replace("rationale:", 'caused_by: "[[ctx-00001]]"\nrationale:', 1), encoding="utf-8"
    )
    return {"contexts": count, "longest_chain_written": max(longest), "second_parents": second_parents}


def summary(values: list[Timing]) -> dict:
    """Wall time, and this thread's CPU time: on a machine shared with other jobs the CPU figure shows
    what a call costs when it gets a core (the watcher's thread is not counted)."""
    walls, cpus = [t.wall_ms for t in values], [t.cpu_ms for t in values]
    return {
        "p50_ms": round(percentile(walls, 0.5), 2),
        "p95_ms": round(percentile(walls, 0.95), 2),
        "max_ms": round(max(walls), 2),
        "cpu_p95_ms": round(percentile(cpus, 0.95), 2),
        "n": len(values),
    }


def chain_and_stats_figures(corpus: Corpus, rng: random.Random, count: int) -> dict:
    vault = corpus.vault
    first_build = timed(lambda: build_chain(corpus, "ctx-00010"))  # reads the catalog, builds the caused_by graph
    starts = [f"ctx-{rng.randrange(count):05d}" for _ in range(300)]
    first = [timed(lambda name=name: build_chain(corpus, name)) for name in starts]
    again = [timed(lambda name=name: build_chain(corpus, name)) for name in starts]
    deepest = max(starts, key=lambda name: len(build_chain(corpus, name).steps))
    forward = [timed(lambda name=name: build_chain(corpus, name, forward=True)) for name in starts[:100]]
    why = [timed(lambda name=name: reconstruct_reasoning(corpus, name)) for name in starts[100:200]]
    stats_after_edit, stats_warm, project_warm = [], [], []
    edited = vault.root / "contexts" / "ctx-00005.md"
    for round_ in range(5):
        edited.write_text(edited.read_text() + f"\nedit {round_}\n", encoding="utf-8")
        if corpus.open_index().watcher_alive():
            time.sleep(1.0)  # let the watcher bring the catalog up to date, as it would between an edit and a read
        stats_after_edit.append(timed(lambda: causality_stats(corpus)))
        stats_warm += [timed(lambda: causality_stats(corpus)) for _ in range(5)]
        project_warm += [timed(lambda: causality_stats(corpus, "project-03")) for _ in range(5)]
    stats = causality_stats(corpus)
    index = corpus.open_index()
    one_shot = [timed(lambda: scan(index)) for _ in range(20)]
    return {
        "one_shot_stat_scan": summary(one_shot),
        "first_graph_build_ms": round(first_build.wall_ms, 1),
        "chain_first_call": summary(first),
        "chain_cached": summary(again),
        "deepest_chain_measured_steps": len(build_chain(corpus, deepest).steps),
        "chain_forward": summary(forward),
        "why": summary(why),
        "stats_after_an_edit": summary(stats_after_edit),
        "stats_warm": summary(stats_warm),
        "stats_project_warm": summary(project_warm),
        "stats": {
            "notes": stats.notes,
            "with_caused_by": stats.with_caused_by,
            "roots": stats.roots,
            "chains": stats.chains,
            "average_chain_length": stats.average_chain_length,
            "longest_chain": stats.longest_chain,
            "cycles": len(stats.cycles),
            "broken": len(stats.broken),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="causal chain and stats benchmark")
    parser.add_argument("--contexts", type=int, default=10_000)
    args = parser.parse_args()
    root = CACHE / "work" / f"causal-chains-{args.contexts}"
    shape = generate(root, args.contexts)
    use_embedder(root, "lexical")
    vault = Vault(root)
    started = time.perf_counter()
    index_vault(open_index(vault), embed=False)
    result = {"vault": {**shape, "index_s": round(time.perf_counter() - started, 1)}}
    print("without a watcher ...", flush=True)
    with open_memory(vault) as memory:
        result["without_watcher"] = chain_and_stats_figures(memory.corpus, random.Random(3), args.contexts)
    print(json.dumps(result["without_watcher"]), flush=True)
    print("with a watcher ...", flush=True)
    with open_memory(vault) as memory, Watcher(memory.index, embed=False):  # the watcher of the reads' own index
        result["with_watcher"] = chain_and_stats_figures(memory.corpus, random.Random(3), args.contexts)
    print(json.dumps(result["with_watcher"]), flush=True)
    watched = result["with_watcher"]
    result["targets"] = {"chain_p95_ms": 20, "stats_ms": 300}
    unwatched = result["without_watcher"]
    result["ok_with_watcher"] = (
        watched["chain_first_call"]["p95_ms"] <= 20 and watched["stats_after_an_edit"]["max_ms"] <= 300
    )
    result["ok_without_watcher"] = (
        unwatched["chain_first_call"]["p95_ms"] <= 20 and unwatched["stats_after_an_edit"]["max_ms"] <= 300
    )
    result["machine"] = machine()
    out = write_json(RESULTS / f"causal-{args.contexts}.json", result)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
