"""Hooks named by their agent (`brain hooks run codex tool-failure`), the names of before still run,
and a hook loads its own agent only."""

from __future__ import annotations

import json

from brain.agents.events import hook_name, named
from tests.agents.test_hooks import brain_process, hook_input
from tests.helpers.cli_probe import probe


def test_a_hook_is_named_by_its_agent_and_the_old_names_still_read() -> None:
    assert named(["codex", "tool-failure", "{}"]) == ("codex", "codex-tool-failure", ["{}"])
    assert named(["codex-tool-failure", "{}"]) == ("codex", "codex-tool-failure", ["{}"])
    assert named(["claude-code", "session-start"]) == ("claude-code", "session-start", [])
    assert named(["session-start"]) == ("claude-code", "session-start", [])
    assert named(["gemini", "first-prompt"]) == ("gemini", "gemini-first-prompt", [])
    assert named(["extract"]) == (None, "extract", [])
    assert named(["codex", "session-end"]) == (None, "codex", ["session-end"])  # Codex has no session-end hook
    assert hook_name("codex-notify") == ["codex", "notify"]
    assert hook_name("session-end") == ["claude-code", "session-end"]
    assert hook_name("warm") == ["warm"]


def test_both_names_of_a_hook_answer_the_same(example) -> None:
    payload = hook_input("SessionStart", source="startup")
    new = brain_process("hooks", "run", "claude-code", "session-start", "--vault", str(example.root), stdin=payload)
    old = brain_process("hooks", "run", "session-start", "--vault", str(example.root), stdin=payload)
    assert new.returncode == old.returncode == 0
    assert new.stdout == old.stdout
    assert json.loads(new.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_a_hook_loads_its_own_agent_only(example) -> None:
    payload = json.dumps({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}, "error": "x"})
    _, modules = probe("hooks", "run", "claude-code", "tool-failure", "--vault", str(example.root), payload)
    assert "brain.agents.claude_code" in modules
    assert not {"brain.agents.codex", "brain.agents.gemini", "brain.agents.registry"} & modules


def test_the_run_help_lists_every_agents_events() -> None:
    done = brain_process("hooks", "run", "--help")
    text = " ".join(done.stdout.split()).replace("- ", "-")  # words the help wrapped at a hyphen
    assert done.returncode == 0
    assert "claude-code: session-start, first-prompt, tool-failure, session-end" in text
    assert "codex: session-start, first-prompt, tool-failure, stop, notify" in text
    assert "gemini: session-start, first-prompt, tool-failure, session-end" in text
