"""What `brain hooks status` tells of health: whether an install still works (its `brain` program and
its vaults exist), and for a vault whether its index is fresh, when each hook last ran and how, the
hooks log's last errors, and the episodes captured lately. Reading only, and quick: the index is
checked by file stats, never built or waited on.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from brain.agents.hooks_log import log_path, read_lines

if TYPE_CHECKING:
    from brain.markdown.model import NoteHeader
    from brain.vault.vault import Vault

LAST_ERRORS = 5
EPISODE_DAYS = 7


def program_exists(program: str) -> bool:
    """An absolute path: an executable file; a bare name (`brain`): found on PATH."""
    if os.path.isabs(program):
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def vault_exists(vault: str) -> bool:
    return (Path(vault) / ".brain").is_dir()


def broken(agent: str, scope: str, programs: tuple[str, ...], vaults: tuple[str, ...]) -> list[str]:
    """What is missing for an install to work, each with its fix (installing again)."""
    kept = next((vault for vault in vaults if vault_exists(vault)), "VAULT")
    again = f"run 'brain hooks install {agent} --scope {scope} --vault {kept}' again"
    found = [
        f"the brain program {program} does not exist; {again}" for program in programs if not program_exists(program)
    ]
    return found + [f"the vault {vault} does not exist; {again}" for vault in vaults if not vault_exists(vault)]


@dataclass(frozen=True)
class HookRun:
    event: str
    at: str
    result: str  # ok | error


@dataclass(frozen=True)
class VaultHealth:
    vault: str
    changed_files: int | None  # files changed since the last index; None: no index
    last_runs: list[HookRun]  # each event's last line in hooks.log, by event
    last_errors: list[str]  # the hooks log's last error lines, newest last
    episodes: int  # captured from an agent's transcript in the last EPISODE_DAYS days

    @property
    def index(self) -> str:
        if self.changed_files is None:
            return "none"
        return "fresh" if self.changed_files == 0 else "stale"


def vault_health(root: Path, now: datetime | None = None) -> VaultHealth:
    from brain.index.status import changed_since_index
    from brain.index.vault_index import existing_index
    from brain.vault.vault import Vault

    vault = Vault(root)
    runs, errors = hooks_log_summary(log_path(root))
    index = existing_index(vault)  # a handle of its own, closed at once: one look per vault
    try:
        changed = changed_since_index(index)
    finally:
        if index is not None:
            index.close()
    return VaultHealth(str(root), changed, runs, errors, _episodes(vault, now or datetime.now(UTC)))


def hooks_log_summary(path: Path) -> tuple[list[HookRun], list[str]]:
    """Each event's last run and the last error lines, from lines `<UTC stamp> <event> <message>` (the
    rotated file's too: the current one may have been started a moment ago)."""
    last: dict[str, HookRun] = {}
    errors: list[str] = []
    for line in read_lines(path):
        outcome = _OUTCOME.match(line)
        if outcome is None:  # not a hook's outcome: a worker's stray output, a traceback's lines
            continue
        at, event, message = outcome.groups()
        failed = (message or "").startswith("error:")
        last[event] = HookRun(event, at, "error" if failed else "ok")
        if failed:
            errors = [*errors[1 - LAST_ERRORS :], line]
    return sorted(last.values(), key=lambda run: run.event), errors


# A hook's outcome, as `brain.agents.runtime.log` writes it: `<UTC stamp> <event> <message>`.
_OUTCOME = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) ([a-z][a-z0-9-]*)(?: (.*))?\Z", re.DOTALL)


def _episodes(vault: Vault, now: datetime) -> int:
    """Episodes extracted from an agent's transcript (they record its `source_format`) dated in the
    last EPISODE_DAYS days; from the catalog, only their headers are read."""
    from brain.memory.corpus import Corpus

    since, until = (now - timedelta(days=EPISODE_DAYS)).date().isoformat(), now.date().isoformat()

    def captured(header: NoteHeader) -> bool:
        return (
            bool(header.frontmatter.get("source_format"))
            and since <= str(header.frontmatter.get("date", ""))[:10] <= until
        )

    return len(Corpus(vault).select("episode", captured))
