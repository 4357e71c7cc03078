"""ai-agents causal graph JSON -> note parts. Pure: no IO, no vault.

Each graph node becomes a note in causal/ (type: causal), each graph pattern a pattern note, and
each edge a line under its source's `## Causal Relationships`:

    - causes [[Target title]] (weight: 0.8, evidence: 26)

What a line cannot hold (an edge's created, episodes, contributions; an int weight, a fractional
evidence count) goes to the source note's `ai_agents.edges["causes <target id>"]`. Unknown fields of a
node or pattern go to its `ai_agents.fields`. What belongs to no single note (the version, the
order of the three arrays, items no note can stand for such as an edge to an unknown id) goes to
one graph note whose `ai_agents_graph` mapping the exporter reads.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import chain
from typing import Any

from brain.errors import InvalidInput
from brain.importers.ai_agents.common import GRAPH_META_KEY, GRAPH_NOTE_TITLE, META_KEY, content_id, corrections, same
from brain.markdown import frontmatter_yaml
from brain.markdown.edit import replace_section, set_frontmatter
from brain.markdown.lines import escape_block, unescape_block
from brain.markdown.model import CAUSAL_TYPES, Note
from brain.markdown.parse import parse_note
from brain.memory.patterns.note import render_pattern
from brain.memory.patterns.service import pattern_title
from brain.vault.vault import Vault

ARRAYS = ("nodes", "edges", "patterns")
# JSON field -> frontmatter key. Every other field of a node is kept in ai_agents.fields.
NODE_KEYS = {
    "id": "node_id",
    "type": "node_type",
    "label": "label",
    "episodes": "episodes",
    "frequency": "frequency",
    "success_rate": "success_rate",
    "created": "created",
    "contributions": "contributions",
}
PATTERN_KEYS = {
    "id": "pattern_id",
    "name": "name",
    "trigger": "trigger",
    "success_rate": "success_rate",
    "occurrences": "occurrences",
    "last_used": "last_validated",
    "created": "created",
    "episodes": "episodes",
    "contributions": "contributions",
}
PATTERN_SECTIONS = {"description": "Context", "action": "Action"}
TITLE_LENGTH = 80  # characters of a label kept in a title; the exact label stays in the frontmatter
TITLE_BYTES = 120  # so that an id suffix still fits the 180-byte file-name limit
_MARKUP = re.compile(r"\*\*|`")
_COLON = re.compile(r"\s*:\s+")
_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*#^\[\]]')


@dataclass(frozen=True)
class Item:
    """A node or a pattern that becomes a note. `key` is its id (or `name:<name>` for an id-less pattern)."""

    kind: str  # "node" | "pattern"
    key: str
    data: dict[str, Any]

    @property
    def identity(self) -> str:
        return f"{self.kind}:{self.key}"


@dataclass(frozen=True)
class Edge:
    """An edge that becomes a causal line. `meta_key` names it in its source's ai_agents.edges."""

    source: str  # identity of the source item
    target: str  # identity of the target item
    type: str
    meta_key: str
    data: dict[str, Any]


@dataclass(frozen=True)
class GraphParts:
    items: tuple[Item, ...]
    edges: dict[str, list[Edge]] = field(default_factory=dict)  # by source identity
    meta: dict[str, Any] = field(default_factory=dict)  # the graph note's ai_agents_graph mapping
    kept_verbatim: int = 0  # items no note can stand for (kept in the graph note)


def is_graph(data: Any) -> bool:
    return isinstance(data, dict) and any(isinstance(data.get(key), list) for key in ARRAYS)


