"""The Claude Code plugin marketplace in this repository (`.claude-plugin/marketplace.json`, the plugin in
`plugins/brain/`): portable (no machine path anywhere), the same hooks `brain hooks install` registers,
and its scripts run as Claude Code runs them: with brain and a vault they answer what `brain hooks run`
answers; without either they tell the user what to do and never block the session.

`claude plugin validate` of the real CLI runs in the end-to-end check (tests/e2e), which needs node."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from brain.agents import claude_code
from tests.conftest import REPO

MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
PLUGIN = REPO / "plugins" / "brain"
HOOK = PLUGIN / "scripts" / "brain-hook"
SESSION = "0a1b2c3d-plugin-test"


def plugin_files() -> list[Path]:
    return sorted(path for path in PLUGIN.rglob("*") if path.is_file())


def test_the_marketplace_names_the_plugin_folder_and_its_version_is_brains():
    marketplace = json.loads(MARKETPLACE.read_text())
    [entry] = marketplace["plugins"]
    assert (entry["name"], entry["source"]) == ("brain", "./plugins/brain")
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert (manifest["name"], manifest["version"]) == ("brain", version)
    assert manifest["userConfig"]["vault"]["type"] == "directory"
    assert sorted(path.relative_to(PLUGIN).as_posix() for path in plugin_files()) == [
        ".claude-plugin/plugin.json",
        ".mcp.json",
        "commands/recall.md",
        "commands/remember.md",
        "hooks/hooks.json",
        "scripts/brain-hook",
        "scripts/brain-mcp",
        "scripts/find-brain.sh",
        "skills/brain-memory/SKILL.md",
    ]


def test_the_plugin_names_no_machine_path():
    for path in plugin_files():
        text = path.read_text()
        assert not re.search(r"(?<![\w}])/(?:home|Users|usr|opt|work|tmp|root)/", text), path
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    commands = [hook["command"] for groups in hooks.values() for group in groups for hook in group["hooks"]]
    assert commands and all(command.startswith('"${CLAUDE_PLUGIN_ROOT}/scripts/brain-hook" ') for command in commands)
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["brain"]
    assert server["command"] == "${CLAUDE_PLUGIN_ROOT}/scripts/brain-mcp"
    assert server["env"] == {"BRAIN_PLUGIN_VAULT": "${user_config.vault}", "BRAIN_VAULT": "${BRAIN_VAULT:-}"}


def test_the_plugin_registers_the_hooks_brain_hooks_install_does():
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    registered = {
        event: (hook["command"].rsplit(" ", 1)[1], hook["timeout"])
        for event, groups in hooks.items()
        for group in groups
        for hook in group["hooks"]
    }
    assert registered == dict(claude_code.EVENTS)


def test_the_scripts_are_executable_posix_shell():
    for script in ("brain-hook", "brain-mcp"):
        path = PLUGIN / "scripts" / script
        assert os.access(path, os.X_OK) and path.read_text().startswith("#!/bin/sh\n")
        assert subprocess.run(["sh", "-n", str(path)], capture_output=True).returncode == 0


@pytest.fixture
def brain_on_path(tmp_path: Path) -> Path:
    """A folder with a `brain` program that runs this checkout's brain (as an installed one would)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "brain"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m brain "$@"\n')
    program.chmod(0o755)
    return folder


@pytest.fixture
def example(tmp_path: Path) -> Path:
    copy = tmp_path / "vault-example"
    shutil.copytree(REPO / "vault-example", copy)
    return copy


def hook_input(event: str, **extra: str) -> str:
    return json.dumps({"session_id": SESSION, "cwd": "/work/demo", "hook_event_name": event, **extra})


def run_hook(event: str, stdin: str, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The plugin's hook as Claude Code runs it: a shell command, the plugin's folder and data in the
    environment, the user's options as CLAUDE_PLUGIN_OPTION_<KEY>."""
    clean = {key: value for key, value in os.environ.items() if key not in ("BRAIN_VAULT", "CLAUDE_PLUGIN_DATA")}
    return subprocess.run(
        ["sh", "-c", f'"{HOOK}" {event}'],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, "PATH": path, "CLAUDE_PLUGIN_ROOT": str(PLUGIN), **env},
    )


