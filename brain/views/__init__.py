"""Rendering shared by the CLI and the MCP server: each thing a user sees is formatted once, here.

One module per domain, named as in `brain.memory` (`notes`, `episodes`, `patterns`, `causal`,
`facts`, `runs`, `tips`, `sessions`, and `search` and `index`), each giving text lines and JSON-ready dicts;
`plain` turns library objects into JSON-ready values. Front ends call these and never format the
same thing themselves.
"""