def split_graph(raw: dict[str, Any]) -> GraphParts:
    """Items that become notes, edges that become lines, and the rest for the graph note."""
    verbatim: dict[str, list[Any]] = {key: [] for key in ARRAYS}
    order: dict[str, list[str]] = {key: [] for key in ARRAYS}
    items: list[Item] = []
    node_ids: dict[str, str] = {}  # id -> identity, nodes first so a shared id means the node
    pattern_ids: dict[str, str] = {}
    for node in _array(raw, "nodes"):
        node_id = node.get("id") if isinstance(node, dict) else None
        if isinstance(node_id, str) and node_id and node_id not in node_ids:
            item = Item("node", node_id, node)
            items.append(item)
            node_ids[node_id] = item.identity
            order["nodes"].append(node_id)
        else:
            order["nodes"].append(_verbatim(verbatim, "nodes", node))
    names: set[str] = set()
    for pattern in _array(raw, "patterns"):
        key = _pattern_key(pattern, pattern_ids, names)
        if key is None:
            order["patterns"].append(_verbatim(verbatim, "patterns", pattern))
            continue
        item = Item("pattern", key, pattern)
        items.append(item)
        if not key.startswith("name:"):
            pattern_ids[key] = item.identity
        names.add(pattern["name"] if isinstance(pattern.get("name"), str) else "")
        order["patterns"].append(key)
    endpoints = {**pattern_ids, **node_ids}
    edges: dict[str, list[Edge]] = defaultdict(list)
    seen: Counter[tuple[str, str, str]] = Counter()
    for edge in _array(raw, "edges"):
        linked = isinstance(edge, dict) and edge.get("type") in CAUSAL_TYPES
        source, target = (edge.get("source"), edge.get("target")) if isinstance(edge, dict) else (None, None)
        if not (
            linked
            and isinstance(source, str)
            and isinstance(target, str)
            and source in endpoints
            and target in endpoints
        ):
            order["edges"].append(_verbatim(verbatim, "edges", edge))
            continue
        seen[(source, edge["type"], target)] += 1
        count = seen[(source, edge["type"], target)]
        suffix = f" #{count}" if count > 1 else ""
        edges[endpoints[source]].append(
            Edge(endpoints[source], endpoints[target], edge["type"], f"{edge['type']} {target}{suffix}", edge)
        )
        order["edges"].append(f"{source} {edge['type']} {target}{suffix}")
    meta: dict[str, Any] = {
        "fields": {key: value for key, value in raw.items() if key not in ARRAYS or not isinstance(value, list)}
    }
    missing = [key for key in ARRAYS if key not in raw]
    if missing:
        meta["missing"] = missing
    meta["order"] = order
    kept = {key: value for key, value in verbatim.items() if value}
    if kept:
        meta["verbatim"] = kept
    return GraphParts(tuple(items), dict(edges), meta, sum(len(value) for value in kept.values()))


def _array(raw: dict[str, Any], key: str) -> list[Any]:
    value = raw.get(key)
    return value if isinstance(value, list) else []


def _verbatim(verbatim: dict[str, list[Any]], key: str, item: Any) -> str:
    verbatim[key].append(item)
    return f"verbatim:{len(verbatim[key]) - 1}"


def _pattern_key(pattern: Any, ids: dict[str, str], names: set[str]) -> str | None:
    if not isinstance(pattern, dict):
        return None
    pattern_id, name = pattern.get("id"), pattern.get("name")
    if isinstance(pattern_id, str) and pattern_id and pattern_id not in ids:
        return pattern_id
    if "id" not in pattern and isinstance(name, str) and name and name not in names:
        return f"name:{name}"
    return None


# ---------------------------------------------------------------- titles


def title_candidates(item: Item) -> Iterator[str]:
    """Safe note titles for an item, best first: the plain one, then ones made unique by its id."""
    if item.kind == "pattern":
        base = _pattern_base(item)
        suffix = _slug(item.key.removeprefix("name:")) or _hash(item.key)
        yield from _safe(chain((base, f"{base}-{suffix}"), (f"{base}-{suffix}-{n}" for n in range(2, 1000))))
        return
    node_type = item.data.get("type")
    label = item.data.get("label")
    base = node_title(label) if isinstance(label, str) else ""
    if not base:
        base = f"{node_type if isinstance(node_type, str) else 'node'} {item.key}"
    suffix = item.key if len(item.key) <= 16 else _hash(item.key)
    yield from _safe(chain((base, f"{base} ({suffix})"), (f"{base} ({suffix}-{n})" for n in range(2, 1000))))


