"""Causal chains over `caused_by`: the ancestry of a note back to its root causes, what it led to,
why it exists (from the notes' own words), and exact figures over the whole vault.

Any note may name the note(s) that caused it in frontmatter `caused_by` (one `[[Note]]`, a list,
or a bare name). The links are read from the catalog through `Corpus` and kept as a parent/child
map cached in `corpus.derived` until a note changes; chains built from it are cached there too.
A cause that names no note (or several) becomes a broken step, `missing:Name`, and the walk goes
on with the causes that exist; a cycle stops the walk where it closes and is named; `max_depth`
bounds the walk in hops from the start note.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from brain.errors import UsageError
from brain.markdown.model import Note
from brain.markdown.summary import causes_named, note_summary, note_time, text_field
from brain.memory.corpus import Corpus, Resolver
from brain.memory.episodes.note import episode_from_note

DEFAULT_DEPTH = 20
MAX_DEPTH = 1000
MISSING = "missing:"
# Action types of work that should say what caused it; without `caused_by` they are orphans.
NEEDS_CAUSE = ("decision", "file_edit")
_CHAIN_CACHE_SIZE = 4096


@dataclass(frozen=True)
class BrokenCause:
    source: str  # path of the note whose caused_by names it
    name: str  # the name as written
    problem: str


@dataclass(frozen=True)
class CausedByGraph:
    resolver: Resolver  # names of the same notes, so one read of the vault serves a whole call
    notes: dict[str, Note]
    parents: dict[str, tuple[str, ...]]  # note path -> its causes (paths, or missing:Name)
    children: dict[str, tuple[str, ...]]  # note path or missing:Name -> the notes naming it as cause
    broken: tuple[BrokenCause, ...]


@dataclass(frozen=True)
class ChainStep:
    node: str  # the note's path, or missing:Name for a cause that is no note
    path: str | None
    title: str
    type: str  # the note type; "missing" for a broken step
    action_type: str | None
    time: str | None
    summary: str
    rationale: str | None
    depth: int  # hops from the start note
    level: int  # the indentation: longest run of causes before it within the chain
    caused_by: tuple[str, ...]  # steps of this chain that caused it
    broken: bool


@dataclass(frozen=True)
class Chain:
    start: str
    title: str
    direction: str  # backward (causes, root first) | forward (what it led to)
    max_depth: int
    steps: tuple[ChainStep, ...]  # causes before effects
    roots: tuple[str, ...]  # steps that name no cause: the root causes
    cycles: tuple[tuple[str, ...], ...]  # each cause first, where the walk met a note again
    broken: tuple[BrokenCause, ...]
    cut: tuple[str, ...]  # steps whose further causes (or effects) lie beyond max_depth


@dataclass(frozen=True)
class DecisionEvidence:
    episode: str
    episode_title: str
    via: str
    id: str
    title: str
    chosen: str | None
    rationale: str | None
    outcome: str | None


@dataclass(frozen=True)
class FactEvidence:
    path: str
    title: str
    via: str
    subject: str | None
    value: object
    valid_from: str | None
    valid_until: str | None
    superseded_by: str | None


@dataclass(frozen=True)
class Reasoning:
    path: str
    title: str
    type: str
    action_type: str | None
    time: str | None
    rationale: str | None
    summary: str
    chain: Chain
    decisions: tuple[DecisionEvidence, ...]
    facts: tuple[FactEvidence, ...]


# ---------------------------------------------------------------- the caused_by graph


def caused_by_graph(corpus: Corpus) -> CausedByGraph:
    """Parents and children of every note, cached until a note changes."""
    notes = corpus.notes()
    cached = corpus.derived.get("caused_by_graph")
    if isinstance(cached, CausedByGraph):
        return cached
    resolver = corpus.resolver()
    by_path = {note.path: note for note in notes if note.path}
    parents: dict[str, tuple[str, ...]] = {}
    children: dict[str, list[str]] = {}
    broken: list[BrokenCause] = []
    resolved: dict[str, list[str]] = {}  # a cause is usually named by several notes: resolve it once
    for path, note in by_path.items():
        named = corpus.memo("causes_named", note, causes_named)
        if not named:
            continue
        causes: list[str] = []
        for name in named:
            found = resolved.get(name)
            if found is None:
                found = resolved[name] = resolver.candidates(name)
            if len(found) == 1:
                cause = found[0]
            else:
                problem = "matches no note" if not found else f"matches several notes: {', '.join(found)}"
                broken.append(BrokenCause(path, name, problem))
                cause = MISSING + name.strip()
            if cause not in causes:
                causes.append(cause)
                children.setdefault(cause, []).append(path)
        parents[path] = tuple(causes)
    built = CausedByGraph(
        resolver, by_path, parents, {node: tuple(sorted(kids)) for node, kids in children.items()}, tuple(broken)
    )
    corpus.derived["caused_by_graph"] = built
    return built


def ancestor_names(corpus: Corpus, paths: list[str]) -> set[str]:
    """Names (as written) of the missing notes that these notes' ancestries name (for save's loop check)."""
    parents = caused_by_graph(corpus).parents
    seen, queue, names = set(paths), deque(paths), set()
    while queue:
        node = queue.popleft()
        if node.startswith(MISSING):
            names.add(node.removeprefix(MISSING))
            continue
        for parent in parents.get(node, ()):
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return names


# ---------------------------------------------------------------- chain


def _check_depth(max_depth: int) -> None:
    if not 1 <= max_depth <= MAX_DEPTH:
        raise UsageError(f"max depth must be between 1 and {MAX_DEPTH}, got {max_depth}")


def build_chain(corpus: Corpus, name: str, *, forward: bool = False, max_depth: int = DEFAULT_DEPTH) -> Chain:
    """The whole ancestry of a note, root causes first (or with `forward`, everything it led to)."""
    _check_depth(max_depth)
    graph = caused_by_graph(corpus)  # the one look at the vault for this call
    return _cached_chain(corpus, graph, graph.resolver.resolve(name), forward, max_depth)


def _cached_chain(corpus: Corpus, graph: CausedByGraph, start: str, forward: bool, max_depth: int) -> Chain:
    # cleared with the graph when a note changes
    memo: dict[tuple[str, bool, int], Chain] = corpus.derived.setdefault("causal_chains", {})
    key = (start, forward, max_depth)
    if key not in memo:
        if len(memo) >= _CHAIN_CACHE_SIZE:
            memo.clear()
        memo[key] = _chain(graph, start, forward, max_depth)
    return memo[key]


def _chain(graph: CausedByGraph, start: str, forward: bool, max_depth: int) -> Chain:
    step = graph.children if forward else graph.parents
    depth = {start: 0}
    queue, cut = deque([start]), []
    while queue:
        node = queue.popleft()
        following = step.get(node, ())
        if depth[node] >= max_depth:
            if any(other not in depth for other in following):
                cut.append(node)
            continue
        for other in following:
            if other not in depth:
                depth[other] = depth[node] + 1
                queue.append(other)
    # cause -> effect edges inside the chain; back edges of the walk close cycles and are left out
    back, cycles = _back_edges(start, step, depth, backward=not forward)
    causes_of: dict[str, list[str]] = {node: [] for node in depth}
    for node in depth:
        for parent in graph.parents.get(node, ()):
            if parent in depth and (parent, node) not in back:
                causes_of[node].append(parent)
    level = _levels(causes_of)
    steps = [_step(graph, node, depth[node], level[node], causes_of[node]) for node in depth]
    steps.sort(key=lambda item: (item.level, item.time or "", item.title.lower(), item.node))
    roots = tuple(item.node for item in steps if not item.broken and not graph.parents.get(item.node))
    broken = tuple(link for link in graph.broken if link.source in depth and MISSING + link.name.strip() in depth)
    note = graph.notes[start]
    return Chain(
        start,
        note.title,
        "forward" if forward else "backward",
        max_depth,
        tuple(steps),
        roots,
        cycles,
        broken,
        tuple(cut),
    )


def _back_edges(
    start: str, step: dict[str, tuple[str, ...]], inside: dict[str, int], backward: bool
) -> tuple[set[tuple[str, str]], tuple[tuple[str, ...], ...]]:
    """Edges (as cause, effect) that close a cycle in a depth-first walk, and each cycle, cause first."""
    back: set[tuple[str, str]] = set()
    cycles: list[tuple[str, ...]] = []
    on_path: dict[str, int] = {start: 0}
    path = [start]
    stack = [iter(step.get(start, ()))]
    done: set[str] = set()
    while stack:
        node = path[-1]
        following = next(stack[-1], None)
        if following is None:
            stack.pop()
            done.add(path.pop())
            del on_path[node]
        elif following in on_path:  # the walk meets a note it is still inside: a cycle
            loop = path[on_path[following] :]
            back.add((following, node) if backward else (node, following))
            cycles.append(tuple(reversed(loop)) if backward else tuple(loop))
        elif following in inside and following not in done:
            on_path[following] = len(path)
            path.append(following)
            stack.append(iter(step.get(following, ())))
    return back, tuple(dict.fromkeys(cycles))


def _levels(causes_of: dict[str, list[str]]) -> dict[str, int]:
    """Longest run of causes before each node (the graph given has no cycles)."""
    level: dict[str, int] = {}
    effects: dict[str, list[str]] = {node: [] for node in causes_of}
    waiting = {node: len(parents) for node, parents in causes_of.items()}
    for node, parents in causes_of.items():
        for parent in parents:
            effects[parent].append(node)
    queue = deque(node for node, count in waiting.items() if count == 0)
    while queue:
        node = queue.popleft()
        level[node] = max((level[parent] + 1 for parent in causes_of[node]), default=0)
        for effect in effects[node]:
            waiting[effect] -= 1
            if waiting[effect] == 0:
                queue.append(effect)
    return level


def _step(graph: CausedByGraph, node: str, depth: int, level: int, causes: list[str]) -> ChainStep:
    note = graph.notes.get(node)
    if note is None:
        name = node.removeprefix(MISSING)
        return ChainStep(node, None, name, "missing", None, None, "", None, depth, level, tuple(causes), True)
    return ChainStep(
        node=node,
        path=node,
        title=note.title,
        type=note.type,
        action_type=text_field(note, "action_type"),
        time=note_time(note),
        summary=note_summary(note),
        rationale=text_field(note, "rationale"),
        depth=depth,
        level=level,
        caused_by=tuple(sorted(causes)),
        broken=False,
    )


# ---------------------------------------------------------------- why


def reconstruct_reasoning(corpus: Corpus, name: str, *, max_depth: int = DEFAULT_DEPTH) -> Reasoning:
    """Why a note exists: its own action type, rationale and summary, the chain of causes behind it,
    and the evidence those notes hold: the decisions of episodes on the chain or linked from it,
    and the facts they cite. Every value is copied from a note."""
    _check_depth(max_depth)
    graph = caused_by_graph(corpus)
    resolver = graph.resolver
    chain = _cached_chain(corpus, graph, resolver.resolve(name), False, max_depth)
    note = graph.notes[chain.start]
    episodes: dict[str, str] = {}
    facts: dict[str, str] = {}
    on_chain = [step for step in reversed(chain.steps) if step.path]  # the note itself first, then its causes
    for step in on_chain:
        kind = graph.notes[step.node].type
        if kind == "episode":
            episodes.setdefault(step.node, "on the chain")
        elif kind == "fact":
            facts.setdefault(step.node, "on the chain")
    for step in on_chain:
        for link in graph.notes[step.node].links:
            target = resolver.try_resolve(link.target)
            if target is None or target == step.node or target not in graph.notes:
                continue
            kind = graph.notes[target].type
            if kind == "episode":
                episodes.setdefault(target, f"linked from {step.title}")
            elif kind == "fact":
                facts.setdefault(target, f"cited by {step.title}")
    decisions = [item for path, via in episodes.items() for item in _decisions(graph.notes[path], via)]
    return Reasoning(
        path=chain.start,
        title=note.title,
        type=note.type,
        action_type=text_field(note, "action_type"),
        time=note_time(note),
        rationale=text_field(note, "rationale"),
        summary=note_summary(note),
        chain=chain,
        decisions=tuple(decisions),
        facts=tuple(_fact(graph.notes[path], via) for path, via in facts.items()),
    )


def _decisions(note: Note, via: str) -> list[DecisionEvidence]:
    episode = episode_from_note(note)
    return [
        DecisionEvidence(
            note.path or "",
            note.title,
            via,
            decision.id,
            decision.title,
            decision.chosen,
            decision.rationale,
            decision.outcome,
        )
        for decision in episode.decisions
    ]


def _fact(note: Note, via: str) -> FactEvidence:
    return FactEvidence(
        path=note.path or "",
        title=note.title,
        via=via,
        subject=text_field(note, "subject"),
        value=note.frontmatter.get("value"),
        valid_from=text_field(note, "valid_from"),
        valid_until=text_field(note, "valid_until"),
        superseded_by=text_field(note, "superseded_by"),
    )


# ---------------------------------------------------------------- stats


# ---------------------------------------------------------------- doctor
