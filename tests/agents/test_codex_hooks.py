"""Codex: brain's hooks in its hooks.json (merged with the user's, taken back out exactly), whether
Codex trusts each of them (as Codex records it in its user config), the project scope's `.codex/`,
and the hooks run as real processes fed the JSON Codex 0.171 sends (captured from the real CLI)."""

from __future__ import annotations

import json
import shutil
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.agents.test_hooks import CODEX, TRUST, brain_process, hooks
from tests.conftest import REPO

BRAIN = str(Path(sys.executable).parent / "brain")
EVENTS = (
    ("SessionStart", "codex-session-start"),
    ("UserPromptSubmit", "codex-first-prompt"),
    ("PostToolUse", "codex-tool-failure"),
    ("Stop", "codex-stop"),
)
USER_HOOKS = (
    '{\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n            "type": "command",\n'
    '            "command": "notify-send done"\n          }\n        ]\n      }\n    ]\n  }\n}\n'
)
SESSION = "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b"


@pytest.fixture
def codex_home(tmp_path, monkeypatch):
    folder = tmp_path / "codex-home"
    folder.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return folder


def handler(name: str, vault: Path) -> dict:
    """Codex's hook NAME (`codex-stop`) as brain installs it: named by its agent, `codex stop`."""
    words = name.replace("codex-", "codex ", 1)
    return {"type": "command", "command": f"{BRAIN} hooks run {words} --vault {vault}", "timeout": 10}


def test_hooks_json_gets_brains_hooks_beside_the_users_and_gives_them_back(vault, codex_home):
    hooks_file = codex_home / "hooks.json"
    hooks_file.write_text(USER_HOOKS)
    out = hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert out.exit_code == 0, out.stderr
    assert out.stdout == (  # the user's Stop hook came first: brain's Stop is listed first
        f"created   {codex_home}/config.toml  (notify and mcp server)\n"
        f"updated   {hooks_file}  (hooks)\n"
        f"to do     {hooks_file}  ({TRUST.replace('SessionStart, UserPromptSubmit, PostToolUse, Stop', 'Stop, SessionStart, UserPromptSubmit, PostToolUse')})\n"
    )
    user_stop = {"hooks": [{"type": "command", "command": "notify-send done"}]}
    assert json.loads(hooks_file.read_text()) == {
        "hooks": {
            "Stop": [user_stop, {"hooks": [handler("codex-stop", vault.root)]}],
            "SessionStart": [{"hooks": [handler("codex-session-start", vault.root)]}],
            "UserPromptSubmit": [{"hooks": [handler("codex-first-prompt", vault.root)]}],
            "PostToolUse": [{"hooks": [handler("codex-tool-failure", vault.root)]}],
        }
    }
    before = hooks_file.read_bytes()
    again = hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert hooks_file.read_bytes() == before and "unchanged " in again.stdout
    hooks("uninstall", "codex", "--scope", "user")
    assert hooks_file.read_text() == USER_HOOKS


def _trust(config: Path, hooks_file: Path, events: dict[str, str]) -> None:
    """What Codex's /hooks writes when the user trusts a hook (its key, the hash of its identity)."""
    text = "".join(
        f'\n[hooks.state."{hooks_file}:{key}:0:0"]\ntrusted_hash = "{digest}"\n' for key, digest in events.items()
    )
    config.write_text(config.read_text() + text)


