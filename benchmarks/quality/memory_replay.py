"""Benchmark: does brain put the earlier fix in front of an agent that fails again? A real project's
Claude Code and Codex sessions replayed in time order, scored by a ground truth written apart from
brain (`replay_truth`), each project's figures held out (leave one project out).

    python -m benchmarks.histories --all /work/.mirror --to DIR          # once: the local copies
    nice python -m benchmarks.quality.memory_replay all [--histories DIR] [--grid FIELD=V1,V2 ...]
    nice python -m benchmarks.quality.memory_replay cipher-box [--limit N]

For each session i, oldest first, each failed call goes through the failure hook, the real
`brain hooks run` entry point in this process, with the vault holding the episodes of sessions
0..i-1; then session i is extracted as the session-end hook does, and the vault is indexed.
- A Claude Code call: `tool-failure`, fed what Claude Code sends on PostToolUseFailure (the call's
  tool, input and error text, its cwd, the session id).
- A Codex shell call: `codex-tool-failure`, fed what Codex sends on PostToolUse (`tool_name`
  `Bash`, the command, the output, the call id) and a rollout cut where Codex runs the hook (before
  the call's output), twice: with the call's end event (its own `exec_command_end`, else the
  `item_completed` Codex 0.171 writes, made from the output's exit code) and with every end event
  taken out and the output handed with its head, `Process exited with code N` (what Codex before
  0.171 writes and shows). Up to SUCCESS_SAMPLES successful shell calls of each
  Codex session go through the hook too, in both forms: an answer there is a false alarm, and
  their time is what every successful call costs. A failed `apply_patch` gets no PostToolUse from
  Codex: counted, not replayed.

Scored per project (`score`), on the project's own failures (Claude Code's protocol errors apart):
- repeats: failures with a twin (`replay_truth.are_twins`) in an earlier session that was recovered
  there (`replay_truth.recovery`); recall: the share answered naming the episode of a twin's session;
- false alarms: of the failures with no twin in any earlier session, the share answered at all;
- answer correctness: of the answered repeats that their own session recovered from, the share whose
  answer holds that recovery (`replay_truth.answer_holds`: same target, same change); beside it,
  `answer_correctness_v1`, the same share by the yardstick as first written (`answer_holds_v1`,
  which read the hook's fenced record as one quote and so never compared its `worked:` command);
- tokens per answer (characters / 4), hook p50 / p95 in process (ms);
- Codex: recall, false alarms and successes answered, with and without the end event.

Settings: `--grid FIELD=V1,V2 ...` varies the hook's settings over named fields (values read as
JSON, else as text), applied by `--apply`: `attr:MODULE:NAME` replaces the frozen dataclass held at
MODULE.NAME with `dataclasses.replace(default, **point)` while the hook runs (`attr:MODULE` sets
the module's constants of those names); `config:SECTION` writes
the point as keys of `[SECTION]` in the vault's `.brain/config.toml`. Every point is asked at every
failure in one pass (the vault is built once). With no grid there is one point: the hook as it is.
Leave one project out: for each project, the point best on the other projects (pooled counts,
`objective`) is chosen and the held-out project's figures at that point are reported.

Results: benchmarks/results/memory-replay.json (all projects) or memory-replay-<project>.json.
The hook's answers are cached per project, brain source and grid in benchmarks/.cache/memory-replay/
(`--fresh` ignores the cache), so scoring changes rerun in seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import hashlib
import importlib
import io
import json
import pickle
import re
import shutil
import tempfile
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.histories import CODEX, PROJECTS, MissingHistory, Session, histories_root, load
from benchmarks.quality import replay_truth as truth

SUCCESS_SAMPLES = 8  # successful shell calls of each Codex session put through the hook
MODES = ("with_end", "without_end")  # the Codex rollout as the hook reads it
CACHE = harness.CACHE / "memory-replay"
EXAMPLES = 30  # misses, false alarms and wrong answers kept per project in the results
Point = dict[str, Any]


# ---------------------------------------------------------------- reading a project


def _source_hash(*paths: Path) -> str:
    digest = hashlib.sha256()
    for root in paths:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            digest.update(str(path.relative_to(harness.REPO)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def read_project(project: str, root: Path | None) -> tuple[list[Session], list[truth.SessionCalls]]:
    """The project's sessions and their calls (each call once: a resumed or forked session's copies
    of earlier calls left out), cached by the histories' index and replay_truth's source."""
    entries = load(project, root)
    index = (root or histories_root()) / project / "index.json"
    key = hashlib.sha256(index.read_bytes()).hexdigest()[:12] + "-" + _source_hash(Path(truth.__file__))
    cached = CACHE / f"calls-{project}-{key}.pickle"
    if cached.is_file():
        return entries, pickle.loads(cached.read_bytes())  # our own cache
    sessions = [truth.read_session(i, e.session_id, e.path, e.agent) for i, e in enumerate(entries)]
    seen: set[str] = set()
    for session in sessions:
        session.calls = [call for call in session.calls if call.call_id not in seen]
        for position, call in enumerate(session.calls):
            call.seq = position
        seen |= {call.call_id for call in session.calls}
    truth.prepare(sessions)
    for session in sessions:
        for call in session.calls:
            if call.ok is True:
                call.output = call.output[:4000]  # a success's output: only the hook's payload needs it
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob(f"calls-{project}-*.pickle"):
        stale.unlink()
    cached.write_bytes(pickle.dumps(sessions))
    return entries, sessions


def success_samples(session: truth.SessionCalls) -> list[truth.Call]:
    shells = [call for call in session.calls if call.ok is True and call.kind == truth.SHELL]
    if len(shells) <= SUCCESS_SAMPLES:
        return shells
    step = len(shells) / SUCCESS_SAMPLES
    return [shells[int(i * step)] for i in range(SUCCESS_SAMPLES)]


# ---------------------------------------------------------------- settings


@dataclasses.dataclass(frozen=True)
class Grid:
    fields: dict[str, list[Any]]
    apply: str  # "", "attr:MODULE:NAME" or "config:SECTION"

    def points(self) -> list[Point]:
        points: list[Point] = [{}]
        for name, values in self.fields.items():
            points = [{**point, name: value} for point in points for value in values]
        return points

    def spec(self) -> str:
        return json.dumps({"fields": self.fields, "apply": self.apply}, sort_keys=True)


def parse_grid(items: list[str], apply: str) -> Grid:
    fields: dict[str, list[Any]] = {}
    for item in items:
        name, found, values = item.partition("=")
        if not found or not name.strip() or not values.strip():
            raise SystemExit(f"memory_replay: --grid takes FIELD=V1,V2 (got {item!r})")
        fields[name.strip()] = [_value(value) for value in values.split(",")]
    if fields and not apply:
        raise SystemExit("memory_replay: a --grid needs --apply attr:MODULE[:NAME] or config:SECTION")
    return Grid(fields, apply)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()


@contextmanager
def applied(grid: Grid, point: Point, vault: Path) -> Iterator[None]:
    """The hook's settings at `point` while the block runs."""
    if not point:
        yield
        return
    how, _, where = grid.apply.partition(":")
    if how == "attr" and ":" not in where:  # the point's fields are the module's own constants
        module = importlib.import_module(where)
        before = {field: getattr(module, field) for field in point}
        for field, value in point.items():
            setattr(module, field, value)
        try:
            yield
        finally:
            for field, value in before.items():
                setattr(module, field, value)
    elif how == "attr":
        module_name, _, name = where.rpartition(":")
        module = importlib.import_module(module_name)
        default = getattr(module, name)
        setattr(module, name, dataclasses.replace(default, **point))
        try:
            yield
        finally:
            setattr(module, name, default)
    elif how == "config":
        path = vault / ".brain" / "config.toml"
        before = path.read_text(encoding="utf-8") if path.is_file() else ""
        data = tomllib.loads(before) if before else {}
        data.setdefault(where, {}).update(point)
        path.write_text(_toml(data), encoding="utf-8")
        try:
            yield
        finally:
            path.write_text(before, encoding="utf-8")
    else:
        raise SystemExit(f"memory_replay: --apply {grid.apply!r} is not attr:MODULE[:NAME] or config:SECTION")


