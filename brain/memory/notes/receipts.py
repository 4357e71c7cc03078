"""Audit receipts: one JSON file per purge or redaction under `.brain/journal/<folder>/`, written whole.

A receipt says what was done, when, by whom and with which command; it is synced and renamed
into place, so a crash leaves it whole or absent. Its name is its time (`PURGE-20261128T230501Z`),
with `-2`, `-3` ... when several are written in one second.
"""

from __future__ import annotations

from typing import Any

from brain.vault.atomic import write_json
from brain.vault.history import current_actor
from brain.vault.history_log import now_text
from brain.vault.vault import Vault


def write_receipt(vault: Vault, folder: str, prefix: str, body: dict[str, Any]) -> str:
    """Write `body` after the receipt's name, time, writer and command; return its vault-relative path."""
    time = now_text()
    where = vault.brain_dir / "journal" / folder
    where.mkdir(parents=True, exist_ok=True)
    stem = f"{prefix}-" + time[:19].replace("-", "").replace(":", "") + "Z"
    target = where / f"{stem}.json"
    suffix = 1
    while target.exists():
        suffix += 1
        target = where / f"{stem}-{suffix}.json"
    actor = current_actor()
    data = {"receipt": target.stem, "time": time, "by": actor.by, "command": actor.command, **body}
    write_json(target, data)
    return target.relative_to(vault.root).as_posix()
