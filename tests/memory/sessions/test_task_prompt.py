"""Which prompt gets the first-prompt context: one that states a task, not a slash command, a
greeting or a thank-you, or a word or two."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.memory.sessions.task_prompt import states_a_task


@pytest.mark.parametrize(
    "prompt",
    [
        "",
        "   ",
        "/model",
        "/clear",
        "/compact focus on the failing tests and the parser",
        "/review:pr 42 please look at the whole diff",
        "hi",
        "Hello there!",
        "hey claude, how are you doing today?",
        "thanks!",
        "Thank you so much",
        "ok",
        "go on",
        "continue",
        "你好",
        "谢谢你",
    ],
)
def test_no_task(prompt):
    assert states_a_task(prompt) is False


@pytest.mark.parametrize(
    "prompt",
    [
        "fix the tests",
        "Good morning! Can you fix the login bug?",
        "/srv/app/main.py crashes on start, look at it",
        "Shorten the mobile access token TTL for the ledger apps",
        "修复结账总额的舍入错误",
        "ログインのバグを直してください",
    ],
)
def test_a_task(prompt):
    assert states_a_task(prompt) is True


@given(st.text(max_size=200))
def test_any_text_is_answered(prompt):
    assert states_a_task(prompt) in (True, False)


@given(st.sampled_from(["/model", "/clear", "/cost", "/compact"]), st.text(max_size=80))
def test_a_slash_command_never_states_a_task(command, rest):
    assert states_a_task(f"{command} {rest}") is False