def _toml(data: dict[str, Any]) -> str:
    lines = []
    for section, values in data.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the hook


def _claude_payload(session: Session, call: truth.Call) -> dict[str, Any]:
    return {
        "session_id": session.session_id,
        "transcript_path": str(session.path),
        "cwd": call.cwd,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": call.tool,
        "tool_input": call.tool_input,
        "tool_use_id": call.call_id,
        "error": call.output,
        "is_interrupt": False,
    }


def _end_event(call: truth.Call) -> str:
    """The item_completed event Codex 0.171 writes when a command ends (tests/data/codex/post-tool-use)."""
    item = {
        "type": "CommandExecution",
        "id": call.call_id,
        "command": ["/bin/bash", "-lc", call.command or ""],
        "cwd": f"file://{call.cwd}",
        "status": "completed" if call.exit_code == 0 else "failed",
        "exit_code": call.exit_code,
        "aggregated_output": truth.body(call.output),
    }
    return json.dumps(
        {"timestamp": call.when, "type": "event_msg", "payload": {"type": "item_completed", "item": item}}
    )


def codex_rollout(lines: list[str], call: truth.Call, mode: str) -> str:
    """The rollout as Codex's PostToolUse hook finds it: cut before the call's output; with the
    call's end event, or with every end event taken out."""
    cut = lines[: call.output_line]
    if mode == "without_end":
        cut = [
            line
            for line in cut
            if '"exec_command_end"' not in line and not ('"item_completed"' in line and '"CommandExecution"' in line)
        ]
    elif not 0 <= call.end_line < call.output_line:
        cut = [*cut, _end_event(call)]
    return "\n".join(cut) + "\n"


