"""Wall time, CPU time and peak memory of one-shot `brain` commands, each a new process, JSON out.

    python -m benchmarks.perf.cli_latency --label after [--runs 5] [--only search,status]
    git archive <commit> | tar -x -C /tmp/brain-before   # another commit's brain, measured beside this one:
    python -m benchmarks.perf.cli_latency --src after=. --src before=/tmp/brain-before

A copy of `vault-example/` is indexed with the real model (`brain index`) by each brain measured,
then each command of the table runs once to warm the OS caches and `--runs` times more, each as its
own process (as an agent's hook or a person runs it). With several `--src`, the runs alternate
between them, so a shared machine's load weighs on each alike. The figure is the median wall time;
CPU time (user + system) is reported beside it, being less moved by other jobs; peak memory is the
child's maximum resident set as the OS reports it (`wait4`), the largest of the runs. The load
average is read before and after each command: the machine may be shared, so say so beside the
figures. `-X importtime` then tells which heavy modules each command imported.
Writes benchmarks/results/cli_latency.json under each label.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import REPO

RESULTS = harness.RESULTS / "cli_latency.json"
HEAVY = ("numpy", "onnxruntime", "tokenizers", "chromadb", "networkx", "markdown_it", "pydantic", "mcp", "watchdog")

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


def command(source: Path, args: tuple[str, ...], python_flags: tuple[str, ...] = ()) -> tuple[list[str], dict]:
    env = {**os.environ, "PYTHONPATH": str(source), "COLUMNS": "100"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed brain has its .pyc files: so does each measured tree
    return [sys.executable, *python_flags, "-m", "brain", *args], env


def run_once(source: Path, args: tuple[str, ...]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one process."""
    argv, env = command(source, args)
    started = time.perf_counter()
    # cwd too: `python -m` puts the working directory first on sys.path, before PYTHONPATH.
    child = subprocess.Popen(argv, env=env, cwd=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"brain {' '.join(args)} failed ({child.returncode}): {stderr.decode(errors='replace')}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # Linux reports kilobytes


def heavy_imports(source: Path, args: tuple[str, ...]) -> list[str]:
    """The heavy top-level packages the command imported (`python -X importtime`)."""
    argv, env = command(source, args, ("-X", "importtime"))
    stderr = subprocess.run(argv, env=env, cwd=source, capture_output=True, text=True, check=True).stderr
    names = {name for _, name in harness.import_times(stderr)}
    found = {name.split(".")[0] for name in names}
    # networkx is bound lazily by brain (brain/lazy.py): only its submodules mean it was loaded
    return [name for name in HEAVY if name in found and (name != "networkx" or "networkx.classes" in names)]


def command_figures(sources: dict[str, Path], vaults: dict[str, Path], name: str, runs: int) -> dict[str, dict]:
    """The command `name` under every source, runs alternating between the sources."""
    template, target_s, target_mb = COMMANDS[name]

    def args(label: str) -> tuple[str, ...]:
        return (*template, *(() if name == "help" else ("--vault", str(vaults[label]))))

    load_before = os.getloadavg()[0]
    for label, source in sources.items():
        run_once(source, args(label))  # warm-up: OS file cache, .pyc files
    samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label in sources}
    for _ in range(runs):
        for label, source in sources.items():
            samples[label].append(run_once(source, args(label)))
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return {
        label: {
            "command": "brain " + " ".join(template),
            "median_s": round(statistics.median(s[0] for s in samples[label]), 3),
            "cpu_median_s": round(statistics.median(s[1] for s in samples[label]), 3),
            "runs_s": [round(s[0], 3) for s in samples[label]],
            "peak_rss_mb": round(max(s[2] for s in samples[label])),
            "load_1min": load,
            "heavy_imports": heavy_imports(source, args(label)),
            "target_s": target_s,
            "target_mb": target_mb,
        }
        for label, source in sources.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="current", help="the label of this tree's figures (without --src)")
    parser.add_argument("--src", action="append", default=[], help="LABEL=PATH: a source tree to measure (repeat)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated command names (default: all)")
    args = parser.parse_args()
    sources = {label: Path(path).resolve() for label, _, path in (item.partition("=") for item in args.src)}
    sources = sources or {args.label: REPO}
    chosen = [name for name in args.only.split(",") if name] or list(COMMANDS)
    for source in sources.values():
        harness.byte_compile(source / "brain")  # as pip compiles an installed brain
    with tempfile.TemporaryDirectory() as temp:
        vaults = {}
        for label, source in sources.items():
            vault = vaults[label] = Path(temp) / label / "vault"
            shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns("index", ".brain"))
            argv, env = command(source, ("index", "--vault", str(vault)))
            first = subprocess.run(argv, env=env, cwd=source, capture_output=True, text=True, check=True).stdout
            if "all-MiniLM" not in first:
                sys.exit(f"the real model is not in use (brain index said: {first.strip()})")
        python_floor = statistics.median(
            [harness.process_seconds([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
        )
        results: dict[str, dict] = {
            label: {
                "vault": "vault-example (copy, indexed with the real model)",
                "brain_src": str(source),
                "cpus": os.cpu_count(),
                "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "python_c_pass_s": round(python_floor, 3),
                "commands": {},
            }
            for label, source in sources.items()
        }
        for name in chosen:
            for label, figures in command_figures(sources, vaults, name, args.runs).items():
                results[label]["commands"][name] = figures
                print(
                    f"{label:8} {name:18} {figures['median_s']:6.3f} s (cpu {figures['cpu_median_s']:5.3f} s) "
                    f"{figures['peak_rss_mb']:5} MB  load {figures['load_1min']}",
                    flush=True,
                )
    harness.merge_json(RESULTS, results)
    print(f"wrote {RESULTS} [{', '.join(results)}]")


if __name__ == "__main__":
    main()
