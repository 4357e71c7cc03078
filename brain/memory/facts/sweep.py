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

A sweep is resumable: its plan is written down before the first deletion (`sweep_plan`), and a
sweep killed part-way is finished by the next sweep (or `brain doctor --fix`) before it plans
anew. Temp files left by killed writes (`.brain-write.tmp`, a journal rewrite) are purged too.
A hold the fact commands set stays in the hold register (`holds`), so a hold lifted by editing
the note does not make the fact deletable.

A fact whose file was deleted by hand still has its versions in the history: the sweep reads its
last version there and counts it as closed when its file went (the time of its last entry in the
history, when brain saw it last), so its versions are swept when its retention has passed. A
fact moved outside brain is found in the history by its bytes (`History.adopt`): the sweep purges
its versions under every path it had.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from brain.errors import BrainError, IndexBusy, InvalidInput, WriteConflict, WriteFailed
from brain.memory.corpus import Corpus
from brain.memory.facts import holds as hold_register
from brain.memory.facts import index as fact_index
from brain.memory.facts import journal as fact_journal
from brain.memory.facts import sweep_plan
from brain.memory.facts.note import Fact, fact_from_note, format_time
from brain.memory.facts.service import all_facts
from brain.memory.facts.settings import FactSettings, load_settings
from brain.vault.atomic import write_json
from brain.vault.note_files import parse_bytes
from brain.vault.vault import Vault

if TYPE_CHECKING:
    from brain.index.engine import Index

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
    finished: str | None = None  # the receipt of an interrupted sweep this one finished first


def _hold(fact: Fact, settings: FactSettings, registered: set[str] | None = None) -> str | None:
    if fact.legal_hold:
        return "legal hold on the fact"
    if registered and fact.title.lower() in registered:
        return "legal hold on the fact (lifted in its note, not by a fact command: the hold register keeps it)"
    if fact.namespace in settings.held_namespaces:
        return f"legal hold on namespace {fact.namespace}"
    policy = settings.class_policies.get(fact.compliance_class)
    if policy is not None and policy.legal_hold:
        return f"legal hold on class {fact.compliance_class}"
    return None


def _after(instant: datetime, days: int) -> datetime | None:
    """`instant` plus `days`, or None past the last date Python knows (year 9999): never due."""
    try:
        return instant + timedelta(days=days)
    except OverflowError:
        return None


def due_item(fact: Fact, settings: FactSettings, now: datetime, registered: set[str] | None = None) -> SweepItem | None:
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
        kept_until = _after(fact.valid_until, days) if days is not None else None
        if kept_until is not None:
            how = "superseded" if fact.superseded_by else "invalidated"
            reasons.append(
                (
                    kept_until,
                    f"retention_days ({source})",
                    f"{how} {format_time(fact.valid_until)}, kept {days} days ({source})",
                )
            )
    expires = _after(fact.recorded_at, settings.ephemeral_days) if settings.ephemeral_days is not None else None
    if fact.tier == "ephemeral" and expires is not None:
        reasons.append(
            (
                expires,
                "ephemeral_days",
                f"ephemeral, recorded {format_time(fact.recorded_at)}, kept {settings.ephemeral_days} days",
            )
        )
    passed = sorted(reason for reason in reasons if reason[0] <= now)
    if not passed:
        return None
    due, policy, reason = passed[0]
    return SweepItem(fact, policy, reason, due, _hold(fact, settings, registered))


def _plan(
    vault: Vault, facts: tuple[Fact, ...], now: datetime | None, registered: set[str] | None = None
) -> SweepReport:
    settings = load_settings(vault)
    now = (now or datetime.now(UTC)).astimezone(UTC)
    if registered is None:  # a dry run writes nothing: the holds it would enter count as entered
        registered = hold_register.held_titles(vault) | {fact.title.lower() for fact in facts if fact.legal_hold}
    items = [item for item in (due_item(fact, settings, now, registered) for fact in facts) if item is not None]
    items.sort(key=lambda item: (item.due, item.fact.title))
    return SweepReport(True, now, tuple(i for i in items if not i.held), tuple(i for i in items if i.held))


