"""Codex CLI rollout files -> acts.

Each line is `{timestamp, type, payload}`. Types read: `session_meta` (id, cwd), `turn_context`,
`response_item` (`message` by role, `reasoning`, `function_call` / `custom_tool_call` /
`local_shell_call` and their `*_output`), `event_msg` (`token_count`, `turn_aborted`; the rest,
which repeat response items for the UI, are counted), `compacted`. A type a later version adds is
counted as unknown and skipped.

A tool result is an error when its output says so: a JSON output whose `metadata.exit_code` is not
0, a text output `Exit code: N` / `Process exited with code N` with N not 0, or a `success: false`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brain.memory.sessions.commands import exit_code
from brain.memory.sessions.transcripts import Act, ReadStats, json_records, obj, text_of

KNOWN = frozenset({"session_meta", "response_item", "turn_context", "event_msg", "compacted"})
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    last_usage: tuple[int, int, int, int] | None = None
    last_at: str | None = None
    for record in json_records(path, stats):
        kind = str(record.get("type"))
        payload = obj(record.get("payload"))
        sub = payload.get("type")
        stats.count(f"{kind}.{sub}" if kind in ("response_item", "event_msg") and sub else kind, kind in KNOWN)
        when = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if kind == "session_meta":
            stats.session_id = stats.session_id or (str(payload["id"]) if payload.get("id") else None)
            stats.cwd = stats.cwd or (str(payload["cwd"]) if payload.get("cwd") else None)
            yield Act("meta", when)
        elif kind == "response_item":
            yield from _item(payload, when)
        elif kind == "event_msg" and sub == "token_count":
            usage = _usage(payload.get("info"))
            if usage is not None:
                last_usage, last_at = usage, when
            yield Act("meta", when)
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


def _item(payload: dict, when: str | None) -> Iterator[Act]:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        text = text_of(payload.get("content"))
        if role == "user" and text.strip():
            yield Act("user", when, text=text)
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


def _name(payload: dict) -> str:
    if payload.get("type") == "local_shell_call":
        return "local_shell"
    return str(payload.get("name", ""))


def _args(payload: dict) -> dict[str, Any]:
    if payload.get("type") == "local_shell_call":
        action = obj(payload.get("action"))
        return {"command": action.get("command", [])}
    raw = payload.get("arguments", payload.get("input"))
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
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
        parsed = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        metadata = obj(parsed.get("metadata"))
        code = metadata.get("exit_code", parsed.get("exit_code"))
        body = str(parsed.get("output", text))
        return body, (isinstance(code, int) and code != 0) or parsed.get("success") is False
    code = exit_code(text)
    return text, code is not None and code != 0
