"""What the MCP server's tool list costs an agent: the `tools/list` answer a client receives, per
`--tools` choice, in characters of JSON and estimated tokens (characters / 4, as brain counts every
budget). An MCP client sends every tool's name, description and input schema to its model with
every request, so this is paid in every turn of every session.

    python -m benchmarks.quality.tool_list

Writes benchmarks/results/mcp-tool-list.json and prints a table.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from benchmarks import harness
from brain.vault.init import init_vault

CHOICES = {"agent": ["--tools", "agent"], "default": [], "all": ["--tools", "all"]}


async def listing(root: Path, extra: list[str]) -> list[dict[str, Any]]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "brain", "mcp", "--vault", str(root), *extra],
        env={key: value for key, value in os.environ.items() if key.startswith(("PYTHON", "HF_", "XDG_"))},
    )
    with open(os.devnull, "w") as errors:
        async with stdio_client(server, errlog=errors) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def sizes(tools: list[dict[str, Any]]) -> dict[str, Any]:
    whole = len(json.dumps(tools))
    essential = len(json.dumps([{key: t.get(key) for key in ("name", "description", "inputSchema")} for t in tools]))
    return {
        "tools": len(tools),
        "chars": whole,
        "tokens_estimated": -(-whole // 4),
        "chars_name_description_schema": essential,
        "largest": sorted(((len(json.dumps(t)), t["name"]) for t in tools), reverse=True)[:3],
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        vault, _ = init_vault(Path(folder) / "vault")
        results = {name: sizes(anyio.run(listing, vault.root, extra)) for name, extra in CHOICES.items()}
    path = harness.write_json(harness.RESULTS / "mcp-tool-list.json", {"machine": harness.machine(), **results})
    print("| --tools | tools | characters (JSON) | names, descriptions, schemas | tokens (estimated) |")
    print("| --- | --- | --- | --- | --- |")
    for name, found in results.items():
        print(
            f"| {name} | {found['tools']} | {found['chars']:,} | {found['chars_name_description_schema']:,} "
            f"| {found['tokens_estimated']:,} |"
        )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
