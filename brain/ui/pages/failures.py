"""Failures seen before: each failure (a signature, `brain.memory.episodes.signature`) with the
episodes that hold it, what fixed it, how often the failure hook handed that fix to an agent (the
ledger), and whether the agent then recovered (the failure in that session's own episode)."""

from __future__ import annotations

from typing import Any

from brain.agents.events import AGENT_EVENTS, hook_key
from brain.agents.ledger import LedgerSummary
from brain.index.catalog.failures import FailureHeld, all_failures
from brain.plain import plain
from brain.ui.pages.handed import session_episodes
from brain.ui.viewer import Args, Viewer, paged, text

# the failure hook's events as the ledger names them (each agent's `tool-failure`)
FAILURE_EVENTS = tuple(
    hook_key(agent, "tool-failure") for agent, events in AGENT_EVENTS.items() if "tool-failure" in events
)
THEN = ("recovered", "not recovered", "not in its episode", "pending")
MOST_SEEN = 8  # a failure's episodes (and handings) listed, newest first; one failure alone: ALL_SEEN
ALL_SEEN = 200
PAGE = 20


def failure_groups(viewer: Viewer) -> dict[str, list[FailureHeld]] | None:
    """The failures the catalog holds, by signature (None without a catalog), made again when a note changes."""
    return viewer.derived("ui.failures", lambda: _grouped(all_failures(viewer.memory.vault.index_dir)))


def _grouped(held: list[FailureHeld] | None) -> dict[str, list[FailureHeld]] | None:
    if held is None:
        return None
    groups: dict[str, list[FailureHeld]] = {}
    for item in held:
        groups.setdefault(item.signature, []).append(item)
    return groups


def failures(viewer: Viewer, args: Args) -> dict[str, Any]:
    """Every failure the episodes hold, grouped by signature: most episodes first, then the most
    handed, then the newest; PAGE at a time, each with its newest MOST_SEEN episodes (ALL_SEEN when
    one failure is asked for)."""
    found = failure_groups(viewer)
    repeated = text(args, "seen") == "2"
    signature = text(args, "signature")
    groups = found or {}
    summary = viewer.ledger()
    handed = viewer.made_from("handings", (groups, summary), lambda: handings(viewer, groups, summary))
    order = viewer.made_from("failure-order", (groups, handed), lambda: _order(groups, handed))
    chosen = [
        key for key, episodes in order if (not repeated or episodes >= 2) and (signature is None or key == signature)
    ]
    shown, page = paged(chosen, args, size=PAGE)
    most = MOST_SEEN if signature is None else ALL_SEEN
    rows: dict[tuple[str, int], dict[str, Any]] = viewer.made_from("failure-rows", (groups, handed), dict)
    return {
        "readable": found is not None,
        "repeated_only": repeated,
        "signature": signature,
        "failures": [_kept_row(rows, key, most, groups[key], handed.get(key, [])) for key in shown],
        "page": page,
    }


def _order(groups: dict[str, list[FailureHeld]], handed: dict[str, list[dict[str, Any]]]) -> list[tuple[str, int]]:
    """Each signature with its number of episodes, in the order the page lists them."""
    rows = [(key, _episodes(items), len(handed.get(key, [])), items[0].seen.date) for key, items in groups.items()]
    rows.sort(key=lambda row: row[3], reverse=True)
    rows.sort(key=lambda row: (-row[1], -row[2]))  # stable: newest first within
    return [(key, episodes) for key, episodes, _, _ in rows]


def _episodes(items: list[FailureHeld]) -> int:
    return len({item.seen.path for item in items})


def _kept_row(
    rows: dict[tuple[str, int], dict[str, Any]],
    signature: str,
    most: int,
    items: list[FailureHeld],
    handed: list[dict[str, Any]],
) -> dict[str, Any]:
    found = rows.get((signature, most))
    if found is None:
        found = rows[signature, most] = _row(signature, items, handed, most)
    return found


def _row(signature: str, items: list[FailureHeld], handed: list[dict[str, Any]], most: int) -> dict[str, Any]:
    tool, target, line = [*signature.split("|", 2), "", ""][:3]
    fixed = [item for item in items if item.seen.fix]
    return {
        "signature": signature,
        "tool": tool,
        "program": target,
        "line": line,
        "episodes": _episodes(items),
        "recovered": len(fixed),
        "fix": fixed[0].seen.fix if fixed else "",
        "fixed_in": fixed[0].seen.title if fixed else "",
        "last": items[0].seen.date,
        "seen": [{**plain(item.seen), "event": item.event} for item in items[:most]],
        "more_seen": max(0, len(items) - most),
        "handed": len(handed),
        "then": {state: sum(1 for h in handed if h["then"] == state) for state in THEN},
        "handings": handed[-most:],
    }


def handings(
    viewer: Viewer, groups: dict[str, list[FailureHeld]], summary: LedgerSummary
) -> dict[str, list[dict[str, Any]]]:
    """Each time the failure hook handed an earlier fix, by the failure's signature, and what the
    agent's session did next: 'recovered' (its own episode holds the failure, recovered), 'not
    recovered' (it holds it, never recovered), 'not in its episode' (its episode does not hold a
    failure of that signature), or 'pending' (no episode of that session yet). A ledger line written before the
    signature was recorded counts for the signature of the episode it named first, when that
    episode holds one signature only."""
    by_episode: dict[str, set[str]] = {}
    in_session: dict[tuple[str, str], bool] = {}
    for signature, items in groups.items():
        for item in items:
            by_episode.setdefault(item.seen.title, set()).add(signature)
            if item.seen.session:
                key = (item.seen.session, signature)
                in_session[key] = in_session.get(key, False) or bool(item.seen.fix)
    sessions = viewer.derived("ui.session-episodes", lambda: session_episodes(viewer))
    found: dict[str, list[dict[str, Any]]] = {}
    for session in summary.sessions:
        for injection in session.handed:
            if injection.event not in FAILURE_EVENTS:
                continue
            signature = injection.signature or _only(
                by_episode.get(injection.notes[0] if injection.notes else "", set())
            )
            if not signature:
                continue
            then = _then(session.session in sessions, in_session.get((session.session, signature)))
            used = None if session.used is None else bool(set(injection.notes) & set(session.used))
            handed = {"session": session.session, "at": injection.at, "then": then, "named_later": used}
            found.setdefault(signature, []).append({**handed, "episode": injection.notes[0] if injection.notes else ""})
    return found


def _then(has_episode: bool, recovered: bool | None) -> str:
    if not has_episode:
        return "pending"
    if recovered is None:
        return "not in its episode"
    return "recovered" if recovered else "not recovered"


def _only(signatures: set[str]) -> str:
    return next(iter(signatures)) if len(signatures) == 1 else ""
