"""Episodes: the timeline by project, agent and outcome, and one episode's page (task, decisions,
events with each failure linked to what fixed it, lessons, the patterns it gave evidence to, and
where it came from)."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from brain.markdown.model import OUTCOMES, Note
from brain.memory.episodes.note import episode_agent, episode_from_note, episode_header
from brain.memory.episodes.service import get_episode, newest_first
from brain.memory.episodes.signature import recorded_failures
from brain.memory.episodes.view import episode_summary
from brain.memory.patterns.service import all_patterns
from brain.memory.patterns.view import pattern_summary
from brain.memory.projects.note import project_of
from brain.plain import plain
from brain.ui.viewer import Args, Viewer, paged, text

SOURCE_KEYS = ("session", "source_log", "source_format", "project", "branch", "episode_id")


def timeline(viewer: Viewer, args: Args) -> dict[str, Any]:
    """The episodes of a project, an agent and an outcome (each optional), newest first, a page at a time."""
    corpus = viewer.memory.corpus
    project, agent, outcome = text(args, "project"), text(args, "agent"), text(args, "outcome")
    ordered, choices = viewer.derived("ui.timeline", lambda: _timeline(viewer))

    def kept(note: Note) -> bool:
        fm = note.frontmatter
        return (
            (project is None or project_of(fm) == project)
            and (agent is None or episode_agent(fm) == agent)
            and (outcome is None or episode_header(note.header)[0] == outcome)
        )

    chosen = ordered if project is None and agent is None and outcome is None else [n for n in ordered if kept(n)]
    shown, page = paged(chosen, args)
    rows = []
    for note in shown:
        row = episode_summary(corpus.memo("episode", note, episode_from_note))
        rows.append({**row, "project": project_of(note.frontmatter), "agent": episode_agent(note.frontmatter)})
    return {
        "filters": {"project": project, "agent": agent, "outcome": outcome},
        "choices": choices,
        "episodes": rows,
        "page": page,
    }


def _timeline(viewer: Viewer) -> tuple[list[Note], dict[str, list[dict[str, Any]]]]:
    """Every episode newest first, and the projects, agents and outcomes they hold (with counts)."""
    every = viewer.memory.corpus.of_type("episode")
    choices = {
        "project": _counted(project_of(note.frontmatter) for note in every),
        "agent": _counted(episode_agent(note.frontmatter) for note in every),
        "outcome": [{"value": value, "episodes": count} for value, count in _outcomes(every)],
    }
    return newest_first(every), choices


def _counted(values: Any) -> list[dict[str, Any]]:
    counts = Counter(value for value in values if value)
    return [{"value": value, "episodes": count} for value, count in sorted(counts.items())]


def _outcomes(notes: list[Note]) -> list[tuple[str, int]]:
    counts = Counter(episode_header(note.header)[0] for note in notes)
    return [(value, counts[value]) for value in OUTCOMES if counts[value]]


def episode(viewer: Viewer, args: Args) -> dict[str, Any]:
    corpus = viewer.memory.corpus
    found = get_episode(corpus, args["name"])
    note = corpus.get(found.path or found.title)
    by_event = {
        failure.event: {"signature": failure.signature, "fix": failure.fix, "commit": failure.commit}
        for failure in recorded_failures(found)
    }
    return {
        "episode": plain(found),
        "source": {key: plain(note.frontmatter[key]) for key in SOURCE_KEYS if note.frontmatter.get(key) is not None},
        "failures": by_event,
        "patterns": evidence_of(viewer, found.path or ""),
    }


def evidence_of(viewer: Viewer, path: str) -> list[dict[str, Any]]:
    """The patterns whose evidence names the episode at `path`, each with the outcome it recorded."""
    corpus = viewer.memory.corpus
    patterns = all_patterns(corpus)  # loads and keeps the patterns, so `derived` is cleared when one changes
    table = corpus.derived.get("ui.evidence")
    if table is None:
        resolver = corpus.resolver()
        table = {}
        for pattern in patterns:
            for evidence in pattern.evidence:
                target = resolver.try_resolve(evidence.target)
                if target is not None:
                    table.setdefault(target, []).append({**pattern_summary(pattern), "outcome": evidence.outcome})
        corpus.derived["ui.evidence"] = table
    return list(cast(dict[str, list[dict[str, Any]]], table).get(path, []))
