"""Every fact of a vault as columns, built once per catalog change and kept in `corpus.derived`.

Recall and history never walk all the facts: each namespace's facts are numpy columns (times as
epoch seconds, +inf for never), ordered oldest first (valid_from, recorded_at, title), with the
row numbers of each kind and of each subject. A filter by kind or subject takes those rows and
compares only them; history is a subject's rows, already in order.

A supersede writes the new fact, then closes the old one. When it was killed between the two,
the old fact's note still says it is open; the table reads it as closed anyway, as the supersede
would have closed it (its successor names it in `supersedes`), so a subject never has two
current values. `interrupted` lists those facts for `brain doctor` (whose `--fix` writes the
closing).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from brain.memory.corpus import Corpus
from brain.memory.facts.note import Fact, fact_from_note

NEVER = np.inf
_NO_ROWS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Columns:
    """One namespace's facts; row i is `facts[positions[i]]` of the table."""

    positions: np.ndarray  # positions in FactTable.facts
    valid_from: np.ndarray
    valid_until: np.ndarray
    recorded: np.ndarray
    closed: np.ndarray  # when the closing was written (+inf: open)
    authority: np.ndarray
    by_kind: dict[str, np.ndarray]  # kind -> its rows, ascending
    by_subject: dict[str, np.ndarray]  # subject -> its rows, ascending (oldest first)

    def rows(self, kind: str | None, subject: str | None) -> np.ndarray | None:
        """The rows of this kind and subject (None: no filter, every row)."""
        if subject is not None:
            found = self.by_subject.get(subject, _NO_ROWS)
            if kind is not None:
                found = found[np.isin(found, self.by_kind.get(kind, _NO_ROWS), assume_unique=True)]
            return found
        if kind is not None:
            return self.by_kind.get(kind, _NO_ROWS)
        return None


@dataclass(frozen=True)
class FactTable:
    facts: tuple[Fact, ...]
    namespaces: dict[str, Columns]
    by_title: dict[str, Fact]  # lower-cased title -> fact
    interrupted: tuple[str, ...] = ()  # titles of facts closed by the reader rule (see the module doc)


def _epoch(instant: datetime | None) -> float:
    return NEVER if instant is None else instant.timestamp()


def closed_at(fact: Fact, by_title: dict[str, Fact]) -> datetime | None:
    """When the closing became known: `closed_at`, else the successor's recording, else valid_until."""
    if fact.valid_until is None:
        return None
    if fact.closed_at is not None:
        return fact.closed_at
    successor = by_title.get((fact.superseded_by or "").lower())
    if successor is not None:
        return max(successor.recorded_at, fact.recorded_at)
    return max(fact.valid_until, fact.recorded_at)


def _groups(values: list[str]) -> dict[str, np.ndarray]:
    """value -> the (ascending) row numbers holding it."""
    codes: dict[str, int] = {}
    coded = np.fromiter((codes.setdefault(value, len(codes)) for value in values), dtype=np.int64, count=len(values))
    order = np.argsort(coded, kind="stable")
    bounds = np.flatnonzero(np.diff(coded[order])) + 1
    parts = np.split(order, bounds) if len(order) else []
    names = list(codes)
    return {names[int(coded[part[0]])]: part for part in parts}


def _columns(facts: tuple[Fact, ...], positions: list[int], by_title: dict[str, Fact]) -> Columns:
    # Oldest first, as history lists them (the position breaks the last ties, as a stable sort would).
    positions = sorted(positions, key=lambda p: (facts[p].valid_from, facts[p].recorded_at, facts[p].title, p))
    members = [facts[p] for p in positions]
    count = len(members)
    return Columns(
        positions=np.asarray(positions, dtype=np.int64),
        valid_from=np.fromiter((f.valid_from.timestamp() for f in members), dtype=np.float64, count=count),
        valid_until=np.fromiter((_epoch(f.valid_until) for f in members), dtype=np.float64, count=count),
        recorded=np.fromiter((f.recorded_at.timestamp() for f in members), dtype=np.float64, count=count),
        closed=np.fromiter((_epoch(closed_at(f, by_title)) for f in members), dtype=np.float64, count=count),
        authority=np.fromiter((f.authority for f in members), dtype=np.float64, count=count),
        by_kind=_groups([f.kind for f in members]),
        by_subject=_groups([f.subject for f in members]),
    )


def _close_superseded(facts: list[Fact]) -> tuple[list[Fact], tuple[str, ...]]:
    """Facts an open note claims, closed as their successor's supersede would have closed them."""
    by_title = {fact.title.lower(): fact for fact in facts}
    successors: dict[str, Fact] = {}
    for fact in facts:
        old = by_title.get((fact.supersedes or "").lower())
        if old is not None and old is not fact and not old.closed and fact.valid_from >= old.valid_from:
            known = successors.get(old.title.lower())
            if known is None or (fact.valid_from, fact.title) < (known.valid_from, known.title):
                successors[old.title.lower()] = fact
    if not successors:
        return facts, ()
    closed = []
    for fact in facts:
        successor = successors.get(fact.title.lower())
        closed.append(
            fact
            if successor is None
            else replace(
                fact,
                valid_until=successor.valid_from,
                superseded_by=successor.title,
                closed_at=max(successor.recorded_at, fact.recorded_at),
            )
        )
    return closed, tuple(
        sorted(successor_of.title for successor_of in facts if successor_of.title.lower() in successors)
    )


def build(facts: list[Fact]) -> FactTable:
    facts, interrupted = _close_superseded(facts)
    table = tuple(facts)
    by_title = {fact.title.lower(): fact for fact in table}
    grouped: dict[str, list[int]] = {}
    for position, fact in enumerate(table):
        grouped.setdefault(fact.namespace, []).append(position)
    return FactTable(
        table,
        {namespace: _columns(table, positions, by_title) for namespace, positions in grouped.items()},
        by_title,
        interrupted,
    )


def fact_table(corpus: Corpus) -> FactTable:
    """Every fact of the vault, cached with the corpus until a note changes."""
    corpus.refresh()  # brings the loaded notes up to date, which clears `derived` on a change
    cached = corpus.derived.get("facts")
    if isinstance(cached, FactTable):
        return cached
    # Each note's Fact is remembered while the note is unchanged: after an edit only it is re-read.
    built = build([corpus.memo("fact", note, fact_from_note) for note in corpus.of_type("fact")])
    corpus.derived["facts"] = built
    return built
