"""The viewer's pages: each a function of the open vault and the request's arguments that returns
the page's data (its JSON twin), and the template that shows it. Adding a page is one module here
(or one function in one) and one line in PAGES."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from brain.ui.pages import causal, episodes, facts, failures, glance, handed, notes, runs, search, tips
from brain.ui.viewer import Args, Viewer


@dataclass(frozen=True)
class Page:
    route: str  # its address; `{name}` in it takes the rest of the path (the JSON twin: the address + .json)
    template: str
    title: str
    read: Callable[[Viewer, Args], dict[str, Any]]
    nav: str = ""  # its label in the navigation bar ('' for a page reached by links only)


PAGES: tuple[Page, ...] = (
    Page("/", "glance.html", "At a glance", glance.glance, "At a glance"),
    Page("/episodes", "episodes.html", "Episodes", episodes.timeline, "Episodes"),
    Page("/episodes/{name}", "episode.html", "Episode", episodes.episode),
    Page("/failures", "failures.html", "Failures seen before", failures.failures, "Failures"),
    Page("/patterns", "patterns.html", "Patterns", causal.patterns, "Patterns"),
    Page("/graph", "graph.html", "Causal graph", causal.graph, "Graph"),
    Page("/path", "path.html", "Causal path", causal.path, "Path"),
    Page("/why/{name}", "why.html", "Why?", causal.why),
    Page("/facts", "facts.html", "Facts", facts.facts, "Facts"),
    Page("/facts/history", "fact_history.html", "Fact history", facts.fact_history),
    Page("/runs", "runs.html", "Runs", runs.runs, "Runs"),
    Page("/runs/{name}", "run.html", "Run", runs.run),
    Page("/tips", "tips.html", "Tips", tips.tips, "Tips"),
    Page("/handed", "handed.html", "What the agents were handed", handed.handed, "Handed"),
    Page("/search", "search.html", "Search", search.search, "Search"),
    Page("/notes/{name}", "note.html", "Note", notes.note),
)


def warm(viewer: Viewer) -> None:
    """Read what the first pages need before anyone asks (a vault of 10,000 notes takes seconds): every
    note and its name, the patterns, the failures, the ledger, the causal graph, the search index."""
    from brain.memory.causal.chains import caused_by_graph

    glance.glance(viewer, {})
    episodes.timeline(viewer, {})
    episodes.evidence_of(viewer, "")
    causal.patterns(viewer, {})
    causal.graph(viewer, {})
    caused_by_graph(viewer.memory.corpus)
    failures.failures(viewer, {})
    handed.handed(viewer, {})
    search.warm(viewer)
