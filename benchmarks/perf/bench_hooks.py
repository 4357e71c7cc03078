"""Hooks and transcript extraction, measured as the agent meets them: real `brain hooks run` processes.

    PYTHONPATH=$PWD python -m benchmarks.perf.bench_hooks [--runs 7] [--only hooks|extract|beside-writer|failure] [--big-vault DIR] [--tips N]

(PYTHONPATH: the hooks run as `brain` processes, which find this checkout's brain only through it.)

- session-start and first-prompt: wall time of the whole process (start-up included) on vault-example
  and on a generated 10k-note vault (benchmarks/generate_vault.py, indexed without embeddings first),
  with `--tips N` N tip notes on top of it (written under `vault_10k_<N>_tips`);
- the warm-up (embedding every pattern and tip once, in the background after session start);
- session-start and first-prompt on the 10k-note vault beside a writer (`beside_writer`): 4,000 notes
  changed since the last index and another process holding the index lock, as while `brain index`
  catches up on them; the hooks answer from the catalog as it was, without waiting for the lock;
- tool-failure (`--only failure`): wall time of the whole process on a generated 10k-note vault whose
  episodes hold 5,000 failure events (each an error and its recovery, 200 distinct errors), for a
  failure seen before (answered) and one never seen (silence), run from a git repository of one of the
  three projects the episodes belong to, and the failure seen before run from a fourth project that
  has no episode (answered from the whole vault), wall and CPU seconds (the CPU time
  of the process is what it costs once it has a core, on a loaded machine), written under
  `vault_10k_5000_failures`; on the same vault, Codex's PostToolUse hook (`codex-tool-failure`, run
  after every tool call) for a call that exited 0 (silence, the common case) and for a failed one seen
  before, its rollout the one captured from Codex 0.171.0 (tests/data/codex/post-tool-use/, about
  60 KB when the hook starts) with the call's end appended (`codex_*`);
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
import resource
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
CODEX_CAPTURED = REPO / "tests/data/codex/post-tool-use"


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


HOLD_THE_LOCK = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1], thread_local=False)
lock.acquire()
print("held", flush=True)
time.sleep(3600)
"""


def context_hook_seconds(vault: Path, runs: int, label: str) -> dict:
    """session-start and first-prompt, `runs` times each: wall seconds (median and all)."""
    start = json.dumps({"session_id": "bench", "hook_event_name": "SessionStart", "source": "startup"})
    figures = {}
    walls = [hook_seconds(["hooks", "run", "session-start", "--vault", str(vault)], start) for _ in range(runs)]
    figures["session_start_s"] = {"median": round(statistics.median(walls), 3), "all": [round(w, 3) for w in walls]}
    walls = []
    for n in range(runs):
        prompt = json.dumps(
            {
                "session_id": f"bench-{label}-{time.time_ns()}-{n}",
                "hook_event_name": "UserPromptSubmit",
                "prompt": "Shorten the mobile access token TTL for the ledger apps",
            }
        )
        walls.append(hook_seconds(["hooks", "run", "first-prompt", "--vault", str(vault)], prompt))
    figures["first_prompt_s"] = {"median": round(statistics.median(walls), 3), "all": [round(w, 3) for w in walls]}
    return figures


