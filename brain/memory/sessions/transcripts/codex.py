"""Codex CLI's rollouts, read into acts.

Rollouts (`<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl`), lines `{timestamp, type, payload}`:
`session_meta` (id, cwd, git branch and remote), `turn_context`, `response_item` (messages,
reasoning, tool calls and their outputs), `event_msg` (`token_count`, `turn_aborted`,
`user_message`; the rest counted), `compacted`, `token_usage_record`,
`world_state`; a later version's type is counted and skipped.

A tool result is an error when its output says so: a JSON output whose `metadata.exit_code` is not
0, a text output `Exit code: N` / `Process exited with code N` with N not 0, or a `success: false`.

Unified exec (Codex 0.12x): `exec_command` starts a command and answers `Process running with
session ID N` when it has not finished within its wait; the agent then polls it with `write_stdin`
(`session_id` N) until an answer says `Process exited with code C`. That answer is the command's
result, given to its `exec_command` call; a poll that finds the command still running is no result
of any call (the polls are tool calls all the same), and a poll that fails is its own error.

How one shell call ended, which the failure hook needs while the session runs, is `codex_calls`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from brain.memory.sessions.commands import exit_code
from brain.memory.sessions.transcripts.files import Act, ReadStats, TranscriptReader, json_records, loads, obj, text_of

KNOWN = frozenset(
    {"session_meta", "response_item", "turn_context", "event_msg", "compacted", "token_usage_record", "world_state"}
)
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def codex_home(home: Path) -> Path:
    """Codex's own folder: `$CODEX_HOME` when set, as Codex reads it, else `~/.codex`."""
    value = os.environ.get("CODEX_HOME")
    return Path(value).expanduser().absolute() if value else home / ".codex"


