"""How a Gemini CLI tool call ended, read from what it hands the model: for its chats' reader and for
its `AfterTool` hook.

A shell command's result is `Output: ...`, then `Error: ...`, `Exit Code: N` (only when not 0),
`Signal: ...`, `Background PIDs: ...` and `Process Group PGID: ...`, each on a line of its own,
wrapped in `<untrusted_context>`; Gemini CLI records a command that ran as a success whatever its
exit code (verified with Gemini CLI 0.61.0 in tests/e2e). Any tool that could not do its work has an
`error` in its response instead.

Imports nothing of brain's: the hook runner asks `failure` before it loads the vault and the agents,
since `AfterTool` runs after every tool call and most calls succeed.
"""

from __future__ import annotations

import json
import re
from typing import Any

SHELL = "run_shell_command"
_UNTRUSTED = re.compile(r"\s*<untrusted_context>\n?(.*?)\n?</untrusted_context>\s*", re.DOTALL)
_LABELS = ("Output", "Error", "Exit Code", "Signal", "Background PIDs", "Process Group PGID")
# Each section of a shell result: `Label: text` from the start of a line up to the next section.
_SECTION = re.compile(
    rf"\n({'|'.join(_LABELS)}): (.*?)(?=\n(?:{'|'.join(_LABELS)}): |\Z)",
    re.DOTALL,
)
_FAILED = ("Error", "Exit Code", "Signal")


def unwrapped(text: str) -> str:
    """A tool's output without the `<untrusted_context>` Gemini CLI puts around it."""
    found = _UNTRUSTED.fullmatch(text)
    return found.group(1) if found else text


def shell_outcome(text: str) -> tuple[str, bool]:
    """A shell result: its output with the error, exit code and signal (`Exit Code: 1`), and whether the
    command failed (an exit code other than 0, an error or a signal)."""
    text = unwrapped(text)
    sections = dict(_SECTION.findall("\n" + text))
    if not sections:
        return text, False
    kept = [sections.get("Output", "").strip()]
    kept += [f"{label}: {sections[label].strip()}" for label in _FAILED if label in sections]
    return "\n".join(part for part in kept if part and part != "(empty)"), any(label in sections for label in _FAILED)


def failure(payload_text: str) -> str | None:
    """The error of a failed call in an `AfterTool` hook's input, or None (see `failure_of`)."""
    try:
        payload = json.loads(payload_text)
    except (ValueError, RecursionError):
        return None
    return failure_of(payload) if isinstance(payload, dict) else None


def failure_of(payload: dict[str, Any]) -> str | None:
    """The error of a failed call in an `AfterTool` hook's input (`tool_name`, `tool_response` with its
    `llmContent` and `error`), or None when the call succeeded."""
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        return None
    content = _text(response.get("llmContent"))
    error = response.get("error")
    if isinstance(error, dict) and error.get("message"):
        return unwrapped(content) or str(error["message"])
    if payload.get("tool_name") == SHELL:
        output, failed = shell_outcome(content)
        return output if failed else None
    return None


def _text(content: Any) -> str:
    """llmContent as text: a string, or parts (`{"text": ...}`) joined."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "\n".join(part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str))
