"""`brain import ai-agents --verify`: compare the JSON with what the notes now say.

The causal graph is computed from the notes by `brain.memory.causal.graph.build_graph`, the same parser
path every causal query uses, and compared with the JSON: nodes (type, label, frequency, success
rate), edges (type, weight, evidence count) and patterns (success rate, occurrences), in both
directions. Episodes are compared through the exporter, field by field.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from brain.errors import InvalidInput
from brain.importers.ai_agents.common import differences, short
from brain.importers.ai_agents.episodes import episode_json
from brain.importers.ai_agents.importer import Source
from brain.markdown.model import Note
from brain.memory.causal.graph import build_graph
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import episode_title
from brain.vault.vault import Vault


def verify_ai_agents(vault: Vault, sources: list[Source] | tuple[Source, ...]) -> list[str]:
    """Every difference between the JSON sources and the vault, one line each ('<file>: <what>')."""
    corpus = Corpus(vault)
    notes = corpus.notes()
    found: list[str] = []
    episodes = _episode_notes(notes)
    graph = None
    for source in sources:
        if source.kind == "episode":
            found += [f"{source.path}: {line}" for line in _verify_episode(source.data, episodes)]
            continue
        if graph is None:
            graph = build_graph(notes, corpus.resolver()).to_networkx()
        found += [f"{source.path}: {line}" for line in verify_graph(source.data, notes, graph)]
    return found


def _episode_notes(notes: list[Note]) -> dict[str, Note]:
    by_name: dict[str, Note] = {}
    for note in notes:
        if note.type == "episode":
            by_name.setdefault(note.title.lower(), note)
            if note.frontmatter.get("episode_id") is not None:
                by_name.setdefault(str(note.frontmatter["episode_id"]).lower(), note)
    return by_name


def _verify_episode(raw: dict[str, Any], notes: dict[str, Note]) -> list[str]:
    key = str(raw.get("id") or "").lower()
    note = notes.get(key)
    if note is None:
        try:
            note = notes.get(
                episode_title(_text(raw.get("id")), _text(raw.get("session")), _text(raw.get("timestamp"))).lower()
            )
        except InvalidInput:  # neither id nor session: no note can have been made of it
            note = None
    if note is None:
        return [f"episode {raw.get('id') or raw.get('session')!r}: no episode note"]
    return [f"{note.path}: {line}" for line in differences(raw, episode_json(note.frontmatter, note))]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def verify_graph(raw: dict[str, Any], notes: list[Note], graph: nx.DiGraph) -> list[str]:
    """Differences between a graph JSON and the graph computed from the notes."""
    found: list[str] = []
    node_paths = _paths(notes, "causal", "node_id")
    pattern_paths = _paths(notes, "pattern", "pattern_id")
    named_patterns = {
        str(note.frontmatter["name"]): note.path
        for note in notes
        if note.type == "pattern" and "pattern_id" not in note.frontmatter and "name" in note.frontmatter and note.path
    }
    notes_by_path = {note.path: note for note in notes}
    json_nodes = [node for node in _array(raw, "nodes") if isinstance(node, dict)]
    json_patterns = [pattern for pattern in _array(raw, "patterns") if isinstance(pattern, dict)]
    seen_nodes: set[str] = set()
    for node in json_nodes:
        node_id = node.get("id")
        if not isinstance(node_id, str) or (path := node_paths.get(node_id)) is None:
            found.append(f"node {node_id!r} ({short(node.get('label'), 50)}): no causal note")
            continue
        seen_nodes.add(node_id)
        fm = notes_by_path[path].frontmatter
        if graph.nodes[path].get("type") != "causal":
            found.append(f"node {node_id}: {path} is a {graph.nodes[path].get('type')} note, not type: causal")
        for key, fm_key in (
            ("type", "node_type"),
            ("label", "label"),
            ("frequency", "frequency"),
            ("success_rate", "success_rate"),
        ):
            if key in node and not _equal(node[key], fm.get(fm_key)):
                found.append(f"node {node_id} {key}: JSON has {short(node[key])}, {path} has {short(fm.get(fm_key))}")
    found += [
        f"node {node_id}: {path} is not in the JSON"
        for node_id, path in sorted(node_paths.items())
        if node_id not in seen_nodes
    ]
    seen_patterns: set[str] = set()
    for pattern in json_patterns:
        pattern_id = pattern.get("id")
        path = (
            pattern_paths.get(pattern_id)
            if isinstance(pattern_id, str)
            else named_patterns.get(str(pattern.get("name")))
        )
        label = pattern_id if isinstance(pattern_id, str) else f"named {pattern.get('name')!r}"
        if path is None:
            found.append(f"pattern {label}: no pattern note")
            continue
        seen_patterns.add(path)
        attributes = graph.nodes[path]
        for key in ("success_rate", "occurrences"):
            if key in pattern and not _equal(pattern[key], attributes.get(key)):
                found.append(
                    f"pattern {label} {key}: JSON has {short(pattern[key])}, the computed graph has {short(attributes.get(key))}"
                )
    pattern_notes = set(pattern_paths.values()) | set(named_patterns.values())
    found += [f"pattern note {path} is not in the JSON" for path in sorted(pattern_notes - seen_patterns)]
    found += _verify_edges(raw, graph, {**pattern_paths, **node_paths})
    return found


def _verify_edges(raw: dict[str, Any], graph: nx.DiGraph, paths: dict[str, str]) -> list[str]:
    found: list[str] = []
    expected: set[tuple[str, str]] = set()
    for edge in _array(raw, "edges"):
        if not isinstance(edge, dict):
            found.append(f"edge {short(edge)}: not an object, so not in the computed graph")
            continue
        name = f"edge {edge.get('source')} -{edge.get('type')}-> {edge.get('target')}"
        source, target = (_path_of(edge.get(end), paths) for end in ("source", "target"))
        if source is None or target is None:
            found.append(f"{name}: {'source' if source is None else 'target'} has no note")
            continue
        expected.add((source, target))
        if not graph.has_edge(source, target):
            found.append(f"{name}: not in the computed graph (no causal line in {source})")
            continue
        attributes = graph.edges[source, target]
        for key, attribute in (("type", "type"), ("weight", "weight"), ("evidence_count", "evidence")):
            if not _equal(edge.get(key), attributes.get(attribute)):
                found.append(
                    f"{name} {key}: JSON has {short(edge.get(key))}, the computed graph has {short(attributes.get(attribute))}"
                )
    members = set(paths.values())
    for source, target in sorted(graph.edges):
        if source in members and (source, target) not in expected:
            kind = graph.edges[source, target].get("type")
            found.append(f"edge {source} -{kind}-> {target}: in the computed graph, not in the JSON")
    return found


def _paths(notes: list[Note], note_type: str, key: str) -> dict[str, str]:
    paths: dict[str, str] = {}
    for note in notes:
        value = note.frontmatter.get(key)
        if note.type == note_type and isinstance(value, str) and note.path:
            paths.setdefault(value, note.path)
    return paths


def _path_of(node_id: object, paths: dict[str, str]) -> str | None:
    """The note of a JSON edge end; an id that is not a string (a list, a number) names no note."""
    return paths.get(node_id) if isinstance(node_id, str) else None


def _array(raw: dict[str, Any], key: str) -> list[Any]:
    value = raw.get(key)
    return value if isinstance(value, list) else []


def _equal(expected: Any, actual: Any) -> bool:
    """Values compared as a graph reader would: numbers by value, everything else exactly."""
    numbers = (int, float)
    if (
        isinstance(expected, numbers)
        and isinstance(actual, numbers)
        and not isinstance(expected, bool)
        and not isinstance(actual, bool)
    ):
        return expected == actual
    return type(expected) is type(actual) and expected == actual
