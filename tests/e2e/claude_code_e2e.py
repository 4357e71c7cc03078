"""End to end: the real Claude Code CLI (the pinned version `tests/e2e/run` installs from the npm
registry), offline against a scripted model on the loopback, with brain's hooks installed as a user
installs them. Run by `tests/e2e/run` (and `.ci/run` when node is present), never by the default
pytest run: it needs the CLI, whose path `CLAUDE_BIN` gives.

Three sessions in a git repository whose vault knows one fact. Session 1 runs a command that
fails (`cd src`: there is no src/) and ends without a fix. The assertions: the session-start context
(the fact) is in the model's first request; session 1's transcript becomes a failure episode;
session 2 starts with that episode in its context, hits the same failure and recovers (`cd app`);
session 3 hits the same failure and the model's very next request holds the failure hook's answer
naming session 2's episode and its fix; the ledger holds each session's injections and counts the
episodes the models then named as used.

Then issue 43's simplest case: session 1 fails to `cat` a missing file and fixes it by creating the
file in a different command; session 2 (the file gone again) fails the same way, and the model's very
next request holds that fix.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.model_server import ScriptedModel, serve

BRAIN = Path(sys.executable).parent / "brain"
PROMPT = "List the sources of the app and tell me where they live"
FAILING = "cd src && ls"
WORKING = "cd app && ls"


@pytest.fixture
def claude() -> Path:
    found = Path(os.environ.get("CLAUDE_BIN", ""))
    assert found.is_file(), "CLAUDE_BIN must name the claude program (tests/e2e/run installs it)"
    return found


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    scripted = ScriptedModel()
    server = serve(scripted)
    scripted.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield scripted
    server.shutdown()


def brain(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run([str(BRAIN), *args], capture_output=True, text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_claude(
    claude: Path, model: ScriptedModel, repo: Path, home: Path, prompt: str, *extra: str, **more_env: str
) -> dict[str, Any]:
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-ant-e2e-dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        **{key: value for key, value in os.environ.items() if key.startswith(("PYTHON", "BRAIN_", "XDG_", "HF_"))},
        **more_env,
    }
    done = subprocess.run(
        [str(claude), "-p", prompt, "--output-format", "json", "--allowedTools", "Bash", *extra],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def wait_for(check: Any, what: str, log: Path, seconds: float = 180) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"{what} did not happen; hooks.log:\n{log.read_text() if log.is_file() else '(none)'}")


def user_text(body: dict[str, Any]) -> str:
    """The text of the request's messages, tool results included (hook context arrives in them)."""
    texts: list[str] = []

    def collect(content: Any) -> None:
        if isinstance(content, str):
            texts.append(content)
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict):
                collect(block.get("text"))
                collect(block.get("content"))

    for message in body.get("messages", []):
        collect(message.get("content"))
    return "\n".join(texts)


