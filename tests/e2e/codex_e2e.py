"""End to end: the real Codex CLI (the pinned version, installed from the npm registry into a
temporary folder), offline against a scripted model on the loopback (a custom model provider whose
`base_url` is 127.0.0.1, `wire_api = "responses"`, streaming SSE), with brain's hooks installed as a
user installs them. Never collected by the default pytest run (its name does not start with test_).

    python -m tests.e2e.codex_e2e            # installs @openai/codex@CODEX_VERSION with npm
    CODEX_BIN=/path/to/codex python -m tests.e2e.codex_e2e
    CODEX_BIN=/path/to/codex python -m pytest tests/e2e/codex_e2e.py -n 0

Three `codex exec` sessions in a git repository whose vault knows one fact. Install: `brain hooks
install codex --scope user` (notify, MCP server, hooks.json); the user then trusts brain's hooks as
Codex's `/hooks` does (the trust Codex itself reports, through its app-server's `hooks/list`, is
written where Codex keeps it), and `brain hooks status` must agree with Codex that they are trusted.
Session 1 runs a command that fails (`cd src`: there is no src/) and ends without a fix. The
assertions: the session-start context (the fact) is in the model's first request; session 1's
rollout becomes a failure episode (through notify and the Stop hook, extracted once); session 2
starts with that episode in its context, hits the same failure (the failure hook says nothing: it
was never fixed) and recovers (`cd app`); session 3 hits the same failure and the model's very next
request holds the PostToolUse hook's answer, naming session 2's episode and its fix.

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
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.common import npm_install, run

CODEX_VERSION = "0.171.0"
BRAIN = Path(sys.executable).parent / "brain"
PROMPT = "List the sources of the app and tell me where they live"
FAILING = "cd src && ls"
WORKING = "cd app && ls"
SEEN_BEFORE = "brain: this failure was seen before, in [["
CONTEXT = "# Context for: this session (from brain, the team's memory)"


class ScriptedModel:
    """The Responses API on 127.0.0.1: a request of the agent's loop (one offering `exec_command`)
    gets the script's next turn, `{"cmd": ...}` (a tool call) or `{"text": ...}`; any other request
    gets a short text. Every request body is kept."""

    def __init__(self) -> None:
        self.turns: list[dict[str, str]] = []
        self.requests: list[dict[str, Any]] = []
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
                item = model.answer(body)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for event, data in _events(item):
                    self.wfile.write(f"event: {event}\ndata: {json.dumps({'type': event, **data})}\n\n".encode())
                    self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.requests.append(body)
            turn = self.turns.pop(0) if _in_loop(body) and self.turns else {"text": "ok"}
            count = len(self.requests)
        if "cmd" in turn:
            arguments = json.dumps({"cmd": turn["cmd"]})
            return {
                "type": "function_call",
                "id": f"fc_{count}",
                "call_id": f"call_{count}",
                "name": "exec_command",
                "arguments": arguments,
            }
        text = {"type": "output_text", "text": turn["text"], "annotations": []}
        return {"type": "message", "id": f"msg_{count}", "role": "assistant", "content": [text]}

    def loop_requests(self) -> list[dict[str, Any]]:
        return [body for body in self.requests if _in_loop(body)]


def _in_loop(body: dict[str, Any]) -> bool:
    return any(tool.get("name") == "exec_command" for tool in body.get("tools") or [])


def _events(item: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10}
    usage |= {"output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}
    yield "response.created", {"response": {"id": "resp_scripted"}}
    yield "response.output_item.done", {"output_index": 0, "item": item}
    yield "response.completed", {"response": {"id": "resp_scripted", "usage": usage}}


def text_of(body: dict[str, Any]) -> str:
    """Every text a request hands the model (developer and user messages, tool outputs)."""
    texts = []
    for item in body.get("input") or []:
        for part in item.get("content") or [] if isinstance(item.get("content"), list) else []:
            texts.append(str(part.get("text") or ""))
        if item.get("type") == "function_call_output":
            texts.append(json.dumps(item.get("output")))
    return "\n".join(texts)


# ---------------------------------------------------------------- the world the sessions run in


def install_codex(folder: Path) -> Path:
    """The pinned Codex CLI from the npm registry, into `folder` (its npm cache too)."""
    return npm_install(folder, f"@openai/codex@{CODEX_VERSION}", "codex")


def world(root: Path, model: ScriptedModel) -> tuple[Path, Path, dict[str, str]]:
    """A git repository, a vault that knows one fact, and the environment Codex and brain run in."""
    home, codex_home, repo, vault = root / "home", root / "home" / ".codex", root / "repo", root / "vault"
    codex_home.mkdir(parents=True)
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
    env |= {"HOME": str(home), "CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "dummy-key"}
    (codex_home / "config.toml").write_text(
        'model = "scripted-model"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\n'
        f'base_url = "{model.url}"\nenv_key = "SCRIPTED_API_KEY"\nwire_api = "responses"\n'
    )
    run(BRAIN, "init", vault, env=env)
    run(BRAIN, "fact", "record", "config", "app-source-folder", "app/", "--vault", vault, env=env)
    run(BRAIN, "index", "--vault", vault, env=env)
    return repo, vault, env


def codex_hooks_list(codex: Path, repo: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """Codex's own view of its hooks: the app-server's `hooks/list` (key, currentHash, trustStatus)."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "e2e", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(repo)]}},
    ]
    server = subprocess.Popen(
        [str(codex), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=repo,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("".join(json.dumps(request) + "\n" for request in requests))
    server.stdin.flush()
    try:
        for line in server.stdout:
            answer = json.loads(line)
            if answer.get("id") == 2:
                return list(answer["result"]["data"][0]["hooks"])
    finally:
        server.kill()
        server.wait()
    raise AssertionError("codex app-server gave no hooks/list answer")


def trust_as_the_user_does(codex: Path, repo: Path, env: dict[str, str]) -> None:
    """What trusting a hook in Codex's `/hooks` records: its key and the hash Codex computed for it."""
    config = Path(env["CODEX_HOME"]) / "config.toml"
    listed = codex_hooks_list(codex, repo, env)
    assert {hook["trustStatus"] for hook in listed} == {"untrusted"}
    trust = "".join(f'\n[hooks.state."{hook["key"]}"]\ntrusted_hash = "{hook["currentHash"]}"\n' for hook in listed)
    config.write_text(config.read_text() + trust)
    assert {hook["trustStatus"] for hook in codex_hooks_list(codex, repo, env)} == {"trusted"}


def codex_exec(codex: Path, repo: Path, env: dict[str, str], prompt: str) -> str:
    """One session; its id."""
    output = run(
        codex, "exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", prompt, env=env, cwd=repo, stdin=""
    )
    found = re.search(r"^session id: (\S+)$", output, re.MULTILINE)
    assert found, output
    return found.group(1)


def episode_of(vault: Path, session: str, seconds: float = 180) -> Path:
    log = vault / ".brain" / "logs" / "hooks.log"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for path in sorted((vault / "episodes").glob("*.md")):
            if f"\nsession: {session}\n" in path.read_text():
                return path
        time.sleep(0.5)
    raise AssertionError(f"no episode of {session}; hooks.log:\n{log.read_text() if log.is_file() else '(none)'}")


# ---------------------------------------------------------------- the check


@pytest.fixture
def codex() -> Path:
    found = Path(os.environ.get("CODEX_BIN", ""))
    assert found.is_file(), "CODEX_BIN must name the codex program (python -m tests.e2e.codex_e2e installs it)"
    return found


def test_codex_sessions_reach_the_vault_and_the_next_session(codex: Path, tmp_path: Path) -> None:
    model = ScriptedModel()
    repo, vault, env = world(tmp_path, model)
    installed = run(BRAIN, "hooks", "install", "codex", "--scope", "user", "--vault", vault, env=env, cwd=repo)
    hooks_file = Path(env["CODEX_HOME"]) / "hooks.json"
    waiting = "SessionStart, UserPromptSubmit, PostToolUse, Stop"
    assert f"to do     {hooks_file}  (Codex runs brain's {waiting} hooks once" in installed
    trust_as_the_user_does(codex, repo, env)
    status = run(BRAIN, "hooks", "status", env=env, cwd=repo)
    assert status.count("  (trusted)\n") == 4, status  # brain's view of the trust is Codex's

    # session 1: a command fails and the session ends without a fix
    model.turns = [{"cmd": FAILING}, {"text": "I could not list them: there is no src/ folder."}]
    first = codex_exec(codex, repo, env, PROMPT)
    requests = model.loop_requests()
    assert len(requests) == 2
    opening = text_of(requests[0])
    assert CONTEXT in opening and "app-source-folder" in opening
    assert "src: No such file or directory" in text_of(requests[1])
    episode = episode_of(vault, first)
    text = episode.read_text()
    assert "outcome: failure" in text and "src: No such file or directory" in text
    log = (vault / ".brain" / "logs" / "hooks.log").read_text()
    assert f"codex-stop {first}: extraction started" in log and f"codex-notify {first}: extraction started" in log

    # session 2 starts with session 1's failure, hits it again (never fixed: nothing said) and recovers
    model.requests.clear()
    model.turns = [{"cmd": FAILING}, {"cmd": WORKING}, {"text": f"As in {episode.stem}: the sources live in app/."}]
    second = codex_exec(codex, repo, env, PROMPT)
    requests = model.loop_requests()
    assert f"## Recent failures\n- {episode.stem} (" in text_of(requests[0]), text_of(requests[0])
    assert "src: No such file or directory" in text_of(requests[1]) and SEEN_BEFORE not in text_of(requests[1])
    recovered = episode_of(vault, second)
    assert "outcome: success" in recovered.read_text()
    extracted(vault, second)

    # session 3 hits the same failure: the PostToolUse hook hands the model session 2's fix at once
    model.requests.clear()
    model.turns = [{"cmd": FAILING}, {"text": f"Seen before in {recovered.stem}: the sources live in app/."}]
    third = codex_exec(codex, repo, env, PROMPT)
    after_failure = text_of(model.loop_requests()[1])
    print(f"session 3's request after the failure holds:\n{after_failure[after_failure.index(SEEN_BEFORE) :]}")
    assert f"{SEEN_BEFORE}{recovered.stem}]]" in after_failure
    assert "cd: src: No such file or directory\nworked: " in after_failure
    log = (vault / ".brain" / "logs" / "hooks.log").read_text()
    assert f"tool-failure {third}: Bash [shell|cd|" in log and f"seen before in {recovered.stem}" in log


def test_a_project_install_gives_codex_nothing_it_ignores(codex: Path, tmp_path: Path) -> None:
    """At project scope brain writes no `notify` into the project's config.toml: Codex 0.171 ignores it
    there and warns on every run."""
    model = ScriptedModel()
    repo, vault, env = world(tmp_path, model)
    run(BRAIN, "hooks", "install", "codex", "--scope", "project", "--vault", vault, env=env, cwd=repo)
    config = Path(env["CODEX_HOME"]) / "config.toml"
    config.write_text(config.read_text() + f'\n[projects."{repo}"]\ntrust_level = "trusted"\n')
    model.turns = [{"text": "Nothing to do."}]
    output = run(codex, "exec", "--skip-git-repo-check", "Say hello", env=env, cwd=repo, stdin="")
    assert "session id: " in output
    assert "Ignored unsupported project-local config keys" not in output, output


READ_LIMITS = "cat config/limits.yaml"
CREATE_LIMITS = "mkdir -p config && printf 'rate: 10\\n' > config/limits.yaml && cat config/limits.yaml"


def test_a_fix_by_another_command_is_handed_over_when_the_failure_comes_back(codex: Path, tmp_path: Path) -> None:
    model = ScriptedModel()
    repo, vault, env = world(tmp_path, model)
    run(BRAIN, "hooks", "install", "codex", "--scope", "user", "--vault", vault, env=env, cwd=repo)
    trust_as_the_user_does(codex, repo, env)
    prompt = "What is the rate limit in config/limits.yaml?"

    # session 1: `cat` of a missing file fails; a different command creates the file and reads it
    model.turns = [{"cmd": READ_LIMITS}, {"cmd": CREATE_LIMITS}, {"text": "The rate limit is 10."}]
    first = codex_exec(codex, repo, env, prompt)
    assert "config/limits.yaml: No such file or directory" in text_of(model.loop_requests()[1])
    episode = episode_of(vault, first)
    extracted(vault, first)
    text = episode.read_text()
    print(f"session 1's episode:\n{text}")
    assert re.search(r"e001 \(error\): `cat config/limits\.yaml` failed: .*\(leads_to: \[\[e002\]\]\)", text)
    assert f"e002 (recovery): `{CREATE_LIMITS}` succeeded (caused_by: [[e001]])" in text
    assert f"`config/limits.yaml` did not exist; `{CREATE_LIMITS}` created it." in text

    # session 2: the file is gone again; the same `cat` fails, and the very next request holds the fix
    shutil.rmtree(repo / "config")
    model.requests.clear()
    model.turns = [{"cmd": READ_LIMITS}, {"text": f"As in {episode.stem}: I will create the file."}]
    codex_exec(codex, repo, env, prompt)
    after_failure = text_of(model.loop_requests()[1])
    print(f"session 2's request after the failure holds:\n{after_failure[after_failure.index(SEEN_BEFORE) :]}")
    assert f"{SEEN_BEFORE}{episode.stem}]]" in after_failure
    assert json.dumps(CREATE_LIMITS)[1:-1] in after_failure or CREATE_LIMITS in after_failure


def extracted(vault: Path, session: str, seconds: float = 180) -> None:
    """Wait until an extraction of the session has ended (its episode and its failures in the catalog)."""
    log = vault / ".brain" / "logs" / "hooks.log"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.is_file() and re.search(rf" extract {session}: \S+ \[", log.read_text()):
            return
        time.sleep(0.5)
    raise AssertionError(f"{session} was not extracted; hooks.log:\n{log.read_text() if log.is_file() else '(none)'}")


def main() -> int:
    """Install the pinned Codex CLI (unless CODEX_BIN names one) and run the check."""
    with tempfile.TemporaryDirectory(prefix="brain-codex-e2e-") as folder:
        if not os.environ.get("CODEX_BIN"):
            os.environ["CODEX_BIN"] = str(install_codex(Path(folder)))
        print(run(os.environ["CODEX_BIN"], "--version").strip())
        return pytest.main([__file__, "-q", "-n", "0", "-p", "no:cacheprovider", "--basetemp", str(Path(folder) / "t")])


if __name__ == "__main__":
    sys.exit(main())