def test_status_and_install_say_whether_codex_trusts_each_hook(vault, codex_home):
    from brain.agents.codex import trust_hash

    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    hooks_file, config = codex_home / "hooks.json", codex_home / "config.toml"
    start = handler("codex-session-start", vault.root)
    # the hash Codex 0.171.0 reported for a Stop hook (app-server `hooks/list`, its `currentHash`)
    assert (
        trust_hash("Stop", {"type": "command", "command": "cat > /tmp/cx/stop.json", "timeout": 10})
        == "sha256:ab1518554f0d5450bf263309cdc3eddd57e8f67214c42b3ea57b5029930305ec"
    )
    _trust(
        config,
        hooks_file,
        {
            "session_start": trust_hash("SessionStart", start),
            "user_prompt_submit": trust_hash("UserPromptSubmit", {**start, "command": "an older command"}),
        },
    )
    status = hooks("status", "--project-dir", str(codex_home)).stdout.splitlines()
    at = status.index(f"{hooks_file}:")
    assert status[at : at + 5] == [
        f"{hooks_file}:",
        f"  SessionStart: {start['command']}  (trusted)",
        f"  UserPromptSubmit: {BRAIN} hooks run codex first-prompt --vault {vault.root}  (changed since trusted: /hooks)",
        f"  PostToolUse: {BRAIN} hooks run codex tool-failure --vault {vault.root}  (not trusted yet: /hooks)",
        f"  Stop: {BRAIN} hooks run codex stop --vault {vault.root}  (not trusted yet: /hooks)",
    ]
    out = hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert out.stdout.splitlines()[-1] == (
        f"to do     {hooks_file}  (Codex runs brain's UserPromptSubmit, PostToolUse, Stop hooks once you trust them: "
        "in codex, type /hooks, trust each)"
    )
    _trust(
        config,
        hooks_file,
        {
            "user_prompt_submit": trust_hash("UserPromptSubmit", handler("codex-first-prompt", vault.root)),
            "post_tool_use": trust_hash("PostToolUse", handler("codex-tool-failure", vault.root)),
            "stop": trust_hash("Stop", handler("codex-stop", vault.root)),
        },
    )
    assert "to do" not in hooks("install", "codex", "--scope", "user", "--vault", str(vault.root)).stdout


def test_project_scope_writes_the_projects_codex_folder_and_says_so(vault, codex_home, tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    out = hooks("install", "codex", "--project-dir", str(project), "--vault", str(vault.root))
    folder = project / ".codex"
    assert out.stdout == (
        f"project   {project}  (git top level)\n"
        f"created   {folder}/config.toml  (mcp server, this machine only)\n"
        f"to do     {folder}/config.toml  (Codex reads {folder} only in a trusted project: "
        "run `codex exec --trust` there once)\n"
        f"created   {folder}/hooks.json  (hooks, this machine only)\n"
        f"to do     {folder}/hooks.json  ({TRUST}; until then no session is captured)\n"
    )
    assert not (codex_home / "config.toml").exists()
    # Codex 0.171 ignores `notify` in a project's config.toml (a warning on every run): brain writes none there
    assert "notify" not in tomllib.loads((folder / "config.toml").read_text())
    assert json.loads((folder / "hooks.json").read_text())["hooks"]["Stop"] == [
        {"hooks": [handler("codex-stop", vault.root)]}
    ]
    status = hooks("status", "--project-dir", str(project)).stdout
    assert f"{folder}/config.toml:\n  [mcp_servers.brain]\n" in status and "notify" not in status
    refused = hooks("install", "codex", "--scope", "user", "--project-dir", str(project), "--vault", str(vault.root))
    assert refused.exit_code == 1 and refused.stderr == (
        f"error: brain's hooks are already in {folder}/hooks.json (project scope), and both would run; "
        "take them out with 'brain hooks uninstall codex --scope project' first\n"
    )
    (codex_home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    again = hooks("install", "codex", "--project-dir", str(project), "--vault", str(vault.root))
    assert f"to do     {folder}/config.toml" not in again.stdout
    hooks("uninstall", "codex", "--project-dir", str(project))
    assert not folder.exists()


@pytest.fixture
def example(tmp_path):
    copy = tmp_path / "vault-example"
    shutil.copytree(REPO / "vault-example", copy)
    return copy


def codex_input(event: str, **extra: object) -> str:
    """A hook's stdin as Codex 0.171.0 writes it (captured from the real CLI)."""
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": None,
            "cwd": "/work/demo",
            "hook_event_name": event,
            "model": "gpt-5-codex",
            "permission_mode": "bypassPermissions",
            **extra,
        }
    )


