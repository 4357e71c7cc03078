"""Driving `brain mcp` as a client does, shared by the MCP tests: a vault with a few notes, the
SDK's stdio client in a portal thread (tools, resources, prompts), and the tool names each group must expose."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import (
    CallToolResult,
    GetPromptResult,
    ListResourcesResult,
    PaginatedRequestParams,
    Prompt,
    TextResourceContents,
    Tool,
)

from brain.vault.init import init_vault
from tests.conftest import DATA, run_brain

LEARNING_TOOLS = {"save_trajectory", "get_guidelines", "bootstrap_context"}
FACT_TOOLS = {"record_fact", "supersede_fact", "invalidate_fact", "recall_facts"}
CORE_TOOLS = {
    "write_note",
    "read_note",
    "edit_note",
    "search",
    "build_context",
    "move_note",
    "delete_note",
    "list_notes",
    "recent_activity",
    "note_history",
    "restore_note",
    "index_status",
}
EPISODIC_TOOLS = {
    "store_episode",
    "query_episodes",
    "get_decision_sequence",
    "add_pattern",
    "query_patterns",
    "get_causal_path",
    "get_antipatterns",
}
RUN_TOOLS = {"record_run", "recall_runs", "explain_run"}
CAUSAL_TOOLS = {"save_context", "load_context", "build_causal_chain", "reconstruct_reasoning", "get_causality_stats"}
MAINTENANCE_TOOLS = {"reindex"}  # served only with --tools all (or maintenance)
DEFAULT_TOOLS = CORE_TOOLS | EPISODIC_TOOLS | RUN_TOOLS | CAUSAL_TOOLS | LEARNING_TOOLS | FACT_TOOLS

ADR_NOTE = """\
---
title: ADR-007 Memory First Architecture
type: note
tags: [adr, memory]
status: accepted
---

# ADR-007 Memory First Architecture

## Context
Agents forget between sessions; memory must be consulted before work starts.

## Decision
Query memory first, then act. See [[Memory Routing Strategy]].

## Relations
- part_of [[Memory Routing Strategy]]
"""
STRATEGY_NOTE = """\
---
title: Memory Routing Strategy
tags: [memory]
---

# Memory Routing Strategy

Route memory queries to the fastest source first. The routing pattern is
[[PATTERN-serena-first-routing]].
"""
CONTINUOUS = """\
---
title: PATTERN-continuous-context
type: pattern
trigger: Long session with many tool calls
success_rate: 0.7
occurrences: 4
---

# PATTERN-continuous-context

## Trigger
Long session with many tool calls

## Action
Keep a running summary note.

## Causal Relationships
- causes [[Better decisions]] (weight: 0.8)
"""
BETTER = """\
---
title: Better decisions
type: causal
---

# Better decisions

Outcome: decisions informed by earlier sessions.
"""
FORGETFUL = """\
---
title: ANTIPATTERN-forgetful-first
type: pattern
trigger: Memory query needed during session
success_rate: 0.2
occurrences: 3
---

# ANTIPATTERN-forgetful-first

## Trigger
Memory query needed during session

## Action
Query Forgetful keyword search first.
"""


def make_vault(root: Path) -> Path:
    """A vault made as `brain init` makes one, plus a few notes written as plain files."""
    vault, _ = init_vault(root)
    files = {
        "decisions/ADR-007 Memory First Architecture.md": ADR_NOTE,
        "notes/Memory Routing Strategy.md": STRATEGY_NOTE,
        "patterns/PATTERN-continuous-context.md": CONTINUOUS,
        "causal/Better decisions.md": BETTER,
        "patterns/ANTIPATTERN-forgetful-first.md": FORGETFUL,
    }
    for relative, text in files.items():
        path = vault.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    shutil.copy(DATA / "EPISODE-2026-01-21-session-42.md", vault.root / "episodes")
    shutil.copy(DATA / "PATTERN-serena-first-routing.md", vault.root / "patterns")
    return vault.root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the vault except the disposable index."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".brain/index" not in path.relative_to(root).as_posix()
    }


def server_command(root: Path, *extra: str) -> StdioServerParameters:
    # The SDK passes only a safe minimum (PATH, HOME, ...); add what Python and the embedder may need.
    keep = ("PYTHON", "HF_", "XDG_", "BRAIN_EMBEDDING")
    env = {key: value for key, value in os.environ.items() if key.startswith(keep)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "brain", "mcp", "--vault", str(root), *extra], env=env, cwd=str(root)
    )


@asynccontextmanager
async def stdio_session(root: Path, *extra: str) -> AsyncIterator[ClientSession]:
    """Spawn `brain mcp` on the vault and open an initialized client session to it."""
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server_command(root, *extra), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


class McpClient:
    """A live client session driven from synchronous tests (the session runs in a portal thread)."""

    def __init__(self, portal: BlockingPortal, session: ClientSession, root: Path):
        self.portal, self.session, self.root = portal, session, root

    def list_tools(self) -> dict[str, Tool]:
        return {tool.name: tool for tool in self.portal.call(self.session.list_tools).tools}

    def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        async def call() -> CallToolResult:
            with anyio.fail_after(60):
                return await self.session.call_tool(tool, arguments)

        return self.portal.call(call)

    def list_resources(self, cursor: str | None = None) -> ListResourcesResult:
        params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        return self.portal.call(lambda: self.session.list_resources(params=params))

    def read_resource(self, uri: str) -> str:
        """The text of the one content a resource is read as."""
        (content,) = self.portal.call(self.session.read_resource, uri).contents
        assert isinstance(content, TextResourceContents), content
        return content.text

    def list_prompts(self) -> dict[str, Prompt]:
        return {prompt.name: prompt for prompt in self.portal.call(self.session.list_prompts).prompts}

    def get_prompt(self, name: str, arguments: dict[str, str]) -> str:
        """The text of the one message a prompt renders."""
        got: GetPromptResult = self.portal.call(self.session.get_prompt, name, arguments)
        (message,) = got.messages
        assert message.role == "user" and message.content.type == "text", message
        return message.content.text

    def ok(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        result = self.call(tool, arguments)
        assert not result.is_error, f"{tool} failed: {text_of(result)}"
        assert result.structured_content is not None
        return result

    def bad(self, tool: str, arguments: dict[str, Any], *expected: str) -> str:
        result = self.call(tool, arguments)
        message = text_of(result)
        assert result.is_error, f"{tool} with {arguments} should have failed: {message}"
        for part in expected:
            assert part in message, f"{part!r} not in {message!r}"
        return message


@contextmanager
def connect(root: Path, *extra: str) -> Iterator[McpClient]:
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_session(root, *extra)) as session:
            yield McpClient(portal, session, root)


def list_tool_names_of(command: str, args: list[str], env: dict[str, str]) -> set[str]:
    """The tool names an MCP server started by `command ARGS` (with `env` only) lists to a client."""

    async def names() -> set[str]:
        server = StdioServerParameters(command=command, args=args, env=env)
        with open(os.devnull, "w") as errlog:
            async with stdio_client(server, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return {tool.name for tool in (await session.list_tools()).tools}

    return anyio.run(names)


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def cli(root: Path, *args: str) -> str:
    outcome = run_brain(*args, "--vault", str(root))
    assert outcome.exit_code == 0, outcome.output
    return outcome.output
