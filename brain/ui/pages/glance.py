"""At a glance: the notes by type, projects, episodes per week and their outcomes, failures answered,
what the hooks handed agents and how much of it was used, and how current the index is."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

from brain.agents.health import vault_health
from brain.agents.ledger import LedgerSummary
from brain.agents.output import health_json
from brain.index.catalog.failures import all_failures
from brain.markdown.model import OUTCOMES
from brain.memory.episodes.note import episode_agent, episode_header
from brain.memory.projects.note import project_of
from brain.ui.pages.failures import FAILURE_EVENTS, grouped
from brain.ui.viewer import Args, Viewer

WEEKS = 12


def glance(viewer: Viewer, args: Args) -> dict[str, Any]:
    corpus = viewer.memory.corpus
    notes = corpus.notes()
    episodes = corpus.of_type("episode")
    health = health_json(vault_health(viewer.root))
    catching_up = viewer.memory.index_catching_up()
    return {
        "vault": {"path": str(viewer.root), "name": viewer.root.name},
        "notes": dict(sorted(Counter(note.type for note in notes).items())),
        "index": {
            "state": "catching up" if catching_up else health["index"],
            "changed_files": health["changed_files"],
        },
        "hooks": {key: health[key] for key in ("last_runs", "last_errors", "episodes_last_7_days")},
        "projects": _projects(episodes),
        "agents": dict(sorted(Counter(episode_agent(note.frontmatter) or "none" for note in episodes).items())),
        "weeks": _weeks(episodes),
        "failures": _failures(viewer),
        "handed": _handed(viewer.ledger()),
    }


def _projects(episodes: list[Any]) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for note in episodes:
        name = project_of(note.frontmatter)
        if name is None:
            continue
        row = found.setdefault(name, {"project": name, "episodes": 0, "last": ""})
        row["episodes"] += 1
        row["last"] = max(row["last"], (episode_header(note.header)[2] or "")[:10])
    return sorted(found.values(), key=lambda row: (-row["episodes"], row["project"]))


def _weeks(episodes: list[Any]) -> list[dict[str, Any]]:
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


def _failures(viewer: Viewer) -> dict[str, Any]:
    held = all_failures(viewer.memory.vault.index_dir)
    groups = grouped(held or [])
    episodes = {signature: len({item.seen.path for item in items}) for signature, items in groups.items()}
    recovered = {signature for signature, items in groups.items() if any(item.seen.fix for item in items)}
    return {
        "readable": held is not None,
        "signatures": len(groups),
        "recovered": len(recovered),
        "repeated": sum(1 for count in episodes.values() if count >= 2),
        "repeated_recovered": sum(1 for signature, count in episodes.items() if count >= 2 and signature in recovered),
    }


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
