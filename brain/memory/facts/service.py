"""Immutable facts: record, supersede, invalidate, recall (bitemporal, ranked, journaled), history.

A fact is never edited in place: a new value is a new fact that supersedes the old one (one call
writes the new note and closes the old one), and `invalidate` closes a fact with no successor.
Recall reads the catalog through `Corpus`; the facts are kept as columns (numpy arrays per
namespace, indexed by kind and subject: `fact_table`) in `corpus.derived` until a note changes,
so a recall over 100,000 facts is a few vectorised comparisons. Two times: `as_of` (valid time: what was true then) and `known_at`
(recorded time: what the vault knew then, each fact as it stood then). Every recall appends a
record to the journal (`fact_journal`).
"""

from __future__ import annotations

import getpass
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from brain.errors import InvalidInput
from brain.memory.corpus import Corpus
from brain.memory.facts import index as fact_index
from brain.memory.facts import journal as fact_journal
from brain.memory.facts.settings import FactSettings, load_settings
from brain.memory.facts.table import NEVER, Columns, fact_table
from brain.notes.fact import (
    TIERS,
    Fact,
    NewFact,
    canonical_json,
    close_fact,
    fact_from_note,
    fact_title,
    format_time,
    parse_time,
    render_fact,
    value_hash,
)
from brain.notes.parse import parse_note
from brain.vault import TYPE_FOLDERS, Vault

DEFAULT_LIMIT = 10
MAX_LIMIT = 1000
RECENCY_HALF_LIFE_DAYS = 90.0
# How the parts of a score are weighed, with and without a query (each part is 0..1).
WEIGHTS_WITH_QUERY = {"similarity": 0.5, "recency": 0.2, "authority": 0.2, "validity": 0.1}
WEIGHTS_WITHOUT_QUERY = {"recency": 0.4, "authority": 0.4, "validity": 0.2}
STATUSES = ("valid", "closed", "not yet valid")
_NAMESPACE = re.compile(r"^[\w.:@/+-]+$", re.UNICODE)
# Scores are exact (rounded parts, rounded total) for a shortlist: numpy's unrounded totals pick every
# fact within this margin of the limit-th best (rounding moves a total by ~1e-6), and all of them
# when there are few.
_SHORTLIST_MARGIN = 1e-5
_SCORE_ALL_BELOW = 64


def default_caller(front_end: str = "cli") -> str:
    try:
        return f"{front_end}:{getpass.getuser()}"
    except (KeyError, OSError):
        return front_end


def now_utc() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


# ---------------------------------------------------------------- the table recall reads


def all_facts(corpus: Corpus) -> tuple[Fact, ...]:
    return fact_table(corpus).facts


# ---------------------------------------------------------------- writing


@dataclass(frozen=True)
class FactWritten:
    path: str
    fact: Fact
    closed: Fact | None = None  # the fact it superseded, as it is now


def _check_namespace(namespace: str) -> str:
    namespace = namespace.strip()
    if not _NAMESPACE.match(namespace):
        raise InvalidInput(
            f"namespace '{namespace}' must be one word of letters, digits and . : @ / + - (e.g. user:alice, org:ledger, run:123)"
        )
    return namespace


