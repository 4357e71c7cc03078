"""What each agent session was handed: every injection of the hooks (which hook, tokens, the notes it
named), and which of those notes the session then used (the ledger, `brain.agents.ledger`)."""

from __future__ import annotations

from typing import Any

from brain.agents.ledger import KEEP_DAYS, LedgerSummary
from brain.agents.output import ledger_json
from brain.ui.viewer import Args, Viewer, paged


def handed(viewer: Viewer, args: Args) -> dict[str, Any]:
    summary: LedgerSummary = viewer.ledger()
    episodes = viewer.derived("ui.session-episodes", lambda: session_episodes(viewer))
    found, sessions = viewer.made_from("handed", (summary, episodes), lambda: _newest_first(summary, episodes))
    shown, page = paged(sessions, args, size=20)
    resolver = viewer.memory.corpus.resolver()
    named = {note for session in shown for injection in session["handed"] for note in injection["notes"]}
    paths = {name: _only(resolver.candidates(name)) for name in sorted(named)}
    return {**found, "keeps_days": KEEP_DAYS, "sessions": shown, "page": page, "paths": paths}


def _only(candidates: list[str]) -> str | None:
    return candidates[0] if len(candidates) == 1 else None


def _newest_first(summary: LedgerSummary, episodes: dict[str, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ledger's summary as `brain hooks status --json` gives it, and its sessions newest first,
    each with its episode."""
    found = ledger_json(summary)
    return found, [{**session, "episode": episodes.get(session["session"])} for session in reversed(found["sessions"])]


def session_episodes(viewer: Viewer) -> dict[str, str]:
    """Each session's episode title (by the episode's `session` key)."""
    return {
        str(note.frontmatter["session"]): note.title
        for note in viewer.memory.corpus.of_type("episode")
        if note.frontmatter.get("session") is not None
    }
