"""The work behind every agent's hooks: `brain hooks run EVENT`, fed the agent's hook JSON.

Each agent module maps its events to hooks (`Agent.hooks`), built from what is here:
- `session_start`: the context for the start of a session (see `brain.memory.sessions.context`);
- `first_prompt`: the context for the session's first prompt that states a task (a slash command, a
  greeting or a word or two waits for the next: `brain.memory.sessions.task_prompt`); later prompts
  get nothing (a marker per session under `.brain/hooks/prompted/`, removed after PROMPTED_DAYS);
- `tool_failure`: a tool call failed: the earlier episode that holds the same failure and what
  worked then, or nothing (see `brain.memory.sessions.failures`);
- `start_extraction`: a session ended (or a turn did): `extract` starts in a detached process and the
  hook returns at once.
Two events are brain's own: `extract`, the detached worker (one lock per session, so two ends of one
session never store it twice; a transcript unchanged since its last extraction is skipped; one that
grew updates the same episode; then what `brain session end` does: pattern evidence and tips), and
`warm`, which embeds the patterns and tips the first prompt is compared with.

The context hooks answer for the project the agent works in (the hook JSON's `cwd`, else the hook's
own folder): its episodes, patterns and tips, or the whole vault while it has no episode
(`brain.memory.projects.service`). `tool_failure` answers with that project's earlier failure only, unless
the vault's `[hooks] cross_project` lets another project's answer too (saying which one).

Every outcome and every failure is a line in `.brain/logs/hooks.log` (redacted like the notes; kept
to two files of a MiB, see `brain.agents.hooks_log`); the agent is never told of a failure.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.agents.events import OWN_EVENTS
from brain.agents.hooks_log import append, log_path
from brain.errors import InvalidInput

if TYPE_CHECKING:
    from brain.memory.corpus import Corpus
    from brain.memory.front_door import Memory
    from brain.memory.projects.service import Scope
    from brain.memory.sessions.failures import EarlierFix
    from brain.memory.sessions.redact import Redactor

DEFAULT_BUDGET = 1000  # tokens, as [hooks] budget in the vault's config defaults to
LOCK_WAIT = 600  # seconds an extraction waits for another one of the same session
PRIVATE = 0o600  # the mode of every file brain keeps under .brain/hooks/ (session ids, what it installed)
PROMPTED_DAYS = 30  # a session's first-prompt marker is kept this long (a session resumed later is a new start)


@dataclass(frozen=True)
class HookResult:
    """What the hook hands back: the agent's event name and the context ('' for nothing)."""

    event: str
    context: str = ""
    signature: str = ""  # the failure's, when the failure hook hands an earlier fix (for the ledger)


@dataclass(frozen=True)
class HookRequest:
    """One run of a hook: the vault, the agent's hook JSON, and the options of its command line."""

    memory: Memory
    payload: dict[str, Any]
    budget: int = DEFAULT_BUDGET
    namespaces: tuple[str, ...] = ()


Hook = Callable[[HookRequest], HookResult]


def hooks_dir(root: Path) -> Path:
    return root / ".brain" / "hooks"


def log(root: Path | None, event: str, message: str) -> None:
    """One line in the hooks log, with secrets redacted (the vault's `[redact] patterns` too). Never raises."""
    try:
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = " ".join(_redactor(root).text(message).split())
        append(log_path(root), f"{stamp} {event} {line}")
    except Exception:
        pass


def _redactor(root: Path | None) -> Redactor:
    """The vault's redactor (its config's patterns added); the default one when the config cannot be read."""
    from brain.memory.sessions.redact import Redactor, redactor_for

    try:
        return redactor_for(root / ".brain" if root is not None else None)
    except Exception:
        return Redactor()


