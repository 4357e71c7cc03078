"""Recall: the facts valid at an instant, ranked by relevance to a query, each recall journaled; history and replay."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from brain.errors import InvalidInput, Remedy, UsageError
from brain.memory.corpus import Corpus
from brain.memory.facts import index as fact_index
from brain.memory.facts import journal as fact_journal
from brain.memory.facts.note import (
    Fact,
    canonical_json,
    format_time,
    nfc,
)
from brain.memory.facts.service import check_namespace, default_caller, now_utc, optional_time
from brain.memory.facts.settings import load_settings
from brain.memory.facts.table import NEVER, Columns, fact_table

DEFAULT_LIMIT = 10
MAX_LIMIT = 1000
RECENCY_HALF_LIFE_DAYS = 90.0
# How the parts of a score are weighed, with and without a query (each part is 0..1).
WEIGHTS_WITH_QUERY = {"similarity": 0.5, "recency": 0.2, "authority": 0.2, "validity": 0.1}
WEIGHTS_WITHOUT_QUERY = {"recency": 0.4, "authority": 0.4, "validity": 0.2}
# Scores are exact (rounded parts, rounded total) for a shortlist: numpy's unrounded totals pick every
# fact within this margin of the limit-th best (rounding moves a total by ~1e-6), and all of them
# when there are few.
_SHORTLIST_MARGIN = 1e-5
_SCORE_ALL_BELOW = 64


@dataclass(frozen=True)
class RecallHit:
    fact: Fact
    status: str  # "valid", "closed" or "not yet valid", at as_of as known at known_at
    valid_until: datetime | None  # as known at known_at
    score: float
    parts: dict[str, float]


@dataclass(frozen=True)
class Recall:
    hits: tuple[RecallHit, ...]
    query: str | None
    namespaces: tuple[str, ...]
    as_of: datetime
    known_at: datetime
    matched: int  # facts that passed the filters, before the limit
    similarity: str | None  # where similarity came from, when there was a query
    weights: dict[str, float]
    journal: dict[str, Any] = field(default_factory=dict)  # seq and hash of the journal record
    pending: int = 0  # candidates whose vectors are not made yet: their similarity counted as 0


def _fact_text(fact: Fact) -> str:
    return f"{fact.kind} {fact.subject} {canonical_json(fact.value) if not isinstance(fact.value, str) else fact.value}"


@dataclass(frozen=True)
class _Candidates:
    """The facts that passed the filters, one entry each, with what their score is made of."""

    positions: np.ndarray  # in FactTable.facts
    until: np.ndarray  # valid_until as known at known_at (+inf: open)
    validity: np.ndarray  # 1.0 when valid at as_of
    recency: np.ndarray
    authority: np.ndarray


def _candidates(
    columns: Columns, kind: str | None, subject: str | None, at_s: float, known_s: float, history: bool
) -> _Candidates:
    """A namespace's facts of this kind and subject known at `known_s` (and valid at `at_s` unless `history`)."""
    rows = columns.rows(kind, subject)

    def take(values: np.ndarray) -> np.ndarray:
        return values if rows is None else values[rows]

    valid_from = take(columns.valid_from)
    until = np.where(take(columns.closed) <= known_s, take(columns.valid_until), NEVER)
    valid = (valid_from <= at_s) & (at_s < until)
    mask = take(columns.recorded) <= known_s
    if not history:
        mask &= valid
    keep = np.flatnonzero(mask)
    age_days = np.maximum(0.0, at_s - valid_from[keep]) / 86400.0
    return _Candidates(
        take(columns.positions)[keep],
        until[keep],
        valid[keep].astype(np.float64),
        np.power(0.5, age_days / RECENCY_HALF_LIFE_DAYS),
        take(columns.authority)[keep],
    )


def _joined(parts: list[_Candidates]) -> _Candidates:
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return _Candidates(np.zeros(0, dtype=np.int64), *(np.zeros(0) for _ in range(4)))
    return _Candidates(
        *(np.concatenate([getattr(p, name) for p in parts]) for name in _Candidates.__dataclass_fields__)
    )


def _shortlist(approx: np.ndarray, limit: int) -> np.ndarray:
    """Every candidate that can be among the `limit` best once scores are rounded (see _SHORTLIST_MARGIN)."""
    count = len(approx)
    if count <= max(limit, _SCORE_ALL_BELOW):
        return np.arange(count)
    threshold = np.partition(approx, count - limit)[count - limit]
    return np.flatnonzero(approx >= threshold - _SHORTLIST_MARGIN)


