"""Hooks and transcript extraction, measured as the agent meets them: real `brain hooks run` processes.

    PYTHONPATH=$PWD python -m benchmarks.perf.bench_hooks [--runs 7] [--only hooks|extract] [--big-vault DIR] [--tips N]

(PYTHONPATH: the hooks run as `brain` processes, which find this checkout's brain only through it.)

- session-start and first-prompt: wall time of the whole process (start-up included) on vault-example
  and on a generated 10k-note vault (benchmarks/generate_vault.py, indexed without embeddings first),
  with `--tips N` N tip notes on top of it (written under `vault_10k_<N>_tips`);
- the warm-up (embedding every pattern and tip once, in the background after session start);
- session-end: wall time until the hook returns (the extraction goes on in a detached process);
- the project scope a context hook finds (`project_scope_ms`): the repository's `.git` read and one
  catalog query, in process;
- extraction of a generated 10 MB Claude Code transcript: wall time and peak memory of a process
  that reads it (`extract_transcript`).

Writes benchmarks/results/hooks.json. The machine's load average is recorded with the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.generate_vault import SIZES, generate
from benchmarks.harness import REPO

RESULTS = harness.RESULTS / "hooks.json"
TRANSCRIPT = REPO / "tests/data/transcripts/claude-code/-work-demo/7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"


def brain() -> list[str]:
    program = Path(sys.executable).parent / "brain"
    return [str(program)] if program.is_file() else [sys.executable, "-m", "brain"]


def hook_seconds(args: list[str], stdin: str) -> float:
    """Wall seconds of one `brain ARGS` process fed `stdin`, as the agent runs a hook."""
    return harness.process_seconds([*brain(), *args], input=stdin, capture_output=True, text=True, timeout=300)


def _wall(command: list[str]) -> float:
    return harness.process_seconds(command, capture_output=True, timeout=300)


def hook_figures(vault: Path, runs: int) -> dict:
    figures = {}
    start = json.dumps({"session_id": "bench", "hook_event_name": "SessionStart", "source": "startup"})
    # The first session start in a vault starts a warm-up in the background (every pattern and tip
    # embedded for the first-prompt hook); measured on its own first, so the hooks below are timed as
    # every later session meets them, not beside a warm-up they started themselves.
    figures["warm_up_s"] = round(hook_seconds(["hooks", "run", "warm", "--vault", str(vault)], ""), 3)
    hook_seconds(["hooks", "run", "session-start", "--vault", str(vault)], start)  # warm the OS file cache
    walls = [hook_seconds(["hooks", "run", "session-start", "--vault", str(vault)], start) for _ in range(runs)]
    figures["session_start_s"] = {"median": round(statistics.median(walls), 3), "all": [round(w, 3) for w in walls]}
    walls = []
    for n in range(runs):
        prompt = json.dumps(
            {
                "session_id": f"bench-{time.time_ns()}-{n}",
                "hook_event_name": "UserPromptSubmit",
                "prompt": "Shorten the mobile access token TTL for the ledger apps",
            }
        )
        walls.append(hook_seconds(["hooks", "run", "first-prompt", "--vault", str(vault)], prompt))
    figures["first_prompt_s"] = {"median": round(statistics.median(walls), 3), "all": [round(w, 3) for w in walls]}
    walls = []
    for n in range(runs):
        end = json.dumps(
            {"session_id": f"bench-end-{n}", "transcript_path": str(TRANSCRIPT), "hook_event_name": "SessionEnd"}
        )
        walls.append(hook_seconds(["hooks", "run", "session-end", "--vault", str(vault)], end))
        wait_for_extractions(vault)  # each run returns at once; its extraction is not timed beside the next
    figures["session_end_return_s"] = {
        "median": round(statistics.median(walls), 3),
        "all": [round(w, 3) for w in walls],
    }
    figures["project_scope_ms"] = scope_milliseconds(vault, runs)
    return figures


def scope_milliseconds(vault: Path, runs: int) -> float:
    """What a context hook adds to find its project's scope (this checkout's repository, its `.git`
    read, then whether the vault holds an episode of it), in process, median of `runs`, after the
    hook's one look at the files."""
    import brain
    from brain.memory.projects import scope_for

    corpus = brain.open(vault).corpus
    walls = []
    with corpus.checked_once():
        corpus.refresh()
        for _ in range(runs):
            started = time.perf_counter()
            scope_for(corpus, folder=REPO)
            walls.append(time.perf_counter() - started)
    return round(statistics.median(walls) * 1000, 1)


