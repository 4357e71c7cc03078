"""What each agent session was handed: every injection of the hooks (which hook, tokens, the notes it
named), and which of those notes the session then used (the ledger, `brain.agents.ledger`)."""

from __future__ import annotations

from typing import Any

from brain.agents.ledger import KEEP_DAYS, LedgerSummary
from brain.agents.output import ledger_json
from brain.ui.viewer import Args, Viewer, paged


def handed(viewer: Viewer, args: Args) -> dict[str, Any]:
    summary: LedgerSummary = viewer.ledger()
    found = ledger_json(summary)
    episodes = session_episodes(viewer)
    sessions = [{**session, "episode": episodes.get(session["session"])} for session in reversed(found["sessions"])]
    shown, page = paged(sessions, args, size=20)
    resolver = viewer.memory.corpus.resolver()
    named = {note for session in shown for injection in session["handed"] for note in injection["notes"]}
    paths = {name: _only(resolver.candidates(name)) for name in sorted(named)}
    return {**found, "keeps_days": KEEP_DAYS, "sessions": shown, "page": page, "paths": paths}


def _only(candidates: list[str]) -> str | None:
    return candidates[0] if len(candidates) == 1 else None


def session_episodes(viewer: Viewer) -> dict[str, str]:
    """Each session's episode title (by the episode's `session` key)."""
    return {
        str(note.frontmatter["session"]): note.title
        for note in viewer.memory.corpus.of_type("episode")
        if note.frontmatter.get("session") is not None
    }
