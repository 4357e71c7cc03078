"""Tests of brain/mcp/: the server over stdio and HTTP, every tool, its errors."""
