"""The session protocol as MCP prompts, through a client session to `brain mcp`: start_task hands the
bootstrap context for a task, end_session says what to record and with which tools; both name only
the tools the server serves."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from brain.vault.init import init_vault
from tests.helpers.mcp_harness import connect, make_vault, text_of

LOOK_FURTHER = """\
Before acting on it:
- search the vault for the task's topics, and read_note the notes that matter
- build_context gathers what surrounds a note (its links, relations and causes)
- recall_facts before acting on a preference, setting or policy
- get_antipatterns lists the ways of working that keep failing
- reconstruct_reasoning says why a note exists before you reverse a decision

When the session ends, record what it taught (the end_session prompt says how)."""

END_SESSION = """\
The session is ending (task: Route memory queries). Record what it taught, so that the next session starts from it.
Record only what a later session would want to know; leave out what the notes already say.

- The episode, once: store_episode with the task ('Route memory queries'), the outcome ('partial'), the decisions \
made, in order (each with its context, the options weighed, the one chosen, the rationale and how it turned out), the \
events that mattered, and the lessons, one sentence each. Storing the same session again updates it.
- Each decision later work will build on: save_context with action_type 'decision', the rationale, and in caused_by \
the note that led to it, so build_causal_chain can trace it.
- A way of working that proved itself or failed: add_pattern with its trigger and action, the outcome, and the \
episode as evidence (its success rate is the running average of its outcomes).
- A preference, setting or policy learned: recall_facts first; when a fact about it holds, supersede_fact it by its \
id (FACT-...), else record_fact.
- Tips for the next task: save_trajectory with the episode, once it is stored."""


def test_start_task_hands_the_bootstrap_context_and_end_session_what_to_record(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    with connect(root) as client:
        prompts = client.list_prompts()
        assert {name: [(a.name, a.required) for a in p.arguments or []] for name, p in prompts.items()} == {
            "start_task": [("task", True)],
            "end_session": [("task", False), ("outcome", False)],
        }
        for prompt in prompts.values():
            assert prompt.title and prompt.description and all(a.description for a in prompt.arguments or [])

        task = "route memory queries during a long session"
        context = text_of(client.ok("bootstrap_context", {"task": task}))  # what the tool gives, the prompt hands
        assert "## Antipattern warnings\n- ANTIPATTERN-forgetful-first" in context
        started = client.get_prompt("start_task", {"task": task})
        assert started == (
            f"I am starting a task: {task}\n\n"
            "What the vault (the memory of earlier sessions) knows that bears on it:\n\n"
            f"{context.rstrip()}\n\n{LOOK_FURTHER}"
        )
        assert client.get_prompt("end_session", {"task": "Route memory queries", "outcome": "partial"}) == END_SESSION
        plain_end = client.get_prompt("end_session", {})
        assert plain_end.startswith("The session is ending. Record what it taught")
        assert "store_episode with the task, the outcome (success, partial or failure), the decisions" in plain_end

        with pytest.raises(MCPError) as wrong:
            client.get_prompt("end_session", {"outcome": "great"})
        assert (wrong.value.code, wrong.value.message) == (
            INVALID_PARAMS,
            "outcome 'great' is not one of success, partial, failure",
        )
        with pytest.raises(MCPError) as blank:
            client.get_prompt("start_task", {"task": "  "})
        assert (blank.value.code, blank.value.message) == (
            INVALID_PARAMS,
            "give the task the session is about to start",
        )


def test_prompts_name_only_the_tools_served(tmp_path: Path) -> None:
    empty, _ = init_vault(tmp_path / "empty")
    with connect(empty.root, "--tools", "core") as core_only:
        assert core_only.get_prompt("start_task", {"task": "quantum knitting"}) == (
            "I am starting a task: quantum knitting\n\n"
            "The vault holds nothing yet that bears on it: no recent failure, antipattern, fact, pattern or tip matched.\n\n"
            "Before acting on it:\n"
            "- search the vault for the task's topics, and read_note the notes that matter\n"
            "- build_context gathers what surrounds a note (its links, relations and causes)\n\n"
            "When the session ends, record what it taught (the end_session prompt says how)."
        )
        assert core_only.get_prompt("end_session", {}) == (
            "The session is ending. Record what it taught, so that the next session starts from it.\n"
            "Record only what a later session would want to know; leave out what the notes already say.\n\n"
            "- Each decision later work will build on: a note of its own with write_note (why, and what else was weighed)."
        )
    with connect(empty.root, "--tools", "runs") as runs_only:  # nothing there records a session: no end_session
        assert set(runs_only.list_prompts()) == {"start_task"}
        assert runs_only.get_prompt("start_task", {"task": "loan approval"}) == (
            "I am starting a task: loan approval\n\n"
            "The vault holds nothing yet that bears on it: no recent failure, antipattern, fact, pattern or tip matched."
        )