def sweep(
    corpus: Corpus, *, dry_run: bool, now: datetime | None = None, progress: Progress | None = None
) -> SweepReport:
    """Plan, and unless `dry_run`, delete every due fact from every store and write a receipt.

    One batch whatever the count: the files go and their neighbours are relinked in batches of
    a few hundred (`Vault.delete_many` / `update_many`: one hold of the write lock each, one
    sync at the end), then the index forgets them all at once (`fact_index.purge`: one catalog
    transaction for the removed rows, one vector delete, one full-text merge), the journal is
    rewritten once, and one receipt lists every fact. The index lock is held from the first
    deletion to the end of the purge, so a running `brain watch` that sees the files go finds
    the catalog already current instead of re-scanning them.

    The plan is written down first (`sweep_plan`); an interrupted sweep's plan is finished
    before a new one is made. The first error (a file that cannot be removed, a neighbour that
    changed meanwhile or cannot be decoded) stops the deletions, or the relinks; what was
    deleted by then is still relinked, purged from every store and put in the receipt, and then
    the error is raised.
    """
    vault = corpus.vault
    if dry_run:
        live = all_facts(corpus)
        return _plan(vault, live + deleted_by_hand(vault, live), now)
    load_settings(vault)  # a bad config is one error before anything, the sweep's lock file too
    with sweep_plan.locked(vault):
        finished = _resume(corpus, progress)
        live = all_facts(corpus)  # read once: each read of a large vault first checks it for changes
        facts = live + deleted_by_hand(vault, live)
        registered = hold_register.register_seen(vault, facts, hold_register.held_titles(vault))
        plan = _plan(vault, facts, now, registered)
        if not plan.due:
            if not fact_index.truncate_log(corpus.existing_index()):  # what the last sweep could not empty
                raise IndexBusy(f"{LOG_BUSY}; run `brain fact sweep` again once it is done")
            temps = vault.remove_stale_temps() + fact_journal.remove_stale_temps(vault)
            stores = {"temp_files": len(temps)} if temps else {}
            return SweepReport(False, plan.now, (), plan.held, None, stores, finished)
        receipt_id = sweep_plan.reserve_receipt(vault, "SWEEP-" + plan.now.strftime("%Y%m%dT%H%M%SZ"))
        held = [{"id": item.fact.title, "hold": item.held} for item in plan.held]
        entries = [_entry(item) for item in plan.due]
        sweep_plan.write_plan(
            vault, {"receipt": receipt_id, "time": format_time(plan.now), "facts": entries, "held": held}
        )
        done = _carry_out(vault, corpus.existing_index(), facts, entries, set(), receipt_id, plan.now, held, progress)
    titles = {entry["id"] for entry in done.gone}
    report = SweepReport(
        False, plan.now, tuple(i for i in plan.due if i.fact.title in titles), plan.held, done.receipt, done.stores
    )
    if done.error is not None:
        raise _stopped(done.error, len(done.gone), done.receipt)
    return SweepReport(**{**report.__dict__, "finished": finished})


def deleted_by_hand(vault: Vault, live: tuple[Fact, ...]) -> tuple[Fact, ...]:
    """The facts whose files are gone but whose versions the history keeps, each as its last
    version, closed when the history last saw it (when it was not closed already)."""
    titles = {fact.title.lower() for fact in live}
    found = []
    for last, version in vault.history.gone_versions():
        try:
            note = parse_bytes(vault.history.version_bytes(version.sha256 or ""), last.path)
            gone_at = datetime.fromisoformat(last.time.replace("Z", "+00:00")).astimezone(UTC)
        except (InvalidInput, ValueError):  # its bytes are gone or damaged: nothing of it is left to sweep
            continue
        if note.type != "fact":
            continue
        fact = fact_from_note(note)
        if fact.title.lower() in titles:  # moved outside brain, not deleted: it is swept from its new path
            continue
        found.append(replace(fact, valid_until=fact.valid_until or gone_at))
        titles.add(fact.title.lower())
    return tuple(found)


