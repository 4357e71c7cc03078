"""The run tools through a real MCP client session (`brain mcp` over stdio), and tries to cross tenants."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from brain.vault.init import init_vault
from tests.conftest import DATA
from tests.helpers.mcp_harness import RUN_TOOLS, McpClient, connect, snapshot, text_of

APPLICATION = json.loads((DATA / "runs" / "application-42.json").read_text(encoding="utf-8"))
QUESTION = "Should we approve application #42? Credit: 580. Income: 95k. Amount: 50k."


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    vault, _ = init_vault(tmp_path_factory.mktemp("runs-mcp") / "vault")
    # The lexical embedder: these tests are about the tools and tenants, not about meaning.
    (vault.root / ".brain" / "config.toml").write_text('[index]\nembedder = "lexical"\n', encoding="utf-8")
    with connect(vault.root, "--tools", "runs") as connected:
        yield connected


def test_run_tools_are_listed_with_described_arguments(client: McpClient) -> None:
    tools = client.list_tools()
    assert set(tools) == RUN_TOOLS
    assert set(tools["recall_runs"].input_schema["required"]) == {"query", "tenant"}
    assert set(tools["explain_run"].input_schema["required"]) == {"run", "tenant"}
    assert tools["recall_runs"].input_schema["properties"]["projection"]["enum"] == [
        "decisions",
        "commits",
        "narrative",
        "full",
    ]
    assert tools["recall_runs"].annotations.read_only_hint is True


def test_record_recall_and_explain_within_a_tenant(client: McpClient) -> None:
    recorded = client.ok(
        "record_run", {"snapshot": APPLICATION, "tenant": "lending", "conversation_id": "app-42", "accepted": True}
    )
    run_id = recorded.structured_content["id"]
    assert text_of(recorded) == f"recorded runs/lending/{run_id}.md"
    found = client.ok("recall_runs", {"query": QUESTION, "tenant": "lending"})
    (hit,) = found.structured_content["hits"]
    assert hit["id"] == run_id and hit["similarity"] == 1.0 and hit["tokens"] == 45
    assert (
        text_of(found).splitlines()[2] == "classify-risk → rejected (Marginal credit): creditScore=580, threshold=600"
    )
    explained = client.ok("explain_run", {"run": run_id, "tenant": "lending", "question": "why rejected?"})
    assert (
        '- Stage classify-risk chose "rejected" by the rule "Marginal credit", on the evidence creditScore=580, threshold=600.'
        in text_of(explained).splitlines()
    )


def test_another_tenant_never_sees_counts_or_explains_the_run(client: McpClient) -> None:
    run_id = client.ok("record_run", {"snapshot": APPLICATION, "tenant": "bank-a"}).structured_content["id"]
    crossed = client.ok("recall_runs", {"query": QUESTION, "tenant": "bank-b", "threshold": 0.0, "top_k": 50})
    assert crossed.structured_content["hits"] == [] and crossed.structured_content["compared"] == 0
    assert crossed.structured_content["best_below_threshold"] is None
    assert text_of(crossed) == "no run of tenant 'bank-b' matches at or above 0.00; nothing recalled"
    other = client.bad("explain_run", {"run": run_id, "tenant": "bank-b"})
    missing = client.bad("explain_run", {"run": "RUN-missing", "tenant": "bank-b"})
    assert (
        other.replace(run_id, "X")
        == missing.replace("RUN-missing", "X")
        == (
            "Error executing tool explain_run: no run named 'X' for tenant 'bank-b'; "
            "recall_runs finds a tenant's runs by their query"
        )
    )
    client.bad("recall_runs", {"query": QUESTION}, "tenant")  # no tenant: refused by the schema
    client.bad("recall_runs", {"query": QUESTION, "tenant": ""}, "recall needs a tenant")
    client.bad("recall_runs", {"query": QUESTION, "tenant": "../bank-a"}, "tenant '../bank-a' may hold only letters")


def test_bad_input_is_a_tool_error_and_changes_nothing(client: McpClient) -> None:
    before = snapshot(client.root)
    no_answer = {k: v for k, v in APPLICATION.items() if k != "finalContent"}
    client.bad("record_run", {"snapshot": no_answer, "tenant": "lending"}, "the snapshot has no 'finalContent'")
    client.bad("record_run", {"snapshot": APPLICATION, "tenant": "../../etc"}, "may hold only letters")
    evidence = {**APPLICATION, "decisions": [{"stageId": "s", "chosen": "x", "evidence": [1, 2]}]}
    client.bad("record_run", {"snapshot": evidence, "tenant": "lending"}, "decisions[0].evidence must be a JSON object")
    client.bad("recall_runs", {"query": QUESTION, "tenant": "lending", "projection": "everything"}, "projection")
    assert snapshot(client.root) == before
    assert client.ok("recall_runs", {"query": QUESTION, "tenant": "lending"}).structured_content[
        "hits"
    ]  # still serving
