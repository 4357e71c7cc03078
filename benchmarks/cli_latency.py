"""Wall time and peak memory of one-shot `brain` commands, each a new process, JSON out.

    python benchmarks/cli_latency.py --label after [--runs 5] [--only search,status]
    git archive main | tar -x -C /tmp/brain-main   # another commit's brain, for a "before" figure:
    python benchmarks/cli_latency.py --label before --brain-src /tmp/brain-main

A copy of `vault-example/` is indexed with the real model (`brain index`), then each command of the
table runs once to warm the OS caches and `--runs` times more, each as its own process (as an agent's
hook or a person runs it). The figure is the median wall time; peak memory is the child's maximum
resident set as the OS reports it (`wait4`), the largest of the runs. The load average is read before
and after each command: the machine may be shared, so say so beside the figures. `-X importtime`
then tells which heavy modules each command imported.
Writes benchmarks/results/cli_latency.json under `--label`.
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
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "cli_latency.json"
HEAVY = ("numpy", "onnxruntime", "tokenizers", "chromadb", "networkx", "markdown_it", "yaml", "mcp", "watchdog")

# name -> (arguments after `brain`, each but --help run with `--vault VAULT`; target seconds; target MB)
COMMANDS: dict[str, tuple[tuple[str, ...], float, int | None]] = {
    "help": (("--help",), 0.25, None),
    "search": (("search", "phone app sign-in security"), 0.6, 200),
    "search_text": (("search", "phone app sign-in security", "--mode", "text"), 0.35, None),
    "pattern_path": (
        ("pattern", "path", "PATTERN-idempotency-keys-on-writes", "PATTERN-canary-with-auto-rollback"),
        0.35,
        None,
    ),
    "causal_why": (("causal", "why", "Decision shorten mobile access token lifetime"), 0.35, None),
    "fact_recall": (("fact", "recall", "--subject", "mobile-access-token-ttl"), 0.35, None),
    "run_recall": (("run", "recall", "why was a payment credited twice?", "--tenant", "ledger"), 0.6, 200),
    "tip_guidelines": (("tip", "guidelines", "Keys written at the same time all expire together"), 0.6, 200),
    "context_bootstrap": (
        ("context", "bootstrap", "Shorten the mobile access token TTL for the ledger apps"),
        0.6,
        200,
    ),
    "status": (("status",), 0.5, 150),
}

SOURCE = ROOT  # the brain measured (--brain-src)


def command(args: tuple[str, ...], python_flags: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(SOURCE), "COLUMNS": "100"}
    return [sys.executable, *python_flags, "-m", "brain", *args], env


def run_once(args: tuple[str, ...]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one process."""
    argv, env = command(args)
    started = time.perf_counter()
    # cwd too: `python -m` puts the working directory first on sys.path, before PYTHONPATH.
    child = subprocess.Popen(argv, env=env, cwd=SOURCE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"brain {' '.join(args)} failed ({child.returncode}): {stderr.decode(errors='replace')}")
    return elapsed, usage.ru_maxrss / 1024  # Linux reports kilobytes


def heavy_imports(args: tuple[str, ...]) -> list[str]:
    """The heavy top-level packages the command imported (`python -X importtime`)."""
    argv, env = command(args, ("-X", "importtime"))
    stderr = subprocess.run(argv, env=env, cwd=SOURCE, capture_output=True, text=True, check=True).stderr
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return [name for name in HEAVY if name in names]


def measure(args: tuple[str, ...], runs: int) -> dict:
    load_before = os.getloadavg()[0]
    run_once(args)  # warm-up: OS file cache, .pyc files
    times, peaks = [], []
    for _ in range(runs):
        seconds, peak = run_once(args)
        times.append(seconds)
        peaks.append(peak)
    return {
        "median_s": round(statistics.median(times), 3),
        "runs_s": [round(t, 3) for t in times],
        "peak_rss_mb": round(max(peaks)),
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "heavy_imports": heavy_imports(args),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="current")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated command names (default: all)")
    parser.add_argument("--brain-src", type=Path, default=ROOT, help="the source tree whose brain is measured")
    args = parser.parse_args()
    global SOURCE
    SOURCE = args.brain_src.resolve()
    chosen = [name for name in args.only.split(",") if name] or list(COMMANDS)
    with tempfile.TemporaryDirectory() as temp:
        vault = Path(temp) / "vault"
        shutil.copytree(ROOT / "vault-example", vault, ignore=shutil.ignore_patterns("index", ".brain"))
        argv, env = command(("index", "--vault", str(vault)))
        first = subprocess.run(argv, env=env, cwd=SOURCE, capture_output=True, text=True, check=True).stdout
        if "all-MiniLM" not in first:
            sys.exit(f"the real model is not in use (brain index said: {first.strip()})")
        python_floor = statistics.median([run_time([sys.executable, "-c", "pass"]) for _ in range(args.runs)])
        result: dict = {
            "vault": "vault-example (copy, indexed with the real model)",
            "brain_src": str(SOURCE),
            "cpus": os.cpu_count(),
            "python_c_pass_s": round(python_floor, 3),
            "commands": {},
        }
        for name in chosen:
            template, target_s, target_mb = COMMANDS[name]
            vault_args = () if name == "help" else ("--vault", str(vault))
            figures = measure((*template, *vault_args), args.runs)
            figures["target_s"] = target_s
            figures["target_mb"] = target_mb
            figures["command"] = "brain " + " ".join(template)
            result["commands"][name] = figures
            print(f"{name:18} {figures['median_s']:6.3f} s {figures['peak_rss_mb']:5} MB  load {figures['load_1min']}")
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    stored[args.label] = result
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(stored, indent=2) + "\n")
    print(f"wrote {RESULTS} [{args.label}]")


def run_time(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