def _codex_payload(session: Session, call: truth.Call, rollout: Path, mode: str) -> dict[str, Any]:
    """What Codex hands PostToolUse. 0.171 (`with_end`) hands the command's output alone (captured:
    tests/data/codex/post-tool-use/); before 0.171 (`without_end`) the output is handed as the
    rollout holds it, with its head (`Process exited with code N`, `Exit code: N`), the exit-code
    line the issue names. (Until 2026-12-07 18:30 both forms handed the output without its head:
    then no Codex failure without its end event could be told, figures in docs/benchmarks.md.)"""
    return {
        "session_id": session.session_id,
        "turn_id": "",
        "transcript_path": str(rollout),
        "cwd": call.cwd,
        "hook_event_name": "PostToolUse",
        "model": "",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": {"command": call.command or ""},
        "tool_response": call.output if mode == "without_end" else truth.body(call.output),
        "tool_use_id": call.call_id,
    }


def run(vault: Path, agent: str, payload: dict[str, Any]) -> tuple[str, float, bool]:
    """The agent's tool-failure hook's answer (its additionalContext), its milliseconds, and whether
    it logged an error. `brain hooks run AGENT tool-failure`; a tree from before hooks were named by
    agent takes the one word `tool-failure` / `codex-tool-failure`."""
    import inspect

    from brain.agents.runner import run_hook

    by_agent = next(iter(inspect.signature(run_hook).parameters)) == "words"
    name: Any = [agent, "tool-failure"] if by_agent else ("codex-tool-failure" if agent == CODEX else "tool-failure")

    log = vault / ".brain" / "logs" / "hooks.log"
    size = log.stat().st_size if log.is_file() else 0
    out = io.StringIO()
    started = time.perf_counter()
    with redirect_stdout(out):
        run_hook(name, json.dumps(payload), vault, 1000, None, None, None)
    elapsed = (time.perf_counter() - started) * 1000
    text = out.getvalue()
    answer = ""
    if text.strip():
        answer = json.loads(text).get("hookSpecificOutput", {}).get("additionalContext", "") or ""
    added = log.read_bytes()[size:].decode("utf-8", errors="replace") if log.is_file() else ""
    logged = any(line.split(" ", 2)[2:3] and line.split(" ", 2)[2].startswith("error: ") for line in added.splitlines())
    return answer, round(elapsed, 2), logged


def to_ask(session: truth.SessionCalls) -> list[tuple[truth.Call, str]]:
    """The calls of a session put through the hook: its failures the agent's hook sees (a Codex
    session's shell calls only), and a Codex session's sampled successes."""
    if session.agent != CODEX:
        return [(call, "failure") for call in session.failures if call.kind not in truth.HOOK_BLIND]
    failures = [(call, "failure") for call in session.failures if call.kind == truth.SHELL]
    return failures + [(call, "success") for call in success_samples(session)]


def asked(sessions: list[truth.SessionCalls]) -> set[str]:
    return {call.key for session in sessions for call, _ in to_ask(session)}