def test_with_brain_and_the_plugins_vault_the_hook_answers_what_brain_hooks_run_answers(example, brain_on_path):
    stdin = hook_input("SessionStart", source="startup")
    path = f"{brain_on_path}:/usr/bin:/bin"
    plugin = run_hook("session-start", stdin, path, CLAUDE_PLUGIN_OPTION_VAULT=str(example))
    direct = subprocess.run(
        [sys.executable, "-m", "brain", "hooks", "run", "session-start", "--vault", str(example)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (plugin.returncode, plugin.stderr) == (0, "")
    assert plugin.stdout == direct.stdout
    context = json.loads(plugin.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("# Context for: this session (from brain, the team's memory)")


def test_brain_vault_serves_when_the_plugin_has_no_vault_set(example, brain_on_path):
    done = run_hook(
        "session-start",
        hook_input("SessionStart"),
        f"{brain_on_path}:/usr/bin:/bin",
        CLAUDE_PLUGIN_OPTION_VAULT="",
        BRAIN_VAULT=str(example),
    )
    assert done.returncode == 0
    assert "additionalContext" in json.loads(done.stdout)["hookSpecificOutput"]


def test_without_brain_session_start_says_how_to_install_and_no_hook_blocks(example, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    path = f"{empty}:/usr/bin:/bin"
    assert shutil.which("brain", path=path) is None
    start = run_hook("session-start", hook_input("SessionStart"), path, CLAUDE_PLUGIN_OPTION_VAULT=str(example))
    assert (start.returncode, start.stderr) == (0, "")
    message = json.loads(start.stdout)["systemMessage"]
    assert message.startswith(
        "brain is not installed, so this session is not remembered: install brain: in a clone of its "
        "repository run uv tool install . (or pip install .), or, for this plugin alone, python3 -m venv"
    )
    for event, name in (("first-prompt", "UserPromptSubmit"), ("session-end", "SessionEnd")):
        done = run_hook(event, hook_input(name, prompt="fix the build"), path, CLAUDE_PLUGIN_OPTION_VAULT=str(example))
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_brain_in_the_plugins_data_folder_is_used_when_none_is_on_path(example, brain_on_path, tmp_path):
    data = tmp_path / "plugin-data"
    (data / "venv" / "bin").mkdir(parents=True)
    shutil.copy2(brain_on_path / "brain", data / "venv" / "bin" / "brain")
    done = run_hook(
        "session-start",
        hook_input("SessionStart"),
        "/usr/bin:/bin",
        CLAUDE_PLUGIN_OPTION_VAULT=str(example),
        CLAUDE_PLUGIN_DATA=str(data),
    )
    assert done.returncode == 0
    assert "additionalContext" in json.loads(done.stdout)["hookSpecificOutput"]


def test_without_a_vault_session_start_says_how_to_set_one(brain_on_path):
    done = run_hook("session-start", hook_input("SessionStart"), f"{brain_on_path}:/usr/bin:/bin")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "systemMessage": "brain has no vault, so this session is not remembered: set the plugin's vault "
        "(/plugin, brain, Configure) or export BRAIN_VAULT, then start a new session. brain init PATH makes one."
    }


@pytest.mark.parametrize(
    ("option", "from_env", "named_by"),
    [
        ("vault", False, "the plugin's vault option (/plugin, brain, Configure)"),
        ("", True, "$BRAIN_VAULT"),
    ],
)
def test_a_vault_that_is_not_a_folder_is_told_to_the_user_at_session_start(
    brain_on_path, tmp_path, option, from_env, named_by
):
    """A typo, a moved vault, an unmounted disk: the session would go unremembered with only a line in
    the temporary hooks log; the user is told at session start, and no hook blocks."""
    missing = tmp_path / "Vualt"
    env = {
        "CLAUDE_PLUGIN_OPTION_VAULT": str(missing) if option else "",
        "BRAIN_VAULT": str(missing) if from_env else "",
    }
    path = f"{brain_on_path}:/usr/bin:/bin"
    start = run_hook("session-start", hook_input("SessionStart"), path, **env)
    assert (start.returncode, start.stderr) == (0, "")
    assert json.loads(start.stdout) == {
        "systemMessage": f"brain's vault {missing}, from {named_by}, is not a folder (mistyped, moved, or on a disk "
        "not mounted?), so this session is not remembered: correct it, or make the vault there with brain init, "
        "then start a new session."
    }
    assert not missing.exists()
    for event, name in (("first-prompt", "UserPromptSubmit"), ("session-end", "SessionEnd")):
        done = run_hook(event, hook_input(name, prompt="fix the build"), path, **env)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    server = subprocess.run(
        [str(PLUGIN / "scripts" / "brain-mcp")],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": path, "BRAIN_PLUGIN_VAULT": env["CLAUDE_PLUGIN_OPTION_VAULT"], "BRAIN_VAULT": env["BRAIN_VAULT"]},
    )
    assert (server.returncode, server.stdout) == (1, "")
    assert server.stderr == f"brain's MCP server cannot start: its vault {missing}, from {named_by}, is not a folder\n"


def test_the_mcp_server_is_configured_by_the_vault_so_claude_code_retries_it_when_the_vault_is_set():
    """Claude Code skips a plugin's stdio server that failed for 15 minutes unless the server's
    configuration changed. A session without a vault fails the server; the vault's option and
    $BRAIN_VAULT are in the server's environment, so the next session with either set starts it
    (the end-to-end check shows it with the real CLI)."""
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["brain"]
    assert set(server["env"].values()) == {"${user_config.vault}", "${BRAIN_VAULT:-}"}


def test_the_mcp_script_serves_the_plugins_vault(example, brain_on_path):
    from brain.mcp.profiles import AGENT_PROFILE, PROFILES
    from tests.helpers.mcp_harness import list_tool_names_of

    env = {
        "PATH": f"{brain_on_path}:/usr/bin:/bin",
        "BRAIN_PLUGIN_VAULT": str(example),
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
    }
    names = list_tool_names_of(str(PLUGIN / "scripts" / "brain-mcp"), [], env)
    assert names == set(PROFILES[AGENT_PROFILE])  # the agent profile: a small tool list


def test_the_mcp_script_without_brain_says_why_on_stderr(tmp_path):
    done = subprocess.run(
        [str(PLUGIN / "scripts" / "brain-mcp")],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "BRAIN_PLUGIN_VAULT": str(tmp_path)},
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("brain's MCP server cannot start: install brain: in a clone of its repository")
