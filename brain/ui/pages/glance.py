"""At a glance: the notes by type, projects, episodes per week and their outcomes, failures answered,
what the hooks handed agents and how much of it was used, and how current the index is."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

from brain.agents.health import hooks_log_summary
from brain.agents.hooks_log import log_path
from brain.agents.ledger import LedgerSummary
from brain.markdown.model import OUTCOMES, Note
from brain.memory.episodes.note import episode_agent, episode_header
from brain.memory.projects.note import project_of
from brain.plain import plain
from brain.ui.pages.failures import FAILURE_EVENTS, failure_groups
from brain.ui.viewer import Args, Viewer

WEEKS = 12


def glance(viewer: Viewer, args: Args) -> dict[str, Any]:
    return {
        "vault": {"path": str(viewer.root), "name": viewer.root.name},
        **viewer.derived("ui.glance", lambda: _of_notes(viewer)),
        "index": _index(viewer),
        "hooks": _hooks(viewer),
        "handed": _handed(viewer.ledger()),
    }


def _of_notes(viewer: Viewer) -> dict[str, Any]:
    """What the notes say (made again only when one changes)."""
    corpus = viewer.memory.corpus
    episodes = corpus.of_type("episode")
    groups = failure_groups(viewer)
    episodes_of = {signature: len({item.seen.path for item in items}) for signature, items in (groups or {}).items()}
    recovered = {signature for signature, items in (groups or {}).items() if any(item.seen.fix for item in items)}
    return {
        "notes": dict(sorted(Counter(note.type for note in corpus.notes()).items())),
        "projects": _projects(episodes),
        "agents": dict(sorted(Counter(episode_agent(note.frontmatter) or "none" for note in episodes).items())),
        "weeks": _weeks(episodes),
        "failures": {
            "readable": groups is not None,
            "signatures": len(episodes_of),
            "recovered": len(recovered),
            "repeated": sum(1 for count in episodes_of.values() if count >= 2),
            "repeated_recovered": sum(1 for sig, count in episodes_of.items() if count >= 2 and sig in recovered),
        },
    }


def _index(viewer: Viewer) -> dict[str, Any]:
    """How current the index is: none; catching up (another process is writing what changed); fresh
    while the viewer follows file events; else what a stat of every file finds."""
    memory = viewer.memory
    if memory.existing_index() is None:
        return {"state": "none", "followed": False}
    if memory.index_catching_up():
        return {"state": "catching up", "followed": viewer.watcher is not None}
    return {"state": "fresh", "followed": viewer.watcher is not None}


def _hooks(viewer: Viewer) -> dict[str, Any]:
    """Each hook's last run and the hooks log's last errors (read again when the log changes)."""
    path = log_path(viewer.root)
    stamp = path.stat() if path.is_file() else None
    runs, errors = viewer.kept(
        "hooks-log", (stamp.st_mtime_ns, stamp.st_size) if stamp else None, lambda: hooks_log_summary(path)
    )
    return {"last_runs": plain(runs), "last_errors": errors}


def _projects(episodes: list[Note]) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for note in episodes:
        name = project_of(note.frontmatter)
        if name is None:
            continue
        row = found.setdefault(name, {"project": name, "episodes": 0, "last": ""})
        row["episodes"] += 1
        row["last"] = max(row["last"], (episode_header(note.header)[2] or "")[:10])
    return sorted(found.values(), key=lambda row: (-row["episodes"], row["project"]))


def _weeks(episodes: list[Note]) -> list[dict[str, Any]]:
    """The last WEEKS weeks that have episodes (ISO weeks), oldest first, with each outcome's count."""
    weeks: dict[str, Counter[str]] = {}
    for note in episodes:
        outcome, _, when = episode_header(note.header)
        try:
            day = date.fromisoformat((when or "")[:10])
        except ValueError:
            continue
        year, week, _ = day.isocalendar()
        weeks.setdefault(f"{year}-W{week:02d}", Counter())[outcome if outcome in OUTCOMES else "other"] += 1
    rows = []
    for name in sorted(weeks)[-WEEKS:]:
        counts = weeks[name]
        start = date.fromisocalendar(int(name[:4]), int(name[6:]), 1).isoformat()
        rows.append({"week": name, "starts": start, **{key: counts[key] for key in (*OUTCOMES, "other")}})
    return rows


def _handed(summary: LedgerSummary) -> dict[str, Any]:
    answered = sum(1 for s in summary.sessions for i in s.handed if i.event in FAILURE_EVENTS)
    sessions = len(summary.sessions)
    return {
        "days": summary.days,
        "sessions": sessions,
        "tokens": summary.tokens,
        "tokens_per_session": round(summary.tokens / sessions) if sessions else 0,
        "notes_named": summary.notes,
        "notes_used": summary.used,
        "failures_answered": answered,
    }