def run(
    event: str,
    memory: Memory,
    payload_text: str,
    hooks: Mapping[str, Hook],
    *,
    budget: int | None = None,
    namespaces: tuple[str, ...] = (),
    **extract: str,
) -> HookResult:
    """Run one hook: one of the agents' `hooks`, or one of brain's own events (`extract`, `warm`).
    Raises on any problem; the front end logs it and tells the agent nothing. Without a `budget`, the
    vault's `[hooks] budget` applies."""
    if event == "extract":
        transcript, session, format = Path(extract["transcript"]), extract["session"], extract.get("format") or None
        extract_session(memory, transcript, session, format)
        return HookResult(event)
    if event == "warm":
        warm(memory)
        return HookResult(event)
    if event not in hooks:
        raise InvalidInput(f"hook event '{event}' is not one of: {', '.join([*hooks, *OWN_EVENTS])}")
    if budget is None:
        from brain.config import load_config

        budget = load_config(memory.root / ".brain").hooks_budget
    return hooks[event](HookRequest(memory, _payload(payload_text), budget, namespaces))


def session_start(request: HookRequest, agent_event: str) -> HookResult:
    """The context for the start of a session, as the agent's `agent_event` answer."""
    from brain.memory.sessions.context import session_start as context

    root = request.memory.root
    if not _warmed(root):
        spawn(root, ["warm"])  # the first prompt will need every pattern and tip embedded
    with request.memory.checked_once() as corpus:  # one answer, one look at the vault's files
        scope = _scope(request, corpus)
        text = context(corpus, budget=request.budget, namespaces=request.namespaces, project=scope.project)
    _say_if_catching_up(request.memory, agent_event)
    return HookResult(agent_event, text)


def first_prompt(request: HookRequest, agent_event: str) -> HookResult:
    """The context for the session's first prompt (`prompt` and `session_id` in the hook JSON), without
    the notes the ledger says this session was already handed."""
    from brain.memory.sessions.task_prompt import states_a_task

    root = request.memory.root
    prompt = str(request.payload.get("prompt") or "").strip()
    session = str(request.payload.get("session_id") or "")
    if not states_a_task(prompt) or not _first_time(root, session):
        return HookResult(agent_event)
    from brain.agents.ledger import injected
    from brain.memory.sessions.context import first_prompt as context

    warmed = _warmed(root)
    if not warmed:
        spawn(root, ["warm"])
    with request.memory.checked_once() as corpus:
        scope = _scope(request, corpus)
        text = context(
            corpus,
            prompt,
            budget=request.budget,
            similar=warmed,
            namespaces=request.namespaces,
            project=scope.project,
            given=injected(root, session),  # what the session start handed this session is not handed again
        )
    _say_if_catching_up(request.memory, agent_event)
    return HookResult(agent_event, text)


def _say_if_catching_up(memory: Memory, event: str) -> None:
    """A hook never waits for the index: while `brain index` holds it, the context comes from the
    index as it was, and the log says so."""
    if memory.index_catching_up():
        log(
            memory.root,
            event,
            "the index is catching up (another brain process is writing it): "
            "the context came from the index as it was, without the changes still being indexed",
        )


def tool_failure(request: HookRequest, agent_event: str) -> HookResult:
    """The earlier fix of the failed call in the hook JSON (`tool_name`, `tool_input`, `error`,
    `cwd`, `session_id`), from the project of `cwd` first, or nothing; a call the user interrupted is
    no failure. One line in the log."""
    from brain.config import load_config
    from brain.memory.projects.service import locate
    from brain.memory.sessions.failures import earlier_fix, live_failure, seen_before

    payload, root = request.payload, request.memory.root
    session = str(payload.get("session_id") or "")
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool.strip():
        raise InvalidInput("the hook input has no tool_name")
    if payload.get("is_interrupt") is True:
        log(root, "tool-failure", f"{session}: {tool} interrupted by the user; nothing to look up")
        return HookResult(agent_event)
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    error = payload.get("error") if isinstance(payload.get("error"), str) else ""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    failure = live_failure(tool, tool_input or {}, error or "", cwd, _redactor(root).text)
    here = locate(_folder(request))
    everywhere = load_config(root / ".brain").hooks_cross_project
    project = here.project if here else None
    found = earlier_fix(request.memory.vault.index_dir, failure, session, project, cross_project=everywhere)
    log(root, "tool-failure", f"{session}: {tool} [{found.signature or 'too little to match'}] {_outcome(found)}")
    said = seen_before(found)
    return HookResult(agent_event, said, (found.signature or "") if said else "")


