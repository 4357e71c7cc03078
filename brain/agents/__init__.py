"""brain inside coding agents, a front end beside `cli/` and `mcp/`: one module per agent behind one
interface (`agent.Agent`), the install of brain's hooks and MCP server into their settings, and the
hooks they run. See docs/architecture.md; CONTRIBUTING.md says how to add an agent.

Nothing is imported here, on purpose: importing the package is free and cannot start a cycle.
"""
