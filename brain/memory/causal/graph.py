"""The causal graph: computed from notes, searched for paths, drawn for people.

Edges come from `## Causal Relationships` lines (causes, enables, prevents, correlates) and
from `caused_by` frontmatter (cause -> note). A target that resolves to no note stays in the
graph as a missing node, so paths through imported or not-yet-written notes still show, and
is reported as a broken link.

The graph is plain dicts, and paths are found here (breadth-first, Dijkstra): a `pattern path` or
`causal why` is a one-shot process, and importing networkx alone is a large part of it (networkx 3.6
scans every installed package's entry points for backends). networkx is loaded only for what it is
needed for: cycles (`brain doctor`) and GraphML export (`to_networkx`).
"""

from __future__ import annotations

import heapq
import io
import itertools
import json
import math
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from brain.errors import NoteNotFound, UsageError
from brain.lazy import lazy_module
from brain.markdown.model import Note
from brain.markdown.parse import link_targets
from brain.memory.corpus import Corpus, Resolver
from brain.memory.patterns.note import pattern_from_note

if TYPE_CHECKING:
    import networkx as nx
else:
    nx = lazy_module("networkx")  # loaded at first use: most commands never build the graph

DEFAULT_DEPTH = 5
MAX_DEPTH = 10
DEFAULT_EDGE_WEIGHT = 0.5
PRIOR_STRENGTH = 2  # pseudo-occurrences pulling a pattern's success rate toward 0.5


@dataclass(frozen=True)
class BrokenLink:
    source: str
    target: str
    where: str


@dataclass(frozen=True)
class CausalGraph:
    nodes: dict[str, dict[str, Any]]  # node id -> attributes (title, type, missing, success_rate, occurrences)
    edges: dict[tuple[str, str], dict[str, Any]]  # (source, target) -> attributes (type, origin, weight, evidence)
    broken: tuple[BrokenLink, ...]
    targets: dict[str, list[str]] = field(default_factory=dict)  # source -> its edges' targets, in edge order

    def successors(self, node: str) -> list[str]:
        return self.targets.get(node, [])

    def to_networkx(self) -> nx.DiGraph:
        """The same graph for networkx's algorithms (cycles, GraphML)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes.items())
        graph.add_edges_from((source, target, attributes) for (source, target), attributes in self.edges.items())
        return graph


@dataclass(frozen=True)
class Hop:
    source: str
    target: str
    type: str
    weight: float | None
    evidence: int | None


@dataclass(frozen=True)
class CausalPath:
    nodes: tuple[str, ...]  # node ids (vault paths, or "missing:Name")
    titles: tuple[str, ...]
    hops: tuple[Hop, ...]
    reliability: float


def causal_graph(corpus: Corpus) -> CausalGraph:
    """The graph for the corpus's current notes, cached until a note changes."""
    notes = corpus.notes()
    cached = corpus.derived.get("causal_graph")
    if isinstance(cached, CausalGraph):
        return cached
    built = build_graph(notes, corpus.resolver())
    corpus.derived["causal_graph"] = built
    return built


def build_graph(notes: list[Note], resolver: Resolver) -> CausalGraph:
    nodes: dict[str, dict[str, Any]] = {}
    edges: dict[tuple[str, str], dict[str, Any]] = {}
    broken: list[BrokenLink] = []
    for note in notes:
        nodes[note.path or ""] = _node_attributes(note)

    def target_id(source: Note, name: str, where: str) -> str:
        found = resolver.candidates(name)
        if len(found) == 1:
            return found[0]
        broken.append(
            BrokenLink(source.path or "", name, where if not found else f"{where} (ambiguous: {', '.join(found)})")
        )
        node = f"missing:{name}"
        if node not in nodes:
            nodes[node] = {"title": name, "type": "missing", "missing": True}
        return node

    for note in notes:
        for relation in note.causal_relations:
            target = target_id(note, relation.target, f"line {relation.line + 1}")
            _add_edge(edges, note.path or "", target, relation.type, relation.weight, relation.evidence)
        for cause in link_targets(note.frontmatter.get("caused_by")):
            source = target_id(note, cause, "frontmatter caused_by")
            _add_edge(edges, source, note.path or "", "causes", None, None, origin="caused_by")
    targets: dict[str, list[str]] = {}
    for source, target in edges:
        targets.setdefault(source, []).append(target)
    return CausalGraph(nodes, edges, tuple(broken), targets)


