"""Recorded runs at scale: recall latency, projection sizes, export time. Writes JSON, prints a summary.

    python -m benchmarks.perf.bench_runs                 # 10,000 runs over 20 tenants
    python -m benchmarks.perf.bench_runs --runs 2000     # smaller, quicker

What is measured (targets from issue 13):
- record: `record_run` (checks, note write, catalog update, query embedding, Chroma upsert) on
  RECORDED runs; the other runs are written as notes by the same renderer (`render_run`) and
  cataloged with `brain index --no-embed`, then embedded by the first recall (timed: cold sync).
- recall p50/p95, warm (model loaded, vectors synced), with the real model embedding each query:
  with a watcher running (readers trust the catalog) and without (each call stats the vault).
  Each query is also embedded alone just before, to tell the model's share from the rest.
  Target p95 <= 30 ms.
- projection tokens: DECISIONS / FULL tokens of the seed's loan run and of the generated runs.
  Target <= 15 %.
- export of all runs to each format, once with a fresh corpus (runs read from the catalog, as a
  new `brain run export` process does). Target <= 20 s.
Reads nothing outside the repository (the loan run is tests/data/runs/application-42.json).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import REPO, percentile
from brain.index.embedders.embedders import load_embedder
from brain.index.engine import open_index
from brain.memory.corpus import Corpus
from brain.memory.runs import export as run_export
from brain.memory.runs import service as runs
from brain.memory.runs.note import Run, RunLabels, RunScope, project, render_run
from brain.vault.init import init_vault
from brain.vault.vault import Vault

RESULTS = harness.RESULTS / "runs.json"
WORK = harness.CACHE / "work" / "runs"
LOAN = json.loads((REPO / "tests" / "data" / "runs" / "application-42.json").read_text(encoding="utf-8"))
RECORDED = 100
TENANTS = 20
SUBJECTS = [
    "loan application",
    "refund request",
    "insurance claim",
    "support ticket",
    "invoice dispute",
    "account closure",
    "credit limit increase",
    "chargeback",
    "address change",
    "card replacement",
]
ASKS = [
    "Should we approve {s} #{n}?",
    "Can we grant {s} #{n} today?",
    "Decide on {s} #{n} for customer {c}.",
    "Review {s} #{n}: is anything missing?",
    "Is {s} #{n} eligible under the current policy?",
]
STAGES = ["classify-risk", "check-policy", "pick-reason", "choose-action", "verify-identity", "estimate-cost"]
TOOLS = ["lookupCreditBureau", "fetchPolicy", "getCustomer", "searchTickets", "computeExposure"]


def snapshot(rng: random.Random, number: int, query: str) -> dict:
    subject = next((s for s in SUBJECTS if s in query), SUBJECTS[0])
    decisions = []
    for stage in rng.sample(STAGES, rng.randint(2, 4)):
        evidence = {
            rng.choice(["score", "threshold", "amount", "limit", "ageDays", "matches"]): rng.randint(0, 1000)
            for _ in range(rng.randint(1, 3))
        }
        evidence["flag"] = rng.random() < 0.5
        decisions.append(
            {
                "stageId": stage,
                "chosen": rng.choice(["approve", "reject", "escalate", "ask-more"]),
                "rule": f"{subject.title()} rule {rng.randint(1, 40)}",
                "evidence": evidence,
            }
        )
    calls = []
    for tool in rng.sample(TOOLS, rng.randint(1, 3)):
        record = {
            "id": number,
            "tool": tool,
            "fields": {f"f{i}": rng.randint(0, 10**6) for i in range(rng.randint(4, 30))},
        }
        calls.append(
            {
                "name": tool,
                "args": {"id": str(number)},
                "resultPreview": json.dumps(record)[:500],
                "errored": rng.random() < 0.05,
            }
        )
    narrative = "\n".join(f"[{d['stageId']}] chose {d['chosen']} because {d['rule']}" for d in decisions)
    answer = f"{subject.title()}: {decisions[-1]['chosen'].upper()}. " + " ".join(
        f"{k}={v}." for k, v in decisions[0]["evidence"].items()
    )
    return {
        "query": query,
        "finalContent": answer,
        "iterations": rng.randint(1, 4),
        "decisions": decisions,
        "toolCalls": calls,
        "narrative": narrative,
        "durationMs": rng.randint(200, 9000),
        "tokenUsage": {"input": rng.randint(300, 5000), "output": rng.randint(50, 900)},
    }


def labels(rng: random.Random) -> RunLabels:
    roll = rng.random()
    if roll < 0.5:
        return RunLabels(accepted=True, score=round(rng.uniform(0.5, 1), 2))
    if roll < 0.7:
        return RunLabels(overridden=True)
    if roll < 0.8:
        return RunLabels(score=round(rng.random(), 2))
    return RunLabels()


def build(root: Path, count: int, embedder) -> tuple[Vault, dict]:
    from brain.index.sync.sync import index_vault
    from brain.memory.front_door import open_memory

    shutil.rmtree(root, ignore_errors=True)
    vault, _ = init_vault(root)
    rng = random.Random(7)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    # About three runs per query within a tenant, so preference pairs exist (as retries and reviews make them).
    pools = [
        [
            rng.choice(ASKS).format(s=rng.choice(SUBJECTS), n=rng.randint(1, 400), c=rng.randint(1000, 9999))
            for _ in range(max(1, count // (TENANTS * 3)))
        ]
        for _ in range(TENANTS)
    ]
    generated = [snapshot(rng, n, rng.choice(pools[n % TENANTS])) for n in range(count)]
    started = time.perf_counter()
    for number in range(count - RECORDED):
        tenant = f"tenant-{number % TENANTS:02d}"
        created = (start + timedelta(minutes=number)).strftime("%Y-%m-%dT%H:%M:%SZ")
        title = runs.run_title(generated[number]["query"], tenant, created)
        run = Run(title, RunScope(tenant), generated[number], created, labels(rng), embedder.id)
        vault.write(f"runs/{tenant}/{title}.md", render_run(run), create=True, sync=False)
    written = time.perf_counter() - started
    memory = open_memory(vault, embedder=embedder)  # its writes reach its index at once
    started = time.perf_counter()
    index_vault(memory.index, embed=False)
    cataloged = time.perf_counter() - started
    corpus = memory.corpus
    times = harness.measure(
        lambda number: runs.record_run(
            corpus,
            generated[number],
            tenant=f"tenant-{number % TENANTS:02d}",
            labels=labels(rng),
            now=start + timedelta(minutes=number),
        ),
        range(count - RECORDED, count),
    )
    return vault, {
        "notes_written_s": round(written, 1),
        "catalog_s": round(cataloged, 1),
        "record_run_ms": {
            "p50": round(percentile(times, 0.5), 1),
            "p95": round(percentile(times, 0.95), 1),
            "runs": RECORDED,
        },
    }


def recall_times(vault: Vault, queries: list[tuple[str, str]], embedder) -> dict:
    """Each query is also embedded alone just before its recall, so the share of the model is known
    even while the machine's load changes: `beyond_embedding` is recall time minus that."""
    corpus = Corpus(vault)
    runs.recall_runs(corpus, queries[0][1], tenant=queries[0][0])  # warm: corpus loaded, vectors in step
    times, embeds, hits = [], [], 0
    for tenant, query in queries:
        started = time.perf_counter()
        embedder.embed([query + " "])  # same length, not a cache hit anywhere
        embeds.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        found = runs.recall_runs(corpus, query, tenant=tenant, top_k=3, threshold=0.5)
        times.append((time.perf_counter() - started) * 1000)
        hits += bool(found.hits)
    beyond = [total - embed for total, embed in zip(times, embeds, strict=True)]
    return {
        "p50_ms": round(percentile(times, 0.5), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
        "query_embedding_alone_p50_ms": round(percentile(embeds, 0.5), 1),
        "query_embedding_alone_p95_ms": round(percentile(embeds, 0.95), 1),
        "beyond_embedding_p50_ms": round(percentile(beyond, 0.5), 1),
        "beyond_embedding_p95_ms": round(percentile(beyond, 0.95), 1),
        "queries": len(queries),
        "queries_with_hits": hits,
    }


def main() -> None:
    from brain.index.watch.watch import Watcher

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument(
        "--reuse", action="store_true", help="Measure the vault a previous run built (skip building it)."
    )
    args = parser.parse_args()
    embedder = load_embedder("default")
    result: dict = {
        "runs": args.runs,
        "tenants": TENANTS,
        "embedder": embedder.id,
        "machine": harness.machine(note="2-core machine shared with other engineers' test runs while measuring"),
    }
    root = WORK / f"vault-{args.runs}"
    if args.reuse and root.is_dir():
        vault = Vault(root)
        result["build"] = "reused"
    else:
        vault, result["build"] = build(root, args.runs, embedder)
    started = time.perf_counter()
    corpus = Corpus(vault)
    runs.recall_runs(corpus, "warm up", tenant="tenant-00")
    result["first_recall_s"] = round(
        time.perf_counter() - started, 1
    )  # loads the runs; embeds queries not embedded yet
    rng = random.Random(11)
    queries = [
        (
            f"tenant-{rng.randrange(TENANTS):02d}",
            f"Why did we {rng.choice(['reject', 'approve', 'escalate'])} the "
            f"{rng.choice(SUBJECTS)} #{rng.randint(1, 400)}?",
        )
        for _ in range(200)
    ]
    result["recall_without_watcher"] = recall_times(vault, queries, embedder)
    with Watcher(open_index(vault), embed=False):
        result["recall_with_watcher"] = recall_times(vault, queries, embedder)

    sample = runs.all_runs(corpus)
    ratios = [
        runs.count_tokens(project(run.snapshot, "decisions")) / runs.count_tokens(project(run.snapshot, "full"))
        for run in sample[:500]
    ]
    loan_decisions, loan_full = runs.count_tokens(project(LOAN, "decisions")), runs.count_tokens(project(LOAN, "full"))
    result["decisions_over_full_tokens"] = {
        "seed_loan_run": {
            "decisions": loan_decisions,
            "full": loan_full,
            "ratio": round(loan_decisions / loan_full, 3),
        },
        "generated_runs": {
            "mean": round(statistics.mean(ratios), 3),
            "max": round(max(ratios), 3),
            "runs": len(ratios),
        },
    }
    started = time.perf_counter()  # as `brain run export` in a new process: the runs are read from the catalog first
    summary = run_export.export_runs(Corpus(vault), "sft", WORK / "export-sft-cold.jsonl")
    exports = {"sft_with_a_fresh_corpus": {"seconds": round(time.perf_counter() - started, 2), "lines": summary.lines}}
    for format in run_export.FORMATS:
        started = time.perf_counter()
        summary = run_export.export_runs(corpus, format, WORK / f"export-{format}.jsonl")
        exports[format] = {
            "seconds": round(time.perf_counter() - started, 2),
            "lines": summary.lines,
            "unlabelled": summary.unlabelled,
        }
    result["export"] = exports
    result["ok"] = {
        "recall_p95_le_30ms_with_watcher": result["recall_with_watcher"]["p95_ms"] <= 30,
        "recall_p95_le_30ms_without_watcher": result["recall_without_watcher"]["p95_ms"] <= 30,
        "decisions_le_15pct_of_full_seed_run": result["decisions_over_full_tokens"]["seed_loan_run"]["ratio"] <= 0.15,
        "decisions_le_15pct_of_full_generated_mean": result["decisions_over_full_tokens"]["generated_runs"]["mean"]
        <= 0.15,
        "decisions_le_15pct_of_full_generated_every_run": result["decisions_over_full_tokens"]["generated_runs"]["max"]
        <= 0.15,
        "export_le_20s": all(e["seconds"] <= 20 for e in exports.values()),
    }
    harness.write_json(RESULTS, result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