def replay(
    project: str, entries: list[Session], sessions: list[truth.SessionCalls], grid: Grid, work: Path
) -> dict[str, Any]:
    """Every hook answer of the project's replay, for every point of the grid: {"answers": {call key:
    {point: {mode: [answer, ms, logged]}}}, "episodes": {session index: episode title}}."""
    from brain.errors import BrainError
    from brain.index.sync.sync import index_vault
    from brain.memory.front_door import open_memory
    from brain.memory.sessions.protocol import end_session
    from brain.vault.init import init_vault

    vault = work / "vault"
    init_vault(vault)
    # One history is one project (one git remote, as brain would read it from each clone's .git); the
    # replayed sessions ran in folders that are not here, so brain cannot tell that from them, and
    # each author's clone or worktree would be a project of its own. Answers across them are allowed.
    config = vault / ".brain" / "config.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("cross_project = false", "cross_project = true", 1), encoding="utf-8")
    memory = open_memory(vault)
    index_vault(memory.index, embed=False)  # the catalog the hook reads; extraction keeps it current
    points = grid.points()
    answers: dict[str, dict[str, dict[str, list[Any]]]] = {}
    successes: dict[str, dict[str, dict[str, list[Any]]]] = {}
    episodes: dict[str, str] = {}
    unread: dict[str, str] = {}
    tips: dict[str, list[str]] = {}  # session index -> the tips its extraction wrote
    rollout = work / "rollout.jsonl"
    started = time.perf_counter()
    try:
        for entry, session in zip(entries, sessions, strict=True):
            lines = (
                entry.path.read_text(encoding="utf-8", errors="replace").splitlines() if entry.agent == CODEX else []
            )
            for call, what in to_ask(session):
                into = (answers if what == "failure" else successes).setdefault(call.key, {})
                for number, point in enumerate(points):
                    with applied(grid, point, vault):
                        if entry.agent == CODEX:
                            found = {}
                            for mode in MODES:
                                rollout.write_text(codex_rollout(lines, call, mode), encoding="utf-8")
                                found[mode] = list(run(vault, CODEX, _codex_payload(entry, call, rollout, mode)))
                            into[str(number)] = found
                        else:
                            into[str(number)] = {
                                "claude": list(run(vault, "claude-code", _claude_payload(entry, call)))
                            }
            try:
                report = end_session(memory.corpus, entry.path, format=entry.agent)
            except BrainError as error:  # a transcript brain cannot read: no episode, said in the results
                unread[entry.session_id] = str(error)
                continue
            episodes[str(session.index)] = Path(report.episode_path).stem
            tips[str(session.index)] = [Path(tip).stem for tip in report.tips.created]
            if session.index % 20 == 19:
                print(
                    f"  {project}: {session.index + 1} of {len(sessions)} sessions, {time.perf_counter() - started:.0f} s"
                )
    finally:
        close = getattr(memory, "close", None)  # a tree from before Memory.close has nothing to release
        if close is not None:
            close()
    return {
        "answers": answers,
        "successes": successes,
        "episodes": episodes,
        "tips": tips,
        "unread": unread,
        "points": points,
    }


def replayed(project: str, root: Path | None, grid: Grid, limit: int | None, fresh: bool) -> tuple[Any, ...]:
    """The project's calls and its replay, from the cache when brain's source, the histories and the
    grid are those it was made with."""
    entries, sessions = read_project(project, root)
    if limit:
        entries, sessions = entries[:limit], sessions[:limit]
    index = (root or histories_root()) / project / "index.json"
    key = hashlib.sha256(
        (_source_hash(harness.REPO / "brain") + index.read_text() + grid.spec() + str(limit)).encode()
    ).hexdigest()[:16]
    cached = CACHE / f"answers-{project}-{key}.json"
    if cached.is_file() and not fresh:
        result = json.loads(cached.read_text(encoding="utf-8"))
        if asked(sessions) <= result["answers"].keys() | result["successes"].keys():
            return entries, sessions, result  # else the calls are read another way now: replay again
    work = Path(tempfile.mkdtemp(prefix="memory-replay-"))
    try:
        result = replay(project, entries, sessions, grid, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result), encoding="utf-8")
    return entries, sessions, result


# ---------------------------------------------------------------- scoring


def duplicate_share(tips: list[str]) -> float | None:
    """The share of tips whose name repeats an earlier one's (numbers masked, or difflib ratio >= 0.9)."""
    if not tips:
        return None
    kept: list[str] = []
    duplicates = 0
    for tip in tips:
        words = re.sub(r"\d+", "#", tip.lower())
        if any(words == k or difflib.SequenceMatcher(None, words, k).ratio() >= 0.9 for k in kept):
            duplicates += 1
        kept.append(words)
    return round(duplicates / len(tips), 3)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


