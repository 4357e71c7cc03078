"""The tools that read a project's scope, through a real client session: by default the server's
folder's project, `project` another one, `all_projects` the whole vault."""

from __future__ import annotations

from pathlib import Path

from brain.vault.init import init_vault
from tests.helpers.mcp_harness import cli, connect, text_of
from tests.helpers.projects import git, today, two_projects


def test_the_tools_read_the_servers_project_or_the_one_asked_for(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "shop")  # the vault is the shop's repository, where the server runs
    git(vault.root, "init", "-q")
    git(vault.root, "remote", "add", "origin", "git@github.com:acme/shop.git")
    two_projects(vault)
    cli(vault.root, "index", "--no-embed")
    shop, old, billing = (
        f"EPISODE-{today()}-shop-checkout",
        f"EPISODE-{today()}-old-session",
        f"EPISODE-{today()}-billing-invoices",
    )
    with connect(vault.root) as client:

        def episodes(**arguments: object) -> list[str]:
            found = client.ok("query_episodes", arguments).structured_content
            assert found is not None
            return [episode["title"] for episode in found["episodes"]]

        assert episodes() == [shop]
        assert episodes(all_projects=True) == [shop, old, billing]
        assert episodes(project="https://github.com/acme/billing.git") == [billing]
        assert client.bad(
            "query_episodes",
            {"project": "github.com/acme/billing", "all_projects": True},
            "project and all_projects do not go together; give one of them",
        )

        found = client.ok("get_antipatterns", {}).structured_content
        assert found is not None
        assert [p["title"] for p in found["antipatterns"]] == [
            "ANTIPATTERN-force-push-main",
            "ANTIPATTERN-shop-float-money",
        ]

        def hits(**arguments: object) -> set[str]:
            found = client.ok("search", {"query": "overlap invoices", "mode": "text", **arguments}).structured_content
            assert found is not None
            return {hit["title"] for hit in found["hits"]}

        assert hits() == set()
        assert hits(all_projects=True) == {billing, "ANTIPATTERN-billing-cron-overlap"}
        assert hits(project="github.com/acme/billing") == {billing, "ANTIPATTERN-billing-cron-overlap"}

        started = text_of(client.ok("bootstrap_context", {"task": "Send the overdue invoices again"}))
        assert f"- {shop} ({today()})" in started and billing not in started
        asked = text_of(
            client.ok(
                "bootstrap_context", {"task": "Send the overdue invoices again", "project": "github.com/acme/billing"}
            )
        )
        assert f"- {billing} ({today()}): Send the overdue invoices again" in asked and shop not in asked
