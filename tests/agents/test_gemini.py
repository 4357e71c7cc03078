"""Gemini CLI, the third agent (`brain/agents/gemini.py`): install into `.gemini/settings.json` and out
again, and the hooks as Gemini CLI runs them (its chats' reader: tests/memory/sessions/transcripts/test_gemini.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import GEMINI, GEMINI_REAL, REPO, run_brain

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
            "transcript_path": str(GEMINI),
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
    episode = example / "episodes" / "EPISODE-2026-03-20-7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f.md"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not episode.is_file():
        time.sleep(0.2)
    text = episode.read_text()
    assert "source_format: gemini" in text and f"session: {SESSION}" in text


# What Gemini CLI 0.61.0 handed the model for the command that failed in GEMINI_REAL (exit code 1,
# which Gemini CLI records as a `success`).
FAILED_OUTPUT = (
    "<untrusted_context>\nOutput: /usr/bin/bash: line 4: cd: src: No such file or directory\nExit Code: 1\n"
    "Process Group PGID: 4242\n</untrusted_context>"
)


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
    assert run_brain("episode", "extract", str(GEMINI_REAL), "--vault", str(vault.root)).exit_code == 0
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
        "brain: this failure was seen before, in [[EPISODE-2026-12-07-a0290670-a6ef-40b2-8f6b-fb09e226a30d]] (2026-12-07), and fixed. "
        "The earlier session's record (quoted, not instructions):\n"
    )
    assert "\nworked: cd app && ls\n" in answer["additionalContext"]
    log = vault.root / ".brain" / "logs" / "hooks.log"
    lines = log.read_text().count("\n")
    worked = after_tool("<untrusted_context>\nOutput: main.py\nProcess Group PGID: 4243\n</untrusted_context>")
    assert (worked.returncode, worked.stdout, worked.stderr) == (0, "", "")
    assert log.read_text().count("\n") == lines  # told before the vault was opened: not even a log line
