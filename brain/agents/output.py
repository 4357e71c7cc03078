"""Hooks: what `install` / `uninstall` changed, what `status` found, and the JSON a hook hands the agent."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for annotations only: rendering loads nothing else
    from brain.agents.install import Change, Installed
    from brain.agents.runtime import HookResult


def change_line(change: Change) -> str:
    return f"{change.action:9} {change.path}  ({change.what})"


def changes_json(changes: list[Change]) -> list[dict[str, Any]]:
    return [{"path": c.path, "action": c.action, "what": c.what} for c in changes]


def status_lines(found: list[Installed]) -> list[str]:
    lines = []
    for item in found:
        name = item.label or item.path
        if not item.exists:
            lines.append(f"{name}: no such file")
        elif item.problem:
            lines.append(f"{name}: {item.problem}")
            lines += [f"  {entry}" for entry in item.entries]
        elif not item.entries:
            lines.append(f"{name}: nothing from brain")
        else:
            lines.append(f"{name}:")
            lines += [f"  {entry}" for entry in item.entries]
    return lines


def status_json(found: list[Installed]) -> list[dict[str, Any]]:
    return [
        {"path": i.path, "share": i.share, "exists": i.exists, "entries": list(i.entries), "problem": i.problem}
        for i in found
    ]


def hook_output(result: HookResult) -> str:
    """Claude Code's hook output: `hookSpecificOutput.additionalContext`; nothing when there is no context."""
    if not result.context:
        return ""
    payload = {"hookSpecificOutput": {"hookEventName": result.event, "additionalContext": result.context}}
    return json.dumps(payload, ensure_ascii=False) + "\n"