def _node_attributes(note: Note) -> dict[str, Any]:
    attributes: dict[str, Any] = {"title": note.title, "type": note.type, "missing": False}
    if note.type == "pattern":
        pattern = pattern_from_note(note)
        if pattern.success_rate is not None:
            attributes["success_rate"] = pattern.success_rate
        if pattern.occurrences is not None:
            attributes["occurrences"] = pattern.occurrences
    return attributes


def _add_edge(
    edges: dict[tuple[str, str], dict[str, Any]],
    source: str,
    target: str,
    kind: str,
    weight: float | None,
    evidence: int | None,
    origin: str = "section",
) -> None:
    current = edges.get((source, target))
    if current is not None and (weight or 0) <= (current.get("weight") or 0):
        return  # keep the strongest statement of a repeated edge (in its first place, as networkx did)
    attributes: dict[str, Any] = {"type": kind, "origin": origin}
    if weight is not None:
        attributes["weight"] = weight
    if evidence is not None:
        attributes["evidence"] = evidence
    edges[source, target] = attributes


def node_for(corpus: Corpus, name: str) -> str:
    """Resolve a name to a graph node: a note, or a missing note that something links to."""
    try:
        return corpus.resolver().resolve(name)
    except NoteNotFound:
        node = f"missing:{name.strip()}"
        if node in causal_graph(corpus).nodes:
            return node
        raise


def confidence(attributes: dict[str, Any]) -> float:
    """How much to trust a node: its success rate, shrunk toward 0.5 when it has few occurrences."""
    rate: float | None = attributes.get("success_rate")
    if rate is None:
        return 1.0
    count: int = attributes.get("occurrences") or 0
    return (rate * count + 0.5 * PRIOR_STRENGTH) / (count + PRIOR_STRENGTH)


def _edge_cost(graph: CausalGraph, source: str, target: str) -> float:
    weight = graph.edges[source, target].get("weight", DEFAULT_EDGE_WEIGHT)
    reliability = max(min(weight, 1.0), 1e-6) * max(confidence(graph.nodes[target]), 1e-6)
    return -math.log(reliability)


def find_path(
    corpus: Corpus, source: str, target: str, *, max_depth: int = DEFAULT_DEPTH, weighted: bool = False
) -> CausalPath | None:
    """The causal path from one note to another, or None when there is none within `max_depth` hops.

    Unweighted: fewest hops. Weighted: the most reliable path, where each hop's reliability is
    the edge weight times the target's confidence (success rate and occurrences).
    """
    if not 1 <= max_depth <= MAX_DEPTH:
        raise UsageError(f"max depth must be between 1 and {MAX_DEPTH}, got {max_depth}")
    graph = causal_graph(corpus)
    start, end = node_for(corpus, source), node_for(corpus, target)
    if start == end:
        raise UsageError(f"'{source}' and '{target}' are the same note; give two different notes")
    nodes = _weighted_path(graph, start, end, max_depth) if weighted else _shortest_path(graph, start, end, max_depth)
    if nodes is None:
        return None
    hops = []
    reliability = 1.0
    for a, b in itertools.pairwise(nodes):
        edge = graph.edges[a, b]
        hops.append(Hop(a, b, edge["type"], edge.get("weight"), edge.get("evidence")))
        reliability *= math.exp(-_edge_cost(graph, a, b))
    titles = tuple(graph.nodes[node].get("title", node) for node in nodes)
    return CausalPath(tuple(nodes), titles, tuple(hops), reliability)


def _shortest_path(graph: CausalGraph, start: str, end: str, max_depth: int) -> list[str] | None:
    """Fewest hops from start to end, within max_depth (breadth-first, edges in the order they were added)."""
    came_from: dict[str, str | None] = {start: None}
    frontier = deque([(start, 0)])
    while frontier:
        node, depth = frontier.popleft()
        if node == end:
            return _route(came_from, end)
        if depth == max_depth:
            continue
        for successor in graph.successors(node):
            if successor not in came_from:
                came_from[successor] = node
                frontier.append((successor, depth + 1))
    return None


def _route(came_from: dict[str, str | None], end: str) -> list[str]:
    """The path to `end`, read back through each node's predecessor."""
    path = [end]
    while (previous := came_from[path[-1]]) is not None:
        path.append(previous)
    return path[::-1]


