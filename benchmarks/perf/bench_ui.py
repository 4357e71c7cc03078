"""`brain ui` at 10,000 notes: how long each page takes to answer, over HTTP, as a browser asks.

    PYTHONPATH=$PWD python -m benchmarks.perf.bench_ui [--requests 20] [--size 10k]

The vault is the generated one (benchmarks/generate_vault.py, fixed seed: 3,000 episodes, 2,500
patterns, 1,000 contexts, 500 facts, 3,000 notes), with the 5,000 failure events of the hooks'
benchmark (200 distinct errors, each recovered; benchmarks/perf/bench_hooks.py) and a ledger of
300 agent sessions over the last 30 days (a session start, a first prompt and a failure answered
each, every session's transcript a copy of a real Claude Code session, so the ledger reads 300
transcripts to tell which notes were used). It is indexed with the lexical embedder (the real
model would take an hour to embed 10k notes; the search page then embeds its query lexically: the
real model's query adds ~10 ms, see search-latency.json).

`brain ui` runs as a user runs it (a subprocess on 127.0.0.1); each page is asked for once (its
first answer, `first_ms`), then `--requests` times more (`p50_ms`, `p95_ms`, whole HTTP round trips
from this process). The target: every page within 300 ms. Writes benchmarks/results/ui.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote, urlencode

from benchmarks import harness
from benchmarks.harness import REPO, p50_p95, use_embedder
from benchmarks.perf.bench_hooks import ERRORS, add_failures
from benchmarks.perf.generated import fresh_vault

RESULTS = harness.RESULTS / "ui.json"
TRANSCRIPT = (
    REPO
    / "tests"
    / "data"
    / "transcripts"
    / "claude-code"
    / "-work-demo"
    / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
)
SESSIONS = 300
TARGET_MS = 300


def brain() -> list[str]:
    program = Path(sys.executable).parent / "brain"
    return [str(program)] if program.is_file() else [sys.executable, "-m", "brain"]


def add_ledger(root: Path, sessions: int = SESSIONS, seed: int = 5) -> None:
    """A ledger as the hooks write it: per session a session start, a first prompt and one failure
    answered (with its signature), over the last 30 days; each session's transcript a real one's copy."""
    rng = random.Random(seed)
    patterns = sorted(path.stem for path in (root / "patterns").glob("*.md"))
    episodes = sorted(path.stem for path in (root / "episodes").glob("*.md"))
    transcripts = root.parent / f"{root.name}-transcripts"
    shutil.rmtree(transcripts, ignore_errors=True)
    transcripts.mkdir()
    lines = []
    now = datetime.now(UTC)
    for number in range(sessions):
        session = f"bench-session-{number:04d}"
        transcript = transcripts / f"{session}.jsonl"
        shutil.copy(TRANSCRIPT, transcript)
        at = now - timedelta(days=29 * number / sessions)
        error = ERRORS[number % len(ERRORS)]
        program = "python" if error.startswith("Module") else "git"
        signature = f"shell|{program}|{error}"
        for offset, event, notes, extra in (
            (0, "session-start", rng.sample(patterns, 6), {}),
            (1, "first-prompt", rng.sample(patterns, 4), {}),
            (5, "tool-failure", [rng.choice(episodes)], {"signature": signature}),
        ):
            lines.append(
                {
                    "session": session,
                    "event": event,
                    "at": (at + timedelta(minutes=offset)).isoformat(),
                    "tokens": rng.randint(80, 900),
                    "notes": notes,
                    "transcript": str(transcript),
                    **extra,
                }
            )
    ledger = root / ".brain" / "hooks" / "ledger.jsonl"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def pages(root: Path) -> dict[str, str]:
    """The pages to ask for, named, with addresses into the generated vault."""
    episodes = sorted((root / "episodes").glob("*.md"))
    episode = episodes[len(episodes) // 3].stem
    patterns = sorted(path.stem for path in (root / "patterns").glob("PATTERN-*.md"))
    contexts = sorted((root / "contexts").glob("*.md"))
    context = contexts[len(contexts) // 2].stem
    fact = sorted((root / "facts").glob("*.md"))[10]
    subject = next(line.split(": ", 1)[1] for line in fact.read_text().splitlines() if line.startswith("subject: "))
    namespace = next(line.split(": ", 1)[1] for line in fact.read_text().splitlines() if line.startswith("namespace: "))
    notes = sorted((root / "notes").rglob("*.md"))
    note = notes[len(notes) // 5].relative_to(root).as_posix()
    return {
        "glance": "/",
        "episodes": "/episodes",
        "episodes_middle_page": f"/episodes?page={len(episodes) // 100 + 1}",
        "episodes_by_project": "/episodes?" + urlencode({"project": "github.com/bench/app-1", "outcome": "failure"}),
        "episode": f"/episodes/{quote(episode)}",
        "failures": "/failures",
        "failures_repeated": "/failures?seen=2",
        "patterns": "/patterns",
        "patterns_middle_page": f"/patterns?page={len(patterns) // 100 + 1}",
        "graph": "/graph",
        "graph_focus": "/graph?" + urlencode({"focus": patterns[100], "depth": 2}),
        "path": "/path?" + urlencode({"from": patterns[0], "to": patterns[1], "weighted": 1}),
        "why": f"/why/{quote(context)}",
        "facts": "/facts?" + urlencode({"namespace": namespace.strip('"')}),
        "fact_history": "/facts/history?"
        + urlencode({"subject": subject.strip('"'), "namespace": namespace.strip('"')}),
        "runs": "/runs",
        "tips": "/tips",
        "handed": "/handed",
        "handed_middle_page": f"/handed?page={SESSIONS // 40 + 1}",
        "search": "/search?" + urlencode({"q": "the balance cache returned stale data"}),
        "note": f"/notes/{quote(note)}",
        "episodes_json": "/episodes.json",
        "failures_json": "/failures.json",
        "handed_json": "/handed.json",
    }


def ask(base: str, address: str) -> tuple[float, int]:
    started = time.perf_counter()
    with urllib.request.urlopen(base + address, timeout=120) as answer:
        answer.read()
        status = answer.status
    return (time.perf_counter() - started) * 1000, status


def serve(root: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    started = time.perf_counter()
    process = subprocess.Popen([*brain(), "ui", "--vault", str(root), "--port", str(port)], stderr=subprocess.PIPE)
    while True:
        try:
            ask(f"http://127.0.0.1:{port}", "/static/favicon.svg")
            return process, time.perf_counter() - started
        except OSError as error:
            if process.poll() is not None:
                said = process.stderr.read().decode() if process.stderr else ""
                raise SystemExit(f"brain ui did not start: {said}") from error
            time.sleep(0.1)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--size", default="10k")
    options = parser.parse_args(argv)
    root = fresh_vault(options.size, "ui")
    add_failures(root)
    add_ledger(root)
    use_embedder(root, "lexical")
    started = time.perf_counter()
    subprocess.run([*brain(), "index", "--vault", str(root)], capture_output=True, check=True)
    result: dict = {
        "machine": harness.machine(),
        "size": options.size,
        "index_s": round(time.perf_counter() - started, 1),
    }
    port = 8900 + os.getpid() % 1000
    process, startup = serve(root, port)
    result["start_to_first_answer_s"] = round(startup, 2)
    base = f"http://127.0.0.1:{port}"
    figures = {}
    try:
        for name, address in pages(root).items():
            first, status = ask(base, address)
            assert status == 200, (name, status)
            times = [ask(base, address)[0] for _ in range(options.requests)]
            figures[name] = {"first_ms": round(first, 1), **p50_p95(times)}
            print(f"{name:22} first {first:7.1f} ms  {figures[name]}", flush=True)
    finally:
        process.terminate()
        process.wait(timeout=60)
    result["pages"] = figures
    worst = max(figures.items(), key=lambda item: item[1]["p95_ms"])
    result["worst_p95"] = {"page": worst[0], "ms": worst[1]["p95_ms"], "target_ms": TARGET_MS}
    result["machine_after"] = harness.machine()
    harness.merge_json(RESULTS, {options.size: result})
    print(json.dumps(result["worst_p95"]))
    return result


if __name__ == "__main__":
    main()
