"""Benchmark: import a generated ai-agents memory (1,000 episodes, a 2,500-node graph) into a fresh vault.

Reports the import time without embeddings (the vault has no index), against the target of at
most 10 s, and for context the time of a second, idempotent import and of an export. Writes
benchmarks/results/import.json and prints the same figures.

    python -m benchmarks.perf.bench_import [--episodes 1000] [--nodes 2500] [--edges 100] [--patterns 10]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks import harness
from brain.importers.ai_agents.export import export_ai_agents
from brain.importers.ai_agents.importer import import_ai_agents
from brain.vault.init import init_vault

TARGET_SECONDS = 10.0
RESULTS = harness.RESULTS / "import.json"
WORDS = (
    "fix review gate hook commit test session memory graph plugin schema validate merge branch "
    "agent retry timeout model pin lint docs release queue cache index search route fallback"
).split()
NODE_TYPES = ("milestone", "commit", "outcome", "test", "error", "decision", "artifact")
EVENT_TYPES = ("milestone", "commit", "error", "test", "tool_call", "handoff")


def _sentence(rng: random.Random, low: int = 4, high: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _stamp(base: datetime, seconds: int) -> str:
    return (base + timedelta(seconds=seconds)).isoformat()


def make_episode(rng: random.Random, number: int) -> dict:
    day = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=number * 7)
    session = f"{day:%Y-%m-%d}-session-{number}"
    events = []
    for index in range(1, rng.randint(4, 12) + 1):
        events.append(
            {
                "id": f"e{index:03d}",
                "timestamp": _stamp(day, index * 60),
                "type": rng.choice(EVENT_TYPES),
                "content": _sentence(rng),
                "caused_by": [f"e{index - 1:03d}"] if index > 1 and rng.random() < 0.3 else [],
                "leads_to": [],
                "_source_session": session,
            }
        )
    decisions = [
        {
            "id": f"d{index:03d}",
            "timestamp": _stamp(day, index * 90),
            "type": rng.choice(("design", "implementation", "routing")),
            "context": _sentence(rng),
            "chosen": _sentence(rng, 3, 8),
            "rationale": _sentence(rng) if rng.random() < 0.7 else "",
            "outcome": rng.choice(("success", "partial", "failure")),
            "effects": [],
        }
        for index in range(1, rng.randint(0, 3) + 1)
    ]
    return {
        "id": f"episode-{session}",
        "session": session,
        "timestamp": _stamp(day, 0),
        "causal_order_version": 2,
        "outcome": rng.choice(("success", "partial", "failure")),
        "task": _sentence(rng),
        "decisions": decisions,
        "events": events,
        "metrics": {
            "duration_minutes": rng.choice((None, rng.randint(1, 300))),
            "tool_calls": None,
            "errors": rng.randint(0, 5),
            "recoveries": 0,
            "commits": rng.randint(0, 9),
            "files_changed": rng.randint(0, 40),
        },
        "lessons": [_sentence(rng) for _ in range(rng.randint(0, 3))],
    }


def make_graph(rng: random.Random, nodes: int, edges: int, patterns: int, episodes: int) -> dict:
    base = datetime(2026, 6, 2, 4, 20, tzinfo=UTC)
    made = []
    for index in range(nodes):
        node_type = rng.choice(NODE_TYPES)
        label = f"{node_type.capitalize()}: {_sentence(rng, 3, 30)}"
        if index % 50 == 0 and made:  # real graphs repeat labels under another type
            label = made[-1]["label"]
        node_id = hashlib.sha256(f"{node_type}:{label}#{index}".encode()).hexdigest()[:12]
        made.append(
            {
                "id": node_id,
                "type": node_type,
                "label": label,
                "episodes": [f"episode-session-{rng.randrange(episodes)}"],
                "created": _stamp(base, index),
            }
        )
    links = []
    for index in range(edges):
        source, target = rng.sample(made, 2)
        links.append(
            {
                "source": source["id"],
                "target": target["id"],
                "type": rng.choice(("causes", "enables", "prevents", "correlates")),
                "weight": rng.choice((0.6, 0.8)),
                "evidence_count": rng.randint(1, 70),
                "created": _stamp(base, index),
                "contributions": {f"\u0000legacy:{n}": 0.8 for n in range(rng.randint(0, 20))},
                "episodes": [f"episode-session-{rng.randrange(episodes)}"],
            }
        )
    learned = [
        {
            "name": f"pattern {index} {_sentence(rng, 2, 4)}",
            "description": _sentence(rng),
            "trigger": _sentence(rng, 3, 6),
            "action": _sentence(rng, 3, 6),
            "success_rate": round(rng.random(), 3),
            "occurrences": rng.randint(1, 200),
            "created": _stamp(base, index),
            "id": hashlib.sha256(f"pattern:{index}".encode()).hexdigest()[:12],
            "contributions": {f"\u0000legacy:{n}": 1.0 for n in range(rng.randint(0, 60))},
            "episodes": [f"episode-session-{rng.randrange(episodes)}"],
        }
        for index in range(patterns)
    ]
    return {"version": "1.0", "updated": _stamp(base, 99), "nodes": made, "edges": links, "patterns": learned}


def generate(folder: Path, episodes: int, nodes: int, edges: int, patterns: int, seed: int = 42) -> None:
    rng = random.Random(seed)
    (folder / "episodes").mkdir(parents=True)
    (folder / "causality").mkdir()
    for number in range(episodes):
        data = make_episode(rng, number)
        (folder / "episodes" / f"{data['id']}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    graph = make_graph(rng, nodes, edges, patterns, episodes)
    (folder / "causality" / "causal-graph.json").write_text(json.dumps(graph, indent=2), encoding="utf-8")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=2500)
    parser.add_argument("--edges", type=int, default=100)
    parser.add_argument("--patterns", type=int, default=10)
    parser.add_argument("--no-save", action="store_true", help="print only; do not write results/import.json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="brain-bench-import-") as temp:
        root = Path(temp)
        data = root / "ai-agents"
        generate(data, args.episodes, args.nodes, args.edges, args.patterns)
        vault, _ = init_vault(root / "vault")
        started = time.perf_counter()
        first = import_ai_agents(vault, data)
        import_seconds = time.perf_counter() - started
        started = time.perf_counter()
        second = import_ai_agents(vault, data)
        reimport_seconds = time.perf_counter() - started
        started = time.perf_counter()
        exported = export_ai_agents(vault, root / "out")
        export_seconds = time.perf_counter() - started
    notes = len(first.writes)
    figures = {
        "benchmark": "import ai-agents (no embeddings)",
        "machine": harness.machine(),
        "input": {"episodes": args.episodes, "nodes": args.nodes, "edges": args.edges, "patterns": args.patterns},
        "notes_written": notes,
        "import_seconds": round(import_seconds, 3),
        "import_notes_per_second": round(notes / import_seconds, 1),
        "target_seconds": TARGET_SECONDS,
        "meets_target": import_seconds <= TARGET_SECONDS,
        "reimport_seconds": round(reimport_seconds, 3),
        "reimport_writes": len(second.writes),
        "export_seconds": round(export_seconds, 3),
        "export_nodes": exported.nodes,
        "skipped_files": len(first.skipped),
    }
    if not args.no_save:
        harness.write_json(RESULTS, figures)
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    sys.exit(0 if main()["meets_target"] else 1)
