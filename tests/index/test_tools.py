"""The index's state and its rebuilding over MCP, through a client session to `brain mcp`: index_status
in every profile, reindex only where asked for (`--tools all` or `maintenance`), and remedies worded
as the tools served can take them."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers.mcp_harness import DEFAULT_TOOLS, MAINTENANCE_TOOLS, cli, connect, make_vault, text_of

EMBEDDER = "all-MiniLM-L6-v2:int8-rows-onnx"


def _seconds_out(text: str) -> str:
    return re.sub(r"in \d+\.\d s\)", "in S s)", text)


def test_index_status_by_default_reindex_only_when_asked_for(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root) as default:
        assert set(default.list_tools()) == DEFAULT_TOOLS  # no reindex: an agent's working set
        assert "reindex" not in default.list_tools()
        before = default.ok("index_status", {})
        assert text_of(before).splitlines()[:2] == [
            f"vault     {root}: 7 note files",
            "index     none yet; the vault's owner must index the vault (no tool served here does)",
        ]
        assert (before.structured_content["indexed"], before.structured_content["fresh"]) == (False, False)
        assert before.structured_content["notes"] == 7
        default.bad("reindex", {}, "Unknown tool: reindex")

    with connect(root, "--tools", "all") as full:
        tools = full.list_tools()
        assert set(tools) == DEFAULT_TOOLS | MAINTENANCE_TOOLS
        assert tools["reindex"].annotations.read_only_hint is False
        assert tools["reindex"].annotations.idempotent_hint is True
        assert full.ok("index_status", {}).content[0].text.splitlines()[1] == "index     none yet; call reindex"

        built = full.ok("reindex", {})
        assert _seconds_out(text_of(built)) == (
            "7 notes: 7 added, 0 changed, 0 moved, 0 removed (7 parsed in S s); "
            f"vectors: 18 chunks embedded, 0 unchanged, 0 deleted ({EMBEDDER})"
        )
        assert built.structured_content == {
            "full": False,
            "notes": 7,
            "added": 7,
            "changed": 0,
            "moved": 0,
            "removed": 0,
            "conflicts": [],
            "skipped": 0,
            "embedded": 18,
            "kept": 0,
            "reused": 0,
            "deleted": 0,
            "lost_vectors": 0,
            "embedder": EMBEDDER,
        }
        status = full.ok("index_status", {})
        lines = text_of(status).splitlines()
        assert lines[1] == "notes     by type: causal 1, episode 1, note 2, pattern 3"
        assert lines[2].startswith("index     up to date (last updated ")
        assert lines[3] == f"vectors   18 chunks in {root}/.brain/index/chroma (embedded Chroma)"
        assert lines[4] == f"embedder  {EMBEDDER}"
        assert status.structured_content["fresh"] is True
        assert status.structured_content["by_type"] == {"causal": 1, "episode": 1, "note": 2, "pattern": 3}

        again = full.ok("reindex", {})  # only what changed: nothing
        assert _seconds_out(text_of(again)) == (
            "7 notes: 0 added, 0 changed, 0 moved, 0 removed (0 parsed in S s); "
            f"vectors: 0 chunks embedded, 0 unchanged, 0 deleted ({EMBEDDER})"
        )
        rebuilt = full.ok("reindex", {"full": True})  # from the notes alone
        assert (rebuilt.structured_content["full"], rebuilt.structured_content["added"]) == (True, 7)
        assert rebuilt.structured_content["embedded"] == 18

    with connect(root, "--tools", "maintenance") as maintenance_only:
        assert set(maintenance_only.list_tools()) == MAINTENANCE_TOOLS


def test_an_index_of_another_embedder_is_named_and_rebuilt_with_reindex(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    cli(root, "index")
    config = root / ".brain" / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    refused = "the vectors of this vault were made by embedder 'all-MiniLM-L6-v2:int8-rows-onnx', but the embedder in use is 'lexical-hash-v1:384'; "
    with connect(root) as default:
        default.bad(
            "search",
            {"query": "memory"},
            refused + "the vault's owner must reindex the vault (no tool served here does) to rebuild them",
        )
        status = text_of(default.ok("index_status", {})).splitlines()
        assert status[2].startswith(
            f"index     the vectors were made by {EMBEDDER}, not by lexical-hash-v1:384 in use; "
            "the vault's owner must reindex the vault (no tool served here does) to rebuild them (last updated "
        )
    with connect(root, "--tools", "all") as full:
        full.bad("search", {"query": "memory"}, refused + "call reindex with full: true to rebuild them")
        assert full.ok("index_status", {}).structured_content["fresh"] is False
        full.ok("reindex", {"full": True})
        found = full.ok("search", {"query": "memory first architecture", "mode": "vector", "limit": 1})
        assert [hit["title"] for hit in found.structured_content["hits"]] == ["ADR-007 Memory First Architecture"]
        assert full.ok("index_status", {}).structured_content["fresh"] is True
