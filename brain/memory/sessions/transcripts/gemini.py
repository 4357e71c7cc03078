"""Gemini CLI's chats, read into acts.

Chats (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, `<project>` a short name
`projects.json` maps the project's folder to): a first line of metadata (`sessionId`, `projectHash`,
`startTime`), then message records (`id`, `timestamp`, `type`: user, gemini, info, error, warning;
`content`; a gemini message's `toolCalls`, `thoughts`, `tokens`). A message is written again
whenever it changes (its tool calls' results arrive later), so the last record of an id is the
message; `{"$rewindTo": id}` drops that message and every later one; `{"$set": ...}` updates the
metadata, and `$set.messages` replaces the whole history (the first one holds the
`<session_context>` message Gemini CLI starts a chat with). A shell command that ran is a `success`
whatever its exit code: its exit code is read from its result (`gemini_calls`). Earlier versions
wrote one JSON document (`session-*.json`, the same fields with `messages` in it), read when the
format is given (`--format gemini`). As Gemini CLI 0.61.0 writes them this was checked with the
real CLI (tests/e2e/gemini_e2e.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput
from brain.memory.sessions.transcripts.files import Act, ReadStats, TranscriptReader, json_records, loads, obj, text_of
from brain.memory.sessions.transcripts.gemini_calls import SHELL, shell_outcome, unwrapped

_MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
# Gemini CLI's tools, as the sessions domain knows them: `replace` edits a file like Claude Code's Edit.
_TOOL_NAMES = {"replace": "edit_file"}


def transcript_store(home: Path) -> Path:
    """Where Gemini CLI keeps its chats: `tmp/` of its folder (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`)."""
    configured = os.environ.get("GEMINI_CLI_HOME")
    return (Path(configured).expanduser() if configured else home) / ".gemini" / "tmp"


def detects(record: dict[str, Any]) -> bool:
    """A chat's first line: its metadata (Claude Code's records have a `type`; this line has none)."""
    return isinstance(record.get("sessionId"), str) and "projectHash" in record and "type" not in record


def read(path: Path, stats: ReadStats) -> Iterator[Act]:
    """The acts of a chat, each message as last written, a rewind applied, a whole history set by
    `$set.messages` put in place of the messages before it (as Gemini CLI loads a chat)."""
    messages: dict[str, dict[str, Any]] = {}
    for record in _records(path, stats):
        if isinstance(record.get("$rewindTo"), str):
            stats.count("$rewindTo", True)
            ids = list(messages)
            cut = ids.index(record["$rewindTo"]) if record["$rewindTo"] in ids else 0
            for gone in ids[cut:]:
                del messages[gone]
        elif _is_message(record):
            stats.count(str(record["type"]), True)
            messages[record["id"]] = record  # written again: the new text, in its first place (as Gemini CLI reads it)
        elif (isinstance(record.get("sessionId"), str) and "projectHash" in record) or isinstance(
            record.get("$set"), dict
        ):
            stats.count("metadata", True)
            stats.session_id = stats.session_id or record.get("sessionId")
            history = obj(record.get("$set")).get("messages")
            if isinstance(history, list):
                messages = {message["id"]: message for message in history if _is_message(message)}
        else:
            stats.count(str(record.get("type", "unknown")), False)
    for message in messages.values():
        yield from _message_acts(message)


def _is_message(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("id"), str) and record.get("type") in _MESSAGE_TYPES


def _records(path: Path, stats: ReadStats) -> Iterator[dict[str, Any]]:
    """JSON Lines, or one JSON document of an earlier version (its metadata, then its messages)."""
    if path.suffix.lower() == ".json":
        try:
            document = loads(path.read_text(encoding="utf-8"))  # a value nested too deep is left out
        except (OSError, ValueError) as error:
            raise InvalidInput(f"{path.name} is not a Gemini CLI chat: {error}") from None
        stats.files += 1
        if isinstance(document, dict):
            yield {key: value for key, value in document.items() if key != "messages"}
            for message in document.get("messages") or []:
                stats.lines += 1
                if isinstance(message, dict):
                    yield message
        return
    yield from json_records(path, stats)


def _message_acts(message: dict[str, Any]) -> Iterator[Act]:
    when = message.get("timestamp") if isinstance(message.get("timestamp"), str) else None
    kind = message.get("type")
    text = text_of(message.get("content"))
    if kind == "user":
        yield Act("user", when, text=text) if text.strip() else Act("meta", when)
        return
    if kind != "gemini":
        yield Act("meta", when, text=text[:200] if kind == "error" else "")
        return
    for thought in message.get("thoughts") or []:
        if isinstance(thought, dict):
            yield Act("thinking", when, text=f"{thought.get('subject', '')}: {thought.get('description', '')}")
    if text.strip():
        yield Act("agent", when, text=text)
    for call in message.get("toolCalls") or []:
        if isinstance(call, dict):
            yield from _call_acts(call, when)
    tokens = obj(message.get("tokens"))
    if tokens:
        counts = [tokens.get(key) for key in ("input", "output", "cached")]
        numbers = [int(value) if isinstance(value, (int, float)) else 0 for value in counts]
        yield Act("usage", when, tokens=(numbers[0], numbers[1], numbers[2], 0))


def _call_acts(call: dict[str, Any], when: str | None) -> Iterator[Act]:
    name = str(call.get("name", ""))
    call_id = str(call.get("id", ""))
    at = call.get("timestamp") if isinstance(call.get("timestamp"), str) else when
    yield Act("call", at, name=_TOOL_NAMES.get(name, name), call_id=call_id, args=obj(call.get("args")))
    status = call.get("status")
    if status not in ("success", "error", "cancelled"):
        return  # never ran, or still running when the chat was written
    output, failed = shell_outcome(_result_text(call)) if name == SHELL else (_result_text(call), False)
    yield Act(
        "result",
        at,
        text=output,
        call_id=call_id,
        is_error=status != "success" or failed,
        rejected=status == "cancelled",
    )
    if status == "cancelled":
        yield Act("interrupt", at, text="rejected a tool call")


def _result_text(call: dict[str, Any]) -> str:
    """What the tool answered: the function response's output or error, else what the UI showed;
    without the `<untrusted_context>` wrapper Gemini CLI puts around what it hands the model."""
    for part in call.get("result") or []:
        response = obj(obj(part).get("functionResponse")).get("response")
        if isinstance(response, dict):
            value = response.get("error", response.get("output", ""))
            return unwrapped(value if isinstance(value, str) else json.dumps(value))
    display = call.get("resultDisplay")
    return unwrapped(display if isinstance(display, str) else text_of(display))


READER = TranscriptReader(
    format="gemini", agent="Gemini CLI", label="Gemini CLI", detects=detects, read=read, store=transcript_store
)
