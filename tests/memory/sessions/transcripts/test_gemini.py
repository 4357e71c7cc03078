"""The Gemini CLI reader (`brain/memory/sessions/transcripts/gemini.py`): a chat read into acts, each
message as last written, a rewind applied; its episode; backfill from Gemini CLI's own store; a chat
of the real CLI 0.61.0. Data: tests/data/transcripts (see its README)."""

from __future__ import annotations

import json
import os
import shutil

from brain.memory.sessions.transcripts.files import ReadStats
from brain.memory.sessions.transcripts.gemini import read
from tests.conftest import GEMINI, GEMINI_REAL, TRANSCRIPTS, run_brain

SESSION = "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
REAL_SESSION = "a0290670-a6ef-40b2-8f6b-fb09e226a30d"


def test_a_chat_reads_each_message_as_last_written_with_the_rewind_applied():
    stats = ReadStats()
    acts = list(read(GEMINI, stats))
    assert stats.session_id == SESSION
    assert [(act.kind, act.name or act.text[:40]) for act in acts if act.kind != "usage"] == [
        ("user", "Fix the failing date parser test in src/"),
        ("thinking", "Plan: Run the test suite to see the fail"),
        ("agent", "I'll run the tests first."),
        ("call", "run_shell_command"),
        ("result", "Command exited with code 1: FAILED tests"),
        ("meta", ""),  # the info line that says what was rewound; the rewound prompt is gone
        ("agent", "The ISO week check rejects week 53; I'll"),
        ("call", "read_file"),
        ("result", "def iso_week(year, week):\n    if week > "),
        ("call", "edit_file"),  # Gemini CLI's `replace`
        ("result", "Successfully modified file: /work/dates/"),
        ("call", "run_shell_command"),
        ("result", "5 passed in 0.29s"),
        ("call", "run_shell_command"),
        ("result", ""),  # cancelled by the user: no output
        ("interrupt", "rejected a tool call"),
        ("agent", "Fixed: week 53 is valid in long ISO year"),
    ]
    results = [act for act in acts if act.kind == "result"]
    assert [(act.is_error, act.rejected) for act in results] == [
        (True, False),
        (False, False),
        (False, False),
        (False, False),
        (True, True),
    ]
    assert [act.tokens for act in acts if act.kind == "usage"] == [
        (1200, 80, 0, 0),
        (2400, 210, 1100, 0),
        (2600, 40, 2300, 0),
    ]


def test_extract_tells_a_gemini_chat_and_makes_its_episode(vault):
    done = run_brain("episode", "extract", str(GEMINI), "--vault", str(vault.root), "--json")
    assert done.exit_code == 0, done.output
    [found] = json.loads(done.stdout)
    assert (found["format"], found["session"], found["task"]) == (
        "gemini",
        SESSION,
        "Fix the failing date parser test in src/dates.py",
    )
    metrics = found["metrics"]
    assert (metrics["tool_calls"], metrics["errors"], metrics["recoveries"], metrics["files_changed"]) == (5, 2, 1, 1)
    text = (vault.root / found["path"]).read_text()
    assert (
        "e001 (error): Ran `pytest tests/test_dates.py -q`: tests failed (1 failed, 4 passed) (leads_to: [[e003]])"
        in text
    )
    assert "delete the test instead" not in text


def test_backfill_reads_gemini_clis_own_store(vault, tmp_path, monkeypatch):
    gemini_home = tmp_path / "gemini-home"
    shutil.copytree(TRANSCRIPTS / "gemini", gemini_home / ".gemini" / "tmp")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_home))
    done = run_brain("episode", "extract", "--from", "gemini", "--vault", str(vault.root))
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[-1] == (
        f"1 session in {gemini_home / '.gemini' / 'tmp'}: 1 created, 0 already in the vault"
    )
    assert os.path.isfile(vault.root / "episodes" / "EPISODE-2026-03-20-7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f.md")


def test_a_chat_of_the_real_cli_gives_the_failed_command_its_exit_code_and_the_task_its_prompt(vault):
    """Gemini CLI records a shell command that ran as a `success` whatever its exit code, wraps what
    the model reads in `<untrusted_context>`, and puts the hooks' context before the prompt: the
    failure is read from `Exit Code:`, and the task is the prompt alone."""
    acts = [act for act in read(GEMINI_REAL, ReadStats()) if act.kind == "result"]
    assert [(act.text, act.is_error) for act in acts] == [
        ("/usr/bin/bash: line 4: cd: src: No such file or directory\nExit Code: 1", True),
        ("main.py", False),
    ]
    done = run_brain("episode", "extract", str(GEMINI_REAL), "--vault", str(vault.root), "--json")
    [found] = json.loads(done.stdout)
    assert (found["session"], found["task"], found["outcome"]) == (
        REAL_SESSION,
        "List the sources of the app and tell me where they live",
        "success",
    )
    metrics = found["metrics"]
    assert (metrics["tool_calls"], metrics["errors"], metrics["recoveries"]) == (2, 1, 1)
    assert "warnings" not in found or not found["warnings"]