def recall_facts(
    corpus: Corpus,
    query: str | None = None,
    *,
    kind: str | None = None,
    subject: str | None = None,
    namespaces: list[str] | tuple[str, ...] | None = None,
    as_of: str | datetime | None = None,
    known_at: str | datetime | None = None,
    limit: int = DEFAULT_LIMIT,
    history: bool = False,
    caller: str | None = None,
    now: datetime | None = None,
) -> Recall:
    """Facts valid at `as_of` (default: now, or `known_at`) as the vault knew them at `known_at`, best first.

    Only the named namespaces are searched (default: the configured default namespace); recall
    never crosses into another. `history=True` adds closed (and not yet valid) facts, marked.
    The filters pick rows from the table's per-kind and per-subject indexes; the score parts are
    numpy columns, and only a shortlist is scored exactly (rounded parts, as `--json` shows them).
    """
    vault = corpus.vault
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    query = query.strip() if query and query.strip() else None
    kind, subject = (nfc(kind) if kind is not None else None), (nfc(subject) if subject is not None else None)
    settings = load_settings(vault)
    chosen = tuple(dict.fromkeys(check_namespace(n) for n in (namespaces or [settings.default_namespace])))
    evaluated = (now or now_utc()).astimezone(UTC)
    known = optional_time(known_at, "known at") or evaluated
    at = optional_time(as_of, "as of") or (known if known_at else evaluated)
    table = fact_table(corpus)
    weights = WEIGHTS_WITH_QUERY if query else WEIGHTS_WITHOUT_QUERY
    at_s, known_s = at.timestamp(), known.timestamp()
    found = _joined(
        [
            _candidates(table.namespaces[n], kind, subject, at_s, known_s, history)
            for n in chosen
            if n in table.namespaces
        ]
    )
    facts = table.facts
    columns = {"recency": found.recency, "authority": found.authority, "validity": found.validity}
    similarity_source = None
    pending = 0
    if query:
        if len(found.positions):
            candidates = [facts[p] for p in found.positions.tolist()]
            columns["similarity"], similarity_source, pending = fact_index.similarity(
                corpus.existing_index(),
                query,
                [fact.path or "" for fact in candidates],
                lambda i: _fact_text(candidates[i]),
            )
        else:
            columns["similarity"], similarity_source = np.zeros(0), "no facts to compare"
    approx = sum((weights[name] * columns[name] for name in weights), np.zeros(len(found.positions)))
    scored = []
    for i in _shortlist(approx, limit):
        parts = {
            "recency": round(float(found.recency[i]), 6),
            "authority": round(float(found.authority[i]), 6),
            "validity": float(found.validity[i]),
        }
        if query:
            parts = {"similarity": round(float(columns["similarity"][i]), 6), **parts}
        total = round(sum(weights[name] * parts[name] for name in weights), 6)
        scored.append((total, facts[found.positions[i]], int(i), parts))
    scored.sort(
        key=lambda item: (-item[0], -item[1].recorded_at.timestamp(), item[1].title, int(found.positions[item[2]]))
    )
    hits = []
    for total, fact, i, parts in scored[:limit]:
        until = float(found.until[i])
        until_time = None if until == NEVER else datetime.fromtimestamp(until, UTC)
        status = "valid" if found.validity[i] else ("not yet valid" if fact.valid_from.timestamp() > at_s else "closed")
        hits.append(RecallHit(fact, status, until_time, total, parts))
    recalled = Recall(
        tuple(hits), query, chosen, at, known, len(found.positions), similarity_source, dict(weights), pending=pending
    )
    record = fact_journal.append(
        vault,
        journal_record(recalled, kind, subject, limit, history, as_of, known_at, evaluated, caller),
        corpus.kept.setdefault("facts journal end", fact_journal.JournalEnd()),
    )
    return Recall(**{**recalled.__dict__, "journal": {"seq": record["seq"], "hash": record["hash"]}})