def test_session_start_and_first_prompt_answer_as_codex_reads_them(example):
    start = brain_process(
        "hooks",
        "run",
        "codex-session-start",
        "--vault",
        str(example),
        stdin=codex_input("SessionStart", source="startup"),
    )
    assert (start.returncode, start.stderr) == (0, "")
    output = json.loads(start.stdout)
    assert list(output) == ["hookSpecificOutput"] and output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert output["hookSpecificOutput"]["additionalContext"].startswith(
        "# Context for: this session (from brain, the team's memory)\n"
    )
    prompt = codex_input("UserPromptSubmit", turn_id="t1", prompt="Shorten the mobile access token TTL")
    # the facts of the namespace chosen at install: named by the prompt, whether or not the vault is warmed up
    named = ("--vault", str(example), "--namespace", "ledger-auth")
    first = brain_process("hooks", "run", "codex-first-prompt", *named, stdin=prompt)
    answer = json.loads(first.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    assert "- mobile-access-token-ttl (config, ledger-auth, since 2026-03-17):" in answer["additionalContext"]
    assert brain_process("hooks", "run", "codex-first-prompt", *named, stdin=prompt).stdout == ""


def test_stop_extracts_the_rollout_once_and_answers_nothing(example, codex_home):
    target = codex_home / "sessions" / "2026" / "03" / "14" / CODEX.name
    target.parent.mkdir(parents=True)
    shutil.copy(CODEX, target)
    stop = codex_input("Stop", turn_id="t1", stop_hook_active=False, last_assistant_message="Fixed")
    done = brain_process("hooks", "run", "codex-stop", "--vault", str(example), stdin=stop)  # no transcript_path
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    episode = example / "episodes" / "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.md"
    log = example / ".brain" / "logs" / "hooks.log"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and " extract " not in (log.read_text() if log.is_file() else ""):
        time.sleep(0.2)
    assert "Commit 1a2b3c4: Round cart totals with Decimal.quantize" in episode.read_text()
    with_path = json.loads(stop) | {"transcript_path": str(target)}
    brain_process("hooks", "run", "codex-stop", "--vault", str(example), stdin=json.dumps(with_path))
    while time.monotonic() < deadline and log.read_text().count(" extract ") < 2:
        time.sleep(0.2)
    lines = [line.split(" ", 1)[1] for line in log.read_text().splitlines() if " extract " in line]
    assert lines[-1] == f"extract {SESSION}: transcript unchanged since its last extraction; nothing to do"


def test_a_project_config_an_earlier_brain_gave_notify_is_flagged_and_installing_again_takes_it_out(
    vault, codex_home, tmp_path
):
    """brain before this release put `notify` in the project's config.toml, where Codex ignores it:
    `hooks status` said it was installed. It now says what is wrong, and installing again mends it."""
    project = tmp_path / "project"
    folder = project / ".codex"
    folder.mkdir(parents=True)
    (project / ".git").mkdir()
    notify = f'notify = ["{BRAIN}", "hooks", "run", "codex-notify", "--vault", "{vault.root}"]'
    begin = "# >>> brain (added by `brain hooks install codex`; `brain hooks uninstall codex` removes it)"
    (folder / "config.toml").write_text(f'{begin}\n{notify}\n# <<< brain\nmodel = "o4"\n')
    status = hooks("status", "--project-dir", str(project)).stdout
    assert (
        f"{folder}/config.toml: Codex ignores notify in a project's config.toml (it warns on every run, and runs it "
        "only from the user's); install again to take it out\n"
        f"  {notify}\n"
    ) in status
    hooks("install", "codex", "--project-dir", str(project), "--vault", str(vault.root))
    assert "notify" not in (folder / "config.toml").read_text()
    assert tomllib.loads((folder / "config.toml").read_text())["model"] == "o4"
