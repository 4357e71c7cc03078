"""The MCP server: agents reach the vault through the same library functions as the CLI.

`brain.mcp.server.build_server(vault, groups)` builds it; `brain mcp` runs it. Tool groups live
in `tools_*.py`, one module each.
"""
