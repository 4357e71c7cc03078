"""Verify the recall journal: its hash chain, its values (or the receipts that purged them), its anchor.

See `journal` for what the chain covers and what the anchor is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput
from brain.memory.facts.journal import (
    GENESIS,
    REDACTIONS_DIR,
    SWEEPS_DIR,
    _lines,
    anchor_path,
    chain_hash,
    journal_dir,
    journal_path,
    parse_record,
    read_anchor,
)
from brain.memory.facts.note import value_hash
from brain.vault.vault import Vault


@dataclass(frozen=True)
class JournalProblem:
    line: int  # 0: the journal as a whole (its anchor)
    message: str


@dataclass(frozen=True)
class JournalCheck:
    path: str
    records: int
    problems: tuple[JournalProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def receipts(vault: Vault) -> dict[str, dict[str, str | None]]:
    """Each sweep receipt's id -> {fact id: its value hash}: what the sweeps purged; and each
    redaction receipt's id -> {fact id: None}: the facts whose values `brain redact` purged."""
    found: dict[str, dict[str, str | None]] = {}
    for path in _receipt_files(vault, SWEEPS_DIR, "SWEEP-*.json"):
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            found[path.stem] = {str(item["id"]): item.get("value_hash") for item in body.get("facts", ())}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    for path in _receipt_files(vault, REDACTIONS_DIR, "REDACT-*.json"):
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            found[path.stem] = {str(fact_id): None for fact_id in body.get("journal_facts", ())}
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    return found


def _receipt_files(vault: Vault, folder: str, pattern: str) -> list[Path]:
    where = journal_dir(vault) / folder
    return sorted(where.glob(pattern)) if where.is_dir() else []


def _result_problem(result: dict[str, Any], swept: dict[str, dict[str, str | None]]) -> str | None:
    """What is wrong with one result's value: it must match its version, or be purged by a receipt."""
    fact_id, version = result.get("id"), result.get("version")
    if "purged" in result:
        covered = swept.get(str(result.get("purged")), {})
        if result.get("value") is not None or fact_id not in covered or covered[str(fact_id)] not in (None, version):
            return (
                f"the value of {fact_id} is marked purged by {result.get('purged')}, "
                "but no sweep receipt lists that fact (forged)"
            )
        return None
    try:
        matches = value_hash(result.get("value")) == version
    except InvalidInput:
        matches = False
    return None if matches else f"the value of {fact_id} does not match its version hash (edited)"


def verify(vault: Vault) -> JournalCheck:
    """Check the chain: every line a record, seq consecutive, prev and hash right, every value
    matching its version (or purged by a sweep receipt), and the end where the anchor says."""
    path = journal_path(vault)
    problems: list[JournalProblem] = []
    previous, expected_seq, count = GENESIS, 1, 0
    swept = receipts(vault)
    anchor = read_anchor(vault)
    anchored_hash: str | None = None
    for number, line in _lines(path):
        count += 1
        record = parse_record(line)
        if record is None:
            problems.append(JournalProblem(number, "not a JSON record (edited or truncated)"))
            continue
        if record.get("seq") != expected_seq:
            problems.append(
                JournalProblem(
                    number, f"seq {record.get('seq')} where {expected_seq} was expected (a record is missing or moved)"
                )
            )
        if record.get("prev") != previous:
            problems.append(
                JournalProblem(
                    number,
                    "prev does not match the hash of the record before it (a record was removed, added or reordered)",
                )
            )
        if chain_hash(str(record.get("prev")), record) != record.get("hash"):
            problems.append(JournalProblem(number, "hash does not match the record's content (the record was edited)"))
        for result in record.get("results") or ():
            problem = _result_problem(result, swept) if isinstance(result, dict) else "a result is not a mapping"
            if problem:
                problems.append(JournalProblem(number, problem))
        if anchor is not None and record.get("seq") == anchor[0]:
            anchored_hash = str(record.get("hash"))
        previous = str(record.get("hash"))
        seq = record.get("seq")
        expected_seq = (seq if isinstance(seq, int) else expected_seq) + 1
    problems += _anchor_problems(vault, anchor, anchored_hash, expected_seq - 1, count)
    return JournalCheck(str(path), count, tuple(problems))


def _anchor_problems(
    vault: Vault, anchor: tuple[int, str] | None, anchored_hash: str | None, last: int, count: int
) -> list[JournalProblem]:
    if anchor is None:
        if count and anchor_path(vault).exists():
            return [JournalProblem(0, "the journal's anchor cannot be read (edited)")]
        if count:
            return [JournalProblem(0, "the journal has no anchor, so removed newest records would go unnoticed")]
        return []
    seq, hashed = anchor
    if not count:
        return [JournalProblem(0, f"the journal is missing or empty, but its anchor says {seq} records were written")]
    if seq > last:
        return [
            JournalProblem(
                0, f"the journal ends at #{last} but its anchor says #{seq}: the newest records were removed"
            )
        ]
    if anchored_hash != hashed:
        return [JournalProblem(0, f"record #{seq} is not the one the anchor names (the journal was replaced)")]
    return []
