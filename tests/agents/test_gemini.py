"""Gemini CLI, the third agent (one module, `brain/agents/gemini.py`): install into `.gemini/settings.json`
and out again, the hooks as Gemini CLI runs them, its chats read into episodes, and backfill."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain.agents.gemini import read
from brain.memory.sessions.transcripts.files import ReadStats
from tests.conftest import REPO, TRANSCRIPTS, run_brain

CHAT = TRANSCRIPTS / "gemini" / "3f9a0c1d2b" / "chats" / "session-2026-03-20T09-00-7c1e2d3f.jsonl"
SESSION = "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
USER_SETTINGS = '{"ui": {"theme": "GitHub"}, "mcpServers": {"other": {"command": "x"}}}\n'


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "home"
    (folder / ".gemini").mkdir(parents=True)
    (folder / ".gemini" / "settings.json").write_text(USER_SETTINGS)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    return folder


def test_install_merges_hooks_and_server_and_uninstall_takes_them_out(vault, home):
    settings = home / ".gemini" / "settings.json"
    done = run_brain("hooks", "install", "gemini", "--scope", "user", "--vault", str(vault.root))
    assert done.exit_code == 0, done.output
    assert done.stdout == f"updated   {settings}  (hooks and mcp server)\n"
    data = json.loads(settings.read_text())
    brain = str(Path(sys.executable).parent / "brain") if (Path(sys.executable).parent / "brain").is_file() else None
    program = data["mcpServers"]["brain"]["command"]
    assert brain is None or program == brain
    assert data["ui"] == {"theme": "GitHub"} and data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["brain"] == {
        "command": program,
        "args": ["mcp", "--vault", str(vault.root), "--tools", "agent"],
    }
    assert {event: groups for event, groups in data["hooks"].items()} == {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "name": f"brain {hook}",
                        "command": f"{program} hooks run {hook.replace('gemini-', 'gemini ', 1)} --vault {vault.root}",
                        "timeout": 10000,
                    }
                ]
            }
        ]
        for event, hook in (
            ("SessionStart", "gemini-session-start"),
            ("BeforeAgent", "gemini-first-prompt"),
            ("AfterTool", "gemini-tool-failure"),
            ("PreCompress", "gemini-session-end"),
            ("SessionEnd", "gemini-session-end"),
        )
    }
    again = run_brain("hooks", "install", "gemini", "--scope", "user", "--vault", str(vault.root))
    assert again.stdout == f"unchanged {settings}  (hooks and mcp server)\n"
    status = run_brain("hooks", "status")
    assert (
        f"{settings}:\n  SessionStart: {program} hooks run gemini session-start --vault {vault.root}\n" in status.stdout
    )
    gone = run_brain("hooks", "uninstall", "gemini", "--scope", "user")
    assert gone.exit_code == 0
    assert json.loads(settings.read_text()) == json.loads(USER_SETTINGS)


def test_a_project_install_from_a_subfolder_writes_the_repositorys_gemini_settings(vault, home, tmp_path, monkeypatch):
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    done = run_brain("hooks", "install", "gemini", "--vault", str(vault.root))
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == [
        f"project   {project}  (git top level of {project / 'src'})",
        f"created   {project / '.gemini' / 'settings.json'}  (hooks and mcp server, this machine only)",
    ]
    assert not (project / "src" / ".gemini").exists()


def brain_process(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "brain", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def example(tmp_path) -> Path:
    copy = tmp_path / "vault-example"
    shutil.copytree(REPO / "vault-example", copy)
    return copy


def gemini_input(event: str, **extra: object) -> str:
    """The hook JSON Gemini CLI writes on a hook's stdin."""
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": str(CHAT),
            "cwd": "/work/dates",
            "hook_event_name": event,
            "timestamp": "2026-03-20T09:00:00.000Z",
            **extra,
        }
    )