def _check_line(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value.strip():
        raise InvalidInput(f"a fact needs a {what}: one line of text")
    return value.strip()


def _check_authority(authority: float | None) -> float | None:
    if authority is not None and not 0.0 <= authority <= 1.0:
        raise InvalidInput(f"authority must be between 0 and 1, got {authority}")
    return authority


def _optional_time(value: str | datetime | None, what: str) -> datetime | None:
    if value is None or value == "":
        return None
    return value.astimezone(UTC) if isinstance(value, datetime) else parse_time(value, what)


def _write_new(vault: Vault, new: NewFact) -> FactWritten:
    path = f"{TYPE_FOLDERS['fact']}/{vault.filename_for(new.title)}"
    text = render_fact(new, TYPE_FOLDERS["fact"])
    vault.write(path, text, create=True)
    return FactWritten(path, fact_from_note(parse_note(text, path)))


def record_fact(
    vault: Vault,
    kind: str,
    subject: str,
    value: Any,
    *,
    namespace: str | None = None,
    tier: str | None = None,
    source: str | None = None,
    authority: float | None = None,
    valid_from: str | datetime | None = None,
    compliance_class: str | None = None,
    retention_days: int | None = None,
    legal_delete_at: str | datetime | None = None,
    legal_hold: bool = False,
    caller: str | None = None,
    now: datetime | None = None,
    settings: FactSettings | None = None,
) -> FactWritten:
    """Write a new fact note in `facts/`. Everything is checked before anything is written."""
    settings = settings or load_settings(vault)
    recorded = (now or now_utc()).astimezone(UTC)
    kind, subject = _check_line(kind, "kind"), _check_line(subject, "subject")
    namespace = _check_namespace(namespace or settings.default_namespace)
    tier = tier or settings.tier_for(namespace)
    if tier not in TIERS:
        raise InvalidInput(f"tier '{tier}' is not one of {', '.join(TIERS)}")
    if retention_days is not None and retention_days < 0:
        raise InvalidInput(f"retention days must be 0 or more, got {retention_days}")
    hashed = value_hash(value)  # refuses what is not plain data
    new = NewFact(
        title=fact_title(subject, kind, namespace, recorded, hashed),
        kind=kind,
        subject=subject,
        value=value,
        namespace=namespace,
        tier=tier,
        source=source.strip().strip("[]") if source and source.strip() else None,
        authority=_check_authority(authority) if authority is not None else 0.5,
        valid_from=_optional_time(valid_from, "valid from") or recorded,
        compliance_class=settings.check_class(compliance_class or "internal"),
        retention_days=retention_days,
        legal_delete_at=_optional_time(legal_delete_at, "legal delete at"),
        legal_hold=legal_hold,
        recorded_at=recorded,
        recorded_by=caller or default_caller(),
    )
    return _write_new(vault, new)


def find_fact(corpus: Corpus, name: str) -> Fact:
    """The fact a name (title, stem, permalink, path) resolves to; another note type is an error."""
    note = corpus.get(name)
    if note.type != "fact":
        raise InvalidInput(f"'{name}' is {note.path}, a {note.type} note, not a fact")
    return fact_from_note(note)


def current_of(corpus: Corpus, fact: Fact) -> Fact:
    """Follow `superseded_by` to the newest fact of the chain (stops at a loop or a missing link)."""
    table = fact_table(corpus)
    seen = {fact.title.lower()}
    while (
        fact.superseded_by and fact.superseded_by.lower() in table.by_title and fact.superseded_by.lower() not in seen
    ):
        fact = table.by_title[fact.superseded_by.lower()]
        seen.add(fact.title.lower())
    return fact


def _open_fact(vault: Vault, corpus: Corpus, name: str):
    """The file of an open fact, read now (its stamp guards the closing write)."""
    path = corpus.resolver().resolve(name)
    current = vault.read(path)
    if current.note.type != "fact":
        raise InvalidInput(f"'{name}' is {path}, a {current.note.type} note, not a fact")
    fact = fact_from_note(current.note)
    if fact.closed:
        how = f"superseded by {fact.superseded_by}" if fact.superseded_by else "invalidated"
        latest = current_of(corpus, fact)
        hint = (
            f"; supersede the current fact {latest.title} instead"
            if latest.title != fact.title and not latest.closed
            else "; record a new fact instead"
        )
        raise InvalidInput(f"{fact.title} is already closed ({how} at {format_time(fact.valid_until)}){hint}")
    return current, fact


def supersede_fact(
    vault: Vault,
    corpus: Corpus,
    name: str,
    value: Any,
    *,
    reason: str | None = None,
    valid_from: str | datetime | None = None,
    authority: float | None = None,
    source: str | None = None,
    caller: str | None = None,
    now: datetime | None = None,
) -> FactWritten:
    """One call: write the new fact (`supersedes` the old) and close the old (`valid_until`, `superseded_by`)."""
    recorded = (now or now_utc()).astimezone(UTC)
    current, old = _open_fact(vault, corpus, name)
    starts = _optional_time(valid_from, "valid from") or recorded
    if starts < old.valid_from:
        raise InvalidInput(
            f"the new value would start at {format_time(starts)}, before {old.title} itself ({format_time(old.valid_from)}); give a later --valid-from"
        )
    hashed = value_hash(value)
    if hashed == old.actual_hash:
        raise InvalidInput(f"{old.title} already has this value; nothing to supersede")
    caller = caller or default_caller()
    new = NewFact(
        title=fact_title(old.subject, old.kind, old.namespace, recorded, hashed),
        kind=old.kind,
        subject=old.subject,
        value=value,
        namespace=old.namespace,
        tier=old.tier,
        source=source.strip().strip("[]") if source and source.strip() else old.source,
        authority=_check_authority(authority) if authority is not None else old.authority,
        valid_from=starts,
        compliance_class=old.compliance_class,
        retention_days=old.retention_days,
        legal_delete_at=None,
        legal_hold=old.legal_hold,
        recorded_at=recorded,
        recorded_by=caller,
        supersedes=old.title,
    )
    closed_text = close_fact(
        current.note.text,
        valid_until=starts,
        closed_at=recorded,
        closed_by=caller,
        reason=reason,
        superseded_by=new.title,
    )
    written = _write_new(vault, new)
    try:
        vault.write(old.path or "", closed_text, expected=current.stamp)
    except BaseException:
        vault.delete(written.path)  # the pair is one change: no new fact without the old one closed
        raise
    return FactWritten(written.path, written.fact, fact_from_note(parse_note(closed_text, old.path)))


def invalidate_fact(
    vault: Vault,
    corpus: Corpus,
    name: str,
    *,
    reason: str | None = None,
    at: str | datetime | None = None,
    caller: str | None = None,
    now: datetime | None = None,
) -> FactWritten:
    """Close a fact with no successor: it stops applying at `at` (default now) and stays for audit."""
    recorded = (now or now_utc()).astimezone(UTC)
    current, fact = _open_fact(vault, corpus, name)
    until = _optional_time(at, "invalidate at") or recorded
    if until < fact.valid_from:
        raise InvalidInput(
            f"{fact.title} is valid from {format_time(fact.valid_from)}; it cannot end before that ({format_time(until)})"
        )
    text = close_fact(
        current.note.text,
        valid_until=until,
        closed_at=recorded,
        closed_by=caller or default_caller(),
        reason=reason,
        superseded_by=None,
    )
    vault.write(fact.path or "", text, expected=current.stamp)
    closed = fact_from_note(parse_note(text, fact.path))
    return FactWritten(fact.path or "", closed, closed)


# ---------------------------------------------------------------- recall


@dataclass(frozen=True)
class RecallHit:
    fact: Fact
    status: str  # one of STATUSES, at as_of as known at known_at
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
    vault: Vault,
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
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    query = query.strip() if query and query.strip() else None
    settings = load_settings(vault)
    chosen = tuple(dict.fromkeys(_check_namespace(n) for n in (namespaces or [settings.default_namespace])))
    evaluated = (now or now_utc()).astimezone(UTC)
    known = _optional_time(known_at, "known at") or evaluated
    at = _optional_time(as_of, "as of") or (known if known_at else evaluated)
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
    if query:
        if len(found.positions):
            candidates = [facts[p] for p in found.positions.tolist()]
            columns["similarity"], similarity_source = fact_index.similarity(
                vault, query, [fact.path or "" for fact in candidates], lambda i: _fact_text(candidates[i])
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
    recalled = Recall(tuple(hits), query, chosen, at, known, len(found.positions), similarity_source, dict(weights))
    record = fact_journal.append(
        vault, journal_record(recalled, kind, subject, limit, history, as_of, known_at, evaluated, caller)
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


def history(
    vault: Vault, corpus: Corpus, subject: str, *, namespace: str | None = None, kind: str | None = None
) -> list[Fact]:
    """The whole chain of values of a subject in one namespace, oldest first (the table keeps that order)."""
    chosen = _check_namespace(namespace or load_settings(vault).default_namespace)
    table = fact_table(corpus)
    columns = table.namespaces.get(chosen)
    if columns is None or subject not in columns.by_subject:
        raise InvalidInput(f"no facts about '{subject}' in namespace '{chosen}'; name the namespace with --namespace")
    return [table.facts[position] for position in columns.positions[columns.rows(kind, subject)]]


@dataclass(frozen=True)
class Replay:
    record: dict[str, Any]
    now: Recall


def replay(vault: Vault, corpus: Corpus, reference: str, *, now: datetime | None = None) -> Replay:
    """A journal record (what that recall returned) and the same recall run now (journaled too, as `replay of #N`)."""
    record = fact_journal.find(vault, reference)
    filters = record.get("filters") or {}
    again = recall_facts(
        vault,
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