def node_title(label: str) -> str:
    """A short, readable title from a free-text label: no markup, no characters links or paths cannot hold."""
    text = " ".join(_MARKUP.sub("", label).split())
    text = _COLON.sub(" - ", text)
    text = _UNSAFE.sub("-", text)
    text = re.sub(r"-(?:\s*-)+", "-", text).strip(" .-")
    if len(text) > TITLE_LENGTH or len(text.encode("utf-8")) > TITLE_BYTES:
        cut = text[:TITLE_LENGTH]
        while len(cut.encode("utf-8")) > TITLE_BYTES:
            cut = cut[:-1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut[len(cut) // 2 :] else cut).rstrip(" .-") + "…"
    return text


def _pattern_base(item: Item) -> str:
    name = item.data.get("name")
    try:
        return pattern_title(name) if isinstance(name, str) else f"PATTERN-{_hash(item.key)}"
    except InvalidInput:
        return f"PATTERN-{_hash(item.key)}"


def _safe(candidates: Iterable[str]) -> Iterator[str]:
    """Each candidate as the file stem it makes (so title, stem and link target are one string)."""
    seen: set[str] = set()
    for candidate in candidates:
        try:
            stem = Vault.filename_for(candidate)[: -len(".md")]
        except InvalidInput:  # empty, or a reserved name such as CON: the next candidate has a suffix
            continue
        if stem not in seen:
            seen.add(stem)
            yield stem


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:24]


def _hash(text: str) -> str:
    return content_id("title", text)[:8]


# ---------------------------------------------------------------- note parts


@dataclass(frozen=True)
class NoteParts:
    """What an item's note must say: managed frontmatter (absent keys in `removed`) and sections."""

    frontmatter: dict[str, Any]
    removed: tuple[str, ...]
    sections: tuple[tuple[str, str], ...]
    text: str  # the whole note, for a vault that does not have it yet


def causal_lines(edges: list[Edge], titles: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The `## Causal Relationships` lines of a source, and what they cannot hold (by meta key)."""
    lines = []
    extra: dict[str, Any] = {}
    for edge in edges:
        weight, evidence = _number_text(edge.data.get("weight")), edge.data.get("evidence_count")
        numbers = [f"weight: {weight}"] if weight is not None else []
        if _line_count(evidence):
            numbers.append(f"evidence: {evidence}")
        lines.append(f"- {edge.type} [[{titles[edge.target]}]]" + (f" ({', '.join(numbers)})" if numbers else ""))
        rest = {key: value for key, value in edge.data.items() if key not in ("source", "target", "type")}
        if type(rest.get("weight")) is float and weight is not None:
            del rest["weight"]  # the line says it exactly; an int weight stays here to keep its type
        if _line_count(evidence):
            del rest["evidence_count"]
        if rest:
            extra[edge.meta_key] = rest
    return "\n".join(lines), extra


def _number_text(value: Any) -> str | None:
    """A weight as the parser reads it back (digits and a point, no exponent), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    text = format(Decimal(repr(value)), "f")  # the shortest exact digits, without an exponent
    return text if float(text) == value else None


def _line_count(value: Any) -> bool:
    return type(value) is int and abs(value) < 2**53


def node_parts(item: Item, title: str, edges: list[Edge], titles: dict[str, str]) -> NoteParts:
    data = item.data
    frontmatter = {fm_key: data[key] for key, fm_key in NODE_KEYS.items() if key in data}
    removed = [fm_key for key, fm_key in NODE_KEYS.items() if key not in data]
    lines, edge_extra = causal_lines(edges, titles)
    meta: dict[str, Any] = {}
    unknown = {key: value for key, value in data.items() if key not in NODE_KEYS}
    if unknown:
        meta["fields"] = unknown
    if edge_extra:
        meta["edges"] = edge_extra
    if meta:
        frontmatter[META_KEY] = meta
    else:
        removed.append(META_KEY)
    node_type = data.get("type")
    tag = re.sub(r"[^\w/-]+", "-", node_type).strip("-") if isinstance(node_type, str) else ""
    head = {
        "title": title,
        "type": "causal",
        "tags": ["causal", tag] if tag and tag != "causal" else ["causal"],
        "permalink": f"causal/{title.lower()}",
    }
    text = f"---\n{frontmatter_yaml.dump({**head, **frontmatter})}---\n\n# {title}\n"
    if lines:
        text += f"\n## Causal Relationships\n{lines}\n"
    return NoteParts(frontmatter, tuple(removed), (("Causal Relationships", lines),), text)


def graph_note_text(meta: dict[str, Any]) -> str:
    head = {"title": GRAPH_NOTE_TITLE, "type": "note", "tags": ["ai-agents"], GRAPH_META_KEY: meta}
    return (
        f"---\n{frontmatter_yaml.dump(head)}---\n\n# {GRAPH_NOTE_TITLE}\n\n"
        "What the imported causal-graph.json held besides its nodes, edges and patterns: its version and\n"
        "other top-level fields, the order of its arrays, and any item no note can stand for (an edge to an\n"
        "unknown id, a node without an id). `brain export ai-agents` reads this note. Without it, export\n"
        "still works: version 1.0, nodes and patterns sorted by id.\n"
    )


def pattern_parts(item: Item, title: str, edges: list[Edge], titles: dict[str, str]) -> tuple[NoteParts, list[str]]:
    """A pattern note (rendered by `render_pattern`), checked by reading it back as export will."""
    data = item.data
    lines, edge_extra = causal_lines(edges, titles)
    meta: dict[str, Any] = {}
    unknown = {key: value for key, value in data.items() if key not in PATTERN_KEYS and key not in PATTERN_SECTIONS}
    if unknown:
        meta["fields"] = unknown
    if edge_extra:
        meta["edges"] = edge_extra
    parts = _pattern_note(data, title, lines, meta)
    fields, missing = corrections(data, pattern_json(parse_note(parts.text)))
    warnings = []
    if fields or missing:
        # Values the sections cannot hold exactly (a null action, a description with edge spaces).
        if fields:
            meta["fields"] = {**meta.get("fields", {}), **fields}
        if missing:
            meta["missing"] = missing
        parts = _pattern_note(data, title, lines, meta)
        warnings += [
            f"{key}: the note cannot show this value exactly; kept verbatim in '{META_KEY}'"
            for key in fields
            if key not in unknown
        ]
        if not same(data, pattern_json(parse_note(parts.text))):
            warnings.append("the note does not give back this pattern exactly; export will differ (please report)")
    return parts, warnings


def _pattern_note(data: dict[str, Any], title: str, lines: str, meta: dict[str, Any]) -> NoteParts:
    frontmatter = {fm_key: data[key] for key, fm_key in PATTERN_KEYS.items() if key in data}
    removed = [fm_key for key, fm_key in PATTERN_KEYS.items() if key not in data]
    if meta:
        frontmatter[META_KEY] = meta
    else:
        removed.append(META_KEY)

    def text(key: str) -> str:
        return data[key] if isinstance(data.get(key), str) else ""

    # render_pattern writes trigger, success_rate, occurrences and last_validated; the exact values
    # come from extra_frontmatter, which takes their places, and absent ones are removed after.
    rendered = render_pattern(
        title,
        trigger=text("trigger"),
        action=text("action"),
        success_rate=0.0,
        occurrences=0,
        last_validated="",
        context=text("description"),
        extra_frontmatter=frontmatter,
    )
    rendered = set_frontmatter(rendered, {}, remove=tuple(removed))
    if lines:  # written here rather than by render_pattern, whose `:g` would round some weights
        rendered = replace_section(rendered, "Causal Relationships", lines)
    sections = (
        ("Context", escape_block(text("description").strip())),
        ("Trigger", escape_block(text("trigger").strip())),
        ("Action", escape_block(text("action").strip())),
        ("Causal Relationships", lines),
    )
    return NoteParts(frontmatter, tuple(removed), sections, rendered)


# ---------------------------------------------------------------- note -> JSON


def node_json(note: Note) -> dict[str, Any]:
    """The graph node a `type: causal` note stands for (a note written by hand gets a v2 content id)."""
    fm = note.frontmatter
    label = fm.get("label", note.title)
    node_type = fm.get("node_type")
    out: dict[str, Any] = {"id": fm["node_id"] if "node_id" in fm else content_id(str(node_type or ""), str(label))}
    if "node_type" in fm:
        out["type"] = node_type
    out["label"] = label
    for key, fm_key in NODE_KEYS.items():
        if key not in out and fm_key in fm:
            out[key] = fm[fm_key]
    return _corrected(out, fm.get(META_KEY))


def pattern_json(note: Note) -> dict[str, Any]:
    """The graph pattern a pattern note stands for; description and action are its sections."""
    fm = note.frontmatter
    name = fm.get("name", note.title)
    out: dict[str, Any] = {"id": fm["pattern_id"] if "pattern_id" in fm else content_id("pattern", str(name))}
    out["name"] = name
    out["description"] = unescape_block(note.section_text("Context").strip())
    if "trigger" in fm:
        out["trigger"] = fm["trigger"]
    out["action"] = unescape_block(note.section_text("Action").strip())
    for key, fm_key in PATTERN_KEYS.items():
        if key not in out and fm_key in fm:
            out[key] = fm[fm_key]
    return _corrected(out, fm.get(META_KEY))


def _corrected(out: dict[str, Any], meta: Any) -> dict[str, Any]:
    if not isinstance(meta, dict):
        return out
    for key in meta.get("missing") or []:
        out.pop(key, None)
    if isinstance(meta.get("fields"), dict):
        out.update(meta["fields"])
    return out


def edge_extra(note: Note) -> dict[str, Any]:
    """`ai_agents.edges` of a source note: per `<type> <target id>`, what its line cannot hold."""
    meta = note.frontmatter.get(META_KEY)
    edges = meta.get("edges") if isinstance(meta, dict) else None
    return edges if isinstance(edges, dict) else {}
