"""Build a compact context around one note: its neighbourhood, ranked by distance, packed to a budget.

From a start note, a breadth-first walk follows wikilinks, `## Relations`, causal edges
(`## Causal Relationships` and `caused_by`) and backlinks to a depth. Each note found becomes a
short summary (title, type, key frontmatter, its most telling sections, truncated) and the
summaries are packed nearest-first until an approximate token budget (about 4 characters a
token) is spent. What did not fit is listed by path, so the caller can read it on demand.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from brain.errors import UsageError
from brain.markdown.model import Note
from brain.memory.causal.graph import causal_graph
from brain.memory.corpus import Corpus
from brain.memory.episodes.note import decision_headline, episode_from_note, local_ids

CHARS_PER_TOKEN = 4
DEFAULT_DEPTH = 2
MAX_DEPTH = 5
DEFAULT_BUDGET = 2000
MIN_BUDGET = 100
MAX_BUDGET = 100_000
MAX_NOTES = 200  # notes considered for packing; a hub note must not make the walk unbounded

# How a neighbour was reached; lower ranks are packed first at the same distance.
_EDGE_RANK = {"causal": 0, "caused_by": 0, "relation": 1, "link": 2, "backlink": 3}
# Frontmatter keys a summary shows first, when present, per type; then other plain keys.
_KEY_FIELDS = {
    "episode": ("outcome", "task", "date", "session", "duration_minutes"),
    "pattern": ("trigger", "success_rate", "occurrences", "last_validated"),
    "context": ("project", "action_type", "rationale", "caused_by"),
    "fact": ("kind", "subject", "value", "valid_from", "valid_until", "superseded_by"),
    "tip": ("category", "trigger", "priority", "evidence"),
    "run": ("query", "iterations", "duration_ms"),
}
_SKIPPED_FIELDS = {"title", "type", "tags", "permalink", "created", "aliases", "metrics"}
# Sections that say most about a note of each type, in the order they are shown.
_KEY_SECTIONS = {
    "episode": ("Context", "Lessons Learned"),
    "pattern": ("Trigger", "Action", "Anti-Pattern Warning"),
    "tip": ("Tip", "Applies When", "Avoid"),
}
_MIN_ITEM_CHARS = 80


@dataclass(frozen=True)
class ContextItem:
    path: str
    title: str
    type: str
    distance: int
    via: str | None  # e.g. "causes", "links to", "linked from", "part_of"; None for the start note
    from_path: str | None
    text: str
    truncated: bool


@dataclass(frozen=True)
class BuiltContext:
    start: str
    depth: int
    budget_tokens: int
    used_tokens: int
    items: tuple[ContextItem, ...]
    omitted: tuple[str, ...]  # notes found within the depth that did not fit the budget
    missing: tuple[str, ...]  # link targets that are no note (yet)
    text: str


@dataclass(frozen=True)
class _Edge:
    target: str
    kind: str  # causal | caused_by | relation | link | backlink
    label: str


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def build_context(
    corpus: Corpus, name: str, *, depth: int = DEFAULT_DEPTH, budget: int = DEFAULT_BUDGET
) -> BuiltContext:
    """The start note and its neighbourhood to `depth` hops, nearest first, within `budget` tokens."""
    if not 0 <= depth <= MAX_DEPTH:
        raise UsageError(f"depth must be between 0 and {MAX_DEPTH}, got {depth}")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise UsageError(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens, got {budget}")
    start = corpus.get(name)
    notes = {note.path: note for note in corpus.notes() if note.path}
    adjacency, missing_targets = _adjacency(corpus)
    found = _walk(start.path or "", adjacency, depth)

    total = budget * CHARS_PER_TOKEN
    head = f"Context for {start.title} ({start.path}), {depth} hops around it, nearest first:"
    footer_reserve = min(400, total // 10)
    remaining = total - len(head) - footer_reserve
    items: list[ContextItem] = []
    omitted: list[str] = []
    for index, (path, distance, via, source) in enumerate(found):
        note = notes[path]
        share = max(total * 2 // 5, 600) if index == 0 else max(total // 5, 400)
        cap = min(remaining - 2, share)
        if index > 0 and cap < _MIN_ITEM_CHARS:
            omitted.append(path)
            continue
        via_text = f"{via} from {notes[source].title}" if via and source else None
        text, truncated = _summary(note, distance, via_text, max(cap, 0))
        remaining -= len(text) + 2
        items.append(ContextItem(path, note.title, note.type, distance, via, source, text, truncated))
    reachable = {item.path for item in items} | set(omitted)
    missing = sorted({target for path in reachable for target in missing_targets.get(path, ())})
    text = _render(head, items, omitted, missing, total)
    return BuiltContext(
        start=start.path or "",
        depth=depth,
        budget_tokens=budget,
        used_tokens=estimate_tokens(text),
        items=tuple(items),
        omitted=tuple(omitted),
        missing=tuple(missing),
        text=text,
    )


def _adjacency(corpus: Corpus) -> tuple[dict[str, list[_Edge]], dict[str, list[str]]]:
    """Edges of every note in both directions, cached on the corpus until a note changes."""
    cached = corpus.derived.get("context_adjacency")
    if isinstance(cached, tuple):
        return cached
    notes = corpus.notes()
    resolver = corpus.resolver()
    graph = causal_graph(corpus)
    adjacency: dict[str, list[_Edge]] = {note.path: [] for note in notes if note.path}
    missing: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()

    def add(source: str, target: str, kind: str, label: str, back_label: str) -> None:
        if source == target or (source, target) in seen:
            return
        seen.add((source, target))
        adjacency[source].append(_Edge(target, kind, label))
        adjacency[target].append(_Edge(source, "backlink" if kind in ("link", "relation") else kind, back_label))

    for (cause, effect), attributes in graph.edges.items():  # causal edges first: they outrank plain links
        if cause in adjacency and effect in adjacency:
            kind = "caused_by" if attributes.get("origin") == "caused_by" else "causal"
            add(cause, effect, kind, attributes["type"], f"{attributes['type']} (inverse)")
    for note in notes:
        if not note.path:
            continue
        own = local_ids(note)
        relation_types = {relation.target.lower(): relation.type for relation in note.relations}
        for link in note.links:
            if link.target.lower() in own:
                continue
            target = resolver.try_resolve(link.target)
            if target is None:
                if not resolver.candidates(link.target):
                    missing.setdefault(note.path, []).append(link.target)
                continue
            relation = relation_types.get(link.target.lower())
            if relation:
                add(note.path, target, "relation", relation, f"{relation} (inverse)")
            else:
                add(note.path, target, "link", "links to", "linked from")
    built = (adjacency, missing)
    corpus.derived["context_adjacency"] = built
    return built


def _walk(start: str, adjacency: dict[str, list[_Edge]], depth: int) -> list[tuple[str, int, str | None, str | None]]:
    """Breadth-first from `start`: (path, distance, how reached, from which note), nearest and strongest first."""
    found: dict[str, tuple[int, int, str | None, str | None]] = {start: (0, -1, None, None)}
    queue = deque([start])
    while queue and len(found) < MAX_NOTES:
        current = queue.popleft()
        distance = found[current][0]
        if distance >= depth:
            continue
        edges = sorted(adjacency.get(current, ()), key=lambda edge: (_EDGE_RANK[edge.kind], edge.target))
        for edge in edges:
            if edge.target in found:
                continue
            found[edge.target] = (distance + 1, _EDGE_RANK[edge.kind], edge.label, current)
            queue.append(edge.target)
            if len(found) >= MAX_NOTES:
                break
    order = sorted(found.items(), key=lambda item: (item[1][0], item[1][1], item[0]))
    return [(path, distance, via, source) for path, (distance, _, via, source) in order]


def _summary(note: Note, distance: int, via: str | None, cap: int) -> tuple[str, bool]:
    """A note's summary in at most `cap` characters (the header line is always kept)."""
    header = f"### {note.title} ({note.type}) - {note.path}"
    lines = [header]
    if via:
        lines.append(f"reached: {via} (distance {distance})")
    fields = _fields(note)
    if fields:
        lines.append("; ".join(f"{key}: {value}" for key, value in fields))
    if note.tags:
        lines.append("tags: " + ", ".join(note.tags))
    lines += _sections(note, distance)
    text = "\n".join(line for line in lines if line)
    if len(text) <= cap:
        return text, False
    if cap <= len(header) + 4:
        return header, True
    return text[: cap - 4].rstrip() + " ...", True


