"""The retention sweeper: the only way brain hard-deletes a fact.

A fact is due when one of these has passed (the earliest wins):
- its `legal_delete_at` (an explicit date; open or closed, retention does not matter);
- for a closed fact (superseded or invalidated): `valid_until` plus its retention days, taken
  from its compliance class's policy in `.brain/config.toml` when there is one (an organisation's
  rule outranks a fact's own), else the fact's `retention_days`, else `[retention] retention_days`;
- for an `ephemeral` fact: `recorded_at` plus `[retention] ephemeral_days`.
A legal hold (on the fact, its namespace or its class) blocks deletion; held facts are listed.

A real sweep removes each due fact everywhere: its file, its catalog and full-text rows, its
vectors, every version of it in the note history, and its value in the recall journal (the hash stays, so the chain verifies). Links to
it in its neighbours become plain text (`FACT-x (purged)`). A receipt (what, when, which policy,
content hashes, which stores) is written to `.brain/journal/sweeps/`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from brain.errors import BrainError, IndexBusy, WriteConflict
from brain.memory.corpus import Corpus
from brain.memory.facts import index as fact_index
from brain.memory.facts import journal as fact_journal
from brain.memory.facts.service import all_facts
from brain.memory.facts.settings import FactSettings, load_settings
from brain.memory.notes.history import purge_paths
from brain.notes.fact import Fact, format_time
from brain.vault import Vault

RECEIPTS_DIR = "sweeps"
LOG_BUSY = (
    "another process kept reading the catalog for a minute, so its write-ahead log "
    "(.brain/index/catalog.sqlite3-wal) still holds old pages of the swept rows"
)
BATCH = 256  # files per hold of the vault's write lock: a fraction of a second each, so other writers barely wait
Progress = Callable[[str, int, int], None]
Failure = BrainError | OSError | None


@dataclass(frozen=True)
class SweepItem:
    fact: Fact
    policy: str  # legal_delete_at | retention_days (class X | fact | default) | ephemeral_days
    reason: str
    due: datetime
    held: str | None = None  # why it may not be deleted


@dataclass(frozen=True)
class SweepReport:
    dry_run: bool
    now: datetime
    due: tuple[SweepItem, ...]  # deleted (or to delete, in a dry run)
    held: tuple[SweepItem, ...]
    receipt: str | None = None  # vault-relative path of the audit receipt
    stores: dict[str, int] = field(default_factory=dict)


def _hold(fact: Fact, settings: FactSettings) -> str | None:
    if fact.legal_hold:
        return "legal hold on the fact"
    if fact.namespace in settings.held_namespaces:
        return f"legal hold on namespace {fact.namespace}"
    policy = settings.class_policies.get(fact.compliance_class)
    if policy is not None and policy.legal_hold:
        return f"legal hold on class {fact.compliance_class}"
    return None


def due_item(fact: Fact, settings: FactSettings, now: datetime) -> SweepItem | None:
    """Why and since when a fact may be deleted, or None while no policy makes it due."""
    reasons: list[tuple[datetime, str, str]] = []
    if fact.legal_delete_at is not None:
        reasons.append(
            (fact.legal_delete_at, "legal_delete_at", f"legal delete date {format_time(fact.legal_delete_at)}")
        )
    if fact.valid_until is not None:
        days: int | None
        class_policy = settings.class_policies.get(fact.compliance_class)
        if class_policy is not None and class_policy.retention_days is not None:
            days, source = class_policy.retention_days, f"class {fact.compliance_class}"
        elif fact.retention_days is not None:
            days, source = fact.retention_days, "fact"
        else:
            days, source = settings.retention_days, "default"
        if days is not None:
            how = "superseded" if fact.superseded_by else "invalidated"
            reasons.append(
                (
                    fact.valid_until + timedelta(days=days),
                    f"retention_days ({source})",
                    f"{how} {format_time(fact.valid_until)}, kept {days} days ({source})",
                )
            )
    if fact.tier == "ephemeral" and settings.ephemeral_days is not None:
        reasons.append(
            (
                fact.recorded_at + timedelta(days=settings.ephemeral_days),
                "ephemeral_days",
                f"ephemeral, recorded {format_time(fact.recorded_at)}, kept {settings.ephemeral_days} days",
            )
        )
    passed = sorted(reason for reason in reasons if reason[0] <= now)
    if not passed:
        return None
    due, policy, reason = passed[0]
    return SweepItem(fact, policy, reason, due, _hold(fact, settings))


def plan_sweep(vault: Vault, corpus: Corpus, *, now: datetime | None = None) -> SweepReport:
    """What a sweep would delete now and why, and what a hold keeps; nothing changes."""
    return _plan(vault, all_facts(corpus), now)


def _plan(vault: Vault, facts: tuple[Fact, ...], now: datetime | None) -> SweepReport:
    settings = load_settings(vault)
    now = (now or datetime.now(UTC)).astimezone(UTC)
    items = [item for item in (due_item(fact, settings, now) for fact in facts) if item is not None]
    items.sort(key=lambda item: (item.due, item.fact.title))
    return SweepReport(True, now, tuple(i for i in items if not i.held), tuple(i for i in items if i.held))


def sweep(
    vault: Vault, corpus: Corpus, *, dry_run: bool, now: datetime | None = None, progress: Progress | None = None
) -> SweepReport:
    """Plan, and unless `dry_run`, delete every due fact from every store and write a receipt.

    One batch whatever the count: the files go and their neighbours are relinked in batches of
    a few hundred (`Vault.delete_many` / `update_many`: one hold of the write lock each, one
    sync at the end), then the index forgets them all at once (`fact_index.purge`: one catalog
    transaction for the removed rows, one vector delete, one full-text merge), the journal is
    rewritten once, and one receipt lists every fact. The index lock is held from the first
    deletion to the end of the purge, so a running `brain watch` that sees the files go finds
    the catalog already current instead of re-scanning them.

    The first error (a file that cannot be removed, a neighbour that changed meanwhile or
    cannot be decoded) stops the deletions, or the relinks; what was deleted by then is still
    relinked, purged from every store and put in the receipt, and then the error is raised.
    """
    facts = all_facts(corpus)  # read once: each read of a large vault first checks it for changes
    plan = _plan(vault, facts, now)
    if dry_run or not plan.due:
        if not dry_run and not fact_index.truncate_log(vault):  # what the last sweep could not empty
            raise IndexBusy(f"{LOG_BUSY}; run `brain fact sweep` again once it is done")
        return plan if dry_run else SweepReport(False, plan.now, (), plan.held, None, {})
    files = Vault(vault.root)  # without change listeners: the purge below updates the index
    neighbours = _neighbours(facts, {item.fact.title for item in plan.due})
    with fact_index.held(vault):
        ids = fact_index.note_ids(vault, [item.fact.path or "" for item in plan.due])
        gone, error = _delete(files, plan.due, progress)
        titles = {item.fact.title for item, _ in gone}
        relinked, relink_error = _unlink(files, neighbours, titles, progress)
        error = error or relink_error
        os.sync()  # the deletions and the relinked notes, made durable at once (not one fsync per file)
        deleted = [item.fact.path or "" for item, _ in gone]
        purged = fact_index.purge(
            vault, deleted, relinked, {path: ids[path] for path in deleted if path in ids}, progress
        )
    if not purged.log_truncated:
        error = error or IndexBusy(LOG_BUSY)
    # The legal delete reaches the history: no version of a swept fact survives (brain/history.py).
    history_purged = purge_paths(vault, deleted)
    receipt_id = "SWEEP-" + plan.now.strftime("%Y%m%dT%H%M%SZ")
    journal_values = fact_journal.purge_values(vault, titles, receipt_id)
    stores = {
        "files": len(gone),
        "catalog_rows": purged.catalog_rows,
        "vector_records": purged.vector_records,
        "journal_values": journal_values,
        "neighbours_relinked": len(relinked),
        "history_versions": history_purged.versions,
    }
    receipt = _write_receipt(vault, receipt_id, plan, gone, relinked, stores, purged.indexed, error)
    if error is not None:
        raise _stopped(error, len(gone), receipt)
    return SweepReport(False, plan.now, tuple(item for item, _ in gone), plan.held, receipt, stores)


def _delete(
    files: Vault, due: tuple[SweepItem, ...], progress: Progress | None
) -> tuple[list[tuple[SweepItem, str]], Failure]:
    """Remove the due facts' files, BATCH at a time; each gone fact with the sha256 of its file."""
    gone: list[tuple[SweepItem, str]] = []
    for start in range(0, len(due), BATCH):
        part = due[start : start + BATCH]
        done = files.delete_many([item.fact.path or "" for item in part])
        gone += [
            (item, hashlib.sha256(done.changed[item.fact.path]).hexdigest())
            for item in part
            if item.fact.path in done.changed
        ]
        if progress:
            progress("facts", start + len(part), len(due))
        if done.error is not None:
            return gone, done.error
    return gone, None


