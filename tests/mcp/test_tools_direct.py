"""MCP tools are plain module-level functions: importable and callable alone, and served with the same schema.

The client-session tests (the other files of tests/mcp/) cover the protocol; these show a tool can be tested
without a server, and that the server registers every tool of every domain module exactly once.
"""

from __future__ import annotations

import asyncio

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from brain.mcp import server as mcp_server
from brain.mcp.common import ServerState, register_tools, tools_in
from brain.memory.corpus import Corpus
from brain.memory.notes import tools as notes
from brain.vault.vault import Vault


def test_a_tool_is_called_directly_with_a_state(vault: Vault) -> None:
    state = ServerState(vault=vault, corpus=Corpus(vault))
    written = notes.write_note(state, title="Direct call", content="Body written without a server.")
    assert written.structured_content == {"path": "notes/Direct call.md", "title": "Direct call", "created": True}
    read = notes.read_note(state, name="Direct call")
    assert "Body written without a server." in read.content[0].text


def test_a_library_error_is_a_tool_error_once_served(vault: Vault) -> None:
    server = mcp_server.BrainServer("test")
    register_tools(server, ServerState(vault=vault, corpus=Corpus(vault)), notes)
    with pytest.raises(ToolError, match="no note named 'Nowhere'"):
        asyncio.run(server.call_tool("read_note", {"name": "Nowhere"}))


def test_every_tool_module_is_served_once_and_state_is_not_an_argument(vault: Vault) -> None:
    server = mcp_server.build_server(vault, "all")
    served = asyncio.run(server.list_tools())
    names = [tool.name for tool in served]
    defined = [fn.__name__ for module in mcp_server._TOOL_MODULES for fn in tools_in(module)]
    assert names == defined
    assert len(set(names)) == len(names)
    assert all("state" not in tool.input_schema.get("properties", {}) for tool in served)
