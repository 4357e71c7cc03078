"""Patterns and causes: success rates and antipatterns, the typed causal graph around a note (drawn
in layers, each node a link to the graph around it), the path between two patterns, and "why?" for
a note, back to its root causes with the evidence."""

from __future__ import annotations

from collections import deque
from typing import Any

from brain.markdown.model import Pattern
from brain.memory.causal.chains import reconstruct_reasoning
from brain.memory.causal.graph import MAX_DEPTH, CausalGraph, causal_graph, find_path, node_for, reverse_path_exists
from brain.memory.patterns.service import antipatterns, list_patterns
from brain.memory.patterns.view import causal_path_lines, no_path_line, pattern_summary
from brain.plain import plain
from brain.ui.layout import NODE_HEIGHT, NODE_WIDTH, draw
from brain.ui.viewer import Args, Viewer, number, paged, text

MOST_NODES = 60  # drawn at once; a larger graph is drawn around one note
DEFAULT_DEPTH = 2


def patterns(viewer: Viewer, args: Args) -> dict[str, Any]:
    every, worst = _patterns(viewer)
    shown, page = paged(every, args)
    return {
        "antipatterns": [pattern_summary(found) for found in worst],
        "patterns": [pattern_summary(found) for found in shown],
        "page": page,
    }


def _patterns(viewer: Viewer) -> tuple[list[Pattern], list[Pattern]]:
    """Every pattern, most successful first, and the antipatterns, worst first (until a note changes)."""
    corpus = viewer.memory.corpus
    return viewer.derived("ui.patterns", lambda: (list_patterns(corpus), antipatterns(corpus)))


def graph(viewer: Viewer, args: Args) -> dict[str, Any]:
    """The linked part of the causal graph when it is small, else the notes within `depth` links of
    `focus` (default: the most linked note), at most MOST_NODES of them, nearest first."""
    corpus = viewer.memory.corpus
    built = causal_graph(corpus)
    depth = number(args, "depth", DEFAULT_DEPTH, 1, MAX_DEPTH)
    focus_name = text(args, "focus")
    neighbours = _neighbours(viewer, built)
    linked = [node for node in built.nodes if neighbours.get(node)]
    if focus_name is None and len(linked) <= MOST_NODES:
        chosen, focus, left_out = linked, None, 0
    else:
        focus = (
            node_for(corpus, focus_name) if focus_name else max(linked, key=lambda n: len(neighbours[n]), default=None)
        )
        chosen, left_out = _around(focus, neighbours, depth) if focus else ([], 0)
    return {"focus": focus, "depth": depth, "left_out": left_out, **drawing(built, chosen)}


def _neighbours(viewer: Viewer, built: CausalGraph) -> dict[str, list[str]]:
    """Each node's neighbours either way along the graph's edges, kept while the graph is the same."""

    def make() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for source, target in built.edges:
            found.setdefault(source, []).append(target)
            found.setdefault(target, []).append(source)
        return found

    return viewer.kept("neighbours", id(built), make)


def _around(focus: str, neighbours: dict[str, list[str]], depth: int) -> tuple[list[str], int]:
    """The nodes within `depth` links of `focus`, nearest first, at most MOST_NODES; and how many more there were."""
    seen = {focus: 0}
    queue = deque([focus])
    while queue:
        node = queue.popleft()
        if seen[node] == depth:
            continue
        for other in neighbours.get(node, []):
            if other not in seen:
                seen[other] = seen[node] + 1
                queue.append(other)
    chosen = list(seen)
    return chosen[:MOST_NODES], max(0, len(chosen) - MOST_NODES)


def drawing(built: CausalGraph, chosen: list[str], edges: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """The chosen nodes, the edges between them (or those given), and where the page draws each."""
    members = set(chosen)
    if edges is None:
        edges = [(source, target) for source, target in built.edges if source in members and target in members]
    drawn = draw(chosen, edges)
    return {
        "nodes": [
            {"id": node, **built.nodes[node], "x": drawn.nodes[node].x, "y": drawn.nodes[node].y} for node in chosen
        ],
        "edges": [
            {
                "source": source,
                "target": target,
                **built.edges[source, target],
                "curve": drawn.curves.get((source, target)),
            }
            for source, target in edges
        ],
        "box": {"width": drawn.width, "height": drawn.height, "node_width": NODE_WIDTH, "node_height": NODE_HEIGHT},
    }


def path(viewer: Viewer, args: Args) -> dict[str, Any]:
    """The causal path from one pattern (or any note) to another, fewest hops or most reliable."""
    corpus = viewer.memory.corpus
    source, target = text(args, "from"), text(args, "to")
    weighted = text(args, "weighted") == "1"
    depth = number(args, "depth", 5, 1, MAX_DEPTH)
    titles = [found.title for found in _patterns(viewer)[0]]
    asked = {"from": source, "to": target, "weighted": weighted, "depth": depth, "patterns": titles}
    if source is None or target is None:
        return {**asked, "path": None, "said": [], "nodes": [], "edges": [], "box": None}
    found = find_path(corpus, source, target, max_depth=depth, weighted=weighted)
    if found is None:
        said = [no_path_line(source, target, depth, reverse_path_exists(corpus, source, target, depth))]
        return {**asked, "path": None, "said": said, "nodes": [], "edges": [], "box": None}
    hops = [(hop.source, hop.target) for hop in found.hops]
    drawn = drawing(causal_graph(corpus), list(found.nodes), hops)
    return {**asked, "path": plain(found), "said": causal_path_lines(found), **drawn}


def why(viewer: Viewer, args: Args) -> dict[str, Any]:
    found: dict[str, Any] = plain(reconstruct_reasoning(viewer.memory.corpus, args["name"]))
    return found