def _fields(note: Note) -> list[tuple[str, str]]:
    frontmatter = note.frontmatter
    keys = list(_KEY_FIELDS.get(note.type, ()))
    keys += [key for key in frontmatter if key not in keys and key not in _SKIPPED_FIELDS]
    shown = []
    for key in keys[:8]:
        value = frontmatter.get(key)
        if value is None or (isinstance(value, (dict, list)) and not value):
            continue
        text = str(value).replace("\n", " ")
        shown.append((key, text if len(text) <= 120 else text[:117] + "..."))
    return shown


def _sections(note: Note, distance: int) -> list[str]:
    """The parts of the body that say most: chosen sections per type, else the lead of the body."""
    limit = 1200 if distance == 0 else 400
    out: list[str] = []
    if note.type == "episode":
        episode = episode_from_note(note)
        for decision in episode.decisions[:6]:
            out.append(f"- decision {decision.id}: {decision_headline(decision)}")
    for heading in _KEY_SECTIONS.get(note.type, ()):
        content = _squeeze(note.section_text(heading))
        if content:
            out.append(f"{heading}: {_cut(content, limit // 2)}")
    if not out or (distance == 0 and note.type not in _KEY_SECTIONS):
        lead = _squeeze(_body_without_title(note))
        if lead:
            out.append(_cut(lead, limit))
    return out


def _body_without_title(note: Note) -> str:
    lines = note.body.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("# ")):
        lines.pop(0)
    return "\n".join(lines)


def _squeeze(text: str) -> str:
    """Blank lines dropped and runs of spaces folded, so a budget buys words, not whitespace."""
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines() if line.strip())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 4].rstrip() + " ..."


def _render(head: str, items: list[ContextItem], omitted: list[str], missing: list[str], total: int) -> str:
    """Header, summaries, then what was left out, as far as the budget allows."""
    body = "\n\n".join([head] + [item.text for item in items])
    footers: list[str] = []
    for label, names in (
        ("Not included (over budget; read them by path)", omitted),
        ("Linked but not written yet", missing),
    ):
        if not names:
            continue
        room = total - len(body) - sum(len(f) + 2 for f in footers) - 2
        line = f"{label}: " + ", ".join(names)
        if len(line) > room:
            shown: list[str] = []
            for name in names:
                candidate = f"{label}: " + ", ".join([*shown, name]) + f" (+{len(names) - len(shown) - 1} more)"
                if len(candidate) > room:
                    break
                shown.append(name)
            line = f"{label}: " + ", ".join(shown) + f" (+{len(names) - len(shown)} more)" if shown else ""
        if line and len(line) <= room:
            footers.append(line)
    return "\n\n".join([body, *footers]) + "\n"