def _neighbours(facts: tuple[Fact, ...], titles: set[str]) -> list[Fact]:
    """Facts that stay but link a fact about to be swept (supersedes / superseded_by)."""
    return [fact for fact in facts if fact.title not in titles and {fact.supersedes, fact.superseded_by} & titles]


def _unlink(
    files: Vault, neighbours: list[Fact], titles: set[str], progress: Progress | None = None
) -> tuple[list[str], Failure]:
    """Neighbours keep a swept fact's name as plain text (`FACT-x (purged)`), not a link to nothing.

    Only the names a neighbour links are replaced, in its text as read (no parse), through
    `Vault.update_many` (refused if the file changed before the rename), BATCH at a time.
    """
    changes: dict[str, Callable[[str], str]] = {}
    for fact in neighbours:
        names = {fact.supersedes, fact.superseded_by} & titles
        if names and fact.path:
            changes[fact.path] = functools.partial(_plain, names=tuple(sorted(str(name) for name in names)))
    paths = list(changes)
    changed: list[str] = []
    for start in range(0, len(paths), BATCH):
        part = paths[start : start + BATCH]
        done = files.update_many({path: changes[path] for path in part})
        changed += [path for path in part if path in done.changed]
        if progress:
            progress("relink", start + len(part), len(paths))
        if done.error is not None:
            return changed, done.error
    return changed, None


