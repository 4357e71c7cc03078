"""`brain export ai-agents`: the vault's episodes, causal notes and patterns as ai-agents JSON.

The export reads the notes (through brain's parser, as every other command does), never a stored
copy of the JSON, so what a person changed in the markdown is what comes out. The graph is the
one `brain.memory.causal.graph` computes: nodes are `type: causal` notes and pattern notes, edges their
`## Causal Relationships` lines and `caused_by` frontmatter.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput
from brain.importers.ai_agents.common import GRAPH_META_KEY, same
from brain.importers.ai_agents.episodes import derived_id, episode_json
from brain.importers.ai_agents.graph import ARRAYS, edge_extra, node_json, pattern_json
from brain.markdown.model import Note
from brain.markdown.parse import link_targets
from brain.memory.corpus import Corpus, Resolver
from brain.vault.atomic import replace_file
from brain.vault.vault import Vault

EPISODES_DIR = "episodes"
GRAPH_FILE = "causality/causal-graph.json"


@dataclass(frozen=True)
class ExportResult:
    episodes_written: int
    episodes_unchanged: int
    graph_path: str | None  # None when the vault holds no causal notes, patterns or graph note
    graph_written: bool
    nodes: int
    edges: int
    patterns: int
    warnings: tuple[str, ...]


def export_ai_agents(vault: Vault, out: Path, *, now: str | None = None) -> ExportResult:
    """Write OUT/episodes/episode-*.json and OUT/causality/causal-graph.json from the notes.

    A file whose content would not change is left alone; the graph's `updated` stamp moves only
    when something else in the graph changed.
    """
    try:
        (out / EPISODES_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InvalidInput(
            f"cannot export into '{out}': {error.strerror or error}; choose a folder you can write to"
        ) from None
    corpus = Corpus(vault)
    notes = corpus.notes()
    warnings: list[str] = []
    written = unchanged = 0
    for name, data in episodes_from_notes(notes, warnings):
        if _write_json(out / EPISODES_DIR / name, data):
            written += 1
        else:
            unchanged += 1
    graph, graph_warnings = graph_from_notes(notes, corpus.resolver(), now or datetime.now(UTC).isoformat())
    warnings += graph_warnings
    graph_written = False
    if graph is not None:
        target = out / GRAPH_FILE
        previous = _read_json(target)
        comparable = isinstance(previous, dict) and "updated" in graph and "updated" in previous
        if comparable and same({**previous, "updated": None}, {**graph, "updated": None}):
            graph["updated"] = previous["updated"]
        graph_written = _write_json(target, graph)
    if hasattr(os, "sync"):
        os.sync()  # files were renamed into place without a sync each; make the batch durable at once
    counts = {key: len(graph[key]) if graph and isinstance(graph.get(key), list) else 0 for key in ARRAYS}
    return ExportResult(
        written,
        unchanged,
        str(out / GRAPH_FILE) if graph is not None else None,
        graph_written,
        counts["nodes"],
        counts["edges"],
        counts["patterns"],
        tuple(warnings),
    )


def episodes_from_notes(notes: list[Note], warnings: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(file name, episode) for every episode note, named after the episode id."""
    out = []
    used: set[str] = set()
    for note in notes:
        if note.type != "episode":
            continue
        data = episode_json(note.frontmatter, note)
        episode_id = data["id"] if isinstance(data.get("id"), str) else derived_id(note.title)
        stem = Vault.filename_for(episode_id)[: -len(".md")] if episode_id.strip(" .") else "episode"
        if not stem.startswith("episode-"):
            stem = f"episode-{stem}"
        name, number = f"{stem}.json", 1
        while name.lower() in used:
            number += 1
            name = f"{stem}-{number}.json"
        if number > 1:
            warnings.append(f"{note.path}: another episode is also named {stem}.json; written as {name}")
        used.add(name.lower())
        out.append((name, data))
    return out


