"""What `brain doctor` checks of the facts' crash safety, and what `brain doctor --fix` repairs.

- an interrupted supersede (the new fact written, the old one's closing not): reported, and the
  closing written by `--fix`;
- an interrupted sweep (its plan still written down): reported, finished by `--fix`;
- a legal hold lifted in a note but kept by the hold register: reported (the sweep keeps it held);
- torn journal lines set aside: reported;
- temp files left by killed writes (they can hold a deleted value): removed at once, and reported;
- a journal with no anchor: reported by the journal check, written by `--fix`;
- a fact that was closed and is open again (a version in its history is closed, its file is not:
  restored or edited outside the fact commands): reported, for a person to close it again.
"""

from __future__ import annotations

import hashlib

from brain.errors import BrainError
from brain.memory.corpus import Corpus
from brain.memory.facts import holds as hold_register
from brain.memory.facts import journal as fact_journal
from brain.memory.facts import sweep as retention
from brain.memory.facts import sweep_plan
from brain.memory.facts.note import Fact, fact_from_note
from brain.memory.facts.service import repair_interrupted
from brain.memory.facts.table import fact_table
from brain.memory.finding import Finding
from brain.vault.fileswap import stale_temps
from brain.vault.note_files import SKIPPED_DIRS, parse_bytes


def check_fact_safety(corpus: Corpus) -> list[Finding]:
    vault = corpus.vault
    try:
        temps, how, fix = (
            vault.remove_stale_temps() + fact_journal.remove_stale_temps(vault),
            "removed",
            "nothing left to do",
        )
    except (BrainError, OSError):  # a read-only vault, or the write lock held: listed, left
        temps = [path.relative_to(vault.root).as_posix() for path in stale_temps(vault.root, SKIPPED_DIRS)]
        how, fix = "could not be removed", "run `brain doctor` again once the vault is writable"
    findings = [
        Finding(
            "temp-file",
            path,
            f"a temp file left by a write that was killed (it can hold a whole note, a deleted value too): {how}",
            fix,
        )
        for path in temps
    ]
    table = fact_table(corpus)
    for title in table.interrupted:
        fact = table.by_title[title.lower()]
        findings.append(
            Finding(
                "interrupted-supersede",
                fact.path or "",
                f"{fact.title} is superseded by {fact.superseded_by}, but its closing was never written "
                "(the supersede was interrupted); recall already reads it as closed",
                "run `brain doctor --fix` to write the closing",
            )
        )
    for fact in hold_register.lifted(table.facts, hold_register.held_titles(vault)):
        findings.append(
            Finding(
                "hold-lifted",
                fact.path or "",
                f"{fact.title} was put under a legal hold, but its note no longer says so (edited outside the "
                "fact commands); the sweep keeps it held",
                "restore `legal_hold: true` in the note",
            )
        )
    findings += _reopened(corpus, table.facts)
    plan = retention.pending(vault)
    if plan is not None:
        count = len(plan.get("facts") or ()) if not plan.get("unreadable") else "some"
        findings.append(
            Finding(
                "interrupted-sweep",
                sweep_plan.pending_path(vault).relative_to(vault.root).as_posix(),
                f"a sweep of {count} facts was interrupted: their values may still be in the index or the journal",
                "run `brain doctor --fix` (or `brain fact sweep --no-dry-run`) to finish it",
            )
        )
    for path in fact_journal.torn_files(vault):
        findings.append(
            Finding(
                "journal-torn",
                path.relative_to(vault.root).as_posix(),
                "the journal's last line was not a whole record (a write cut short by a crash or a full disk); "
                "it was set aside here and the chain continues after the last good record",
                "read it, then delete the file",
            )
        )
    return findings


def fix_fact_safety(corpus: Corpus) -> list[str]:
    """Repair what can be repaired without a person's judgement; one line per repair."""
    vault = corpus.vault
    done = []
    receipt = retention.finish_interrupted(corpus)
    if receipt:
        done.append(f"finished the interrupted sweep; receipt {receipt}")
    for written in repair_interrupted(corpus):
        done.append(
            f"closed {written.closed.title if written.closed else written.path}: superseded by {written.fact.title}"
        )
    if fact_journal.journal_path(vault).is_file() and fact_journal.read_anchor(vault) is None:
        if not fact_journal.anchor_path(vault).exists():
            anchored = fact_journal.reanchor(vault)
            if anchored:
                done.append(f"anchored the journal at #{anchored[0]}")
    return done


def _reopened(corpus: Corpus, facts: tuple[Fact, ...]) -> list[Finding]:
    """Open facts one version of which was closed (a fact has few versions: it is immutable; the one
    the file holds now is not read again)."""
    vault = corpus.vault
    findings = []
    for fact in facts:
        if fact.closed or fact.superseded_by or not fact.path:
            continue
        versions = [entry for entry in vault.history.entries(fact.path) if entry.sha256]
        if not versions:
            continue
        try:
            current = hashlib.sha256(vault.read_bytes(fact.path)).hexdigest()
        except BrainError:
            continue
        for entry in reversed(versions):
            if entry.sha256 == current:  # the version the file holds: the open fact itself
                continue
            try:
                earlier = fact_from_note(parse_bytes(vault.history.version_bytes(entry.sha256 or ""), fact.path))
            except BrainError:
                continue
            if earlier.closed or earlier.superseded_by:
                findings.append(
                    Finding(
                        "reopened-fact",
                        fact.path,
                        f"{fact.title} was closed (version {entry.v} of its history) and is open again: recall "
                        "returns a value that was withdrawn",
                        f"restore its closed version with `brain note restore {fact.title} --version N` "
                        "(`brain note history` lists them), or close it with `brain fact invalidate`",
                    )
                )
                break
    return findings
