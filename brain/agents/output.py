"""Hooks: what `install` / `uninstall` changed, what `status` found (the settings files, the tokens
injected), and the JSON a hook hands the agent."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from brain.agents.health import EPISODE_DAYS

if TYPE_CHECKING:  # for annotations only: rendering loads nothing else
    from brain.agents.health import VaultHealth
    from brain.agents.install import Change, Installed
    from brain.agents.ledger import LedgerSummary
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
        lines += [f"  broken: {missing}" for missing in item.broken]
    return lines


def health_lines(found: VaultHealth) -> list[str]:
    """A vault's health: its index, each hook's last run, the hooks log's last errors, the episodes captured."""
    index = {"none": "none yet", "fresh": "fresh", "stale": f"stale, {found.changed_files} files changed"}[found.index]
    fix = "" if found.index == "fresh" else f" (run 'brain index --vault {found.vault}')"
    runs = "; ".join(f"{run.event} {run.at} {run.result}" for run in found.last_runs) or "none"
    lines = [f"vault {found.vault}:", f"  index: {index}{fix}", f"  last runs: {runs}"]
    lines += ["  last errors:", *(f"    {shown(line)}" for line in found.last_errors)] if found.last_errors else []
    return [*lines, f"  episodes captured, last {EPISODE_DAYS} days: {found.episodes}"]


def shown(text: str) -> str:
    """Text from a log or the ledger, for a terminal: a character that is not printable (an ANSI
    escape, a carriage return, a bell) written as its escape (`\\x1b`), never obeyed."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode("ascii") for char in text)


def health_json(found: VaultHealth) -> dict[str, Any]:
    return {
        "vault": found.vault,
        "index": found.index,
        "changed_files": found.changed_files,
        "last_runs": [{"event": run.event, "at": run.at, "result": run.result} for run in found.last_runs],
        "last_errors": found.last_errors,
        "episodes_last_7_days": found.episodes,
    }


def status_json(found: list[Installed]) -> list[dict[str, Any]]:
    return [
        {
            "path": i.path,
            "share": i.share,
            "exists": i.exists,
            "entries": list(i.entries),
            "problem": i.problem,
            "vaults": list(i.vaults),
            "broken": list(i.broken),
        }
        for i in found
    ]


def hook_output(result: HookResult) -> str:
    """Claude Code's hook output: `hookSpecificOutput.additionalContext`; nothing when there is no context."""
    if not result.context:
        return ""
    payload = {"hookSpecificOutput": {"hookEventName": result.event, "additionalContext": result.context}}
    return json.dumps(payload, ensure_ascii=False) + "\n"


def user_message(text: str) -> str:
    """A hook's answer that only the user sees (`systemMessage`, which Claude Code, Codex and Gemini CLI
    show and none hands the model)."""
    return json.dumps({"systemMessage": text}, ensure_ascii=False) + "\n"


def ledger_lines(found: LedgerSummary) -> list[str]:
    """Tokens the hooks injected per session, and how many injected notes the agent then used."""
    head = f"tokens injected, last {found.days} day{'' if found.days == 1 else 's'}:"
    if not found.sessions:
        return [f"{head} none"]
    plural = "" if len(found.sessions) == 1 else "s"
    if found.notes or not any(session.notes for session in found.sessions):
        overall = _use(found.used, found.notes)
    else:
        overall = "use of the injected notes unknown (transcripts unavailable)"
    lines = [f"{head} {found.tokens} in {len(found.sessions)} session{plural}; {overall}"]
    for session in found.sessions:
        events = ", ".join(f"{event} {tokens}" for event, tokens in session.events.items())
        if session.used is None:
            use = f"{len(session.notes)} notes named, transcript unavailable" if session.notes else "no notes named"
        else:
            use = _use(len(session.used), len(session.notes))
        lines.append(
            f"  {session.first[:16].replace('T', ' ')}  {shown(session.session) or '(no session id)'}: "
            f"{shown(events)}; {use}"
        )
    return lines


def _use(used: int, named: int) -> str:
    return f"injected notes used {used} of {named}" if named else "no notes named"


def ledger_json(found: LedgerSummary) -> dict[str, Any]:
    return {
        "days": found.days,
        "tokens": found.tokens,
        "notes_named": found.notes,
        "notes_used": found.used,
        "sessions": [
            {
                "session": s.session,
                "first": s.first,
                "injections": s.injections,
                "tokens": s.tokens,
                "tokens_by_event": s.events,
                "notes": s.notes,
                "used": s.used,
                "handed": [
                    {
                        "event": i.event,
                        "at": i.at,
                        "tokens": i.tokens,
                        "notes": list(i.notes),
                        **({"signature": i.signature} if i.signature else {}),
                    }
                    for i in s.handed
                ],
            }
            for s in found.sessions
        ],
    }