def graph_from_notes(notes: list[Note], resolver: Resolver, now: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The causal graph the notes stand for, in the order the graph note records (new items after)."""
    warnings: list[str] = []
    graph_notes = [note for note in notes if isinstance(note.frontmatter.get(GRAPH_META_KEY), dict)]
    meta = graph_notes[0].frontmatter[GRAPH_META_KEY] if graph_notes else {}
    graph_paths = {note.path for note in graph_notes}
    node_notes = [note for note in notes if note.type == "causal" and note.path not in graph_paths]
    pattern_notes = [note for note in notes if note.type == "pattern"]
    if not (graph_notes or node_notes or pattern_notes):
        return None, warnings
    ids: dict[str, Any] = {}  # note path -> graph id
    nodes = _keyed(node_notes, node_json, lambda item: item.get("id"), ids, warnings)
    patterns = _keyed(
        pattern_notes,
        pattern_json,
        lambda item: item.get("id") if "id" in item else f"name:{item.get('name')}",
        ids,
        warnings,
    )
    edges = _edges(node_notes + pattern_notes, ids, resolver, warnings)
    order = raw_order if isinstance(raw_order := meta.get("order"), dict) else {}
    verbatim = raw_verbatim if isinstance(raw_verbatim := meta.get("verbatim"), dict) else {}
    arrays = {
        "nodes": _ordered(nodes, order.get("nodes"), verbatim.get("nodes"), sort_rest=True),
        "edges": _ordered(edges, order.get("edges"), verbatim.get("edges"), sort_rest=False),
        "patterns": _ordered(patterns, order.get("patterns"), verbatim.get("patterns"), sort_rest=True),
    }
    fields = raw_fields if isinstance(raw_fields := meta.get("fields"), dict) else {"version": "1.0", "updated": now}
    missing = raw_missing if isinstance(raw_missing := meta.get("missing"), list) else []
    graph: dict[str, Any] = {key: value for key, value in fields.items() if key not in ARRAYS}
    if "updated" in graph:
        graph["updated"] = now
    for key in ARRAYS:
        if key in fields:
            graph[key] = fields[key]  # kept verbatim: the file had something other than a list here
        elif key not in missing or arrays[key]:
            graph[key] = arrays[key]
    return graph, warnings


def _keyed(
    notes: list[Note],
    to_json: Callable[[Note], dict[str, Any]],
    key_of: Callable[[dict[str, Any]], Any],
    ids: dict[str, Any],
    warnings: list[str],
) -> dict[str, dict[str, Any]]:
    items: dict[str, dict[str, Any]] = {}
    for note in notes:
        item = to_json(note)
        key = key_of(item)
        if note.path is not None:  # a note without a path is never looked up in ids
            ids[note.path] = item.get("id")
        if not isinstance(key, str) or key in items:
            warnings.append(f"{note.path}: its id {key!r} is not unique among the notes; exported after the others")
            key = f"{key} ({note.path})"
        items[key] = item
    return items


def _edges(
    notes: list[Note], ids: dict[str, Any], resolver: Resolver, warnings: list[str]
) -> dict[str, dict[str, Any]]:
    """Edges from `## Causal Relationships` lines (and caused_by), keyed as the graph note orders them."""
    edges: dict[str, dict[str, Any]] = {}
    for note in notes:
        source = ids.get(note.path) if note.path is not None else None  # ids is keyed by note path
        if source is None:
            if note.causal_relations:
                warnings.append(f"{note.path}: has no id, so its causal relationships are not exported")
            continue
        extra = edge_extra(note)
        seen: Counter[tuple[str, Any]] = Counter()
        for relation in note.causal_relations:
            target = _target(note, relation.target, ids, resolver, warnings)
            if target is None:
                continue
            seen[(relation.type, target)] += 1
            suffix = f" #{seen[(relation.type, target)]}" if seen[(relation.type, target)] > 1 else ""
            edge: dict[str, Any] = {"source": source, "target": target, "type": relation.type}
            if relation.weight is not None:
                edge["weight"] = relation.weight
            if relation.evidence is not None:
                edge["evidence_count"] = relation.evidence
            more = extra.get(f"{relation.type} {target}{suffix}")
            if isinstance(more, dict):
                edge.update(more)
            edges[f"{source} {relation.type} {target}{suffix}"] = edge
        for cause in link_targets(note.frontmatter.get("caused_by")):
            origin = _target(note, cause, ids, resolver, warnings)
            if origin is not None:
                edges[f"{origin} causes {source} (caused_by)"] = {"source": origin, "target": source, "type": "causes"}
    return edges


def _target(note: Note, name: str, ids: dict[str, Any], resolver: Resolver, warnings: list[str]) -> Any:
    found = resolver.candidates(name)
    if len(found) != 1:
        problem = "matches no note" if not found else f"is ambiguous ({', '.join(found[:3])})"
        warnings.append(f"{note.path}: causal link [[{name}]] {problem}; not exported")
        return None
    if ids.get(found[0]) is None:
        warnings.append(f"{note.path}: [[{name}]] is not a causal node or a pattern; that edge is not exported")
        return None
    return ids[found[0]]


def _ordered(items: dict[str, Any], order: Any, verbatim: Any, *, sort_rest: bool) -> list[Any]:
    verbatim = verbatim if isinstance(verbatim, list) else []
    out: list[Any] = []
    used: set[str] = set()
    for entry in order if isinstance(order, list) else []:
        entry = str(entry)
        if entry.startswith("verbatim:") and entry[9:].isdigit() and int(entry[9:]) < len(verbatim):
            out.append(verbatim[int(entry[9:])])
        elif entry in items and entry not in used:
            out.append(items[entry])
            used.add(entry)
    rest = [key for key in items if key not in used]
    out += [items[key] for key in (sorted(rest) if sort_rest else rest)]
    return out


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: Any) -> bool:
    """Write atomically (temp file + rename) unless the file already holds exactly this text."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    replace_file(path, text)
    return True
