"""The hold register: which facts were put under a legal hold by the fact commands.

A fact's `legal_hold: true` is in its note, which a person (or a program) can edit. So every
hold the fact commands set is also written here, outside the notes (`.brain/journal/holds.jsonl`,
one line per fact, appended and never rewritten), and the sweeper keeps a fact held while the
register names it, whatever its note says now. A hold lifted in the note alone is reported by
`brain doctor`. Holds older than the register are entered the first time a sweep or doctor sees
them. `brain fact release` (a CLI command, no MCP tool) is the one way to lift a hold: it writes a
`release` line (who, when, why) before it changes the note.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from brain.errors import WriteFailed
from brain.memory.facts.note import Fact, format_time
from brain.vault.vault import Vault

HOLDS_FILE = "holds.jsonl"


def holds_path(vault: Vault) -> Path:
    return vault.brain_dir / "journal" / HOLDS_FILE


def held_titles(vault: Vault) -> set[str]:
    """Titles (lower-cased) the register holds: entered, and not released since."""
    path = holds_path(vault)
    found: set[str] = set()
    if not path.is_file():
        return found
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
            title = str(entry["id"]).lower()
        except (ValueError, KeyError, TypeError):
            continue
        if entry.get("action") == "release":
            found.discard(title)
        else:
            found.add(title)
    return found


def register(vault: Vault, titles: list[str], by: str, *, release: bool = False, reason: str | None = None) -> None:
    """Enter these facts in the register, or release them (each line written whole, or an error)."""
    if not titles:
        return
    path = holds_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    now = format_time(datetime.now(UTC).replace(microsecond=0))
    extra = {"action": "release", "reason": reason} if release else {}
    data = "".join(
        json.dumps({"id": title, "time": now, "by": by, **extra}, ensure_ascii=False) + "\n" for title in titles
    )
    encoded = data.encode("utf-8")
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(descriptor).st_size
            if size and os.pread(descriptor, 1, size - 1) != b"\n":
                encoded = b"\n" + encoded  # a line cut short by a crash stays a line of its own
            if os.write(descriptor, encoded) != len(encoded):
                raise OSError(28, "No space left on device")
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise WriteFailed(f"cannot write the hold register {HOLDS_FILE} ({error.strerror or error})") from None


def register_seen(vault: Vault, facts: tuple[Fact, ...] | list[Fact], known: set[str]) -> set[str]:
    """Enter every fact whose note says it is held and the register does not know yet; the register after."""
    new = [fact.title for fact in facts if fact.legal_hold and fact.title.lower() not in known]
    register(vault, new, "seen held")
    return known | {title.lower() for title in new}


def lifted(facts: tuple[Fact, ...] | list[Fact], known: set[str]) -> list[Fact]:
    """Facts the register holds whose note no longer says so (the hold was edited away)."""
    return [fact for fact in facts if not fact.legal_hold and fact.title.lower() in known]