def beside_writer_figures(vault: Path, runs: int, changed: int = 4000) -> dict:
    """The context hooks as they are, then while another process holds the index lock and `changed`
    notes wait for it (as while `brain index` catches up on them)."""
    figures: dict = {"idle": context_hook_seconds(vault, runs, "idle")}
    notes = sorted(path for path in vault.rglob("*.md") if ".brain" not in path.parts)[:changed]
    for path in notes:
        with path.open("a", encoding="utf-8") as note:
            note.write("\nchanged while brain index runs\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(vault / ".brain" / "index" / "index.lock")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        figures["changed_notes"] = len(notes)
        figures["beside_writer"] = context_hook_seconds(vault, runs, "writer")
    finally:
        holder.kill()
        holder.wait()
    return figures


FAILURE_EVENTS = 5000
ERRORS = [  # words, not numbers: the signature blanks numbers, and 5,000 failures should not be one
    f"ModuleNotFoundError: No module named '{first}_{second}'"
    for first in ("ledger", "payments", "auth", "mobile", "cache", "search", "billing", "webhooks", "ci", "sync")
    for second in ("client", "models", "views", "tasks", "store", "schema", "retry", "keys", "queue", "cli")
] + [
    f"fatal: pathspec '{area}/{name}.py' did not match any files"
    for area in ("api", "web", "core", "jobs", "tools", "infra", "docs", "lib", "app", "sdk")
    for name in ("main", "config", "routes", "models", "utils", "errors", "tasks", "types", "store", "client")
]


PROJECTS = [f"github.com/bench/app-{number}" for number in range(3)]


def add_failures(vault: Path, count: int = FAILURE_EVENTS) -> None:
    """Give the generated vault's episodes `count` failure events, each an error and its recovery,
    and each episode one of PROJECTS (in turn)."""
    episodes = sorted((vault / "episodes").glob("*.md"))
    for number, path in enumerate(episodes):
        text = path.read_text(encoding="utf-8")
        project = PROJECTS[number % len(PROJECTS)]
        path.write_text(
            text.replace("\ntype: episode\n", f"\ntype: episode\nproject: {project}\n", 1), encoding="utf-8"
        )
    for number in range(count):
        path = episodes[number % len(episodes)]
        text = path.read_text(encoding="utf-8")
        error = ERRORS[number % len(ERRORS)]
        first, second = f"f{number:05d}a", f"f{number:05d}b"
        program = "python" if error.startswith("Module") else "git"
        events = (
            f"\n90. [2026-03-02T10:00:00Z] {first} (error): `{program} run` failed: {error} (leads_to: [[{second}]])"
            f"\n91. [2026-03-02T10:05:00Z] {second} (recovery): `{program} run` succeeded (caused_by: [[{first}]])"
        )
        path.write_text(text.replace("\n\n## Lessons Learned", events + "\n\n## Lessons Learned", 1), encoding="utf-8")


def repository(folder: Path, project: str) -> Path:
    """A git repository whose remote `origin` is `project` (what the hook reads of its `cwd`)."""
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", f"https://{project}.git"], check=True)
    return folder


def failure_figures(vault: Path, runs: int) -> dict:
    """The hook run from a repository of PROJECTS[1] (a failure seen in it before, and one never seen),
    and from a project with no episode (the failure seen before in the others: the whole vault's answer)."""
    own = repository(vault.parent / "work" / "app-1", PROJECTS[1])
    elsewhere = repository(vault.parent / "work" / "new-app", "github.com/bench/new-app")

    def payload(error: str, cwd: Path) -> str:
        return json.dumps(
            {
                "session_id": "bench",
                "hook_event_name": "PostToolUseFailure",
                "cwd": str(cwd),
                "tool_name": "Bash",
                "tool_input": {"command": "python run"},
                "tool_use_id": "toolu_bench",
                "error": f'Exit code 1\nTraceback (most recent call last):\n  File "x.py", line 1\n{error}',
                "is_interrupt": False,
            }
        )

    figures = {}
    cases = (
        ("seen_before", ERRORS[7], own),
        ("never_seen", "ModuleNotFoundError: No module named 'zzz_q'", own),
        ("seen_in_another_project", ERRORS[7], elsewhere),
    )
    command = ["hooks", "run", "tool-failure", "--vault", str(vault)]
    for name, error, cwd in cases:
        figures |= wall_and_cpu(name, command, payload(error, cwd), runs)
    for name, cwd in (("answered", own), ("answered_elsewhere", elsewhere)):
        answer = subprocess.run([*brain(), *command], input=payload(ERRORS[7], cwd), capture_output=True, text=True)
        figures[name] = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"] if answer.stdout else ""
    return figures


def wall_and_cpu(name: str, command: list[str], stdin: str, runs: int) -> dict:
    """`<name>_s` (wall seconds, every run kept) and `<name>_cpu_s` of `runs` hook processes."""
    hook_seconds(command, stdin)  # the OS file cache
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(hook_seconds(command, stdin))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return {
        f"{name}_s": {
            "median": round(statistics.median(walls), 3),
            "p95": round(harness.percentile(walls, 0.95), 3),
            "all": [round(w, 3) for w in walls],
        },
        # CPU seconds of the process (user + system): what it costs once it has a core, whatever the load
        f"{name}_cpu_s": {"median": round(statistics.median(cpus), 3), "p95": round(harness.percentile(cpus, 0.95), 3)},
    }


def codex_failure_figures(vault: Path, runs: int, folder: Path) -> dict:
    """Codex's PostToolUse hook: a call that exited 0, and a failed call whose error was seen before."""
    at_hook = json.loads((CODEX_CAPTURED / "rollout-bytes-at-hook.json").read_text())["echo-hello"]
    rollout = folder / "codex-rollout.jsonl"
    end = {"type": "CommandExecution", "id": "call_bench", "status": "failed", "exit_code": 1}
    end["aggregated_output"] = f"Traceback (most recent call last):\n{ERRORS[7]}\n"
    line = {
        "timestamp": "2026-03-02T10:00:00Z",
        "type": "event_msg",
        "payload": {"type": "item_completed", "item": end},
    }
    rollout.write_bytes(
        (CODEX_CAPTURED / "calls.rollout.jsonl").read_bytes()[:at_hook]
        + json.dumps(line, separators=(",", ":")).encode()
    )
    success = json.loads((CODEX_CAPTURED / "echo-hello.json").read_text())
    failed = {**success, "tool_input": {"command": "python run"}, "tool_use_id": "call_bench"}
    failed["tool_response"] = end["aggregated_output"]
    command = ["hooks", "run", "codex-tool-failure", "--vault", str(vault)]
    figures = {}
    for name, payload in (("codex_success", success), ("codex_seen_before", failed)):
        stdin = json.dumps({**payload, "transcript_path": str(rollout)})
        figures |= wall_and_cpu(name, command, stdin, runs)
        answer = subprocess.run([*brain(), *command], input=stdin, capture_output=True, text=True).stdout
        figures[f"{name}_answered"] = bool(answer.strip())
    return figures


def scope_milliseconds(vault: Path, runs: int) -> float:
    """What a context hook adds to find its project's scope (this checkout's repository, its `.git`
    read, then whether the vault holds an episode of it), in process, median of `runs`, after the
    hook's one look at the files."""
    import brain
    from brain.memory.projects.service import scope_for

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
        "from brain.memory.sessions.ingest import extract_transcript\n"
        "def peak():  # KB; VmHWM is this image's own high-water mark (ru_maxrss keeps the forked parent's)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1])\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "t = time.perf_counter(); e = extract_transcript(sys.argv[1]).episode; t = time.perf_counter() - t\n"
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
    parser.add_argument("--only", choices=("hooks", "extract", "beside-writer", "failure"))
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
        if options.only in (None, "beside-writer"):
            big = generate(tmp / "writer", SIZES["10k"])
            subprocess.run([*brain(), "init", str(big)], capture_output=True, check=True)
            subprocess.run([*brain(), "index", "--no-embed", "--vault", str(big)], capture_output=True, check=True)
            hook_figures(big, 1)  # warmed as every later session meets it (see hook_figures)
            # this run's machine with its figures: the keys above belong to the runs of the other cases
            writer = {"baseline": result.pop("baseline"), "load_average_before": result.pop("load_average_before")}
            result["vault_10k_beside_writer"] = {**writer, **beside_writer_figures(big, options.runs)}
            result["vault_10k_beside_writer"]["load_average_after"] = os.getloadavg()
            if options.only == "beside-writer":
                harness.merge_json(RESULTS, {"vault_10k_beside_writer": result["vault_10k_beside_writer"]})
                print(json.dumps(result, indent=2))
                return result
            result.update(writer)
        if options.only in (None, "failure"):
            big = tmp / "big-failures"
            generate(big, SIZES["10k"])
            add_failures(big)
            subprocess.run([*brain(), "init", str(big)], capture_output=True, check=True)
            subprocess.run([*brain(), "index", "--no-embed", "--vault", str(big)], capture_output=True, check=True)
            result["vault_10k_5000_failures"] = failure_figures(big, max(options.runs, 20))
            result["vault_10k_5000_failures"] |= codex_failure_figures(big, max(options.runs, 20), tmp)
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
