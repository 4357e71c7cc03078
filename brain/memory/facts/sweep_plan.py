"""A sweep's plan, written down before anything is deleted, so that a killed sweep is finished later.

`.brain/journal/sweeps/PENDING.json` lists every fact the sweep is about to delete (as its receipt
will list it) and the receipt's name. It is written whole (synced temp file, renamed) before the
first file goes, and removed once the receipt is written. A sweep (or `brain doctor --fix`) that
finds it finishes that sweep first: the files still there are deleted, and every store (catalog,
full text, vectors, journal, temp files) is purged of all the planned facts, deleted earlier or
now, before the receipt is written. Sweeps take `.brain/journal/sweep.lock`, one at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import filelock

from brain.errors import IndexBusy
from brain.memory.facts import journal as fact_journal
from brain.vault.atomic import write_json
from brain.vault.vault import Vault

PENDING_FILE = "PENDING.json"
LOCK_SECONDS = 600.0


def receipts_dir(vault: Vault) -> Path:
    return fact_journal.journal_dir(vault) / fact_journal.SWEEPS_DIR


def pending_path(vault: Vault) -> Path:
    return receipts_dir(vault) / PENDING_FILE


@contextmanager
def locked(vault: Vault) -> Iterator[None]:
    folder = fact_journal.journal_dir(vault)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with filelock.FileLock(str(folder / "sweep.lock"), timeout=LOCK_SECONDS):
            yield
    except filelock.Timeout:
        raise IndexBusy(f"another sweep has run for {LOCK_SECONDS:g} s; try again once it is done") from None


def reserve_receipt(vault: Vault, receipt_id: str) -> str:
    """A receipt name no receipt has yet (`SWEEP-<time>`, `-2`, `-3` ... when several run in a second)."""
    folder = receipts_dir(vault)
    name, suffix = receipt_id, 1
    while (folder / f"{name}.json").exists():
        suffix += 1
        name = f"{receipt_id}-{suffix}"
    return name


def write_plan(vault: Vault, body: dict[str, Any]) -> None:
    write_json(pending_path(vault), body)


def read_plan(vault: Vault) -> dict[str, Any] | None:
    path = pending_path(vault)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"unreadable": True}
    return body if isinstance(body, dict) else {"unreadable": True}


def finish_plan(vault: Vault) -> None:
    pending_path(vault).unlink(missing_ok=True)
