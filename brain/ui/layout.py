"""A causal graph drawn in layers, left to right, for an SVG the page draws itself (no script).

Each node's layer is the longest run of edges leading to it (the nodes of a cycle share one
layer: networkx's condensation makes the graph acyclic first); within a layer, nodes are ordered by
the mean position of their neighbours in the layer before, then after (two sweeps of the
barycenter heuristic), which keeps most edges from crossing. Edges are cubic curves from a node's
right side to the next one's left side; one within a layer bows out to the right, one that runs
back bows out below.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import networkx as nx

NODE_WIDTH = 178
NODE_HEIGHT = 46
LAYER_GAP = 56  # between one layer's nodes and the next layer's
ROW_GAP = 22
MARGIN = 16


@dataclass(frozen=True)
class Placed:
    x: int
    y: int
    layer: int


@dataclass(frozen=True)
class Drawn:
    nodes: dict[str, Placed]
    curves: dict[tuple[str, str], str]  # (source, target) -> the SVG path of its curve
    width: int
    height: int


def layers(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> dict[str, int]:
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    condensed = nx.condensation(graph)
    depth: dict[int, int] = {}
    for component in nx.topological_sort(condensed):
        depth[component] = max((depth[parent] + 1 for parent in condensed.predecessors(component)), default=0)
    member = condensed.graph["mapping"]
    return {node: depth[member[node]] for node in nodes}


def _ordered(layer_of: dict[str, int], edges: list[tuple[str, str]], nodes: Sequence[str]) -> list[list[str]]:
    count = max(layer_of.values(), default=-1) + 1
    rows: list[list[str]] = [[] for _ in range(count)]
    for node in nodes:  # first in the order given (the caller's: nearest to the focus first)
        rows[layer_of[node]].append(node)
    before: dict[str, list[str]] = {node: [] for node in nodes}
    after: dict[str, list[str]] = {node: [] for node in nodes}
    for source, target in edges:
        before[target].append(source)
        after[source].append(target)
    for sweep in (range(1, count), range(count - 2, -1, -1)):
        for index in sweep:
            neighbours = before if sweep.step > 0 else after
            where = {node: position for row in rows for position, node in enumerate(row)}

            def centre(node: str, near: dict[str, list[str]] = neighbours, where: dict[str, int] = where) -> float:
                placed = [where[other] for other in near[node] if other in where]
                return sum(placed) / len(placed) if placed else where[node]

            rows[index].sort(key=centre)
    return rows


def draw(nodes: Sequence[str], edges: Sequence[tuple[str, str]]) -> Drawn:
    """Where each node goes and the curve of each edge."""
    edges = [(source, target) for source, target in edges if source != target]
    layer_of = layers(nodes, edges)
    rows = _ordered(layer_of, list(edges), nodes)
    tallest = max((len(row) for row in rows), default=0)
    placed: dict[str, Placed] = {}
    for layer, row in enumerate(rows):
        offset = (tallest - len(row)) * (NODE_HEIGHT + ROW_GAP) // 2  # each layer centred
        for position, node in enumerate(row):
            x = MARGIN + layer * (NODE_WIDTH + LAYER_GAP)
            placed[node] = Placed(x, MARGIN + offset + position * (NODE_HEIGHT + ROW_GAP), layer)
    curves = {(source, target): _curve(placed[source], placed[target]) for source, target in edges}
    width = MARGIN * 2 + max(len(rows), 1) * (NODE_WIDTH + LAYER_GAP) - LAYER_GAP
    height = MARGIN * 2 + max(tallest, 1) * (NODE_HEIGHT + ROW_GAP) - ROW_GAP + NODE_HEIGHT
    return Drawn(placed, curves, width, height)


def _curve(source: Placed, target: Placed) -> str:
    if target.layer > source.layer:
        x1, y1 = source.x + NODE_WIDTH, source.y + NODE_HEIGHT // 2
        x2, y2 = target.x, target.y + NODE_HEIGHT // 2
        bend = (x2 - x1) // 2
        return f"M{x1},{y1} C{x1 + bend},{y1} {x2 - bend},{y2} {x2},{y2}"
    if target.layer == source.layer:  # within a layer (a cycle): right side to right side, bowed out
        x, y1, y2 = source.x + NODE_WIDTH, source.y + NODE_HEIGHT // 2, target.y + NODE_HEIGHT // 2
        out = x + LAYER_GAP // 2
        return f"M{x},{y1} C{out},{y1} {out},{y2} {x},{y2}"
    # back to an earlier layer (a cycle): bottom to bottom, bowed down
    x1, y1 = source.x + NODE_WIDTH // 2, source.y + NODE_HEIGHT
    x2, y2 = target.x + NODE_WIDTH // 2, target.y + NODE_HEIGHT
    low = max(y1, y2) + NODE_HEIGHT
    return f"M{x1},{y1} C{x1},{low} {x2},{low} {x2},{y2}"