def wait_for_extractions(vault: Path, limit: float = 120.0) -> None:
    """Until no detached `brain hooks run extract ... --vault VAULT` process is left (Linux /proc)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        running = False
        for entry in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                words = entry.read_bytes().split(b"\0")
            except OSError:
                continue
            if b"extract" in words and str(vault).encode() in words:
                running = True
                break
        if not running:
            return
        time.sleep(0.05)


def big_transcript(path: Path, megabytes: int = 10) -> int:
    """The constructed session repeated with fresh ids until the file holds `megabytes` MB; returns tool calls."""
    lines = TRANSCRIPT.read_text().splitlines()
    calls = 0
    round_ = 0
    with path.open("w") as out:
        while out.tell() < megabytes * 1_000_000:
            for line in lines:
                record = json.loads(line)
                text = json.dumps(record).replace("toolu_", f"toolu_{round_}_").replace('"msg_', f'"msg_{round_}_')
                out.write(text + "\n")
                calls += text.count('"type": "tool_use"')
            round_ += 1
    return calls


def extraction_figures(tmp: Path) -> dict:
    path = tmp / "10mb.jsonl"
    calls = big_transcript(path)
    script = (
        "import json, resource, sys, time\n"
        "from brain.agents.registry import READERS\n"
        "from brain.memory.sessions.ingest import extract_transcript\n"
        "def peak():  # KB; VmHWM is this image's own high-water mark (ru_maxrss keeps the forked parent's)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1])\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "t = time.perf_counter(); e = extract_transcript(sys.argv[1], READERS).episode; t = time.perf_counter() - t\n"
        "print(json.dumps([t, e.metrics['tool_calls'], peak()]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    seconds, found, peak_kb = json.loads(out.stdout)
    assert found == calls, (found, calls)
    return {
        "bytes": path.stat().st_size,
        "tool_calls": calls,
        "seconds": round(seconds, 3),
        "peak_mb": round(peak_kb / 1024, 1),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", choices=("hooks", "extract"))
    parser.add_argument("--big-vault", type=Path, help="a 10k-note vault already generated and indexed")
    parser.add_argument("--tips", type=int, default=0, help="tip notes the generated 10k-note vault gets on top")
    options = parser.parse_args(argv)
    result: dict = {"load_average_before": os.getloadavg()}
    # pip byte-compiles an installed brain; a source checkout (editable install) is compiled here alike
    package = importlib.util.find_spec("brain")
    assert package is not None and package.origin is not None, "brain is not importable here"
    harness.byte_compile(Path(package.origin).parent)
    # the same machine's floor in the same run: a bare interpreter, and `brain --version` (CLI start-up)
    bare = [_wall([sys.executable, "-c", "pass"]) for _ in range(options.runs)]
    version = [_wall([*brain(), "--version"]) for _ in range(options.runs)]
    result["baseline"] = {
        "python_startup_s": round(statistics.median(bare), 3),
        "brain_version_s": round(statistics.median(version), 3),
    }
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as folder:  # detached extractions may still write
        tmp = Path(folder)
        if options.only in (None, "hooks"):
            example = tmp / "vault-example"
            shutil.copytree(REPO / "vault-example", example)
            subprocess.run([*brain(), "index", "--no-embed", "--vault", str(example)], capture_output=True, check=True)
            result["vault_example"] = hook_figures(example, options.runs)
            save(result)
            big = options.big_vault
            if big is None:
                big = generate(tmp / "big", SIZES["10k"], tips=options.tips)
                subprocess.run([*brain(), "init", str(big)], capture_output=True, check=True)
                subprocess.run([*brain(), "index", "--no-embed", "--vault", str(big)], capture_output=True, check=True)
            result[f"vault_10k_{options.tips}_tips" if options.tips else "vault_10k"] = hook_figures(big, options.runs)
            save(result)
        if options.only in (None, "extract"):
            result["extract_10mb"] = extraction_figures(tmp)
    result["load_average_after"] = os.getloadavg()
    save(result)
    print(json.dumps(result, indent=2))
    return result


def save(result: dict) -> None:
    harness.merge_json(RESULTS, result)


if __name__ == "__main__":
    main()