class _Tally:
    """The counts, times and examples of one project at one point, as `score` adds them up."""

    def __init__(self) -> None:
        names = (
            "failures protocol_failures repeats hits answered_repeats correct correct_v1 correct_of protocol_repeats "
            "protocol_hits fresh fresh_answered protocol_fresh protocol_fresh_answered patch_failures "
            "codex_failures codex_successes"
        )
        self.counts: dict[str, int] = dict.fromkeys(names.split(), 0)
        for mode in MODES:
            for name in (
                "repeats",
                "hits",
                "fresh",
                "fresh_answered",
                "successes_answered",
                "logged_errors",
                "correct",
            ):
                self.counts[f"codex_{mode}_{name}"] = 0
        for name in ("repeats", "hits", "fresh", "fresh_answered", "correct"):
            self.counts[f"codex_as_is_{name}"] = 0
        self.times: dict[str, list[float]] = {"claude": [], "with_end": [], "without_end": []}
        self.success_times: dict[str, list[float]] = {mode: [] for mode in MODES}
        self.tokens: list[int] = []
        self.classes: dict[str, list[int]] = {}  # the first failure of a class of twins -> [hits, repeats]
        self.misses: list[dict[str, Any]] = []
        self.alarms: list[dict[str, Any]] = []
        self.wrong: list[dict[str, Any]] = []

    def codex(self, call: truth.Call, found: dict[str, list[Any]], twins: list[truth.Call], good: bool, own: Any, names: set[str]) -> None:  # fmt: skip
        """A Codex failure, in both forms of its rollout, and as its rollout is (`as_is`: with the
        end event when the rollout has one, 0.118 to 0.130's `exec_command_end`, else without)."""
        self.counts["codex_failures"] += 1
        as_is = "with_end" if 0 <= call.end_line < call.output_line else "without_end"
        for mode in (*MODES, "as_is"):
            answer, elapsed, logged = found[as_is if mode == "as_is" else mode]
            prefix = f"codex_{mode}_"
            if mode != "as_is":
                self.times[mode].append(elapsed)
                self.counts[prefix + "logged_errors"] += logged
            if good:
                self.counts[prefix + "repeats"] += 1
                self.counts[prefix + "hits"] += any(f"[[{name}]]" in answer for name in names)
                self.counts[prefix + "correct"] += bool(answer and own and truth.answer_holds(answer, own))
            elif not twins:
                self.counts[prefix + "fresh"] += 1
                self.counts[prefix + "fresh_answered"] += bool(answer)

    def failure(self, call: truth.Call, answer: str, twins: list[truth.Call], good: list[truth.Call], own: Any, names: set[str], root: str) -> None:  # fmt: skip
        """Any failure: its figures as the agent's (a Codex one's with its end event)."""
        protocol = call.protocol is not None
        self.counts["protocol_failures" if protocol else "failures"] += 1
        if answer:
            self.tokens.append(len(answer) // 4)
        if not twins:
            self.counts["protocol_fresh" if protocol else "fresh"] += 1
            self.counts["protocol_fresh_answered" if protocol else "fresh_answered"] += bool(answer)
            if answer and not protocol:
                self.alarms.append(_example(call, answer, own))
        if not good:
            return
        hit = any(f"[[{name}]]" in answer for name in names)
        self.counts["protocol_repeats" if protocol else "repeats"] += 1
        self.counts["protocol_hits" if protocol else "hits"] += hit
        if protocol:
            return
        tally = self.classes.setdefault(root, [0, 0])
        tally[0] += hit
        tally[1] += 1
        if not hit:
            self.misses.append(_example(call, answer, own, good[-1]))
        if answer:
            self.counts["answered_repeats"] += 1
        if answer and own is not None:
            self.counts["correct_of"] += 1
            holds = truth.answer_holds(answer, own)
            self.counts["correct"] += holds
            self.counts["correct_v1"] += truth.answer_holds_v1(answer, own)
            if not holds:
                self.wrong.append(_example(call, answer, own))

    def success(self, found: dict[str, list[Any]]) -> None:
        self.counts["codex_successes"] += 1
        for mode in MODES:
            answer, elapsed, logged = found[mode]
            self.success_times[mode].append(elapsed)
            self.counts[f"codex_{mode}_successes_answered"] += bool(answer)
            self.counts[f"codex_{mode}_logged_errors"] += logged

    def figures(self) -> dict[str, Any]:
        counts, classes = self.counts, self.classes
        counts["repeat_classes"] = len(classes)
        every = [ms for values in (*self.times.values(), *self.success_times.values()) for ms in values]
        figures = {
            "repeat_recall": _ratio(counts["hits"], counts["repeats"]),
            # each class of twins weighs the same (one failure repeated in 40 sessions is one class)
            "repeat_recall_per_class": round(sum(h / n for h, n in classes.values()) / len(classes), 3)
            if classes
            else None,
            "false_alarms": _ratio(counts["fresh_answered"], counts["fresh"]),
            "answer_correctness": _ratio(counts["correct"], counts["correct_of"]),
            # the yardstick as first written (replay_truth.answer_holds_v1), reported apart
            "answer_correctness_v1": _ratio(counts["correct_v1"], counts["correct_of"]),
            "protocol_recall": _ratio(counts["protocol_hits"], counts["protocol_repeats"]),
            "protocol_false_alarms": _ratio(counts["protocol_fresh_answered"], counts["protocol_fresh"]),
            "tokens_per_answer": round(sum(self.tokens) / len(self.tokens), 1) if self.tokens else None,
            "hook_ms": harness.p50_p95(every) if every else None,
        }
        if counts["codex_failures"] or counts["codex_successes"]:
            for mode in MODES:
                prefix = f"codex_{mode}_"
                figures[prefix + "recall"] = _ratio(counts[prefix + "hits"], counts[prefix + "repeats"])
                figures[prefix + "false_alarms"] = _ratio(counts[prefix + "fresh_answered"], counts[prefix + "fresh"])
                figures[prefix + "correctness"] = _ratio(counts[prefix + "correct"], counts[prefix + "repeats"])
                successes, failures = self.success_times[mode], self.times[mode]
                figures[prefix + "success_ms"] = harness.p50_p95(successes) if successes else None
                figures[prefix + "failure_ms"] = harness.p50_p95(failures) if failures else None
            figures["codex_as_is_recall"] = _ratio(counts["codex_as_is_hits"], counts["codex_as_is_repeats"])
            figures["codex_as_is_false_alarms"] = _ratio(
                counts["codex_as_is_fresh_answered"], counts["codex_as_is_fresh"]
            )
        return figures


def score(sessions: list[truth.SessionCalls], replay_result: dict[str, Any], point: int) -> dict[str, Any]:
    """The project's counts and figures at one point of the grid (see the module doc)."""
    answers, episodes, key = replay_result["answers"], replay_result["episodes"], str(point)
    tally = _Tally()
    recovered = {call.key: truth.recovery(call, session) for session in sessions for call in session.failures}
    root: dict[str, str] = {}  # a failure -> the first failure of its twins: one class of repeats
    earlier: list[truth.Call] = []
    for session in sessions:
        for call in session.failures:
            if call.kind in truth.HOOK_BLIND and call.agent == CODEX:
                tally.counts["patch_failures"] += 1
                continue
            found = answers.get(call.key, {}).get(key)
            if found is None or (call.agent == CODEX and call.kind != truth.SHELL):
                continue
            twins = [other for other in earlier if truth.are_twins(call, other)]
            good = [other for other in twins if recovered[other.key] is not None]
            names = {episodes.get(str(other.session), "\0") for other in twins}
            own = recovered[call.key]
            root[call.key] = root.get(twins[0].key, twins[0].key) if twins else call.key
            if call.agent == CODEX:
                tally.codex(call, found, twins, bool(good), own, names)
                answer = found["with_end"][0]
            else:
                answer, elapsed, _ = found["claude"]
                tally.times["claude"].append(elapsed)
            tally.failure(call, answer, twins, good, own, names, root[call.key])
        earlier += session.failures
    for session in sessions:
        for call in success_samples(session) if session.agent == CODEX else []:
            found = replay_result["successes"].get(call.key, {}).get(key)
            if found is not None:
                tally.success(found)
    figures = tally.figures()
    if "tips" in replay_result:  # what extraction wrote beside: tips per session and their duplicates
        written = [tip for session in sessions for tip in replay_result["tips"].get(str(session.index), [])]
        figures["tips_per_session"] = round(len(written) / len(sessions), 2) if sessions else None
        figures["tip_duplicate_share"] = duplicate_share(written)
    return {
        "counts": tally.counts,
        "figures": figures,
        "misses": tally.misses[:EXAMPLES],
        "false_alarms_seen": tally.alarms[:EXAMPLES],
        "wrong_answers": tally.wrong[:EXAMPLES],
    }


def _example(
    call: truth.Call, answer: str, own: truth.Recovery | None, twin: truth.Call | None = None
) -> dict[str, Any]:
    def short(text: str, size: int = 240) -> str:
        text = " ".join(text.split())
        return text if len(text) <= size else text[: size - 1] + "…"

    example = {
        "session": call.session,
        "agent": call.agent,
        "tool": call.tool,
        "call": short(call.command or ", ".join(call.files) or json.dumps(call.tool_input)),
        "error": short(" | ".join(call.lines)),
        "answer": answer,
    }
    if own is not None:
        example["own_recovery"] = short(own.call.command or f"{own.call.tool} {', '.join(own.call.files)}")
        example["own_change"] = own.change if not own.retry else "retry"
    if twin is not None:
        example["twin"] = {"session": twin.session, "call": short(twin.command or ", ".join(twin.files))}
    return example


def audit(project: str, sessions: list[truth.SessionCalls], replay_result: dict[str, Any], point: int) -> str:
    """Every repeat and every answered failure of a project, as text a person can check the
    twin test and the verdicts against."""
    answers, episodes = replay_result["answers"], replay_result["episodes"]
    recovered = {call.key: truth.recovery(call, session) for session in sessions for call in session.failures}
    out: list[str] = []
    earlier: list[truth.Call] = []

    def short(text: str, size: int = 220) -> str:
        text = " ".join(text.split())
        return text if len(text) <= size else text[: size - 1] + "…"

    def told(call: truth.Call) -> str:
        return short(call.command or f"{call.tool} {', '.join(call.files) or json.dumps(call.tool_input)[:150]}")

    for session in sessions:
        for call in session.failures:
            found = answers.get(call.key, {}).get(str(point))
            if found is None or call.protocol:
                continue
            answer = next(iter(found.values()))[0]
            twins = [other for other in earlier if truth.are_twins(call, other)]
            good = [other for other in twins if recovered[other.key] is not None]
            if not good and not answer:
                continue
            own = recovered[call.key]
            kind = "REPEAT" if good else ("ALARM" if not twins else "TWIN-NOT-RECOVERED")
            names = {episodes.get(str(other.session), "\0") for other in twins}
            hit = any(f"[[{name}]]" in answer for name in names)
            verdict = (
                "" if not (good and answer and own) else (" right" if truth.answer_holds(answer, own) else " WRONG")
            )
            out.append(
                f"### {project} s{call.session} {call.agent} {kind}{' hit' if hit else ''}{verdict}: {told(call)}"
            )
            out.append(f"    error: {short(' | '.join(call.lines), 300)}")
            if good:
                twin, fix = good[-1], recovered[good[-1].key]
                out.append(f"    twin s{twin.session}: {told(twin)}")
                out.append(f"    twin error: {short(' | '.join(twin.lines), 300)}")
                if fix is not None:
                    out.append(f"    twin fixed by ({fix.via}): {told(fix.call)} {fix.change}")
            if own is not None:
                out.append(f"    own fix ({own.via}): {told(own.call)} {'retry' if own.retry else own.change}")
            if answer:
                out.append("    answer: " + short(answer, 900))
        earlier += session.failures
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- leave one project out


def objective(counts: dict[str, int]) -> float:
    """How good a point is on pooled counts: recall + answer correctness - 2 x the false alarms above 0.1."""
    recall = counts["hits"] / counts["repeats"] if counts["repeats"] else 0.0
    correct = counts["correct"] / counts["correct_of"] if counts["correct_of"] else 0.0
    alarms = counts["fresh_answered"] / counts["fresh"] if counts["fresh"] else 0.0
    return recall + correct - 2 * max(0.0, alarms - 0.1)


def held_out(scored: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """For each project, the point best on the others (ties: the one with fewer false alarms on the
    others, since the objective counts none under 0.1; then the earlier point) and the project's own
    figures at that point."""
    chosen = {}
    for project in scored:
        others = [name for name in scored if name != project]
        best, best_value, best_alarms = 0, float("-inf"), float("inf")
        for point in range(len(scored[project])):
            pooled: dict[str, int] = {}
            for name in others:
                for field, value in scored[name][point]["counts"].items():
                    pooled[field] = pooled.get(field, 0) + value
            value = objective(pooled) if others else 0.0
            alarms = pooled.get("fresh_answered", 0) / pooled["fresh"] if pooled.get("fresh") else 0.0
            if value > best_value + 1e-12 or (abs(value - best_value) <= 1e-12 and alarms < best_alarms):
                best, best_value, best_alarms = point, value, alarms
        chosen[project] = {"point": best, "objective_on_others": round(best_value, 4)} | scored[project][best]
    return chosen


# ---------------------------------------------------------------- the command


def table(held: dict[str, dict[str, Any]]) -> str:
    """The held-out figures as a markdown table, counts beside each share."""

    def share(counts: dict[str, int], part: str, whole: str) -> str:
        return f"{counts[part] / counts[whole]:.2f} ({counts[part]}/{counts[whole]})" if counts[whole] else "-"

    def ms(figures: dict[str, Any], key: str) -> str:
        found = figures.get(key)
        return f"{found['p95_ms']:.0f}" if found else "-"

    rows = [
        "| project | repeat recall (per class) | false alarms | answer correctness | protocol recall | tokens / answer "
        "| hook p95 ms | Codex recall with end / without / as the rollouts are "
        "| Codex successes answered, p95 ms with / without end |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    pooled: dict[str, int] = {}
    for name, entry in held.items():
        counts, figures = entry["counts"], entry["figures"]
        for field, value in counts.items():
            pooled[field] = pooled.get(field, 0) + value
        codex = "-"
        successes = "-"
        if counts["codex_failures"]:
            codex = " / ".join(
                share(counts, f"codex_{mode}_hits", f"codex_{mode}_repeats")
                for mode in ("with_end", "without_end", "as_is")
            )
            successes = (
                f"{counts['codex_with_end_successes_answered']}/{counts['codex_successes']}, "
                f"{ms(figures, 'codex_with_end_success_ms')} / {ms(figures, 'codex_without_end_success_ms')}"
            )
        tokens = figures["tokens_per_answer"]
        per_class = figures["repeat_recall_per_class"]
        classes = f" ({per_class:.2f} of {counts['repeat_classes']})" if per_class is not None else ""
        rows.append(
            f"| {name} | {share(counts, 'hits', 'repeats')}{classes} | {share(counts, 'fresh_answered', 'fresh')} "
            f"| {share(counts, 'correct', 'correct_of')} | {share(counts, 'protocol_hits', 'protocol_repeats')} "
            f"| {tokens if tokens is not None else '-'} | {ms(figures, 'hook_ms')} | {codex} | {successes} |"
        )
    rows.append(
        f"| **all, pooled** | {share(pooled, 'hits', 'repeats')} | {share(pooled, 'fresh_answered', 'fresh')} "
        f"| {share(pooled, 'correct', 'correct_of')} | {share(pooled, 'protocol_hits', 'protocol_repeats')} | | "
        f"| {share(pooled, 'codex_with_end_hits', 'codex_with_end_repeats')} / "
        f"{share(pooled, 'codex_without_end_hits', 'codex_without_end_repeats')} / "
        f"{share(pooled, 'codex_as_is_hits', 'codex_as_is_repeats')} | |"
    )
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("projects", nargs="+", help="project folders under the histories, or `all`")
    parser.add_argument("--histories", type=Path, default=None, help="default: $BRAIN_HISTORIES or ../shared/histories")
    parser.add_argument("--limit", type=int, default=None, help="replay only the first N sessions of each")
    parser.add_argument("--grid", action="append", default=[], metavar="FIELD=V1,V2", help="a setting to vary")
    parser.add_argument("--apply", default="", help="attr:MODULE[:NAME] or config:SECTION (with --grid)")
    parser.add_argument("--fresh", action="store_true", help="replay again even when the cache has the answers")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--audit", type=Path, default=None, help="write every repeat and answer as text here")
    options = parser.parse_args()
    grid = parse_grid(options.grid, options.apply)
    names = [project.name for project in PROJECTS] if options.projects == ["all"] else options.projects
    scored: dict[str, list[dict[str, Any]]] = {}
    about: dict[str, dict[str, Any]] = {}
    for name in names:
        started = time.perf_counter()
        try:
            entries, sessions, result = replayed(name, options.histories, grid, options.limit, options.fresh)
        except MissingHistory as missing:
            raise SystemExit(f"memory_replay: {missing}") from None
        scored[name] = [score(sessions, result, point) for point in range(len(result["points"]))]
        if options.audit:
            with options.audit.open("a" if name != names[0] else "w", encoding="utf-8") as file:
                file.write(audit(name, sessions, result, 0))
        agents = {agent: sum(entry.agent == agent for entry in entries) for agent in ("claude-code", CODEX)}
        about[name] = {
            "sessions": agents,
            "sessions_brain_could_not_read": result.get("unread", {}),
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(f"{name}: replayed and scored in {about[name]['seconds']} s")
    chosen = held_out(scored)
    result = {
        "machine": harness.machine(),
        "histories": str(options.histories or histories_root()),
        "grid": json.loads(grid.spec()),
        "points": grid.points(),
        "held_out": {name: about[name] | chosen[name] for name in names},
        "every_point": {name: [entry["counts"] for entry in scored[name]] for name in names},
    }
    out = options.out or harness.RESULTS / (
        "memory-replay.json" if options.projects == ["all"] else f"memory-replay-{'-'.join(names)}.json"
    )
    harness.write_json(out, result)
    print(f"held out (the point chosen on the other projects), in {out}:")
    print(table(result["held_out"]))


if __name__ == "__main__":
    main()