def test_claude_code_sessions_reach_the_vault_and_the_next_session(claude, model, tmp_path):
    home, repo, vault = tmp_path / "home", tmp_path / "repo", tmp_path / "vault"
    home.mkdir()
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "main.py").write_text("print('hello')\n")
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "app"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True, capture_output=True)
    brain("init", str(vault))
    brain("fact", "record", "config", "app-source-folder", "app/", "--vault", str(vault))
    brain("index", "--vault", str(vault))
    installed = brain("hooks", "install", "claude-code", "--scope", "project", "--vault", str(vault), cwd=repo)
    print(installed)
    log = vault / ".brain" / "logs" / "hooks.log"

    # session 1: a command fails and the session ends without a fix
    model.turns = [{"bash": FAILING}, {"text": "I could not list them: there is no src/ folder."}]
    first = run_claude(claude, model, repo, home, PROMPT)
    requests = model.main_requests()
    assert len(requests) == 2
    opening = user_text(requests[0])
    assert (
        "SessionStart hook additional context: # Context for: this session (from brain, the team's memory)\n\n"
        "## Facts valid now\n- app-source-folder (config, default, since "
    ) in opening
    assert opening.count("- app-source-folder (config, default, since ") == 1  # not handed again at the prompt
    assert "cd: src: No such file or directory" in user_text(requests[1])
    session = first["session_id"]
    episode = wait_for(lambda: sorted((vault / "episodes").glob(f"*{session}.md")), "session 1's episode", log)[0]
    text = episode.read_text()
    assert "outcome: failure" in text and "cd: src: No such file or directory" in text
    wait_for(lambda: f"extract {session}: " in log.read_text(), "session 1's extraction logged", log)
    assert "skipped records" not in log.read_text()  # every record type this Claude Code writes is known

    # session 2 starts with session 1's failure and its lesson, hits the same failure and recovers
    model.requests.clear()
    model.turns = [{"bash": FAILING}, {"bash": WORKING}, {"text": f"As in {episode.stem}: the sources live in app/."}]
    second = run_claude(claude, model, repo, home, PROMPT)
    opening = user_text(model.main_requests()[0])
    context = opening.split("SessionStart hook additional context: ", 1)[1].split("\n\n\n", 1)[0]
    assert context.startswith(
        "# Context for: this session (from brain, the team's memory)\n\n"
        f"## Recent failures\n- {episode.stem} ({episode.stem[8:18]}): {PROMPT}\n\n## Facts valid now\n"
    )
    print(f"session 2's first request to the model holds:\n{context}")
    recovered = wait_for(
        lambda: sorted((vault / "episodes").glob(f"*{second['session_id']}.md")), "session 2's episode", log
    )[0]
    assert "outcome: success" in recovered.read_text()

    # session 3 hits the same failure: the failure hook hands the model session 2's fix at once
    model.requests.clear()
    model.turns = [{"bash": FAILING}, {"text": f"Seen before in {recovered.stem}: the sources live in app/."}]
    third = run_claude(claude, model, repo, home, PROMPT)
    after_failure = user_text(model.main_requests()[1])
    print(f"session 3's request after the failure holds:\n{after_failure[after_failure.index('PostToolUseFailure') :]}")
    assert (
        f"PostToolUseFailure:Bash hook additional context: brain: this failure was seen before, in [[{recovered.stem}]]"
    ) in after_failure
    assert "cd: src: No such file or directory\nworked: " in after_failure

    # the ledger: each session's injection, with the tokens the context cost; the first prompt named
    # the fact the session start had handed over already, so it handed nothing again
    status = json.loads(brain("hooks", "status", "--vault", str(vault), "--json", cwd=repo))["injected"]
    assert [(s["session"], list(s["tokens_by_event"])) for s in status["sessions"]] == [
        (first["session_id"], ["session-start"]),
        (second["session_id"], ["session-start"]),
        (third["session_id"], ["session-start", "tool-failure"]),
    ]
    assert status["sessions"][1]["tokens_by_event"]["session-start"] == -(-(len(context) + 1) // 4)
    # the models named the episodes after they were handed them
    assert episode.stem in status["sessions"][1]["used"] and recovered.stem in status["sessions"][2]["used"]


READ_LIMITS = "cat config/limits.yaml"
CREATE_LIMITS = "mkdir -p config && printf 'rate: 10\\n' > config/limits.yaml && cat config/limits.yaml"


def extracted(vault: Path, session: str, seconds: float = 180) -> None:
    """Wait until an extraction of the session has ended (its episode and its failures in the catalog)."""
    log = vault / ".brain" / "logs" / "hooks.log"
    wait_for(
        lambda: log.is_file() and re.search(rf" extract {session}: \S+ \[", log.read_text()),
        f"the extraction of {session}",
        log,
        seconds,
    )


def test_a_fix_by_another_command_is_handed_over_when_the_failure_comes_back(claude, model, tmp_path):
    home, repo, vault = tmp_path / "home", tmp_path / "repo", tmp_path / "vault"
    home.mkdir()
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, capture_output=True)
    brain("init", str(vault))
    brain("index", "--vault", str(vault))
    brain("hooks", "install", "claude-code", "--scope", "project", "--vault", str(vault), cwd=repo)
    prompt = "What is the rate limit in config/limits.yaml?"

    # session 1: `cat` of a missing file fails; a different command creates the file and reads it
    model.turns = [{"bash": READ_LIMITS}, {"bash": CREATE_LIMITS}, {"text": "The rate limit is 10."}]
    first = run_claude(claude, model, repo, home, prompt)
    assert "cat: config/limits.yaml: No such file or directory" in user_text(model.main_requests()[1])
    extracted(vault, first["session_id"])
    episode = sorted((vault / "episodes").glob(f"*{first['session_id']}.md"))[0]
    text = episode.read_text()
    print(f"session 1's episode:\n{text}")
    assert re.search(r"e001 \(error\): `cat config/limits\.yaml` failed: .*\(leads_to: \[\[e002\]\]\)", text)
    assert f"e002 (recovery): `{CREATE_LIMITS}` succeeded (caused_by: [[e001]])" in text
    assert f"`config/limits.yaml` did not exist; `{CREATE_LIMITS}` created it." in text

    # session 2: the file is gone again; the same `cat` fails, and the very next request holds the fix
    shutil.rmtree(repo / "config")
    model.requests.clear()
    model.turns = [{"bash": READ_LIMITS}, {"text": f"As in {episode.stem}: I will create the file."}]
    run_claude(claude, model, repo, home, prompt)
    after_failure = user_text(model.main_requests()[1])
    print(f"session 2's request after the failure holds:\n{after_failure[after_failure.index('PostToolUseFailure') :]}")
    assert f"in [[{episode.stem}]]" in after_failure
    assert CREATE_LIMITS in after_failure


PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "brain"


def test_the_plugin_hands_claude_code_the_vault_and_saves_the_session(claude, model, tmp_path):
    """The plugin of this repository's marketplace, loaded as `claude --plugin-dir` loads it: brain
    found on PATH, the vault from $BRAIN_VAULT; no `brain hooks install`."""
    home, repo, vault = tmp_path / "home", tmp_path / "repo", tmp_path / "vault"
    home.mkdir()
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, capture_output=True)
    brain("init", str(vault))
    brain("fact", "record", "config", "app-source-folder", "app/", "--vault", str(vault))
    brain("index", "--vault", str(vault))
    model.turns = [{"text": "The sources live in app/."}]
    path = f"{BRAIN.parent}:{os.environ['PATH']}"
    done = run_claude(claude, model, repo, home, PROMPT, "--plugin-dir", str(PLUGIN), BRAIN_VAULT=str(vault), PATH=path)
    opening = user_text(model.main_requests()[0])
    assert "# Context for: this session (from brain, the team's memory)" in opening
    assert "- app-source-folder (config, default, since " in opening
    log = vault / ".brain" / "logs" / "hooks.log"
    episode = wait_for(lambda: sorted((vault / "episodes").glob(f"*{done['session_id']}.md")), "the episode", log)
    assert f"session: {done['session_id']}" in episode[0].read_text()


def test_the_plugins_mcp_server_starts_in_the_session_after_one_without_a_vault(claude, model, tmp_path):
    """Claude Code skips a plugin's server that failed for 15 minutes unless its configuration
    changed. A session without a vault fails brain's server; the next one, with $BRAIN_VAULT set,
    must start it: the vault is part of the server's configuration (`.mcp.json`)."""
    home, repo, vault = tmp_path / "home", tmp_path / "repo", tmp_path / "vault"
    home.mkdir()
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, capture_output=True)
    brain("init", str(vault))
    path = f"{BRAIN.parent}:{os.environ['PATH']}"
    seen = []
    for env in ({}, {"BRAIN_VAULT": str(vault)}):
        model.requests.clear()
        model.turns = [{"text": "Nothing to do."}]
        run_claude(claude, model, repo, home, "Say hello", "--plugin-dir", str(PLUGIN), PATH=path, **env)
        seen.append(json.dumps(model.main_requests()[0]))
    assert "plugin:brain:brain (CONNECTION_CLOSED)" in seen[0]
    assert "Skipping connection" not in seen[1] and "plugin:brain:brain (" not in seen[1]
    assert "plugin:brain:brain\\n" in seen[1]  # listed among the connected servers whose tools are deferred
