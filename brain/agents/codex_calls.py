"""How a shell call of a running Codex session ended, for its `PostToolUse` hook.

When a command ends, Codex records an `item_completed` event in the session's rollout, whose item
is a `CommandExecution` (`id` the call's id, `status`, `exit_code`, `aggregated_output`; earlier
versions, 0.125 for one, an `exec_command_end` event with the same fields and `call_id`), and only
then runs its `PostToolUse` hooks, whose input (`tool_name` `Bash` for every shell call,
`tool_input.command`, `tool_use_id`, `tool_response`: the output) has no exit code (verified with
Codex CLI 0.171.0: `tests/data/codex/post-tool-use/`). The call's output item is written after
the hooks, so that event is what the hook reads, from the end of the file.

Earlier versions (0.118 to 0.142 among them) write no such event: their hook's `tool_response` is
the call's output as the model is handed it, whose head says how the call ended (`Process exited
with code 1` after `Chunk ID` and `Wall time` lines, a `Command: ...` line first up to 0.128, or
`Exit code: 1` before `Wall time`, then `Output:`). That head is read first (`told_end`), so those calls, and every call whose output has
it, are decided without the rollout. A head needs its `Wall time` line: an output of
`echo 'Exit code: 3'` has none.

Imports nothing of brain's: the hook runner asks `succeeded` before it loads the vault and the
agents, since the hook runs after every tool call and most calls succeed.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHELL = "Bash"  # the tool name Codex gives every shell call in its hooks' input
TAIL_START = 64 * 1024  # bytes of the rollout's end read first; doubled while the call's end is not in them
TAIL_MOST = 16 * 1024 * 1024  # a command whose output is larger than this is not looked for
END_RETRIES = (0.05, 0.1)  # seconds to wait, in turn, for an end the writer has not flushed yet
COMMAND_MOST = 64 * 1024  # characters of a `Command: ...` line (or lines) the head is looked for past
_AFTER_COMMAND = re.compile(r"\n(?=(?:Chunk ID: \S+\r?\n)?Wall time: )")
_HEAD = re.compile(  # the head of a shell call's output as Codex hands it to the model
    r"(?:Chunk ID: \S+\r?\n)?(?:"
    r"Wall time: [\d.]+ seconds?\r?\n(?:Process exited with code (?P<code>-?\d+)|Process running with session ID \d+)"
    r"|Exit code: (?P<old>-?\d+)\r?\nWall time: [\d.]+ seconds?)"
    r"\r?\n(?:[^\n]*\r?\n){0,3}?Output:\r?\n?"
)


@dataclass(frozen=True)
class CommandEnd:
    """How a shell call ended, as the rollout's `item_completed` event says."""

    exit_code: int | None
    status: str
    output: str

    @property
    def failed(self) -> bool:
        return self.exit_code is not None and self.exit_code != 0


def command_end(path: Path, call_id: str) -> CommandEnd | None:
    """The end of the shell call `call_id` in a rollout, or None when the rollout has none. Codex
    sends the event before it starts the hook; its writer may not have flushed it yet, so a miss is
    read again after a short wait (END_RETRIES)."""
    for wait in (0.0, *END_RETRIES):
        time.sleep(wait)
        found = _command_end(path, call_id)
        if found is not None:
            return found
    return None


def told_end(response: Any) -> CommandEnd | None:
    """How a call ended as its hook input's `tool_response` says it (see the module's docstring):
    exit code None for a call still running; None when the response has no such head."""
    if not isinstance(response, str):
        return None
    start = 0
    if response.startswith("Command: "):  # 0.118 to 0.128 name the command first, its lines and all
        found = _AFTER_COMMAND.search(response, 0, COMMAND_MOST)
        if found is None:
            return None
        start = found.end()
    head = _HEAD.match(response, start)
    if head is None:
        return None
    code = head.group("code") or head.group("old")
    number = int(code) if code is not None else None
    status = "running" if number is None else ("completed" if number == 0 else "failed")
    return CommandEnd(number, status, response[head.end() :])


def _command_end(path: Path, call_id: str) -> CommandEnd | None:
    """Read from the end backwards, in blocks that double, so a success costs one small read."""
    marker = json.dumps(call_id).encode()
    with path.open("rb") as file:
        size = file.seek(0, 2)
        block = TAIL_START
        while True:
            start = max(0, size - block)
            file.seek(start)
            lines = file.read(size - start).split(b"\n")
            for line in reversed(lines if start == 0 else lines[1:]):  # the first may be cut
                if marker in line and (b"item_completed" in line or b"exec_command_end" in line):
                    found = _end_of(line, call_id)
                    if found is not None:
                        return found
            if start == 0 or block >= TAIL_MOST:
                return None
            block *= 2


def _end_of(line: bytes, call_id: str) -> CommandEnd | None:
    """The end a rollout line records for the call: 0.171's `item_completed` event of a
    `CommandExecution`, or the `exec_command_end` event of earlier versions (0.125 writes it)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
        return None
    payload = _object(record.get("payload")) if isinstance(record, dict) else {}
    item = _object(payload.get("item"))
    if payload.get("type") == "item_completed" and item.get("type") == "CommandExecution" and item.get("id") == call_id:
        end = item
    elif payload.get("type") == "exec_command_end" and payload.get("call_id") == call_id:
        end = payload
    else:
        return None
    code = end.get("exit_code")
    number = code if isinstance(code, int) and not isinstance(code, bool) else None
    return CommandEnd(number, str(end.get("status") or ""), str(end.get("aggregated_output") or ""))


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def succeeded(payload_text: str) -> bool:
    """Whether a PostToolUse input is a call that did not fail, told at once: a tool other than a
    shell, or a shell call whose output's head or end says 0 (or that it still runs). Anything else
    (a failure, an end not written yet, input that cannot be read) is for the hook itself."""
    try:
        payload: Any = json.loads(payload_text)
        if not isinstance(payload, dict) or not isinstance(payload.get("tool_name"), str):
            return False
        if payload["tool_name"] != SHELL:
            return bool(payload["tool_name"].strip())
        told = told_end(payload.get("tool_response"))
        if told is not None:
            return not told.failed
        transcript, call = payload.get("transcript_path"), payload.get("tool_use_id")
        if not isinstance(transcript, str) or not transcript or not isinstance(call, str) or not call:
            return False
        end = _command_end(Path(transcript), call)
    except (ValueError, RecursionError, OSError):
        return False
    return end is not None and end.exit_code == 0