def journal_record(
    found: Recall,
    kind: str | None,
    subject: str | None,
    limit: int,
    history: bool,
    as_of: Any,
    known_at: Any,
    evaluated: datetime,
    caller: str | None,
) -> dict[str, Any]:
    """What the journal keeps of a recall: enough to replay it and to show what it returned."""
    return {
        "time": format_time(evaluated),
        "caller": caller or default_caller(),
        "query": found.query,
        "filters": {
            "kind": kind,
            "subject": subject,
            "namespaces": list(found.namespaces),
            "limit": limit,
            "history": history,
        },
        "as_of": format_time(found.as_of) if as_of not in (None, "") else None,
        "known_at": format_time(found.known_at) if known_at not in (None, "") else None,
        "similarity": found.similarity,
        "results": [
            {
                "id": hit.fact.title,
                "path": hit.fact.path,
                "version": hit.fact.actual_hash,
                "status": hit.status,
                "tampered": hit.fact.tampered,
                "score": hit.score,
                "parts": hit.parts,
                "value": hit.fact.value,
            }
            for hit in found.hits
        ],
    }


# ---------------------------------------------------------------- history and replay


def history(corpus: Corpus, subject: str, *, namespace: str | None = None, kind: str | None = None) -> list[Fact]:
    """The whole chain of values of a subject in one namespace, oldest first (the table keeps that order)."""
    vault = corpus.vault
    chosen = check_namespace(namespace or load_settings(vault).default_namespace)
    subject, kind = nfc(subject), (nfc(kind) if kind is not None else None)
    table = fact_table(corpus)
    columns = table.namespaces.get(chosen)
    if columns is None or subject not in columns.by_subject:
        raise InvalidInput(
            f"no facts about '{subject}' in namespace '{chosen}'; name the namespace with ", Remedy("namespace")
        )
    return _predecessors_first([table.facts[position] for position in columns.positions[columns.rows(kind, subject)]])


def namespaces(corpus: Corpus) -> list[str]:
    """The namespaces that hold facts, sorted."""
    return sorted(fact_table(corpus).namespaces)


def facts_valid_at(
    corpus: Corpus, *, namespace: str | None = None, as_of: str | datetime | None = None, now: datetime | None = None
) -> list[Fact]:
    """Every fact of a namespace (default: the configured one) valid at `as_of` (default: now), as the
    vault knows it now, by kind and subject: what a person looks at (the viewer), not a recall, so
    nothing is ranked and nothing is journaled."""
    chosen = check_namespace(namespace or load_settings(corpus.vault).default_namespace)
    evaluated = (now or now_utc()).astimezone(UTC)
    at = optional_time(as_of, "as of") or evaluated
    table = fact_table(corpus)
    columns = table.namespaces.get(chosen)
    if columns is None:
        return []
    found = _candidates(columns, None, None, at.timestamp(), evaluated.timestamp(), False)
    facts = [table.facts[position] for position in found.positions.tolist()]
    return sorted(facts, key=lambda fact: (fact.kind, fact.subject, fact.valid_from, fact.title))


def _predecessors_first(chain: list[Fact]) -> list[Fact]:
    """The chain with every fact before the one that superseded it: two values recorded in the same
    second (`fact record --supersede` right after a record) sort alike by time."""
    ordered = list(chain)
    moved = True
    while moved:
        moved = False
        at = {fact.title: number for number, fact in enumerate(ordered)}
        for number, fact in enumerate(ordered):
            successor = at.get(fact.superseded_by or "")
            if successor is not None and successor < number:
                ordered.insert(successor, ordered.pop(number))
                moved = True
                break
    return ordered


@dataclass(frozen=True)
class Replay:
    record: dict[str, Any]
    now: Recall


def replay(corpus: Corpus, reference: str, *, now: datetime | None = None) -> Replay:
    """A journal record (what that recall returned) and the same recall run now (journaled too, as `replay of #N`)."""
    vault = corpus.vault
    record = fact_journal.find(vault, reference)
    filters = record.get("filters") or {}
    again = recall_facts(
        corpus,
        record.get("query"),
        kind=filters.get("kind"),
        subject=filters.get("subject"),
        namespaces=filters.get("namespaces"),
        as_of=record.get("as_of"),
        known_at=record.get("known_at"),
        limit=int(filters.get("limit") or DEFAULT_LIMIT),
        history=bool(filters.get("history")),
        caller=f"replay of #{record.get('seq')}",
        now=now,
    )
    return Replay(record, again)
