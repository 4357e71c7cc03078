"""Two projects in one vault: real git repositories in a temporary folder, and the episodes, patterns
and tips of each project written as notes (the tests of project scope share them)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain.vault.vault import Vault
from tests.conftest import note_text, put

SHOP = "github.com/acme/shop"
BILLING = "github.com/acme/billing"


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def repository(folder: Path, remote: str | None) -> Path:
    """A git repository (no commits) with `remote` as origin, and a `src` folder."""
    (folder / "src").mkdir(parents=True)
    git(folder, "init", "-q")
    if remote:
        git(folder, "remote", "add", "origin", remote)
    return folder


@dataclass(frozen=True)
class Repos:
    shop: Path  # origin git@github.com:acme/shop.git
    billing: Path  # origin https://github.com/acme/billing
    fresh: Path  # origin github.com/acme/fresh: no episode in the vault


def repositories(root: Path) -> Repos:
    return Repos(
        repository(root / "shop", "git@github.com:acme/shop.git"),
        repository(root / "billing", "https://github.com/acme/billing"),
        repository(root / "fresh", "ssh://git@github.com/acme/fresh.git"),
    )


# The episodes' moment: a little in the past, so it is recent and never in the future, whatever
# the hour (a failure is recent when it is in the last 7 days up to now); fixed once, so a test
# that crosses midnight still names the day its episodes were written with.
MOMENT = datetime.now(UTC) - timedelta(minutes=5)


def today() -> str:
    return MOMENT.date().isoformat()


def failure(vault: Vault, name: str, task: str, project: str | None) -> str:
    """A failure episode of today, of `project` (None: of no project); returns its title."""
    title = f"EPISODE-{today()}-{name}"
    fields = {
        "type": "episode",
        "date": f"'{MOMENT.strftime('%Y-%m-%dT%H:%M:%SZ')}'",
        "outcome": "failure",
        "task": task,
    }
    if project:
        fields["project"] = project
    put(vault, f"episodes/{title}.md", note_text(title, "## Context\nIt failed.", **fields))
    return title


def antipattern(vault: Vault, name: str, trigger: str, project: str | None) -> str:
    title = f"ANTIPATTERN-{name}"
    fields = {"type": "pattern", "trigger": trigger, "success_rate": "0.0", "occurrences": "3"}
    if project:
        fields["project"] = project
    put(vault, f"patterns/{title}.md", note_text(title, f"## Trigger\n{trigger}", **fields))
    return title


def two_projects(vault: Vault) -> None:
    """Each project a failure and an antipattern; an episode of no project; a shared antipattern."""
    failure(vault, "shop-checkout", "Fix the checkout total rounding", SHOP)
    failure(vault, "billing-invoices", "Send the overdue invoices again", BILLING)
    failure(vault, "old-session", "An episode captured before projects were recorded", None)
    antipattern(vault, "shop-float-money", "Money is added up in floats", SHOP)
    antipattern(vault, "billing-cron-overlap", "Two invoice runs overlap", BILLING)
    antipattern(vault, "force-push-main", "A force push to main", None)
