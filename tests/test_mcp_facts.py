"""The facts tools through a real MCP client session: record, supersede, recall now and as of then, invalidate."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_harness import FACT_TOOLS, connect, snapshot, text_of

from brain.vault import init_vault


def test_fact_tools_through_a_client_session(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    root = vault.root
    with connect(root, "--tools", "facts") as client:
        tools = client.list_tools()
        assert set(tools) == FACT_TOOLS  # no tool can delete a fact
        assert tools["recall_facts"].annotations.destructive_hint is False  # it appends to the journal, so not read-only

        recorded = client.ok("record_fact", {"kind": "config", "subject": "api.rate_limit", "value": "100",
                                             "valid_from": "2026-01-01T00:00:00Z"})
        old = re.search(r"facts/(FACT-[\w-]+)\.md", text_of(recorded)).group(1)
        superseded = client.ok("supersede_fact", {"fact": old, "value": "200", "reason": "traffic grew",
                                                  "valid_from": "2026-06-01T00:00:00Z"})
        new = re.search(r"recorded facts/(FACT-[\w-]+)\.md", text_of(superseded)).group(1)
        assert f"superseded by {new}" in text_of(superseded)

        now = text_of(client.ok("recall_facts", {"subject": "api.rate_limit"}))
        assert f"{new}  config api.rate_limit = 200" in now and old not in now  # current by default
        then = text_of(client.ok("recall_facts", {"subject": "api.rate_limit", "as_of": "2026-03-01T00:00:00Z"}))
        assert f"{old}  config api.rate_limit = 100" in then and new not in then

        before = snapshot(root)
        client.bad("supersede_fact", {"fact": old, "value": "300"}, new)  # closed: names the current fact
        client.bad("record_fact", {"kind": "config", "subject": "x", "value": "1", "valid_from": "2026-01-01 10:00"}, "zone")
        client.bad("invalidate_fact", {"fact": "FACT-nowhere"}, "no note named 'FACT-nowhere'")
        assert snapshot(root) == before

        closed = text_of(client.ok("invalidate_fact", {"fact": new, "reason": "limit removed"}))
        assert new in closed
        assert "0 of 0 facts" in text_of(client.ok("recall_facts", {"subject": "api.rate_limit"}))
        assert (root / "facts" / f"{old}.md").is_file() and (root / "facts" / f"{new}.md").is_file()