def pending(vault: Vault) -> dict[str, Any] | None:
    """The plan of an interrupted sweep, when there is one (for `brain doctor`)."""
    return sweep_plan.read_plan(vault)


def finish_interrupted(corpus: Corpus) -> str | None:
    """Finish an interrupted sweep (`brain doctor --fix`); the receipt written, or None when there was none."""
    vault = corpus.vault
    with sweep_plan.locked(vault):
        return _resume(corpus, None)


def _resume(corpus: Corpus, progress: Progress | None) -> str | None:
    """Finish the sweep whose plan is still written down (it was killed); its receipt, or None."""
    vault = corpus.vault
    body = sweep_plan.read_plan(vault)
    if body is None:
        return None
    where = sweep_plan.pending_path(vault).relative_to(vault.root).as_posix()
    try:
        receipt_id, time = str(body["receipt"]), datetime.fromisoformat(str(body["time"]).replace("Z", "+00:00"))
        planned = [dict(entry) for entry in body["facts"]]
        for entry in planned:
            entry["id"] = str(entry["id"])
    except (KeyError, TypeError, ValueError):
        raise InvalidInput(
            f"{where} (an interrupted sweep's plan) cannot be read; restore it from a backup, or delete it "
            "and check the journal with `brain fact journal` for values of deleted facts"
        ) from None
    done_receipt = sweep_plan.receipts_dir(vault) / f"{receipt_id}.json"
    if done_receipt.exists():  # killed after the receipt, before the plan was removed
        sweep_plan.finish_plan(vault)
        return done_receipt.relative_to(vault.root).as_posix()
    facts = all_facts(corpus)
    by_title = {fact.title: fact for fact in facts}
    settings = load_settings(vault)
    registered = hold_register.register_seen(vault, facts, hold_register.held_titles(vault))
    held = [dict(entry) for entry in body.get("held") or () if isinstance(entry, dict)]
    entries = []
    for entry in planned:
        fact = by_title.get(str(entry["id"]))
        hold = _hold(fact, settings, registered) if fact is not None else None
        if hold:  # held since the plan was made: it stays
            held.append({"id": fact.title if fact else entry["id"], "hold": hold})
            continue
        entries.append({**entry, "path": fact.path if fact is not None else entry.get("path")})
    gone_before = {entry["id"] for entry in entries if entry["id"] not in by_title}
    done = _carry_out(vault, corpus.existing_index(), facts, entries, gone_before, receipt_id, time, held, progress)
    if done.error is not None:
        raise _stopped(done.error, len(done.gone), done.receipt)
    return done.receipt


def _entry(item: SweepItem) -> dict[str, Any]:
    """A due fact as the plan and the receipt list it (`file_sha256` is added once it is deleted)."""
    return {
        "id": item.fact.title,
        "path": item.fact.path,
        "namespace": item.fact.namespace,
        "kind": item.fact.kind,
        "compliance_class": item.fact.compliance_class,
        "policy": item.policy,
        "reason": item.reason,
        "due": format_time(item.due),
        "value_hash": item.fact.actual_hash,
    }


@dataclass(frozen=True)
class _Done:
    gone: list[dict[str, Any]]
    receipt: str
    stores: dict[str, int]
    error: Failure


