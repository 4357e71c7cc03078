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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from brain.errors import InvalidInput, NoteNotFound, Remedy, UsageError
from brain.markdown.edit import set_frontmatter
from brain.markdown.model import Note
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.facts import holds as hold_register
from brain.memory.facts.note import (
    TIERS,
    Fact,
    NewFact,
    canonical_json,
    close_fact,
    fact_from_note,
    fact_title,
    format_time,
    nfc,
    parse_time,
    render_fact,
    value_hash,
)
from brain.memory.facts.settings import FactSettings, load_settings
from brain.memory.facts.table import fact_table
from brain.vault.vault import TYPE_FOLDERS, NoteFile, Vault

MAX_RETENTION_DAYS = 3_650_000  # ten thousand years: any longer is "forever", which is no retention at all
_NAMESPACE = re.compile(r"^[\w.:@/+-]+$", re.UNICODE)


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


def check_namespace(namespace: str) -> str:
    namespace = nfc(namespace.strip())
    if not _NAMESPACE.match(namespace):
        raise UsageError(
            f"namespace '{namespace}' must be one word of letters, digits and . : @ / + - (e.g. user:alice, org:ledger, run:123)"
        )
    return namespace


def _check_line(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value.strip():
        raise UsageError(f"a fact needs a {what}: one line of text")
    return nfc(value.strip())


def _time_or_unknown(value: datetime | None) -> str:
    return format_time(value) if value is not None else "an unknown time"


def _check_authority(authority: float) -> float:
    if not 0.0 <= authority <= 1.0:
        raise UsageError(f"authority must be between 0 and 1, got {authority}")
    return authority


def optional_time(value: str | datetime | None, what: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    try:
        return parse_time(value, what)
    except InvalidInput as error:  # a time the caller gave, not one read from a note
        raise UsageError(*error.args) from None


def _write_new(vault: Vault, new: NewFact) -> FactWritten:
    path = f"{TYPE_FOLDERS['fact']}/{vault.filename_for(new.title)}"
    text = render_fact(new, TYPE_FOLDERS["fact"])
    vault.write(path, text, create=True)
    return FactWritten(path, fact_from_note(parse_note(text, path)))


@dataclass(frozen=True)
class FactRequest:
    """A fact to record, as `brain fact record` and MCP `record_fact` take it (None: the vault's default)."""

    kind: str
    subject: str
    value: Any
    namespace: str | None = None
    tier: str | None = None
    source: str | None = None
    authority: float | None = None
    valid_from: str | datetime | None = None
    compliance_class: str | None = None
    retention_days: int | None = None
    legal_delete_at: str | datetime | None = None
    legal_hold: bool = False
    supersede: bool = False


def record(corpus: Corpus, request: FactRequest, *, caller: str | None = None) -> FactWritten:
    """Record a requested fact: its source checked first (a note of the vault), then `record_fact`."""
    check_source(corpus, request.source)
    fields = {name: getattr(request, name) for name in request.__dataclass_fields__}
    kind, subject, value = fields.pop("kind"), fields.pop("subject"), fields.pop("value")
    return record_fact(corpus, kind, subject, value, caller=caller, **fields)


def record_fact(
    corpus: Corpus,
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
    supersede: bool = False,
) -> FactWritten:
    """Write a new fact note in `facts/`. Everything is checked before anything is written.

    A subject has one current value per namespace: when it already has one, recording is refused
    (the error names that fact and how to supersede it), unless `supersede` is true, which
    supersedes the current fact with the new value in the same step (`supersede_fact`)."""
    vault = corpus.vault
    settings = settings or load_settings(vault)
    recorded = (now or now_utc()).astimezone(UTC)
    kind, subject = _check_line(kind, "kind"), _check_line(subject, "subject")
    namespace = check_namespace(namespace or settings.default_namespace)
    tier = tier or settings.tier_for(namespace)
    if tier not in TIERS:
        raise UsageError(f"tier '{tier}' is not one of {', '.join(TIERS)}")
    if retention_days is not None and not 0 <= retention_days <= MAX_RETENTION_DAYS:
        raise UsageError(f"retention days must be between 0 and {MAX_RETENTION_DAYS}, got {retention_days}")
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
        valid_from=optional_time(valid_from, "valid from") or recorded,
        compliance_class=settings.check_class(compliance_class or "internal"),
        retention_days=retention_days,
        legal_delete_at=optional_time(legal_delete_at, "legal delete at"),
        legal_hold=legal_hold,
        recorded_at=recorded,
        recorded_by=caller or default_caller(),
    )
    with vault.locked():  # the check and the write are one step: two writers never both record a first value
        current = current_facts(corpus, subject, namespace)
        if current and not supersede:
            shown = current[0]
            raise InvalidInput(
                f"'{subject}' already has a current value in namespace '{namespace}': {shown.title} = "
                f"{shown_value(shown.value)}; to replace it, ",
                Remedy("supersede_subject", subject=subject, namespace=namespace),
            )
        if current:
            old = _only(current, subject, namespace)
            if old.kind != kind:
                raise InvalidInput(
                    f"{old.title} is a {old.kind} fact; a supersede keeps the kind, so record '{kind}' "
                    f"under another subject, or supersede with kind '{old.kind}'"
                )
            return supersede_fact(
                corpus,
                old.title,
                value,
                valid_from=valid_from,
                authority=authority,
                source=source,
                caller=new.recorded_by,
                now=recorded,
            )
        if legal_hold:  # first: a hold is never on a fact the register does not know
            hold_register.register(vault, [new.title], new.recorded_by)
        return _write_new(vault, new)


def shown_value(value: Any, limit: int = 80) -> str:
    """A value on one line, cut to `limit` characters."""
    text = " ".join((value if isinstance(value, str) else canonical_json(value)).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def current_facts(corpus: Corpus, subject: str, namespace: str) -> list[Fact]:
    """The open facts about `subject` in `namespace`: one, or several in a vault whose facts were
    recorded before brain refused a second current value (or written by hand)."""
    table = fact_table(corpus)
    columns = table.namespaces.get(namespace)
    if columns is None:
        return []
    rows = columns.rows(None, nfc(subject))
    return [fact for fact in (table.facts[position] for position in columns.positions[rows]) if not fact.closed]


def _only(current: list[Fact], subject: str, namespace: str) -> Fact:
    if len(current) == 1:
        return current[0]
    shown = ", ".join(f"{fact.title} ({shown_value(fact.value, 40)})" for fact in current)
    raise InvalidInput(
        f"'{subject}' has {len(current)} current values in namespace '{namespace}': {shown}; name one by its id"
    )


def _named_fact(corpus: Corpus, name: str, namespace: str | None) -> str:
    """The path of the fact `name` names: a subject with a current value in the namespace, else a note name."""
    chosen = check_namespace(namespace or load_settings(corpus.vault).default_namespace)
    subject = nfc(name.strip())
    current = current_facts(corpus, subject, chosen)
    if current:
        return _only(current, subject, chosen).path or ""
    try:
        return corpus.resolver().resolve(name)
    except NoteNotFound:
        raise NoteNotFound(
            f"no fact is named '{name}' and no current fact is about '{subject}' in namespace '{chosen}'; "
            "give the fact's id, or its subject with ",
            Remedy("subject_namespace"),
        ) from None


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


def _open_fact(corpus: Corpus, name: str, namespace: str | None = None) -> tuple[NoteFile, Fact]:
    """The file of an open fact (named by its id, stem or path, or by its subject in `namespace`),
    read now (its stamp guards the closing write)."""
    vault = corpus.vault
    path = _named_fact(corpus, name, namespace)
    current = vault.read(path)
    if current.note.type != "fact":
        raise InvalidInput(f"'{name}' is {path}, a {current.note.type} note, not a fact")
    # As recall reads it: a fact a successor names as superseded is closed, its closing written or not.
    fact = fact_table(corpus).by_title.get(current.note.title.lower()) or fact_from_note(current.note)
    if fact.closed:
        how = f"superseded by {fact.superseded_by}" if fact.superseded_by else "invalidated"
        latest = current_of(corpus, fact)
        hint = (
            f"; supersede the current fact {latest.title} instead"
            if latest.title != fact.title and not latest.closed
            else "; record a new fact instead"
        )
        raise InvalidInput(f"{fact.title} is already closed ({how} at {_time_or_unknown(fact.valid_until)}){hint}")
    return current, fact


def supersede_fact(
    corpus: Corpus,
    name: str,
    value: Any,
    *,
    namespace: str | None = None,
    reason: str | None = None,
    valid_from: str | datetime | None = None,
    authority: float | None = None,
    source: str | None = None,
    caller: str | None = None,
    now: datetime | None = None,
) -> FactWritten:
    """One call: write the new fact (`supersedes` the old) and close the old (`valid_until`, `superseded_by`).

    `name` is the fact's id, stem or path, or its subject (in `namespace`, default the vault's)."""
    vault = corpus.vault
    with vault.locked():  # brain's own writers wait for each other: the read and both writes are one step
        recorded = (now or now_utc()).astimezone(UTC)
        current, old = _open_fact(corpus, name, namespace)
        starts = optional_time(valid_from, "valid from") or recorded
        if starts < old.valid_from:
            raise InvalidInput(
                f"the new value would start at {format_time(starts)}, before {old.title} itself "
                f"({format_time(old.valid_from)}); give a later ",
                Remedy("valid_from"),
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
            # a hold the register keeps is a hold, even when the old note was edited to drop it
            legal_hold=old.legal_hold or old.title.lower() in hold_register.held_titles(vault),
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
        if new.legal_hold:
            hold_register.register(vault, [new.title], caller)
        written = _write_new(vault, new)
        try:
            vault.write(old.path or "", closed_text, expected=current.stamp)
        except BaseException:
            vault.delete(written.path)  # the pair is one change: no new fact without the old one closed
            raise
        return FactWritten(written.path, written.fact, fact_from_note(parse_note(closed_text, old.path)))


def invalidate_fact(
    corpus: Corpus,
    name: str,
    *,
    namespace: str | None = None,
    reason: str | None = None,
    at: str | datetime | None = None,
    caller: str | None = None,
    now: datetime | None = None,
) -> FactWritten:
    """Close a fact with no successor: it stops applying at `at` (default now) and stays for audit.
    `name` is as for `supersede_fact`."""
    vault = corpus.vault
    with vault.locked():  # brain's own writers wait for each other: the read and both writes are one step
        recorded = (now or now_utc()).astimezone(UTC)
        current, fact = _open_fact(corpus, name, namespace)
        until = optional_time(at, "invalidate at") or recorded
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


def set_hold(
    corpus: Corpus, name: str, *, hold: bool, reason: str | None = None, caller: str | None = None
) -> FactWritten:
    """Put a legal hold on a fact, or lift it (`brain fact hold` / `release`; no MCP tool lifts one).

    The hold register is written first (`holds`), then the note's `legal_hold`: a crash between
    the two leaves the fact held either way. Lifting needs a reason, kept in the register."""
    vault = corpus.vault
    caller = caller or default_caller()
    path = corpus.resolver().resolve(name)
    current = vault.read(path)
    if current.note.type != "fact":
        raise InvalidInput(f"'{name}' is {path}, a {current.note.type} note, not a fact")
    fact = fact_from_note(current.note)
    if not hold and not (reason and reason.strip()):
        raise InvalidInput("lifting a legal hold needs --reason (it is kept in the hold register)")
    hold_register.register(
        vault, [fact.title], caller, release=not hold, reason=" ".join((reason or "").split()) or None
    )
    text = (
        set_frontmatter(current.note.text, {"legal_hold": True})
        if hold
        else set_frontmatter(current.note.text, {}, remove=("legal_hold",))
    )
    if text != current.note.text:
        vault.write(path, text, expected=current.stamp)
    changed = fact_from_note(parse_note(text, path))
    return FactWritten(path, changed)


def repair_interrupted(corpus: Corpus) -> list[FactWritten]:
    """Write the closing of every fact whose supersede was interrupted (the new fact written, the old
    not yet closed: `FactTable.interrupted`), as the supersede would have (`brain doctor --fix`)."""
    vault = corpus.vault
    table = fact_table(corpus)
    repaired = []
    for title in table.interrupted:
        closed = table.by_title[title.lower()]
        successor = table.by_title[(closed.superseded_by or "").lower()]

        def close(note: Note, closed: Fact = closed, successor: Fact = successor) -> str:
            if fact_from_note(note).closed:
                return note.text  # closed meanwhile
            return close_fact(
                note.text,
                valid_until=successor.valid_from,
                closed_at=successor.recorded_at,
                closed_by=successor.recorded_by or default_caller(),
                reason="closing written by `brain doctor --fix`: the supersede that recorded "
                f"{successor.title} was interrupted",
                superseded_by=successor.title,
            )

        vault.update(closed.path or "", close)
        repaired.append(FactWritten(closed.path or "", successor, closed))
    return repaired


def check_source(corpus: Corpus, source: str | None) -> None:
    """A fact's source names a note of the vault (as a caused_by does): one that does not exist,
    or a name several notes have, is refused before anything is written."""
    if source and source.strip().strip("[]").strip():
        corpus.resolver().resolve(source.strip().strip("[]").strip())