def _weighted_path(graph: CausalGraph, start: str, end: str, max_depth: int) -> list[str] | None:
    path = _most_reliable(graph, start, end)
    if path is None:
        return None
    if len(path) - 1 <= max_depth:
        return path
    # The most reliable path is too long: best path with at most max_depth hops (Bellman-Ford by hops).
    best: dict[str, tuple[float, list[str]]] = {start: (0.0, [start])}
    frontier = dict(best)
    for _ in range(max_depth):
        next_frontier: dict[str, tuple[float, list[str]]] = {}
        for node, (total, route) in frontier.items():
            for successor in graph.successors(node):
                if successor in route:
                    continue
                candidate = total + _edge_cost(graph, node, successor)
                if candidate < best.get(successor, (math.inf, []))[0]:
                    best[successor] = next_frontier[successor] = (candidate, [*route, successor])
        frontier = next_frontier
    return best[end][1] if end in best else None


def _most_reliable(graph: CausalGraph, start: str, end: str) -> list[str] | None:
    """Dijkstra over the hops' costs (-log reliability); ties go to the path found first."""
    best = {start: 0.0}
    came_from: dict[str, str | None] = {start: None}
    counter = itertools.count()
    queue = [(0.0, next(counter), start)]
    done: set[str] = set()
    while queue:
        total, _, node = heapq.heappop(queue)
        if node in done:
            continue
        if node == end:
            return _route(came_from, end)
        done.add(node)
        for successor in graph.successors(node):
            candidate = total + _edge_cost(graph, node, successor)
            if successor not in done and candidate < best.get(successor, math.inf):
                best[successor], came_from[successor] = candidate, node
                heapq.heappush(queue, (candidate, next(counter), successor))
    return None


def reverse_path_exists(corpus: Corpus, source: str, target: str, max_depth: int) -> bool:
    graph = causal_graph(corpus)
    return _shortest_path(graph, node_for(corpus, target), node_for(corpus, source), max_depth) is not None


def find_cycles(corpus: Corpus, limit: int = 50) -> list[list[str]]:
    graph = causal_graph(corpus).to_networkx()
    cycles = []
    for cycle in nx.simple_cycles(graph):
        cycles.append(cycle)
        if len(cycles) >= limit:
            break
    return cycles


# ---------------------------------------------------------------- export


GraphFormat = Literal["mermaid", "graphml", "json"]
GRAPH_FORMATS: tuple[GraphFormat, ...] = get_args(GraphFormat)


def export_graph(corpus: Corpus, fmt: str) -> str:
    graph = causal_graph(corpus).to_networkx()
    linked = graph.subgraph([node for node in graph if graph.degree(node) > 0])
    if fmt == "json":
        return json.dumps(_as_json(linked), indent=2, ensure_ascii=False) + "\n"
    if fmt == "graphml":
        buffer = io.BytesIO()
        nx.write_graphml(linked, buffer)
        return buffer.getvalue().decode("utf-8")
    if fmt == "mermaid":
        return _as_mermaid(linked)
    raise UsageError(f"unknown graph format '{fmt}'; use one of {', '.join(GRAPH_FORMATS)}")


def _as_json(graph: nx.DiGraph) -> dict[str, list[dict[str, Any]]]:
    nodes = [{"id": node, **attributes} for node, attributes in sorted(graph.nodes(data=True))]
    edges = [{"source": a, "target": b, **attributes} for a, b, attributes in sorted(graph.edges(data=True))]
    return {"nodes": nodes, "edges": edges}


def _as_mermaid(graph: nx.DiGraph) -> str:
    ids = {node: f"n{number}" for number, node in enumerate(sorted(graph))}
    lines = ["```mermaid", "flowchart LR"]
    for node in sorted(graph):
        attributes = graph.nodes[node]
        label = str(attributes.get("title", node)).replace('"', "'")
        if attributes.get("success_rate") is not None:
            label += f" ({attributes['success_rate']:.0%})"
        shape = ("[/", "/]") if attributes.get("missing") else ('["', '"]')
        text = f'"{label}"' if attributes.get("missing") else label
        lines.append(f"    {ids[node]}{shape[0]}{text}{shape[1]}")
    for a, b, attributes in sorted(graph.edges(data=True)):
        arrow = "-.->" if attributes["type"] in ("correlates",) else "-->"
        label = attributes["type"] + (f" {attributes['weight']:g}" if attributes.get("weight") is not None else "")
        lines.append(f"    {ids[a]} {arrow}|{label}| {ids[b]}")
    lines.append("```")
    return "\n".join(lines) + "\n"