def _carry_out(
    vault: Vault,
    index: Index | None,
    facts: tuple[Fact, ...],
    entries: list[dict[str, Any]],
    gone_before: set[str],
    receipt_id: str,
    time: datetime,
    held: list[dict[str, Any]],
    progress: Progress | None,
) -> _Done:
    """Delete the planned facts' files (but those in `gone_before`, deleted by an earlier, killed
    run), relink their neighbours, purge every store of all of them, write the receipt, and
    remove the plan."""
    files = Vault(vault.root)  # without change listeners: the purge below updates the index
    paths = [str(entry["path"]) for entry in entries if entry["id"] not in gone_before and entry.get("path")]
    with fact_index.held(index):
        ids = fact_index.note_ids(index, [str(entry.get("path") or "") for entry in entries])
        digests, error = _delete(files, paths, progress)
        gone = [
            {**entry, "file_sha256": digests.get(str(entry.get("path")))}
            for entry in entries
            if entry["id"] in gone_before or str(entry.get("path")) in digests
        ]
        titles = {str(entry["id"]) for entry in gone}
        relinked, relink_error = _unlink(files, _neighbours(facts, titles), titles, progress)
        error = error or relink_error
        os.sync()  # the deletions and the relinked notes, made durable at once (not one fsync per file)
        deleted = [str(entry.get("path") or "") for entry in gone]
        purged = fact_index.purge(
            index, deleted, relinked, {path: ids[path] for path in deleted if path in ids}, progress
        )
    if not purged.log_truncated:
        error = error or IndexBusy(LOG_BUSY)
    # The legal delete reaches the history: no version of a swept fact survives, under whichever
    # path it had (brain/vault/history.py). Should that fail, the plan stays, for the next sweep to finish.
    try:
        with vault.locked():
            named = vault.history.gone_named({title.lower() for title in titles})  # moved and edited outside brain
            shas = {str(e.get("path")): e.get("file_sha256") for e in gone}
            history_purged = vault.history.purge([*deleted, *named], shas)
    except OSError as failure:
        where = sweep_plan.pending_path(vault).relative_to(vault.root).as_posix()
        raise WriteFailed(
            f"sweep stopped: the history could not be purged ({failure.strerror or failure}); its plan stays "
            f"in {where}: fix that and run `brain doctor --fix` to finish it"
        ) from None
    journal_values = fact_journal.purge_values(vault, titles, receipt_id)
    temps = vault.remove_stale_temps() + fact_journal.remove_stale_temps(vault)
    stores = {
        "files": len(gone),
        "catalog_rows": purged.catalog_rows,
        "vector_records": purged.vector_records,
        "journal_values": journal_values,
        "neighbours_relinked": len(relinked),
        "temp_files": len(temps),
        "history_versions": history_purged.versions,
    }
    receipt = _write_receipt(vault, receipt_id, time, gone, relinked, stores, purged.indexed, held, error)
    sweep_plan.finish_plan(vault)
    return _Done(gone, receipt, stores, error)


def _delete(files: Vault, paths: list[str], progress: Progress | None) -> tuple[dict[str, str | None], Failure]:
    """Remove these files, BATCH at a time; each gone path with the sha256 of its file (None: it was gone already)."""
    digests: dict[str, str | None] = {}
    for start in range(0, len(paths), BATCH):
        part = paths[start : start + BATCH]
        done = files.delete_many(part)
        digests.update({path: hashlib.sha256(data).hexdigest() for path, data in done.changed.items()})
        digests.update({path: None for path in done.gone})
        if progress:
            progress("facts", start + len(part), len(paths))
        if done.error is not None:
            return digests, done.error
    return digests, None


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
    time: datetime,
    gone: list[dict[str, Any]],
    neighbours: list[str],
    stores: dict[str, int],
    indexed: bool,
    held: list[dict[str, Any]],
    error: Failure = None,
) -> str:
    path = sweep_plan.receipts_dir(vault) / f"{receipt_id}.json"
    purged_stores = ["files", "journal", "temp files"] + (["catalog", "full-text", "vectors"] if indexed else [])
    purged_stores.append("history")
    body: dict[str, Any] = {
        "receipt": path.stem,
        "time": format_time(time),
        "stores_purged": purged_stores,
        "counts": stores,
        "facts": gone,
        "relinked": neighbours,
        "held": held,
    }
    if error is not None:
        body["stopped_by"] = str(error)
    write_json(path, body)
    return path.relative_to(vault.root).as_posix()
