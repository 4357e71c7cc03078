"""Claude Code transcripts -> acts.

Record types read: `user` (a prompt, or `tool_result` blocks with `is_error`), `assistant` (`text`,
`thinking` and `tool_use` blocks, with `usage` once per API message), `system`, `summary`,
`progress`, `file-history-snapshot`, `queue-operation`, `last-prompt`, `attachment` (counted, no act).
A type a later version adds is counted as unknown and skipped. Subagent transcripts
(`<session>/subagents/agent-*.jsonl`) are read after their parent, their acts marked with the agent id.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brain.memory.sessions.transcripts import (
    CLAUDE_CODE_TYPES,
    Act,
    ReadStats,
    json_records,
    obj,
    subagent_files,
    text_of,
)

KNOWN = CLAUDE_CODE_TYPES
INTERRUPTED = "[Request interrupted by user"
REJECTED = (
    "The user doesn't want to proceed with this tool use",
    "User rejected",
    "The user doesn't want to take this action",
)


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    """The acts of a session and then of each of its subagents."""
    yield from _acts(path, stats, agent="")
    for sub in subagent_files(path):
        yield from _acts(sub, stats, agent=sub.stem.removeprefix("agent-"))


def _acts(path: Path, stats: ReadStats, agent: str) -> Iterator[Act]:
    usage_id: str | None = None
    usage: tuple[int, int, int, int] | None = None
    usage_at: str | None = None
    for record in json_records(path, stats):
        kind = str(record.get("type"))
        stats.count(kind, kind in KNOWN)
        when = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if not agent:
            if stats.session_id is None and isinstance(record.get("sessionId"), str):
                stats.session_id = record["sessionId"]
            if stats.cwd is None and isinstance(record.get("cwd"), str):
                stats.cwd = record["cwd"]
        name = agent or (str(record.get("agentId")) if record.get("isSidechain") and record.get("agentId") else "")
        message = obj(record.get("message"))
        if kind == "assistant":
            message_id = message.get("id")
            tokens = _tokens(message.get("usage"))
            if message_id != usage_id:
                if usage is not None:
                    yield Act("usage", usage_at, agent=name, tokens=usage)
                usage_id, usage, usage_at = message_id, tokens, when
            elif tokens is not None:
                usage = tokens
            yield from _assistant(message.get("content"), when, name)
        elif kind == "user":
            yield from _user(record, message.get("content"), when, name)
        elif kind == "system" and str(record.get("level", "")).lower() == "error":
            yield Act("meta", when, text=str(record.get("content", ""))[:200], agent=name)
        else:
            yield Act("meta", when, agent=name)
    if usage is not None:
        yield Act("usage", usage_at, agent=agent, tokens=usage)


def _tokens(usage: Any) -> tuple[int, int, int, int] | None:
    if not isinstance(usage, dict):
        return None

    def number(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    return (
        number("input_tokens"),
        number("output_tokens"),
        number("cache_read_input_tokens"),
        number("cache_creation_input_tokens"),
    )


def _assistant(content: Any, when: str | None, agent: str) -> Iterator[Act]:
    if isinstance(content, str):
        if content.strip():
            yield Act("agent", when, text=content, agent=agent)
        return
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            yield Act("agent", when, text=block["text"], agent=agent)
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            yield Act("thinking", when, text=block["thinking"], agent=agent)
        elif kind in ("tool_use", "server_tool_use"):
            args = obj(block.get("input"))
            yield Act(
                "call", when, name=str(block.get("name", "")), call_id=str(block.get("id", "")), args=args, agent=agent
            )


def _user(record: dict, content: Any, when: str | None, agent: str) -> Iterator[Act]:
    meta = bool(record.get("isMeta") or record.get("isCompactSummary") or record.get("isVisibleInTranscriptOnly"))
    if isinstance(content, str):
        yield from _user_text(content, when, agent, meta)
        return
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            text = text_of(block.get("content"))
            is_error = bool(block.get("is_error"))
            yield Act(
                "result",
                when,
                text=text,
                call_id=str(block.get("tool_use_id", "")),
                is_error=is_error,
                agent=agent,
            )
            if is_error and text.startswith(REJECTED):
                yield Act("interrupt", when, text="rejected a tool call", agent=agent)
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            yield from _user_text(block["text"], when, agent, meta)


def _user_text(text: str, when: str | None, agent: str, meta: bool) -> Iterator[Act]:
    if text.startswith(INTERRUPTED):
        yield Act("interrupt", when, text="interrupted the agent", agent=agent)
    elif meta or agent:
        yield Act("meta", when, agent=agent)  # a subagent's prompt is its parent's tool call, not a person
    elif text.strip():
        yield Act("user", when, text=text, agent=agent)
