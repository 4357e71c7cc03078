"""Causality statistics over the caused_by graph, and what doctor reports about causes."""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from brain.errors import InvalidInput
from brain.lazy import lazy_module
from brain.markdown.model import ACTION_TYPES
from brain.markdown.summary import text_field
from brain.memory.causal.chains import NEEDS_CAUSE, BrokenCause, CausedByGraph, caused_by_graph
from brain.memory.corpus import Corpus

nx = lazy_module("networkx")  # loaded at first use


@dataclass(frozen=True)
class CausalityStats:
    project: str | None
    notes: int
    with_caused_by: int  # notes naming at least one cause
    causes: int  # notes some other note names as its cause
    linked: int  # notes in any caused_by link, either end
    roots: int  # notes that cause others and name no cause themselves
    action_types: dict[str, int]
    unknown_action_types: tuple[str, ...]
    orphans: tuple[str, ...]  # decisions and file edits that name no cause
    chains: int  # chain ends: notes with a cause that caused nothing further
    average_chain_length: float  # notes from root to end, over chain ends
    longest_chain: int
    longest_chain_end: str | None
    cycles: tuple[tuple[str, ...], ...]
    broken: tuple[BrokenCause, ...]


@dataclass(frozen=True)
class _Shape:
    """Whole-vault figures every project's stats read: chain length per note and the cycles."""

    length: dict[str, int]  # notes on the longest run of causes ending at the note, itself included
    cycles: tuple[tuple[str, ...], ...]


def _shape(corpus: Corpus, graph: CausedByGraph) -> _Shape:
    cached = corpus.derived.get("caused_by_shape")
    if isinstance(cached, _Shape):
        return cached
    parents = {child: [cause for cause in causes if cause in graph.notes] for child, causes in graph.parents.items()}
    children = {cause: kids for cause, kids in graph.children.items() if cause in graph.notes}
    linked = set(parents) | set(children)
    # Kahn's order over the whole vault: linear, and all there is to do when nothing loops
    waiting = {node: len(parents.get(node, ())) for node in linked}
    queue = deque(node for node, count in waiting.items() if count == 0)
    length: dict[str, int] = {}
    while queue:
        node = queue.popleft()
        length[node] = 1 + max((length[cause] for cause in parents.get(node, ())), default=0)
        for child in children.get(node, ()):
            waiting[child] -= 1
            if waiting[child] == 0:
                queue.append(child)
    left = linked - length.keys()  # the notes on cycles and those they led to
    cycles = _cycle_lengths(left, parents, length) if left else ()
    shape = _Shape(length, cycles)
    corpus.derived["caused_by_shape"] = shape
    return shape


def _cycle_lengths(
    left: set[str], parents: dict[str, list[str]], length: dict[str, int]
) -> tuple[tuple[str, ...], ...]:
    """Chain lengths through cycles (a cycle counts each of its notes once) and the cycles, cause first."""
    links = nx.DiGraph()
    links.add_nodes_from(left)
    links.add_edges_from((cause, node) for node in left for cause in parents.get(node, ()) if cause in left)
    components = list(nx.strongly_connected_components(links))
    condensed = nx.condensation(links, components)
    run: dict[int, int] = {}
    for block in nx.topological_sort(condensed):
        members = condensed.nodes[block]["members"]
        before = [length[cause] for member in members for cause in parents.get(member, ()) if cause in length]
        before += [run[earlier] for earlier in condensed.predecessors(block)]
        run[block] = len(members) + max(before, default=0)
        for member in members:
            length[member] = run[block]
    cycles = []
    for members in components:
        first = min(members)
        if len(members) > 1 or links.has_edge(first, first):
            cycles.append(tuple(edge[0] for edge in nx.find_cycle(links.subgraph(members), source=first)))
    return tuple(sorted(cycles))


def causality_stats(corpus: Corpus, project: str | None = None) -> CausalityStats:
    """Exact figures over every note (or every note of one project), cached until a note changes."""
    graph = caused_by_graph(corpus)
    memo: dict[str | None, CausalityStats] = corpus.derived.setdefault("causality_stats", {})
    key = project.strip().lower() if project and project.strip() else None
    if key not in memo:
        memo[key] = _stats(corpus, graph, key)
    return memo[key]


def _stats(corpus: Corpus, graph: CausedByGraph, project: str | None) -> CausalityStats:
    if project is None:
        scope = list(graph.notes)
    else:
        scope = [path for path, note in graph.notes.items() if (text_field(note, "project") or "").lower() == project]
        if not scope:
            known = sorted({name for note in graph.notes.values() if (name := text_field(note, "project"))})
            hint = f"; projects: {', '.join(known)}" if known else "; no note names a project yet"
            raise InvalidInput(f"no note belongs to project '{project}'{hint}")
    shape = _shape(corpus, graph)
    inside = set(scope)
    named = [path for path in scope if graph.parents.get(path)]
    causing = [path for path in scope if graph.children.get(path)]
    kinds = Counter(value for path in scope if (value := text_field(graph.notes[path], "action_type")))
    ordered: dict[str, int] = {kind: kinds[kind] for kind in ACTION_TYPES if kinds[kind]}
    unknown = tuple(sorted(kind for kind in kinds if kind not in ACTION_TYPES))
    ordered.update({kind: kinds[kind] for kind in unknown})
    orphans = tuple(
        sorted(
            path
            for path in scope
            if text_field(graph.notes[path], "action_type") in NEEDS_CAUSE and not graph.parents.get(path)
        )
    )
    ends = [path for path in named if not graph.children.get(path)]
    lengths = [shape.length.get(path, 1) for path in ends]
    longest_end = min(named, key=lambda path: (-shape.length.get(path, 1), path), default=None)  # ties: first by path
    return CausalityStats(
        project=project,
        notes=len(scope),
        with_caused_by=len(named),
        causes=len(causing),
        linked=len(set(named) | set(causing)),
        roots=sum(1 for path in causing if not graph.parents.get(path)),
        action_types=ordered,
        unknown_action_types=unknown,
        orphans=orphans,
        chains=len(ends),
        average_chain_length=round(sum(lengths) / len(lengths), 2) if lengths else 0.0,
        longest_chain=shape.length.get(longest_end, 1) if longest_end else 0,
        longest_chain_end=longest_end,
        cycles=tuple(cycle for cycle in shape.cycles if inside.intersection(cycle)),
        broken=tuple(link for link in graph.broken if link.source in inside),
    )


def causal_findings(corpus: Corpus) -> list[tuple[str, str, str, str]]:
    """(kind, path, message, fix) for broken `caused_by` and unknown action types (cycles: see doctor)."""
    graph = caused_by_graph(corpus)
    found = [
        (
            "broken-caused-by",
            link.source,
            f"caused_by '{link.name}' {link.problem}",
            "correct the name, or create the note it means",
        )
        for link in graph.broken
    ]
    for path, note in graph.notes.items():
        value = text_field(note, "action_type")
        if value is not None and value not in ACTION_TYPES:
            found.append(
                (
                    "unknown-action-type",
                    path,
                    f"action_type '{value}' is not one of {', '.join(ACTION_TYPES)}",
                    "use one of those; brain keeps and shows the value as written",
                )
            )
    return found
