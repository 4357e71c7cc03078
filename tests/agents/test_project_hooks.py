"""The context hooks serve the project the agent works in (its `cwd`): two projects in one vault each
get their own episodes and antipatterns, a project with no episode gets the whole vault; and the
first-prompt context waits for the first prompt that states a task, once per session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain.vault.init import init_vault
from brain.vault.vault import Vault
from tests.conftest import note_text, put
from tests.helpers.projects import BILLING, SHOP, Repos, repositories, today, two_projects


def hook(event: str, vault: Path, payload: dict, cwd: Path | None = None) -> subprocess.CompletedProcess:
    program = Path(sys.executable).parent / "brain"
    command = [str(program)] if program.is_file() else [sys.executable, "-m", "brain"]
    return subprocess.run(
        [*command, "hooks", "run", event, "--vault", str(vault)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def context(done: subprocess.CompletedProcess, event: str) -> str:
    assert (done.returncode, done.stderr) == (0, "")
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == event
    text: str = output["hookSpecificOutput"]["additionalContext"]
    return text


@pytest.fixture
def setup(tmp_path) -> tuple[Vault, Repos]:
    vault, _ = init_vault(tmp_path / "vault")
    two_projects(vault)
    return vault, repositories(tmp_path / "repos")


HEAD = "# Context for: this session (from brain, the team's memory)\n"


def start(vault: Vault, folder: Path, cwd: Path | None = None) -> str:
    payload = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(folder)}
    return context(hook("session-start", vault.root, payload, cwd), "SessionStart")


def test_two_projects_in_one_vault_each_get_their_own_session_start(setup):
    vault, repos = setup
    assert start(vault, repos.shop / "src") == (
        f"{HEAD}\n## Recent failures\n- EPISODE-{today()}-shop-checkout ({today()}): Fix the checkout total rounding\n"
        "\n## Antipattern warnings\n- ANTIPATTERN-force-push-main (0% over 3): A force push to main\n"
        "- ANTIPATTERN-shop-float-money (0% over 3): Money is added up in floats\n"
    )
    assert start(vault, repos.billing) == (
        f"{HEAD}\n## Recent failures\n- EPISODE-{today()}-billing-invoices ({today()}): Send the overdue invoices "
        "again\n\n## Antipattern warnings\n- ANTIPATTERN-billing-cron-overlap (0% over 3): Two invoice runs overlap\n"
        "- ANTIPATTERN-force-push-main (0% over 3): A force push to main\n"
    )


def test_a_project_with_no_episode_gets_the_whole_vault(setup):
    vault, repos = setup
    assert start(vault, repos.fresh) == (
        f"{HEAD}\n## Recent failures\n"
        f"- EPISODE-{today()}-shop-checkout ({today()}): Fix the checkout total rounding\n"
        f"- EPISODE-{today()}-old-session ({today()}): An episode captured before projects were recorded\n"
        f"- EPISODE-{today()}-billing-invoices ({today()}): Send the overdue invoices again\n"
        "\n## Antipattern warnings\n- ANTIPATTERN-billing-cron-overlap (0% over 3): Two invoice runs overlap\n"
        "- ANTIPATTERN-force-push-main (0% over 3): A force push to main\n"
        "- ANTIPATTERN-shop-float-money (0% over 3): Money is added up in floats\n"
    )


def test_without_a_cwd_in_the_hook_input_the_hooks_own_folder_is_the_project(setup):
    vault, repos = setup
    payload = {"session_id": "s1", "hook_event_name": "SessionStart"}
    text = context(hook("session-start", vault.root, payload, cwd=repos.billing / "src"), "SessionStart")
    assert "billing-invoices" in text and "shop-checkout" not in text and "old-session" not in text


def pattern(vault: Vault, name: str, trigger: str, project: str) -> None:
    fields = {"type": "pattern", "trigger": trigger, "success_rate": "0.9", "occurrences": "4", "project": project}
    put(vault, f"patterns/{name}.md", note_text(name, f"## Trigger\n{trigger}\n\n## Action\nRound once.", **fields))


def prompt(vault: Vault, folder: Path, session: str, text: str) -> subprocess.CompletedProcess:
    payload = {"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": text, "cwd": str(folder)}
    return hook("first-prompt", vault.root, payload)


def test_the_first_prompt_context_waits_for_a_prompt_that_states_a_task(setup):
    vault, repos = setup
    pattern(vault, "PATTERN-round-checkout-totals-once", "Rounding the money total of a checkout", SHOP)
    pattern(vault, "PATTERN-round-invoice-totals-once", "Rounding the money total of an invoice", BILLING)
    warmed = hook("warm", vault.root, {})  # every pattern embedded, as after the first session start
    assert (warmed.returncode, warmed.stdout) == (0, "")
    for text in ("/model", "/clear", "hi", "Hello there!", "thanks", "ok", "go on"):
        done = prompt(vault, repos.shop, "s1", text)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), text
    assert not (vault.root / ".brain" / "hooks" / "prompted" / "s1").exists()  # nothing used up yet
    task = "Fix the rounding of the checkout money total"
    assert context(prompt(vault, repos.shop, "s1", task), "UserPromptSubmit") == (
        f"# Context for: {task}\n\n## Patterns for this task\n"
        "- PATTERN-round-checkout-totals-once (90% over 4): Rounding the money total of a checkout\n"
    )
    again = prompt(vault, repos.shop, "s1", task)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # once per session
    # another session, in the other project: its own first real prompt, its own project's pattern
    assert prompt(vault, repos.billing, "s2", "/model").stdout == ""
    other = "Fix the rounding of the invoice money total"
    assert context(prompt(vault, repos.billing, "s2", other), "UserPromptSubmit") == (
        f"# Context for: {other}\n\n## Patterns for this task\n"
        "- PATTERN-round-invoice-totals-once (90% over 4): Rounding the money total of an invoice\n"
    )


def test_the_markers_of_old_sessions_are_removed(setup):
    vault, repos = setup
    prompted = vault.root / ".brain" / "hooks" / "prompted"
    prompted.mkdir(parents=True)
    old, recent = prompted / "old-session", prompted / "recent-session"
    old.touch()
    recent.touch()
    forty_days_ago = time.time() - 40 * 86400
    os.utime(old, (forty_days_ago, forty_days_ago))
    done = prompt(vault, repos.shop, "new-session", "Fix the checkout total rounding please")
    assert done.returncode == 0
    assert sorted(path.name for path in prompted.iterdir()) == ["new-session", "recent-session"]