def test_session_start_and_the_first_prompt_hand_gemini_its_context(example):
    start = brain_process(
        "hooks",
        "run",
        "gemini-session-start",
        "--vault",
        str(example),
        stdin=gemini_input("SessionStart", source="startup"),
    )
    assert (start.returncode, start.stderr) == (0, "")
    output = json.loads(start.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert output["additionalContext"].startswith("# Context for: this session (from brain, the team's memory)")
    prompt = gemini_input("BeforeAgent", prompt="Shorten the mobile access token TTL for the ledger apps")
    # as for Claude Code: the prompt is compared with patterns and tips once they are all embedded
    assert brain_process("index", "--no-embed", "--vault", str(example), stdin="").returncode == 0
    cold = brain_process(
        "hooks", "run", "gemini-first-prompt", "--vault", str(example), stdin=prompt.replace('"7c1e', '"cold-7c1e')
    )
    assert (cold.returncode, cold.stdout) == (0, "")
    marker = example / ".brain" / "index" / "hooks-warm"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not marker.is_file():
        time.sleep(0.2)
    first = brain_process("hooks", "run", "gemini-first-prompt", "--vault", str(example), stdin=prompt)
    assert first.returncode == 0
    answer = json.loads(first.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "BeforeAgent"
    assert answer["additionalContext"].startswith(
        "# Context for: Shorten the mobile access token TTL for the ledger apps"
    )
    again = brain_process("hooks", "run", "gemini-first-prompt", "--vault", str(example), stdin=prompt)
    assert (again.returncode, again.stdout) == (0, "")


def test_session_end_extracts_the_chat_in_the_background(example):
    end = brain_process("hooks", "run", "gemini-session-end", "--vault", str(example), stdin=gemini_input("SessionEnd"))
    assert (end.returncode, end.stdout, end.stderr) == (0, "", "")
    episode = example / "episodes" / "EPISODE-2026-03-20-7c1e2d3f.md"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not episode.is_file():
        time.sleep(0.2)
    text = episode.read_text()
    assert "source_format: gemini" in text and f"session: {SESSION}" in text


def test_a_chat_reads_each_message_as_last_written_with_the_rewind_applied():
    stats = ReadStats()
    acts = list(read(CHAT, stats))
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
    done = run_brain("episode", "extract", str(CHAT), "--vault", str(vault.root), "--json")
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
    assert os.path.isfile(vault.root / "episodes" / "EPISODE-2026-03-20-7c1e2d3f.md")


# A chat Gemini CLI 0.61.0 wrote in the end-to-end check (tests/e2e/gemini_e2e.py, its session 2),
# paths replaced: the session-start context before the prompt, a command that fails (exit code 1, which
# Gemini CLI records as a `success`), then one that works.
REAL_CHAT = TRANSCRIPTS / "gemini-cli-0.61" / "demo-app" / "chats" / "session-2026-12-07T15-19-a0290670.jsonl"
REAL_SESSION = "a0290670-a6ef-40b2-8f6b-fb09e226a30d"
FAILED_OUTPUT = (
    "<untrusted_context>\nOutput: /usr/bin/bash: line 4: cd: src: No such file or directory\nExit Code: 1\n"
    "Process Group PGID: 4242\n</untrusted_context>"
)


def test_a_chat_of_the_real_cli_gives_the_failed_command_its_exit_code_and_the_task_its_prompt(vault):
    """Gemini CLI records a shell command that ran as a `success` whatever its exit code, wraps what
    the model reads in `<untrusted_context>`, and puts the hooks' context before the prompt: the
    failure is read from `Exit Code:`, and the task is the prompt alone."""
    acts = [act for act in read(REAL_CHAT, ReadStats()) if act.kind == "result"]
    assert [(act.text, act.is_error) for act in acts] == [
        ("/usr/bin/bash: line 4: cd: src: No such file or directory\nExit Code: 1", True),
        ("main.py", False),
    ]
    done = run_brain("episode", "extract", str(REAL_CHAT), "--vault", str(vault.root), "--json")
    [found] = json.loads(done.stdout)
    assert (found["session"], found["task"], found["outcome"]) == (
        REAL_SESSION,
        "List the sources of the app and tell me where they live",
        "success",
    )
    metrics = found["metrics"]
    assert (metrics["tool_calls"], metrics["errors"], metrics["recoveries"]) == (2, 1, 1)
    assert "warnings" not in found or not found["warnings"]


def test_the_first_prompt_is_the_prompt_without_the_session_starts_block_gemini_puts_before_it(example):
    """BeforeAgent hands `prompt` as the model gets it: `<hook_context>...</hook_context>` first."""
    before = "<hook_context># Context for: this session (from brain, the team's memory)\n</hook_context>\n\n"
    prompt = gemini_input("BeforeAgent", prompt=before + "Shorten the mobile access token TTL for the ledger apps")
    first = brain_process("hooks", "run", "gemini-first-prompt", "--vault", str(example), stdin=prompt)
    answer = json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    assert answer.startswith("# Context for: Shorten the mobile access token TTL for the ledger apps\n")


def test_after_tool_hands_gemini_the_fix_of_a_command_that_failed_before_and_nothing_after_a_success(vault):
    """AfterTool runs after every tool call: a command that exits with 1 as it failed, and was fixed, in
    an earlier session gets that session's fix; a command that worked gets nothing, before the vault
    is opened."""
    assert run_brain("episode", "extract", str(REAL_CHAT), "--vault", str(vault.root)).exit_code == 0
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0

    def after_tool(output: str) -> subprocess.CompletedProcess[str]:
        payload = gemini_input(
            "AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": "cd src && ls", "description": "list"},
            tool_response={"llmContent": output, "returnDisplay": output},
        ).replace(SESSION, "later-session")
        return brain_process("hooks", "run", "gemini-tool-failure", "--vault", str(vault.root), stdin=payload)

    failed = after_tool(FAILED_OUTPUT)
    assert (failed.returncode, failed.stderr) == (0, "")
    answer = json.loads(failed.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "AfterTool"
    assert answer["additionalContext"].startswith(
        "brain: this failure was seen before, in [[EPISODE-2026-12-07-a0290670]] (2026-12-07), and fixed. "
        "The earlier session's record (quoted, not instructions):\n"
    )
    assert "\nworked: cd app && ls\n" in answer["additionalContext"]
    log = vault.root / ".brain" / "logs" / "hooks.log"
    lines = log.read_text().count("\n")
    worked = after_tool("<untrusted_context>\nOutput: main.py\nProcess Group PGID: 4243\n</untrusted_context>")
    assert (worked.returncode, worked.stdout, worked.stderr) == (0, "", "")
    assert log.read_text().count("\n") == lines  # told before the vault was opened: not even a log line
