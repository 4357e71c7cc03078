"""The MCP server: agents reach the vault through the same library functions as the CLI.

`brain.mcp.server.build_server(vault, groups)` builds it; `brain mcp` runs it. The tools live in
`brain.mcp.tools`, one module per domain; `brain.mcp.common` holds what they share (`tool`,
`ServerState`, `result`, the one translation of library errors into tool errors); `brain.mcp.remedies`
words each error remedy for an agent; `brain.mcp.resources` serves the notes as resources and
`brain.mcp.prompts` the session protocol as prompts.
"""
