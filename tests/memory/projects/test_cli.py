"""The commands that read a project's scope: by default the current folder's project (the whole vault
while it has no episode), `--project` another one (strict), `--all-projects` the whole vault."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_brain
from tests.helpers.projects import repositories, today, two_projects

SHOP_EPISODE = f"{today()}  failure  EPISODE-{today()}-shop-checkout  Fix the checkout total rounding\n"
OLD_EPISODE = f"{today()}  failure  EPISODE-{today()}-old-session  An episode captured before projects were recorded\n"
BILLING_EPISODE = f"{today()}  failure  EPISODE-{today()}-billing-invoices  Send the overdue invoices again\n"


@pytest.fixture
def repos(vault, tmp_path, monkeypatch):
    two_projects(vault)
    found = repositories(tmp_path / "repos")
    monkeypatch.chdir(found.shop / "src")
    return found


def test_episode_list_defaults_to_the_current_project_and_widens_or_narrows(brain, repos, monkeypatch):
    assert brain("episode", "list").stdout == SHOP_EPISODE
    assert brain("episode", "list", "--all-projects").stdout == SHOP_EPISODE + OLD_EPISODE + BILLING_EPISODE
    for spelling in ("github.com/acme/billing", "git@github.com:acme/billing.git", "https://github.com/acme/billing"):
        assert brain("episode", "list", "--project", spelling).stdout == BILLING_EPISODE
    assert brain("episode", "list", "--project", str(repos.billing / "src")).stdout == BILLING_EPISODE  # a folder
    assert brain("episode", "list", "--project", "github.com/acme/nothing").stdout == "no episodes match\n"
    monkeypatch.chdir(repos.fresh)  # a project with no episode: the whole vault
    assert brain("episode", "list").stdout == SHOP_EPISODE + OLD_EPISODE + BILLING_EPISODE


def test_project_and_all_projects_together_is_a_usage_error(vault, repos):
    for command in (["episode", "list"], ["search", "x"], ["pattern", "antipatterns"], ["tip", "list"]):
        done = run_brain(*command, "--project", "github.com/acme/shop", "--all-projects", "--vault", str(vault.root))
        assert (done.exit_code, done.stdout) == (2, "")
        assert done.stderr == "error: --project and --all-projects do not go together; give one of them\n"


def titles(brain, query: str, *extra: str) -> set[str]:
    found = brain("search", query, "--mode", "text", "--json", *extra)
    return {hit["title"] for hit in json.loads(found.stdout)}


def test_search_keeps_the_projects_episodes_and_every_note_of_no_project(brain, vault, repos):
    assert brain("index", "--no-embed").exit_code == 0
    billing = {f"EPISODE-{today()}-billing-invoices", "ANTIPATTERN-billing-cron-overlap"}
    assert titles(brain, "overlap invoices") == set()  # shop's scope: billing's episode and antipattern are out
    assert titles(brain, "overlap invoices", "--all-projects") == billing
    assert titles(brain, "overlap invoices", "--project", "github.com/acme/billing") == billing
    # a pattern of no project is shared; an episode of no project is not
    assert titles(brain, "force push captured") == {"ANTIPATTERN-force-push-main"}
    assert titles(brain, "force push captured", "--all-projects") == {
        f"EPISODE-{today()}-old-session",
        "ANTIPATTERN-force-push-main",
    }


def test_antipatterns_and_bootstrap_read_the_current_project(brain, repos):
    assert brain("pattern", "antipatterns").stdout == (
        "  0% x3    ANTIPATTERN-force-push-main  A force push to main\n"
        "  0% x3    ANTIPATTERN-shop-float-money  Money is added up in floats\n"
    )
    assert brain("pattern", "antipatterns", "--project", "github.com/acme/billing").stdout == (
        "  0% x3    ANTIPATTERN-billing-cron-overlap  Two invoice runs overlap\n"
        "  0% x3    ANTIPATTERN-force-push-main  A force push to main\n"
    )
    text = brain("context", "bootstrap", "Fix the checkout total rounding").stdout
    assert text == (
        "# Context for: Fix the checkout total rounding\n"
        f"\n## Recent failures\n- EPISODE-{today()}-shop-checkout ({today()}): Fix the checkout total rounding\n"
        "\n## Antipattern warnings\n- ANTIPATTERN-force-push-main (0% over 3): A force push to main\n"
        "- ANTIPATTERN-shop-float-money (0% over 3): Money is added up in floats\n"
    )
    wide = brain("context", "bootstrap", "Fix the checkout total rounding", "--all-projects").stdout
    assert "billing-invoices" in wide and "old-session" in wide and "ANTIPATTERN-billing-cron-overlap" in wide
