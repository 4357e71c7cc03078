"""Tests of brain/agents/: hooks installed and run, the Claude Code and Codex transcript readers."""