def _plain(text: str, names: tuple[str, ...]) -> str:
    for name in names:
        text = text.replace(f"[[{name}]]", f"{name} (purged)")
    return text


def _stopped(error: BrainError | OSError, deleted: int, receipt: str) -> BrainError:
    """The error a sweep stopped at, saying what it had done by then."""
    if isinstance(error, BrainError):
        kind, what = type(error), str(error)
    else:
        kind, what = WriteConflict, f"{error.strerror or error}: {error.filename}"
    return kind(
        f"sweep stopped: {what}. The {deleted} facts it deleted are purged from every store "
        f"(receipt {receipt}); fix that and run the sweep again"
    )


def _write_receipt(
    vault: Vault,
    receipt_id: str,
    plan: SweepReport,
    gone: list[tuple[SweepItem, str]],
    neighbours: list[str],
    stores: dict[str, int],
    indexed: bool,
    error: Failure = None,
) -> str:
    folder = fact_journal.journal_dir(vault) / RECEIPTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{receipt_id}.json"
    suffix = 1
    while path.exists():
        suffix += 1
        path = folder / f"{receipt_id}-{suffix}.json"
    purged_stores = ["files", "journal"] + (["catalog", "full-text", "vectors"] if indexed else []) + ["history"]
    body: dict[str, Any] = {
        "receipt": path.stem,
        "time": format_time(plan.now),
        "stores_purged": purged_stores,
        "counts": stores,
        "facts": [
            {
                "id": item.fact.title,
                "path": item.fact.path,
                "namespace": item.fact.namespace,
                "kind": item.fact.kind,
                "compliance_class": item.fact.compliance_class,
                "policy": item.policy,
                "reason": item.reason,
                "due": format_time(item.due),
                "file_sha256": digest,
                "value_hash": item.fact.actual_hash,
            }
            for item, digest in gone
        ],
        "relinked": neighbours,
        "held": [{"id": item.fact.title, "hold": item.held} for item in plan.held],
    }
    if error is not None:
        body["stopped_by"] = str(error)
    temp = path.with_suffix(".tmp")
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(body, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    return path.relative_to(vault.root).as_posix()