def find_rollout(thread: str, codex_home: Path) -> Path | None:
    """The newest rollout file of a Codex thread under `<codex home>/sessions/YYYY/MM/DD/`."""
    if not re.fullmatch(r"[A-Za-z0-9-]{8,}", thread):
        return None
    found = sorted((codex_home / "sessions").glob(f"*/*/*/rollout-*{thread}.jsonl"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    last_usage: tuple[int, int, int, int] | None = None
    last_at: str | None = None
    execs = _UnifiedExec()
    for record in json_records(path, stats):
        kind = str(record.get("type"))
        payload = obj(record.get("payload"))
        sub = payload.get("type")
        stats.count(f"{kind}.{sub}" if kind in ("response_item", "event_msg") and sub else kind, kind in KNOWN)
        when = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if kind == "session_meta":
            stats.session_id = stats.session_id or (str(payload["id"]) if payload.get("id") else None)
            stats.cwd = stats.cwd or (str(payload["cwd"]) if payload.get("cwd") else None)
            git = obj(payload.get("git"))
            stats.git_branch = stats.git_branch or (str(git["branch"]) if git.get("branch") else None)
            stats.git_remote = stats.git_remote or (str(git["repository_url"]) if git.get("repository_url") else None)
            yield Act("meta", when)
        elif kind == "response_item":
            yield from execs.route(_item(payload, when))
        elif kind == "event_msg" and sub == "token_count":
            usage = _usage(payload.get("info"))
            if usage is not None:
                last_usage, last_at = usage, when
            yield Act("meta", when)
        elif kind == "event_msg" and sub == "user_message":
            # What the person typed. A rollout holds it as a `message` item too (just before, with
            # the same text) or, in some versions, only here.
            text = _request(str(payload.get("message") or ""))
            if text.strip() and text.strip() != execs.last_request:
                yield Act("user", when, text=text)
            else:
                yield Act("meta", when)
            execs.last_request = None
        elif kind == "event_msg" and sub == "turn_aborted":
            yield Act("interrupt", when, text=f"aborted the turn ({payload.get('reason', 'interrupted')})")
        else:
            yield Act("meta", when)
    if last_usage is not None:  # token_count carries running totals: the last one is the session's
        yield Act("usage", last_at, tokens=last_usage)


def _usage(info: Any) -> tuple[int, int, int, int] | None:
    total = info.get("total_token_usage") if isinstance(info, dict) else None
    if not isinstance(total, dict):
        return None

    def number(key: str) -> int:
        value = total.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    cached = number("cached_input_tokens")
    return (number("input_tokens") - cached, number("output_tokens"), cached, 0)


def _item(payload: dict[str, Any], when: str | None) -> Iterator[Act]:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        text = text_of(payload.get("content"))
        if role == "user" and text.strip():
            yield Act("user", when, text=_request(text))
        elif role == "assistant" and text.strip():
            yield Act("agent", when, text=text)
        else:
            yield Act("meta", when)
    elif kind == "reasoning":
        summary = payload.get("summary")
        yield Act("thinking", when, text=text_of(summary) if isinstance(summary, list) else "")
    elif kind in _CALLS:
        yield Act(
            "call",
            when,
            name=_name(payload),
            call_id=str(payload.get("call_id") or payload.get("id") or ""),
            args=_args(payload),
        )
    elif kind in _OUTPUTS:
        text, is_error = _output(payload.get("output"))
        yield Act("result", when, text=text, call_id=str(payload.get("call_id", "")), is_error=is_error)
    else:
        yield Act("meta", when)


def _name(payload: dict[str, Any]) -> str:
    if payload.get("type") == "local_shell_call":
        return "local_shell"
    return str(payload.get("name", ""))


def _args(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("type") == "local_shell_call":
        action = obj(payload.get("action"))
        return {"command": action.get("command", [])}
    raw = payload.get("arguments", payload.get("input"))
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = loads(raw)
        except ValueError:
            return {"input": raw}  # apply_patch sends the patch itself
        return parsed if isinstance(parsed, dict) else {"input": raw}
    return {}


def _output(output: Any) -> tuple[str, bool]:
    """The text of a tool output and whether it reports a failure."""
    if isinstance(output, dict):
        text = str(output.get("content", output.get("output", "")))
        return text, output.get("success") is False
    text = output if isinstance(output, str) else text_of(output)
    try:
        parsed = loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        metadata = obj(parsed.get("metadata"))
        code = metadata.get("exit_code", parsed.get("exit_code"))
        body = str(parsed.get("output", text))
        return body, (isinstance(code, int) and code != 0) or parsed.get("success") is False
    code = exit_code(text)
    return text, code is not None and code != 0


_RUNNING = re.compile(r"^Process running with session ID (\d+)$", re.MULTILINE)
_HEADER = re.compile(
    r"\A(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count)\b"
)


class _UnifiedExec:
    """Gives a command started by `exec_command` the result a later `write_stdin` poll reports (see
    the module doc), and remembers the last request an item held (its `user_message` event repeats it)."""

    def __init__(self) -> None:
        self.calls: dict[str, str] = {}  # call id -> tool name
        self.polled: dict[str, str] = {}  # a write_stdin call id -> the process it polls
        self.running: dict[str, str] = {}  # process id -> the exec_command call that started it
        self.last_request: str | None = None  # the last user message item, which a user_message event repeats

    def route(self, acts: Iterator[Act]) -> Iterator[Act]:
        for act in acts:
            if act.kind == "call":
                self.calls[act.call_id] = act.name
                if act.name == "write_stdin":
                    self.polled[act.call_id] = str(act.args.get("session_id", ""))
                yield act
            elif act.kind == "user":
                self.last_request = act.text.strip()
                yield act
            elif act.kind == "result" and (name := self.calls.pop(act.call_id, "")) in ("exec_command", "write_stdin"):
                yield from self._result(act, name)
            else:
                yield act

    def _result(self, act: Act, name: str) -> Iterator[Act]:
        running = _RUNNING.search(act.text[:400])
        text = _body(act.text)
        if name == "exec_command":
            if running:
                self.running[running.group(1)] = act.call_id
            else:
                yield replace(act, text=text)
            return
        process = self.polled.pop(act.call_id, "")
        if running:
            return  # still running: no result yet
        started = self.running.pop(process, None)
        if started is not None and exit_code(act.text) is not None:
            yield replace(act, call_id=started, text=text)
        elif act.is_error or act.text.startswith("write_stdin failed"):
            yield replace(act, is_error=True, text=act.text.removeprefix("write_stdin failed: "))


def _body(text: str) -> str:
    """A unified exec answer without its header lines (chunk id, wall time, exit code, ...)."""
    head, found, body = text.partition("\nOutput:\n")
    if found and all(_HEADER.match(line) for line in head.splitlines() if line.strip()):
        return body
    return text


_IDE_REQUEST = "## My request for Codex:"


def _request(text: str) -> str:
    """The request of a message the Codex IDE extension wrote ('# Files mentioned by the user: ...
    ## My request for Codex: <request>'), else the message."""
    _, found, request = text.partition(_IDE_REQUEST)
    return request.strip() if found and request.strip() else text


def detects(record: dict[str, Any]) -> bool:
    return record.get("type") in KNOWN and isinstance(record.get("payload"), dict)


READER = TranscriptReader(
    format="codex",
    agent="Codex",
    label="Codex CLI",
    detects=detects,
    read=read,
    store=lambda home: codex_home(home) / "sessions",
)
