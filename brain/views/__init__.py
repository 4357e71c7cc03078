"""Rendering shared by the CLI and the MCP server: each thing a user sees is formatted once, here.

One module per note type or group (`episodic`, and one per new type); `plain` turns library
objects into JSON-ready values. Front ends call these and never format the same thing themselves.
"""