def _outcome(found: EarlierFix) -> str:
    """What the log says of a lookup."""
    if not found.readable:
        return "not looked up: the index is missing, of another schema or busy (`brain index` makes it)"
    if not found.seen:
        return "not seen before"
    where = f" (project {found.elsewhere})" if found.elsewhere else ""
    return f"seen before in {found.seen[0].title}{where}"


def _folder(request: HookRequest) -> str | Path | None:
    """The folder the agent works in: the hook JSON's `cwd`, else this process's folder."""
    from brain.memory.projects.service import current_folder

    return str(request.payload.get("cwd") or "") or current_folder()


def _scope(request: HookRequest, corpus: Corpus) -> Scope:
    """The scope of the project the agent works in (see `_folder`)."""
    from brain.memory.projects.service import scope_for

    return scope_for(corpus, folder=_folder(request))


def transcript_end(request: HookRequest, hook: str, format: str) -> HookResult:
    """The session's transcript (`transcript_path` in the hook JSON) extracted in the background, read
    as `format`; the hook answers nothing, at once."""
    transcript = str(request.payload.get("transcript_path") or "")
    if not transcript:
        raise InvalidInput("the hook input has no transcript_path")
    session = str(request.payload.get("session_id") or Path(transcript).stem)
    note = str(request.payload.get("hook_event_name", ""))
    start_extraction(hook, request.memory, Path(transcript), session, format, note)
    return HookResult(hook)


def start_extraction(event: str, memory: Memory, transcript: Path, session: str, format: str, note: str = "") -> None:
    """Extract the session in a detached process (the hook returns at once), and say so in the log."""
    spawn_extract(memory.root, transcript, session, format)
    log(memory.root, event, f"{session}: extraction started for {transcript}" + (f" ({note})" if note else ""))


