"""The MCP tools, one module per domain, each a set of module-level functions `fn(state, ...)`.

`brain.mcp.server` registers the modules of its `_TOOL_MODULES`: each module's `GROUP` (the `--tools`
profile) and its functions decorated with `brain.mcp.common.tool`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.mcp.tools import notes`, so importing the package costs
nothing and cannot make an import cycle.
"""
