"""The hooks an agent runs: `brain hooks run EVENT`, fed the agent's hook JSON.

- session-start: the context for the start of a session (see `brain.memory.sessions.context`).
- first-prompt: the context for the session's first prompt; later prompts get nothing (a marker per
  session under `.brain/hooks/prompted/`).
- session-end (Claude Code's SessionEnd and PreCompact): starts `extract` in a detached process and
  returns at once.
- codex-notify: Codex's `notify` program (the JSON comes as the last argument); after a turn, finds
  the session's rollout file and starts `extract` the same way.
- extract: the detached worker. One lock per session, so two ends of one session never store it
  twice; a transcript unchanged since its last extraction is skipped; one that grew updates the same
  episode. Then what `brain session end` does: pattern evidence (once per episode) and tips.

Every outcome and every failure is a line in `.brain/logs/hooks.log` (redacted like the notes);
the agent is never told of a failure.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.errors import InvalidInput

if TYPE_CHECKING:
    from brain.memory.front_door import Memory

EVENTS = ("session-start", "first-prompt", "session-end", "codex-notify", "extract", "warm")
AGENT_EVENT = {"session-start": "SessionStart", "first-prompt": "UserPromptSubmit"}
DEFAULT_BUDGET = 1000
LOCK_WAIT = 600  # seconds an extraction waits for another one of the same session


@dataclass(frozen=True)
class HookResult:
    """What the hook hands back: the agent's event name and the context ('' for nothing)."""

    event: str
    context: str = ""


def hooks_dir(root: Path) -> Path:
    return root / ".brain" / "hooks"


def log_path(root: Path | None) -> Path:
    if root is not None and (root / ".brain").is_dir():
        return root / ".brain" / "logs" / "hooks.log"
    import tempfile

    return Path(tempfile.gettempdir()) / "brain-hooks.log"


def log(root: Path | None, event: str, message: str) -> None:
    """One line in the hooks log, with secrets redacted (the vault's `[redact] patterns` too). Never raises."""
    try:
        path = log_path(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = " ".join(_redactor(root).text(message).split())
        with path.open("a", encoding="utf-8") as out:
            out.write(f"{stamp} {event} {line}\n")
    except Exception:
        pass


def _redactor(root: Path | None):
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
    *,
    budget: int = DEFAULT_BUDGET,
    namespaces: tuple[str, ...] = (),
    **extract: str,
) -> HookResult:
    """Run one hook. Raises on any problem; the front end logs it and tells the agent nothing."""
    root = memory.root
    if event not in EVENTS:
        raise InvalidInput(f"hook event '{event}' is not one of: {', '.join(EVENTS)}")
    if event == "extract":
        extract_session(memory, Path(extract["transcript"]), extract["session"], extract.get("format") or None)
        return HookResult(event)
    if event == "warm":
        warm(memory)
        return HookResult(event)
    payload = _payload(payload_text)
    if event == "session-start":
        from brain.memory.sessions.context import session_start

        if not _warmed(root):
            spawn(root, ["warm"])  # the first prompt will need every pattern and tip embedded
        with memory.checked_once() as corpus:  # one answer, one look at the vault's files
            return HookResult(AGENT_EVENT[event], session_start(corpus, budget=budget, namespaces=namespaces))
    if event == "first-prompt":
        prompt = str(payload.get("prompt") or "").strip()
        if not prompt or not _first_time(root, str(payload.get("session_id") or "")):
            return HookResult(AGENT_EVENT[event])
        from brain.memory.sessions.context import first_prompt

        warmed = _warmed(root)
        if not warmed:
            spawn(root, ["warm"])
        with memory.checked_once() as corpus:
            return HookResult(
                AGENT_EVENT[event],
                first_prompt(corpus, prompt, budget=budget, similar=warmed, namespaces=namespaces),
            )
    if event == "session-end":
        transcript = str(payload.get("transcript_path") or "")
        session = str(payload.get("session_id") or Path(transcript).stem)
        if not transcript:
            raise InvalidInput("the hook input has no transcript_path")
        spawn_extract(root, Path(transcript), session, "claude-code")
        log(root, event, f"{session}: extraction started for {transcript} ({payload.get('hook_event_name', '')})")
        return HookResult(event)
    # codex-notify
    if payload.get("type") != "agent-turn-complete":
        return HookResult(event)
    thread = str(payload.get("thread-id") or "")
    from brain.agents import codex

    rollout = codex.find_rollout(thread, codex.codex_home(Path.home()))
    if rollout is None:
        raise InvalidInput(f"no Codex rollout file for thread {thread}")
    spawn_extract(root, rollout, thread, "codex")
    log(root, event, f"{thread}: extraction started for {rollout}")
    return HookResult(event)


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
    """True once per session: the marker file is created exclusively."""
    marker = hooks_dir(root) / "prompted" / safe_name(session)
    marker.parent.mkdir(parents=True, exist_ok=True)
    try:
        marker.open("x").close()
    except FileExistsError:
        return False
    return True


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
        with FileLock(str(hooks_dir(root) / "warm.lock"), timeout=0):
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
    with log_file.open("a", encoding="utf-8") as errors:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
            close_fds=True,
        )


def extract_session(memory: Memory, transcript: Path, session: str, format: str | None) -> None:
    """The detached worker: lock, skip an unchanged transcript, end the session, remember the stamp."""
    from filelock import FileLock

    from brain.agents.registry import READERS
    from brain.memory.sessions.protocol import end_session

    root = memory.root
    state = hooks_dir(root)
    name = safe_name(session)
    (state / "locks").mkdir(parents=True, exist_ok=True)
    with FileLock(str(state / "locks" / f"{name}.lock"), timeout=LOCK_WAIT):
        info = transcript.stat()
        stamp = f"{info.st_size}:{info.st_mtime_ns}"
        done = state / "extracted" / name
        if done.is_file() and done.read_text(encoding="utf-8") == stamp:
            log(root, "extract", f"{session}: transcript unchanged since its last extraction; nothing to do")
            return
        report = end_session(memory.corpus, transcript, readers=READERS, format=format)
        done.parent.mkdir(parents=True, exist_ok=True)
        done.write_text(stamp, encoding="utf-8")
        tips = len(report.tips.created)
        redacted = f"{report.redacted} value{'' if report.redacted == 1 else 's'} redacted"
        log(
            root,
            "extract",
            f"{session}: {report.episode_path} [{report.outcome}], evidence on {len(report.patterns)} patterns, "
            f"{tips} new tips, {redacted}" + "".join(f"; {warning}" for warning in report.warnings),
        )
