"""Benchmark: does brain put the earlier fix in front of an agent that fails again? A real project's
Claude Code sessions replayed in time order. Writes benchmarks/results/memory-replay-<project>.json.

    python -m benchmarks.histories /work/.mirror/FSM1+cipher-box/repo cipher-box   # once: the local copy
    python -m benchmarks.quality.memory_replay cipher-box [--histories DIR] [--limit N]

For each session i, oldest first: each of its failed tool calls goes through the failure hook (the
real `brain hooks run tool-failure` entry point, in this process, fed the hook JSON Claude Code
would send: the call's tool, input and error, the session's cwd and id) with the vault holding the
episodes of sessions 0..i-1; then session i is extracted as the session-end hook does (episode,
pattern evidence, tips), and the vault is indexed.

What is scored is judged apart from the hook's signature, on the raw transcripts (so the hook is
not graded by its own rule). Two failures are twins when they are the same tool (every shell tool
is one), on the same target (the program of a shell command, the file of a tool called on a file:
Edit, Write, Read ...), and at least 80% of the lines of the shorter error text are lines of the
other, word for word once the text is read this way: tags and the `Exit code N` line taken out,
the call's own input echoed back after the error's first line taken out (Edit's `String: <the text
it sought>`), paths under the working folder (written whole or from `~`) made relative, numbers
and hashes masked, the lines found in the failures of 4 sessions or more left out (a runner's
banner, `[lint] ERROR task failed`, `ok pkg (cached)`: what every failure of a kind prints says
nothing of which failure it is) unless that leaves nothing, and only the first and last 500
characters kept. A command that printed nothing but its exit code is read as the command itself.
Lines, not characters: two compiler or linter outputs of one package share most of their text
while their diagnostics differ (`declared and not used: repo` against `undefined: cwd`), and
those are two failures. An earlier failure counts when it was recovered in its session: a later
call of the same tool on the same file or with the same program succeeded. Calls failed only
because a sibling call failed, or interrupted by the user, are left out.

- repeat recall: of the failures with a recovered twin in an earlier session, the share the hook
  answered naming an episode of one of those sessions;
- false alarms: of the failures with no twin at all in earlier sessions, the share the hook answered;
- hook p95 (milliseconds, in process: the process start is measured by benchmarks/perf/bench_hooks.py);
- tokens injected per session (characters / 4), tips written per session and the share of them
  that duplicate an earlier tip (same words once numbers are masked, or difflib ratio >= 0.9).
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import re
import shutil
import tempfile
import time
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import harness
from benchmarks.histories import MissingHistory, histories_root, load
from brain.agents.registry import READERS
from brain.agents.runner import run_hook
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.episodes.signature import SHELL_TOOLS, program
from brain.memory.front_door import open_memory
from brain.memory.sessions import commands as cmd
from brain.memory.sessions.protocol import end_session
from brain.memory.sessions.transcripts.files import ReadStats
from brain.vault.init import init_vault

TWIN_LINES = 0.8  # the share of the shorter error's lines the other must hold
TEXT_CHARS = 500
BOILERPLATE_SESSIONS = 4
_SKIP = ("Sibling tool call errored", "[Request interrupted by user", "The user doesn't want to")
_MASK = re.compile(r"\b[0-9a-f]{7,64}\b|\d+(?:\.\d+)?")
_TAGS = re.compile(r"</?tool_use_error>")
_SAYS_NOTHING = re.compile(r"\s*(?:Exit code:?\s*-?#)?\s*", re.IGNORECASE)
_HOME = re.compile(r"^/(?:Users|home)/[^/]+")
_EXIT = re.compile(r"^\s*Exit code:?\s*-?\d+\s*\n", re.IGNORECASE)


@dataclass
class Failed:
    session: int
    tool: str
    tool_input: dict[str, Any]
    error: str
    target: str  # the program of a shell command, else the file the call was on
    text: str  # masked error text for the twin test
    call_id: str = ""
    recovered: bool = False
    answer: str = ""


@dataclass
class Session:
    index: int
    session_id: str
    cwd: str
    path: Path
    failures: list[Failed] = field(default_factory=list)


def _kind(tool: str) -> str:
    return "shell" if tool in SHELL_TOOLS else tool


def _target(tool: str, tool_input: dict[str, Any]) -> str:
    command = cmd.shell_command(tool, tool_input)
    if command is not None:
        return program(command)
    for key in ("file_path", "notebook_path"):
        if isinstance(tool_input.get(key), str):
            return str(tool_input[key])
    return ""


def _masked(error: str, cwd: str, tool_input: dict[str, Any] | None = None) -> str:
    """The error's text as the twin test reads it: tags, the `Exit code N` line, the working folder
    (written whole or from `~`) and the call's own input echoed back (Edit's `String: <old_string>`)
    taken out, numbers and hashes masked (cut to its head and tail by `_content`)."""
    if len(error) > 40_000:  # a 10 MB output: its ends say what failed
        error = error[:20_000] + "\n" + error[-20_000:]
    text = _EXIT.sub("", _TAGS.sub("", error)).strip()
    head, _, rest = text.partition("\n")  # the error names itself first; an echo of the input follows
    for value in (tool_input or {}).values():
        if isinstance(value, str) and len(value) > 20 and value in rest:
            rest = rest.replace(value, "")
    text = f"{head}\n{rest}".strip()
    if cwd:
        text = text.replace(cwd.rstrip("/") + "/", "")
        text = text.replace(_HOME.sub("~", cwd.rstrip("/")) + "/", "")
    return _MASK.sub("#", text)


def _content(text: str, boilerplate: set[str]) -> str:
    """What the twin test compares: the text without the lines that recur in the failures of many
    sessions (a runner's banner, `[lint] ERROR task failed`, `ok pkg (cached)`), unless that leaves
    nothing (then the whole text: an error that recurs word for word is its own content); its first
    and last TEXT_CHARS characters."""
    kept = "\n".join(line for line in text.splitlines() if line.strip() and line.strip() not in boilerplate)
    text = kept or text
    return text if len(text) <= 2 * TEXT_CHARS else text[:TEXT_CHARS] + "\n" + text[-TEXT_CHARS:]


def boilerplate_lines(sessions: list[Session]) -> set[str]:
    """The masked lines found in the failures of BOILERPLATE_SESSIONS sessions or more."""
    seen: dict[str, set[int]] = {}
    for session in sessions:
        for failure in session.failures:
            for line in {line.strip() for line in failure.text.splitlines() if line.strip()}:
                seen.setdefault(line, set()).add(session.index)
    return {line for line, where in seen.items() if len(where) >= BOILERPLATE_SESSIONS}


def read_session(index: int, session_id: str, path: Path) -> Session:
    """The session's failed calls, each marked recovered when a later call of the same tool on the
    same target succeeded."""
    stats = ReadStats()
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    failed: list[Failed] = []
    seen_ids: set[str] = set()
    cwd = ""
    for act in READERS[0].read(path, stats):
        cwd = cwd or stats.cwd or ""
        if act.kind == "call":
            calls[act.call_id] = (act.name, act.args)
        elif act.kind == "result" and act.call_id in calls and act.call_id not in seen_ids:
            seen_ids.add(act.call_id)  # a resumed session replays earlier records: each call once
            tool, args = calls[act.call_id]
            target = _target(tool, args).replace(cwd.rstrip("/") + "/", "") if cwd else _target(tool, args)
            if act.is_error and not act.rejected and not _TAGS.sub("", act.text).startswith(_SKIP):
                text = _masked(act.text, cwd, args)
                if _SAYS_NOTHING.fullmatch(text):  # a command that printed nothing is told by the command
                    text = _masked(cmd.shell_command(tool, args) or text, cwd)
                failed.append(Failed(index, tool, args, act.text, target, text, act.call_id))
            elif not act.is_error:
                for earlier in failed:
                    if not earlier.recovered and _kind(earlier.tool) == _kind(tool) and earlier.target == target:
                        earlier.recovered = True
    return Session(index, session_id, stats.cwd or "", path, failed)


def _call_ids(path: Path) -> set[str]:
    return {act.call_id for act in READERS[0].read(path, ReadStats()) if act.kind == "call" and act.call_id}


def twins(failure: Failed, earlier: list[Failed]) -> list[Failed]:
    return [
        other
        for other in earlier
        if _kind(other.tool) == _kind(failure.tool)
        and other.target == failure.target
        and other.text
        and _similar(other.text, failure.text)
    ]


def _similar(one: str, other: str) -> bool:
    """Most lines of the shorter text are lines of the other, word for word once masked."""
    mine, theirs = _lines(one), _lines(other)
    if len(mine) > len(theirs):
        mine, theirs = theirs, mine
    return bool(mine) and len(mine & theirs) >= TWIN_LINES * len(mine)


def _lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip()}


def hook(vault: Path, session: Session, failure: Failed) -> tuple[str, float]:
    """The hook's answer (its additionalContext) and its milliseconds, through the real entry point."""
    payload = {
        "session_id": session.session_id,
        "transcript_path": str(session.path),
        "cwd": session.cwd,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": failure.tool,
        "tool_input": failure.tool_input,
        "tool_use_id": "replayed",
        "error": failure.error,
        "is_interrupt": False,
    }
    out = io.StringIO()
    started = time.perf_counter()
    with redirect_stdout(out):
        run_hook("tool-failure", json.dumps(payload), vault, 1000, None, None, None)
    elapsed = (time.perf_counter() - started) * 1000
    text = out.getvalue()
    return (json.loads(text)["hookSpecificOutput"]["additionalContext"] if text.strip() else ""), elapsed


def duplicate_share(tips: list[str]) -> float | None:
    if not tips:
        return None
    kept: list[str] = []
    duplicates = 0
    for tip in tips:
        words = _MASK.sub("#", tip.lower())
        if any(words == k or difflib.SequenceMatcher(None, words, k).ratio() >= 0.9 for k in kept):
            duplicates += 1
        kept.append(words)
    return round(duplicates / len(tips), 3)


def replay(project: str, root: Path | None, limit: int | None, work: Path) -> dict[str, Any]:
    sessions = load(project, root)[: limit or None]
    vault = work / "vault"
    init_vault(vault)
    memory = open_memory(vault)
    index_vault(open_index(memory.vault), embed=False)  # the catalog the hook reads; extraction keeps it current
    earlier: list[Failed] = []
    episodes_of: dict[int, str] = {}  # session index -> episode title
    repeats = repeats_named = fresh = fresh_answered = 0
    times: list[float] = []
    tokens: list[int] = []
    tips: list[str] = []
    tips_per_session: list[int] = []
    examples: list[dict[str, Any]] = []
    misses: list[dict[str, Any]] = []
    alarms: list[dict[str, Any]] = []
    replayed: set[str] = set()  # tool_use ids of earlier sessions: a resumed session's copies are no new failure
    read = [read_session(index, entry.session_id, entry.path) for index, entry in enumerate(sessions)]
    boilerplate = boilerplate_lines(read)
    for session in read:
        for failure in session.failures:
            failure.text = _content(failure.text, boilerplate)
    for index, (entry, session) in enumerate(zip(sessions, read, strict=True)):
        session.failures = [failure for failure in session.failures if failure.call_id not in replayed]
        injected = 0
        for failure in session.failures:
            answer, elapsed = hook(vault, session, failure)
            times.append(elapsed)
            injected += len(answer) // 4
            failure.answer = answer
            found = twins(failure, earlier)
            recovered = [twin for twin in found if twin.recovered]
            if recovered:
                repeats += 1
                names = {episodes_of.get(twin.session, "\0") for twin in recovered}
                hit = any(f"[[{name}]]" in answer for name in names)
                repeats_named += hit
                if len(examples) < 5 and hit:
                    examples.append({"session": index, "tool": failure.tool, "answer": answer})
                elif not hit:
                    misses.append(
                        {"session": index, "tool": failure.tool, "error": failure.text[:200], "answer": answer}
                    )
            elif not found:
                fresh += 1
                fresh_answered += bool(answer)
                if answer:
                    alarms.append(
                        {"session": index, "tool": failure.tool, "error": failure.text[:200], "answer": answer}
                    )
        tokens.append(injected)
        earlier += session.failures
        replayed |= _call_ids(entry.path)
        report = end_session(memory.corpus, entry.path, readers=READERS, format="claude-code")
        episodes_of[index] = Path(report.episode_path).stem
        created = [str(Path(tip).stem) for tip in report.tips.created]
        tips += created
        tips_per_session.append(len(created))
    return {
        "project": project,
        "sessions": len(sessions),
        "failures": len(earlier),
        "repeats": repeats,
        "repeat_recall": round(repeats_named / repeats, 3) if repeats else None,
        "fresh": fresh,
        "false_alarms": round(fresh_answered / fresh, 3) if fresh else None,
        "hook_ms": harness.p50_p95(times) if times else None,
        "tokens_per_session": round(sum(tokens) / len(tokens), 1) if tokens else 0,
        "tips_per_session": round(sum(tips_per_session) / len(tips_per_session), 2) if tips_per_session else 0,
        "tip_duplicate_rate": duplicate_share(tips),
        "examples": examples,
        "misses": misses,
        "false_alarms_seen": alarms,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", help="the project's folder under the histories (cipher-box, entireio-cli)")
    parser.add_argument("--histories", type=Path, default=None, help="default: $BRAIN_HISTORIES or ../shared/histories")
    parser.add_argument("--limit", type=int, default=None, help="replay only the first N sessions")
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memory-replay-"))
    try:
        result = replay(options.project, options.histories, options.limit, work)
    except MissingHistory as missing:
        raise SystemExit(f"memory_replay: {missing}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["histories"] = str(options.histories or histories_root())
    out = options.out or harness.RESULTS / f"memory-replay-{options.project}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(
        json.dumps({k: v for k, v in result.items() if k not in ("examples", "misses", "false_alarms_seen")}, indent=1)
    )


if __name__ == "__main__":
    main()
