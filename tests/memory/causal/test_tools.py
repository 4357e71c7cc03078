"""The causal tools through a real MCP client session: save and load contexts, chains, why, stats."""

from __future__ import annotations

from pathlib import Path

from brain.markdown.model import ACTION_TYPES
from brain.vault.init import init_vault
from tests.helpers.mcp_harness import CAUSAL_TOOLS, cli, connect, snapshot, text_of


def test_causal_tools_through_a_client_session(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    root = vault.root
    (root / "episodes" / "EPISODE-2026-03-03-session-02.md").write_text(
        "---\ntitle: EPISODE-2026-03-03-session-02\ntype: episode\ntask: Move login to PKCE\noutcome: success\n---\n\n"
        "## Decisions\n\n### d001: Proof Method\n- **Chosen**: S256 only\n- **Rationale**: plain offers no protection\n",
        encoding="utf-8",
    )
    with connect(root, "--tools", "causal") as client:
        tools = client.list_tools()
        assert set(tools) == CAUSAL_TOOLS
        assert tools["save_context"].input_schema["properties"]["action_type"]["enum"] == list(ACTION_TYPES)
        assert set(tools["save_context"].input_schema["required"]) == {"project", "content", "action_type"}
        assert tools["build_causal_chain"].input_schema["properties"]["max_depth"]["default"] == 20
        assert tools["load_context"].annotations.read_only_hint is True

        first = client.ok(
            "save_context",
            {
                "project": "auth",
                "content": "User asks how mobile login should work",
                "action_type": "conversation",
                "rationale": "Start of the auth work",
            },
        )
        assert first.structured_content["saved"]["path"] == "contexts/User asks how mobile login should work.md"
        second = client.ok(
            "save_context",
            {
                "project": "auth",
                "content": "Use PKCE for the apps",
                "action_type": "decision",
                "caused_by": ["User asks how mobile login should work", "EPISODE-2026-03-03-session-02"],
                "rationale": "PKCE protects public clients",
            },
        )
        assert text_of(second) == (
            "saved contexts/Use PKCE for the apps.md (decision in auth, caused by "
            "contexts/User asks how mobile login should work.md, episodes/EPISODE-2026-03-03-session-02.md)"
        )
        assert "Use PKCE for the apps" in cli(
            root, "context", "load", "auth"
        )  # a file on disk: the CLI sees it at once

        loaded = client.ok("load_context", {"project": "auth", "limit": 1})
        assert [row["title"] for row in loaded.structured_content["contexts"]] == ["Use PKCE for the apps"]

        chain = client.ok("build_causal_chain", {"note": "Use PKCE for the apps"})
        steps = chain.structured_content["chain"]["steps"]
        assert [step["title"] for step in steps] == [
            "EPISODE-2026-03-03-session-02",
            "User asks how mobile login should work",
            "Use PKCE for the apps",
        ]
        assert "caused by: 1. EPISODE-2026-03-03-session-02, 2. User asks how mobile login should work" in text_of(
            chain
        )
        forward = client.ok("build_causal_chain", {"note": "EPISODE-2026-03-03-session-02", "forward": True})
        assert [step["title"] for step in forward.structured_content["chain"]["steps"]] == [
            "EPISODE-2026-03-03-session-02",
            "Use PKCE for the apps",
        ]

        why = client.ok("reconstruct_reasoning", {"note": "Use PKCE for the apps"})
        assert why.structured_content["reasoning"]["rationale"] == "PKCE protects public clients"
        assert (
            "- EPISODE-2026-03-03-session-02 d001: Proof Method -> S256 only  [on the chain]\n    why: plain offers no protection"
            in text_of(why)
        )

        stats = client.ok("get_causality_stats", {"project": "auth"}).structured_content["stats"]
        assert (stats["notes"], stats["with_caused_by"], stats["longest_chain"], stats["orphans"]) == (2, 1, 2, [])

        before = snapshot(root)
        client.bad(
            "save_context",
            {"project": "auth", "content": "x", "action_type": "decision", "caused_by": ["Nowhere"]},
            "no note named 'Nowhere'",
        )
        client.bad("save_context", {"project": "auth", "content": "  ", "action_type": "decision"}, "needs content")
        client.bad("save_context", {"project": "auth", "content": "x", "action_type": "deploy"}, "action_type")
        client.bad("build_causal_chain", {"note": "Nowhere"}, "no note named 'Nowhere'")
        client.bad("build_causal_chain", {"note": "Use PKCE for the apps", "max_depth": 0}, "max_depth")
        client.bad("reconstruct_reasoning", {"note": "Nowhere"}, "no note named 'Nowhere'")
        client.bad("get_causality_stats", {"project": "nope"}, "no note belongs to project 'nope'; projects: auth")
        assert snapshot(root) == before
        assert client.ok("load_context", {"project": "auth"}).structured_content["contexts"]  # still serving