def _payload(text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInput(f"the hook input is not JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise InvalidInput("the hook input is not a JSON object")
    return data


def safe_name(session: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", session)[:120] or "unknown"


def _first_time(root: Path, session: str) -> bool:
    """True once per session: the marker file is created exclusively (and the old sessions' removed)."""
    marker = hooks_dir(root) / "prompted" / safe_name(session)
    marker.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))
    except FileExistsError:
        return False
    _forget_old_sessions(marker.parent, keep=marker)
    return True


def _write_private(path: Path, text: str) -> None:
    """Write a state file under `.brain/hooks/` that only its owner reads (mode 600)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    os.fchmod(handle, PRIVATE)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)


def _forget_old_sessions(folder: Path, keep: Path) -> None:
    """Remove the markers of sessions that started more than PROMPTED_DAYS ago."""
    oldest = datetime.now(UTC).timestamp() - PROMPTED_DAYS * 86400
    for entry in os.scandir(folder):
        try:
            if entry.path != str(keep) and entry.stat().st_mtime < oldest:
                os.unlink(entry.path)
        except OSError:
            continue  # removed meanwhile by another session's hook


def spawn_extract(root: Path, transcript: Path, session: str, format: str) -> None:
    """`brain hooks run extract ...` in a process of its own that outlives the hook."""
    spawn(root, ["extract", "--transcript", str(transcript), "--session", session, "--format", format])


def _warm_marker(root: Path) -> Path:
    """Set once every pattern and tip is in the index's text-vector cache; it lives in the index
    folder, so deleting the index (and the cache with it) removes it too."""
    return root / ".brain" / "index" / "hooks-warm"


def _warmed(root: Path) -> bool:
    """Whether the first-prompt hook may compare the prompt with every pattern and tip now: the
    cache is warm, or the vault has no index (no cache to keep: a vault that small embeds at once)."""
    return _warm_marker(root).is_file() or not _warm_marker(root).parent.is_dir()


def warm(memory: Memory) -> None:
    """Embed every pattern and tip the first-prompt hook compares a prompt with (kept in the index's
    text-vector cache), so that hook never embeds a whole vault while the agent waits."""
    from filelock import FileLock, Timeout

    from brain.memory.sessions.context import first_prompt

    root = memory.root
    hooks_dir(root).mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(str(hooks_dir(root) / "warm.lock"), timeout=0, mode=PRIVATE):
            started = datetime.now(UTC)
            first_prompt(
                memory.corpus, "warm up the vectors of patterns and tips", budget=DEFAULT_BUDGET, caller="hook:warm"
            )
            if _warm_marker(root).parent.is_dir():
                _warm_marker(root).write_text(started.isoformat(), encoding="utf-8")
            log(root, "warm", f"patterns and tips embedded in {(datetime.now(UTC) - started).total_seconds():.1f} s")
    except Timeout:
        return  # another process is warming the vault


def spawn(root: Path, args: list[str]) -> None:
    """`brain hooks run ARGS --vault ROOT` in a process of its own that outlives the hook."""
    command = [sys.executable, "-m", "brain", "hooks", "run", *args, "--vault", str(root)]
    log_file = log_path(root)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE)  # its first line may make it
    with os.fdopen(handle, "a", encoding="utf-8") as errors:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
            close_fds=True,
        )


SETTLE_SECONDS = 0.5  # a transcript unchanged this long is taken as written
SETTLE_MAX_SECONDS = 5.0


def _settled_stamp(transcript: Path) -> str:
    """The transcript's size and mtime once they stop changing (at most `SETTLE_MAX_SECONDS`): an
    agent can fire its end hook before it has written the session's last calls (Gemini CLI was seen
    to), and an episode read from the file then would lack them."""
    deadline = time.monotonic() + SETTLE_MAX_SECONDS
    info = transcript.stat()
    stamp = f"{info.st_size}:{info.st_mtime_ns}"
    while time.monotonic() < deadline:
        time.sleep(SETTLE_SECONDS)
        info = transcript.stat()
        again = f"{info.st_size}:{info.st_mtime_ns}"
        if again == stamp:
            break
        stamp = again
    return stamp


def extract_session(memory: Memory, transcript: Path, session: str, format: str | None) -> None:
    """The detached worker: lock, skip an unchanged transcript, end the session, remember the stamp."""
    from filelock import FileLock

    from brain.memory.sessions.protocol import end_session

    root = memory.root
    state = hooks_dir(root)
    name = safe_name(session)
    (state / "locks").mkdir(parents=True, exist_ok=True)
    with FileLock(str(state / "locks" / f"{name}.lock"), timeout=LOCK_WAIT, mode=PRIVATE):
        stamp = _settled_stamp(transcript)
        done = state / "extracted" / name
        if done.is_file() and done.read_text(encoding="utf-8") == stamp:
            log(root, "extract", f"{session}: transcript unchanged since its last extraction; nothing to do")
            return
        report = end_session(memory.corpus, transcript, format=format)
        done.parent.mkdir(parents=True, exist_ok=True)
        _write_private(done, stamp)
        tips = len(report.tips.created)
        redacted = f"{report.redacted} value{'' if report.redacted == 1 else 's'} redacted"
        log(
            root,
            "extract",
            f"{session}: {report.episode_path} [{report.outcome}], evidence on {len(report.patterns)} patterns, "
            f"{tips} new tips, {redacted}" + "".join(f"; {warning}" for warning in report.warnings),
        )
