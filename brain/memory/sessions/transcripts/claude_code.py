"""Claude Code's transcripts, read into acts.

Transcripts (`~/.claude/projects/<encoded-dir>/<session>.jsonl`, under `$CLAUDE_CONFIG_DIR` when it
is set). Record types read: `user` (a prompt, or `tool_result` blocks with `is_error`), `assistant`
(`text`, `thinking` and `tool_use` blocks, with `usage` once per API message), `system`, `summary`,
`progress`, `file-history-snapshot`, `queue-operation`, `last-prompt`, `attachment` (counted, no
act). A type a later version adds is counted as unknown and skipped. Subagent transcripts
(`<session>/subagents/agent-*.jsonl`) are read after their parent, their acts marked with the agent
id. A tool call the user refused is a result marked `rejected`.

A resumed, forked or compacted session replays earlier records in its transcript, each with the
`uuid` it had the first time: a record whose `uuid` was read already gives no act (the uuids seen are
the one thing held per file), so its tool calls, results, prompts and tokens count once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brain.memory.sessions.transcripts.files import (
    Act,
    ReadStats,
    TranscriptReader,
    json_records,
    obj,
    subagent_files,
    text_of,
)

# The record types Claude Code writes. Those that hold a conversation's messages (Claude Code 2.1.332
# calls these five "message" records; brain reads user, assistant and system, and counts attachment
# and progress):
MESSAGE_RECORDS = frozenset({"user", "assistant", "system", "attachment", "progress"})
# and the rest, its session's metadata (titles, modes, costs, copies of API requests, file history),
# each type 2.1.332 writes: read by nobody here, counted, never warned about.
METADATA_RECORDS = frozenset(
    {
        "agent-color", "agent-name", "agent-setting", "ai-title", "api-request", "api-request-blob",
        "api-request-resumed", "api-request-shape", "artifact-autoreact-ledger", "artifact-comment-monitor",
        "atis-latch", "attribution-snapshot", "bridge-session", "content-replacement", "continued-in",
        "cost-state", "custom-title", "data-flow-incomplete", "data-flow-records", "derived-from", "dev-mods",
        "ended-by-model", "file-history-delta", "file-history-snapshot", "fork-context-ref", "frame-link",
        "history-suppression", "hybrid-organization", "isolation-latch", "last-prompt", "memory-mode", "mode",
        "observer-ref", "permission-mode", "pr-link", "queue-operation", "relocated", "repl-mode",
        "resume-head-vouch", "session-owner", "summary", "tag", "tools-used", "worktree-state",
    }
)  # fmt: skip
KNOWN = MESSAGE_RECORDS | METADATA_RECORDS
# A type a later version adds is counted as unknown, and warned about only when it carries a
# `message` (what brain reads of a record): one without is more metadata.
INTERRUPTED = "[Request interrupted by user"
REJECTED = (
    "The user doesn't want to proceed with this tool use",
    "User rejected",
    "The user doesn't want to take this action",
)


def transcript_store(home: Path) -> Path:
    """Where Claude Code keeps transcripts: `projects/` of its config folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`)."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured).expanduser() if configured else home / ".claude") / "projects"


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    """The acts of a session and then of each of its subagents."""
    yield from _acts(path, stats, agent="")
    for sub in subagent_files(path):
        yield from _acts(sub, stats, agent=sub.stem.removeprefix("agent-"))


def _acts(path: Path, stats: ReadStats, agent: str) -> Iterator[Act]:
    usage_id: str | None = None
    usage: tuple[int, int, int, int] | None = None
    usage_at: str | None = None
    seen: set[str] = set()
    for record in json_records(path, stats):
        kind = str(record.get("type"))
        stats.count(kind, kind in KNOWN, may_hold_messages=isinstance(record.get("message"), dict))
        uuid = record.get("uuid")
        if isinstance(uuid, str) and uuid:
            if uuid in seen:
                continue  # a replay of a record already read (see the module doc)
            seen.add(uuid)
        when = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if not agent:
            if stats.session_id is None and isinstance(record.get("sessionId"), str):
                stats.session_id = record["sessionId"]
            if stats.cwd is None and isinstance(record.get("cwd"), str):
                stats.cwd = record["cwd"]
            if stats.git_branch is None and isinstance(record.get("gitBranch"), str) and record["gitBranch"]:
                stats.git_branch = record["gitBranch"]
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
            yield from _assistant(message.get("content"), when, name, str(record.get("cwd") or ""))
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


def _assistant(content: Any, when: str | None, agent: str, cwd: str = "") -> Iterator[Act]:
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
                "call",
                when,
                name=str(block.get("name", "")),
                call_id=str(block.get("id", "")),
                args=args,
                agent=agent,
                cwd=cwd,
            )


def _user(record: dict[str, Any], content: Any, when: str | None, agent: str) -> Iterator[Act]:
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
            rejected = is_error and text.startswith(REJECTED)
            yield Act(
                "result",
                when,
                text=text,
                call_id=str(block.get("tool_use_id", "")),
                is_error=is_error,
                agent=agent,
                rejected=rejected,
            )
            if rejected:
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


def detects(record: dict[str, Any]) -> bool:
    return record.get("type") in KNOWN or ("sessionId" in record and "type" in record)


READER = TranscriptReader(
    format="claude-code", agent="Claude Code", label="Claude Code", detects=detects, read=read, store=transcript_store
)
