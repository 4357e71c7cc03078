"""End to end: the real Gemini CLI (the pinned version, installed from the npm registry into a
temporary folder), offline against a scripted model on the loopback, with brain's hooks installed as a
user installs them. Never collected by the default pytest run (its name does not start with test_).

    python -m tests.e2e.gemini_e2e            # installs @google/gemini-cli@GEMINI_VERSION with npm
    GEMINI_BIN=/path/to/gemini python -m tests.e2e.gemini_e2e
    GEMINI_BIN=/path/to/gemini python -m pytest tests/e2e/gemini_e2e.py -n 0

Gemini CLI talks to any endpoint of the Gemini API: `GOOGLE_GEMINI_BASE_URL` names it and
`GEMINI_API_KEY` is sent to it, once the user's settings choose that way in
(`security.auth.selectedType = "gemini-api-key"`: with the base URL alone Gemini CLI 0.61 picks a
"gateway" sign-in that headless mode refuses). The scripted model answers `streamGenerateContent`
(SSE) and `generateContent` on 127.0.0.1: a request of the agent's loop (one offering
`run_shell_command`) gets the script's next turn, a function call or a text.

Three `gemini -p` sessions in a git repository whose vault knows one fact, brain installed at
project scope (`.gemini/settings.json`). Session 1 runs a command that fails (`cd src`: there is no
src/) and ends without a fix. The assertions: the session-start context (the fact) is in the model's
first request, once (the first prompt's hook does not hand it again); the chat becomes a failure
episode whose task is the prompt; session 2 starts with that episode in its context, hits the same
failure and recovers (`cd app`); session 3 hits the same failure and the model's very next request
holds the AfterTool hook's answer, naming session 2's episode and its fix.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.common import npm_install, run

GEMINI_VERSION = "0.61.0"
MODEL = "gemini-2.5-flash"
BRAIN = Path(sys.executable).parent / "brain"
PROMPT = "List the sources of the app and tell me where they live"
FAILING = "cd src && ls"
WORKING = "cd app && ls"
SEEN_BEFORE = "brain: this failure was seen before, in [["
CONTEXT = "# Context for: this session (from brain, the team's memory)"
FACT = "- app-source-folder (config, default, since "


class ScriptedModel:
    """The Gemini API on 127.0.0.1. A request of the agent's loop gets the script's next turn,
    `{"cmd": ...}` (a `run_shell_command` call) or `{"text": ...}`; any other request (a title, a
    summary) gets a short text. Every request body is kept, with its path."""

    def __init__(self) -> None:
        self.turns: list[dict[str, str]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                answer = json.dumps(model.answer(self.path, body))
                if "alt=sse" in self.path:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(f"data: {answer}\n\n".encode())
                    return
                payload = answer.encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.requests.append((path, body))
            turn = self.turns.pop(0) if _in_loop(body) and self.turns else {"text": "ok"}
        if "cmd" in turn:
            part: dict[str, Any] = {
                "functionCall": {"name": "run_shell_command", "args": {"command": turn["cmd"], "description": "list"}}
            }
        else:
            part = {"text": turn["text"]}
        return {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
        }

    def loop_requests(self) -> list[dict[str, Any]]:
        return [body for _, body in self.requests if _in_loop(body)]


def _in_loop(body: dict[str, Any]) -> bool:
    return any(
        declaration.get("name") == "run_shell_command"
        for tool in body.get("tools") or []
        for declaration in tool.get("functionDeclarations") or []
    )


def text_of(body: dict[str, Any]) -> str:
    """Every text a request hands the model: its messages' texts and the tools' responses."""
    texts = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if isinstance(part.get("text"), str):
                texts.append(part["text"])
            response = (part.get("functionResponse") or {}).get("response")
            if isinstance(response, dict):
                texts.append("\n".join(str(value) for value in response.values()))
    return "\n".join(texts)


# ---------------------------------------------------------------- the world the sessions run in


def install_gemini(folder: Path) -> Path:
    """The pinned Gemini CLI from the npm registry, into `folder` (its npm cache too)."""
    return npm_install(folder, f"@google/gemini-cli@{GEMINI_VERSION}", "gemini")


def world(root: Path, model: ScriptedModel) -> tuple[Path, Path, dict[str, str]]:
    """A git repository, a vault that knows one fact, and the environment Gemini CLI and brain run in."""
    home, repo, vault = root / "home", root / "repo", root / "vault"
    (home / ".gemini").mkdir(parents=True)
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "main.py").write_text("print('hello')\n")
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "app"],
    ):
        run("git", *command, cwd=repo)
    keep = ("PATH", "PYTHONPATH", "BRAIN_", "XDG_", "HF_", "LANG", "TMPDIR")
    env = {key: value for key, value in os.environ.items() if key.startswith(keep)}
    env |= {
        "HOME": str(home),
        "GEMINI_API_KEY": "dummy-key",
        "GOOGLE_GEMINI_BASE_URL": model.url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "NO_COLOR": "1",
    }
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    run(BRAIN, "init", vault, env=env)
    run(BRAIN, "fact", "record", "config", "app-source-folder", "app/", "--vault", vault, env=env)
    run(BRAIN, "index", "--vault", vault, env=env)
    return repo, vault, env


def gemini(program: Path, repo: Path, env: dict[str, str], prompt: str) -> str:
    """One headless session (every tool call approved); its id."""
    session = str(uuid.uuid4())
    run(program, "-m", MODEL, "--yolo", "--session-id", session, "-p", prompt, env=env, cwd=repo)
    return session


def episode_of(vault: Path, session: str, seconds: float = 180) -> Path:
    log = vault / ".brain" / "logs" / "hooks.log"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for path in sorted((vault / "episodes").glob("*.md")):
            if f"\nsession: {session}\n" in path.read_text():
                return path
        time.sleep(0.5)
    raise AssertionError(f"no episode of {session}; hooks.log:\n{log.read_text() if log.is_file() else '(none)'}")


def extracted(vault: Path, session: str, seconds: float = 180) -> str:
    """Wait until an extraction of the session has ended; the hooks log then."""
    log = vault / ".brain" / "logs" / "hooks.log"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = log.read_text() if log.is_file() else ""
        if f" extract {session}: episodes/" in text:
            return text
        time.sleep(0.5)
    raise AssertionError(f"{session} was not extracted; hooks.log:\n{log.read_text() if log.is_file() else '(none)'}")


# ---------------------------------------------------------------- the check


@pytest.fixture
def program() -> Path:
    found = Path(os.environ.get("GEMINI_BIN", ""))
    assert found.is_file(), "GEMINI_BIN must name the gemini program (python -m tests.e2e.gemini_e2e installs it)"
    return found


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    scripted = ScriptedModel()
    yield scripted
    scripted.server.shutdown()


def test_gemini_sessions_reach_the_vault_and_the_next_session(
    program: Path, model: ScriptedModel, tmp_path: Path
) -> None:
    repo, vault, env = world(tmp_path, model)
    installed = run(BRAIN, "hooks", "install", "gemini", "--vault", vault, env=env, cwd=repo)
    assert f"created   {repo}/.gemini/settings.json  (hooks and mcp server, this machine only)" in installed

    # session 1: a command fails and the session ends without a fix
    model.turns = [{"cmd": FAILING}, {"text": "I could not list them: there is no src/ folder."}]
    first = gemini(program, repo, env, PROMPT)
    requests = model.loop_requests()
    assert len(requests) == 2
    opening = text_of(requests[0])
    assert f"<hook_context>{CONTEXT}\n\n## Facts valid now\n{FACT}" in opening
    assert opening.count("app-source-folder (config") == 1  # the first prompt's hook does not hand it again
    assert "cd: src: No such file or directory" in text_of(requests[1])
    assert "skipped records" not in extracted(vault, first)
    episode = episode_of(vault, first)
    text = episode.read_text()
    assert "outcome: failure" in text and "cd: src: No such file or directory" in text
    assert f"task: {PROMPT}\n" in text  # the prompt, without the hook's context before it

    # session 2 starts with session 1's failure, hits it again (never fixed: nothing said) and recovers
    model.requests.clear()
    model.turns = [{"cmd": FAILING}, {"cmd": WORKING}, {"text": f"As in {episode.stem}: the sources live in app/."}]
    second = gemini(program, repo, env, PROMPT)
    requests = model.loop_requests()
    assert f"## Recent failures\n- {episode.stem} ({episode.stem[8:18]}): {PROMPT}\n" in text_of(requests[0])
    assert "src: No such file or directory" in text_of(requests[1]) and SEEN_BEFORE not in text_of(requests[1])
    extracted(vault, second)  # the episode is whole only once the extraction has ended
    recovered = episode_of(vault, second)
    assert "outcome: success" in recovered.read_text()

    # session 3 hits the same failure: the AfterTool hook hands the model session 2's fix at once
    model.requests.clear()
    model.turns = [{"cmd": FAILING}, {"text": f"Seen before in {recovered.stem}: the sources live in app/."}]
    third = gemini(program, repo, env, PROMPT)
    after_failure = text_of(model.loop_requests()[1])
    print(f"session 3's request after the failure holds:\n{after_failure[after_failure.index(SEEN_BEFORE) :]}")
    assert f"<hook_context>{SEEN_BEFORE}{recovered.stem}]]" in after_failure
    assert "cd: src: No such file or directory\nworked: " in after_failure
    log = (vault / ".brain" / "logs" / "hooks.log").read_text()
    assert f"tool-failure {third}: run_shell_command [shell|" in log and f"seen before in {recovered.stem}" in log


def main() -> int:
    """Install the pinned Gemini CLI (unless GEMINI_BIN names one) and run the check."""
    with tempfile.TemporaryDirectory(prefix="brain-gemini-e2e-") as folder:
        if not os.environ.get("GEMINI_BIN"):
            os.environ["GEMINI_BIN"] = str(install_gemini(Path(folder)))
        print(run(os.environ["GEMINI_BIN"], "--version").strip())
        return pytest.main([__file__, "-q", "-n", "0", "-p", "no:cacheprovider", "--basetemp", str(Path(folder) / "t")])


if __name__ == "__main__":
    sys.exit(main())
