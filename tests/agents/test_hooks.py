"""`brain hooks`: install into Claude Code's and Codex's settings (every other setting kept, idempotent,
uninstall gives the file back), status, and the hooks run as real processes fed the agent's JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.conftest import CLAUDE, CODEX, REPO, run_brain

USER_SETTINGS = (
    '{"permissions": {"allow": ["Bash(ls:*)"]}, "model": "opus",\n'
    ' "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}}\n'
)


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(USER_SETTINGS)
    return folder


def hooks(*args: str):
    return run_brain("hooks", *args)


TRUST = "Codex runs brain's SessionStart, UserPromptSubmit, PostToolUse, Stop hooks once you trust them: in codex, type /hooks, trust each"


def codex_hooks_lines(folder: Path, action: str = "created") -> str:
    """What install says of Codex's hooks.json: written, and what the user does for Codex to run them."""
    return f"{action:9} {folder / 'hooks.json'}  (hooks)\nto do     {folder / 'hooks.json'}  ({TRUST})\n"


# ---------------------------------------------------------------- install, uninstall, status


def test_install_merges_keeps_the_rest_is_idempotent_and_uninstall_gives_the_settings_back(vault, project, home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(USER_SETTINGS)
    out = hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root))
    assert out.exit_code == 0
    assert out.stdout == f"updated   {settings}  (hooks)\ncreated   {home}/.claude.json  (mcp server)\n"
    data = json.loads(settings.read_text())
    brain = str(Path(sys.executable).parent / "brain")
    command = f"{brain} hooks run claude-code {{}} --vault {vault.root}"
    assert data["permissions"] == {"allow": ["Bash(ls:*)"]} and data["model"] == "opus"
    assert data["hooks"] == {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]},
            {"hooks": [{"type": "command", "command": command.format("session-start"), "timeout": 10}]},
        ],
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": command.format("first-prompt"), "timeout": 10}]}
        ],
        "PostToolUseFailure": [
            {"hooks": [{"type": "command", "command": command.format("tool-failure"), "timeout": 10}]}
        ],
        "PreCompact": [{"hooks": [{"type": "command", "command": command.format("session-end"), "timeout": 10}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": command.format("session-end"), "timeout": 10}]}],
    }
    assert json.loads((home / ".claude.json").read_text()) == {
        "mcpServers": {
            "brain": {
                "type": "stdio",
                "command": brain,
                "args": ["mcp", "--vault", str(vault.root), "--tools", "agent"],
            }
        }
    }
    written = {p: p.read_bytes() for p in (settings, home / ".claude.json")}
    again = hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root))
    assert again.stdout == f"unchanged {settings}  (hooks)\nunchanged {home}/.claude.json  (mcp server)\n"
    assert {p: p.read_bytes() for p in written} == written
    status = hooks("status", "--project-dir", str(project), "--json")
    entries = {row["path"]: row["entries"] for row in json.loads(status.stdout)["files"] if row["entries"]}
    assert entries == {
        str(settings): [
            f"SessionStart: {command.format('session-start')}",
            f"UserPromptSubmit: {command.format('first-prompt')}",
            f"PostToolUseFailure: {command.format('tool-failure')}",
            f"PreCompact: {command.format('session-end')}",
            f"SessionEnd: {command.format('session-end')}",
        ],
        f"{home}/.claude.json": [f"mcpServers.brain: {brain} mcp --vault {vault.root} --tools agent"],
    }
    gone = hooks("uninstall", "claude-code", "--scope", "user")
    assert gone.stdout == f"updated   {settings}  (hooks)\nremoved   {home}/.claude.json  (mcp server)\n"
    # every setting comes back; brain writes JSON its own way (two-space indent), so a file already
    # written that way comes back byte for byte
    assert json.loads(settings.read_text()) == json.loads(USER_SETTINGS)
    assert not (home / ".claude.json").exists()
    formatted = settings.read_bytes()
    hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root))
    hooks("uninstall", "claude-code", "--scope", "user")
    assert settings.read_bytes() == formatted


def test_uninstall_after_someone_else_edited_removes_only_brains_entries(vault, project, home):
    hooks("install", "claude-code", "--project-dir", str(project), "--vault", str(vault.root))
    path = project / ".claude" / "settings.local.json"
    edited = json.loads(path.read_text())
    edited["env"] = {"FOO": "1"}
    path.write_text(json.dumps(edited, indent=2))
    hooks("uninstall", "claude-code", "--project-dir", str(project))
    assert json.loads(path.read_text()) == {"env": {"FOO": "1"}}
    assert (project / ".claude" / "settings.json").read_text() == USER_SETTINGS


def test_user_scope_writes_the_users_files(vault, project, home):
    out = hooks("install", "claude-code", "--scope", "user", "--project-dir", str(project), "--vault", str(vault.root))
    assert out.stdout == (
        f"created   {home}/.claude/settings.json  (hooks)\ncreated   {home}/.claude.json  (mcp server)\n"
    )
    assert (project / ".claude" / "settings.json").read_text() == USER_SETTINGS
    hooks("uninstall", "claude-code", "--scope", "user")
    assert not (home / ".claude" / "settings.json").exists() and not (home / ".claude.json").exists()


def test_a_settings_file_that_is_not_json_is_one_error_and_changes_no_file(vault, project, home):
    (project / ".claude" / "settings.json").write_text("{not json")
    out = hooks("install", "claude-code", "--project-dir", str(project), "--vault", str(vault.root))
    assert out.exit_code == 1
    assert out.stderr == (
        f"error: {project}/.claude/settings.json is not JSON (Expecting property name enclosed in double quotes "
        "at line 1); fix it, then run this again\n"
    )
    assert (project / ".claude" / "settings.json").read_text() == "{not json" and not (project / ".mcp.json").exists()
    bad = hooks("install", "cursor", "--project-dir", str(project), "--vault", str(vault.root))
    assert bad.exit_code == 2 and bad.stderr == "error: agent 'cursor' is not one of: claude-code, codex, gemini\n"


def test_codex_config_gets_marked_blocks_and_gets_them_back(vault, home):
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = 'model = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    config.write_text(original)
    out = hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert out.stdout == f"updated   {config}  (notify and mcp server)\n" + codex_hooks_lines(config.parent)
    data = tomllib.loads(config.read_text())
    brain = str(Path(sys.executable).parent / "brain")
    assert data["model"] == "gpt-5-codex" and data["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert data["notify"] == [brain, "hooks", "run", "codex", "notify", "--vault", str(vault.root)]
    assert data["mcp_servers"]["brain"] == {
        "command": brain,
        "args": ["mcp", "--vault", str(vault.root), "--tools", "agent"],
    }
    before = config.read_bytes()
    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert config.read_bytes() == before
    hooks("uninstall", "codex", "--scope", "user")
    assert config.read_text() == original


def _tree(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_uninstall_removes_the_folders_install_created_and_no_other(vault, tmp_path, home):
    """Install into a bare HOME and a bare project, uninstall: both are as they were, folders included.
    A folder that existed before install stays, even when uninstall leaves it empty."""
    bare = tmp_path / "bare-project"
    bare.mkdir()
    for agent, extra in (("codex", ["--scope", "user"]), ("claude-code", ["--scope", "user"])):
        out = hooks("install", agent, *extra, "--project-dir", str(bare), "--vault", str(vault.root))
        assert out.exit_code == 0, out.stderr
    assert _tree(home) == [
        ".claude", ".claude.json", ".claude/settings.json", ".codex", ".codex/config.toml", ".codex/hooks.json"
    ]  # fmt: skip
    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))  # a second install: the folder is brain's
    hooks("uninstall", "claude-code", "--scope", "user")
    out = hooks("install", "claude-code", "--project-dir", str(bare), "--vault", str(vault.root))
    assert out.exit_code == 0, out.stderr
    assert _tree(bare) == [".claude", ".claude/settings.local.json"]
    for agent, extra in (("codex", ["--scope", "user"]), ("claude-code", ["--scope", "user"]), ("claude-code", [])):
        out = hooks("uninstall", agent, *extra, "--project-dir", str(bare))
        assert out.exit_code == 0, out.stderr
    assert _tree(home) == [] and _tree(bare) == []
    assert list((vault.root / ".brain" / "hooks" / "installed").iterdir()) == []
    # folders that were there before install are kept, empty or not
    (home / ".codex").mkdir()
    (bare / ".claude").mkdir()
    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    hooks("install", "claude-code", "--project-dir", str(bare), "--vault", str(vault.root))
    hooks("uninstall", "codex", "--scope", "user")
    hooks("uninstall", "claude-code", "--project-dir", str(bare))
    assert _tree(home) == [".codex"] and _tree(bare) == [".claude"]


def test_uninstall_after_an_edit_still_removes_a_folder_left_empty(vault, home):
    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "\n")  # someone touched it: brain removes only its blocks
    out = hooks("uninstall", "codex", "--scope", "user")
    assert out.stdout == f"removed   {config}  (notify and mcp server)\nremoved   {config.parent}/hooks.json  (hooks)\n"
    assert _tree(home) == []


def test_codex_with_its_own_notify_is_refused(vault, home):
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('notify = ["my-notifier"]\n')
    out = hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert out.exit_code == 1 and out.stderr.startswith(f"error: {config}: it already sets 'notify'")
    assert config.read_text() == 'notify = ["my-notifier"]\n'


def test_codex_uninstall_takes_out_whole_blocks_only_and_leaves_a_broken_file_as_it_is(vault, home):
    """A config.toml the user broke (not TOML any more): uninstall takes brain's marked blocks out and
    leaves every other byte; Codex cannot read the file either way, and status says so. A block whose
    end marker was deleted is left as it is (status says so), never read up to the next block's end:
    the user's lines between the two stay."""
    config = home / ".codex" / "config.toml"
    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    config.write_text(config.read_text() + 'model = "o4\n')  # an unclosed string
    out = hooks("uninstall", "codex", "--scope", "user")
    assert out.exit_code == 0 and out.stdout.startswith(f"updated   {config}  (notify and mcp server)\n")
    assert config.read_text() == 'model = "o4\n'
    assert f"{config}: not TOML (" in hooks("status").stdout
    config.unlink()
    hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    text = config.read_text()
    end = "# <<< brain\n"
    config.write_text(text.replace(end, '# my notes\nmodel = "o4"\n', 1))
    notify = text.splitlines()[1]
    status = hooks("status").stdout
    assert (
        f"{config}: a block of brain's has no end marker ('# <<< brain'); brain leaves it as it is: take it out by "
        "hand\n"
    ) in status
    hooks("uninstall", "codex", "--scope", "user")
    begin = text.splitlines()[0]
    assert config.read_text() == f'{begin}\n{notify}\n# my notes\nmodel = "o4"\n'


def test_codex_install_uninstall_and_status_follow_codex_home(vault, home, tmp_path, monkeypatch):
    codex_home = tmp_path / "codex home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    config = codex_home / "config.toml"
    out = hooks("install", "codex", "--scope", "user", "--vault", str(vault.root))
    assert out.stdout == f"created   {config}  (notify and mcp server)\n" + codex_hooks_lines(codex_home)
    assert tomllib.loads(config.read_text())["notify"][-2:] == ["--vault", str(vault.root)]
    assert not (home / ".codex").exists()
    status = json.loads(hooks("status", "--project-dir", str(tmp_path), "--json").stdout)["files"]
    brain = str(Path(sys.executable).parent / "brain")
    [codex_row] = [row for row in status if row["path"] == str(config)]
    assert (codex_row["path"], codex_row["entries"]) == (
        str(config),
        [
            f'notify = ["{brain}", "hooks", "run", "codex", "notify", "--vault", "{vault.root}"]',
            "[mcp_servers.brain]",
            f'command = "{brain}"',
            f'args = ["mcp", "--vault", "{vault.root}", "--tools", "agent"]',
        ],
    )
    hooks_file = codex_home / "hooks.json"
    assert [row for row in status if row["path"] == str(hooks_file)] == [
        {
            "path": str(hooks_file),
            "share": "user",
            "exists": True,
            "entries": [
                f"{event}: {brain} hooks run {name.replace('codex-', 'codex ', 1)} --vault {vault.root}  (not trusted yet: /hooks)"
                for event, name in (
                    ("SessionStart", "codex-session-start"),
                    ("UserPromptSubmit", "codex-first-prompt"),
                    ("PostToolUse", "codex-tool-failure"),
                    ("Stop", "codex-stop"),
                )
            ],
            "problem": None,
            "vaults": [str(vault.root)],
            "broken": [],
        }
    ]
    out = hooks("uninstall", "codex", "--scope", "user")
    assert out.stdout == f"removed   {config}  (notify and mcp server)\nremoved   {hooks_file}  (hooks)\n"
    assert not codex_home.exists()


@pytest.mark.parametrize("name", ["my vault", 'it\'s a "quoted" vault', "café — ノート"])
def test_uninstall_gives_the_files_back_whatever_the_vault_path(name, project, home, tmp_path):
    from brain.vault.init import init_vault

    root = init_vault(tmp_path / name)[0].root
    settings = project / ".claude" / "settings.json"
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('model = "gpt-5-codex"\n')
    for agent in ("claude-code", "codex"):
        out = hooks("install", agent, "--project-dir", str(project), "--vault", str(root))
        assert out.exit_code == 0, out.stderr
    for agent in ("claude-code", "codex"):
        assert hooks("uninstall", agent, "--project-dir", str(project)).exit_code == 0
    assert settings.read_bytes() == USER_SETTINGS.encode() and not settings.with_name("settings.local.json").exists()
    assert codex.read_bytes() == b'model = "gpt-5-codex"\n' and not (project / ".codex").exists()
    assert not (project / ".mcp.json").exists()
    assert list((root / ".brain" / "hooks" / "installed").iterdir()) == []


def test_status_lists_every_file_and_says_what_is_wrong_with_a_broken_one(vault, project, home):
    hooks("install", "claude-code", "--project-dir", str(project), "--vault", str(vault.root))
    (project / ".mcp.json").write_text("{not json")
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text("model = \n")
    out = hooks("status", "--project-dir", str(project))
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[:2] == [
        f"{project}/.claude/settings.json: nothing from brain",
        f"{project}/.claude/settings.local.json:",
    ]
    assert len(lines[2:7]) == 5 and lines[8] == f"{home}/.claude.json (project {project}):"
    assert [lines[7], *lines[10:]] == [
        f"{project}/.mcp.json: not JSON (Expecting property name enclosed in double quotes at line 1)",
        f"{home}/.claude/settings.json: no such file",
        f"{home}/.claude.json: nothing from brain",
        f"{project}/.codex/config.toml: no such file",
        f"{project}/.codex/hooks.json: no such file",
        f"{codex}: not TOML (Invalid value (at line 1, column 9))",
        f"{home}/.codex/hooks.json: no such file",
        f"{project}/.gemini/settings.json: no such file",
        f"{home}/.gemini/settings.json: no such file",
        f"vault {vault.root}:",  # the vault the installed entries name
        f"  index: none yet (run 'brain index --vault {vault.root}')",
        "  last runs: none",
        "  episodes captured, last 7 days: 0",
    ]
    rows = json.loads(hooks("status", "--project-dir", str(project), "--json").stdout)["files"]
    assert [(Path(r["path"]).name, r["share"], r["exists"], len(r["entries"]), r["problem"]) for r in rows] == [
        ("settings.json", "shared", True, 0, None),
        ("settings.local.json", "local", True, 5, None),
        (".mcp.json", "shared", True, 0, "not JSON (Expecting property name enclosed in double quotes at line 1)"),
        (".claude.json", "local", True, 1, None),
        ("settings.json", "user", False, 0, None),
        (".claude.json", "user", True, 0, None),
        ("config.toml", "local", False, 0, None),
        ("hooks.json", "local", False, 0, None),
        ("config.toml", "user", True, 0, "not TOML (Invalid value (at line 1, column 9))"),
        ("hooks.json", "user", False, 0, None),
        ("settings.json", "local", False, 0, None),
        ("settings.json", "user", False, 0, None),
    ]
    before = {p: p.read_bytes() for p in (project / ".claude" / "settings.json", project / ".mcp.json")}
    for command in (("install", "--vault", str(vault.root)), ("uninstall",)):
        out = hooks(*command, "claude-code", "--project-dir", str(project))
        assert (out.exit_code, out.stdout) == (1, "") and out.stderr.count("\n") == 1
        assert out.stderr.startswith(f"error: {project}/.mcp.json is not JSON")
    assert {p: p.read_bytes() for p in before} == before


def test_install_says_when_the_vault_has_no_index_yet(example, project, home):
    shutil.rmtree(example / ".brain" / "index", ignore_errors=True)  # a checkout where vault-example was indexed
    first = hooks("install", "claude-code", "--project-dir", str(project), "--vault", str(example))
    assert first.exit_code == 0 and first.stderr == (
        f"warning: {example} has no index yet: run 'brain index --vault {example}' so the hooks answer at once\n"
    )
    assert brain_process("index", "--no-embed", "--vault", str(example)).returncode == 0
    again = hooks("install", "claude-code", "--project-dir", str(project), "--vault", str(example))
    assert again.exit_code == 0 and again.stderr == ""


# ---------------------------------------------------------------- the hooks as the agent runs them


def brain_process(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    program = Path(sys.executable).parent / "brain"
    command = [str(program)] if program.is_file() else [sys.executable, "-m", "brain"]
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}
    )


@pytest.fixture
def example(tmp_path):
    copy = tmp_path / "vault-example"
    shutil.copytree(REPO / "vault-example", copy)
    return copy


def hook_input(event: str, **extra) -> str:
    return json.dumps(
        {
            "session_id": "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33",
            "transcript_path": str(CLAUDE),
            "cwd": "/work/demo",
            "hook_event_name": event,
            **extra,
        }
    )


def test_session_start_hands_claude_code_its_context(example):
    done = brain_process(
        "hooks", "run", "session-start", "--vault", str(example), stdin=hook_input("SessionStart", source="startup")
    )
    assert done.returncode == 0 and done.stderr == ""
    output = json.loads(done.stdout)
    assert list(output) == ["hookSpecificOutput"]
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = output["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(
        "# Context for: this session (from brain, the team's memory)\n\n## Antipattern warnings\n"
    )
    assert "- ANTIPATTERN-retry-without-idempotency (0% over 2):" in context
    assert "## Core tips\n- TIP-key-writes-before-enabling-retries [strategy]:" in context
    # every item one line: a tip whose text is wrapped in its note does not break the list
    assert [line for line in context.splitlines() if line and not line.startswith(("# ", "## ", "- "))] == []
    small = brain_process(
        "hooks", "run", "session-start", "--vault", str(example), "--budget", "100", stdin=hook_input("SessionStart")
    )
    assert len(json.loads(small.stdout)["hookSpecificOutput"]["additionalContext"]) <= 100 * 4


def test_first_prompt_only_once_per_session(example):
    prompt = hook_input("UserPromptSubmit", prompt="Shorten the mobile access token TTL for the ledger apps")
    # an indexed vault: the prompt is compared with patterns and tips only once they are all embedded
    assert brain_process("index", "--no-embed", "--vault", str(example)).returncode == 0
    cold = brain_process(
        "hooks", "run", "first-prompt", "--vault", str(example), stdin=prompt.replace('"7f3c', '"cold-7f3c')
    )
    assert (cold.returncode, cold.stdout) == (0, "")  # nothing the prompt names; the warm-up started
    marker = example / ".brain" / "index" / "hooks-warm"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not marker.is_file():
        time.sleep(0.2)
    assert marker.is_file()
    first = brain_process("hooks", "run", "first-prompt", "--vault", str(example), stdin=prompt)
    context = json.loads(first.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "## Patterns for this task\n- PATTERN-refresh-token-rotation (50% over 1):" in context["additionalContext"]
    second = brain_process("hooks", "run", "first-prompt", "--vault", str(example), stdin=prompt)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")
    state = modes(example / ".brain" / "hooks")
    assert "prompted/7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33" in state and set(state.values()) == {0o600}


def modes(folder: Path) -> dict[str, int]:
    """The mode of every file under a folder, by its path there."""
    return {str(p.relative_to(folder)): p.stat().st_mode & 0o777 for p in folder.rglob("*") if p.is_file()}


def test_first_prompt_names_a_fact_by_an_abbreviation_of_its_subject(tmp_path):
    vault = tmp_path / "vault"
    assert run_brain("init", str(vault)).exit_code == 0
    recorded = run_brain("fact", "record", "config", "db-pool-size", "20", "--json", "--vault", str(vault))
    title = json.loads(recorded.stdout)["fact"]["id"]
    prompt = hook_input("UserPromptSubmit", prompt="Tune the database pool size for the nightly import")
    answer = brain_process("hooks", "run", "first-prompt", "--vault", str(vault), stdin=prompt)
    context = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "## Facts valid now\n- db-pool-size (config, default, since " in context
    assert context.rstrip().endswith(f": 20 [[{title}]]")
    unrelated = hook_input("UserPromptSubmit", prompt="Fix the font size on the login page", session_id="other")
    quiet = brain_process("hooks", "run", "first-prompt", "--vault", str(vault), stdin=unrelated)
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_session_end_returns_at_once_and_extracts_in_the_background_once(example):
    log = example / ".brain" / "logs" / "hooks.log"
    ends = [
        brain_process("hooks", "run", "session-end", "--vault", str(example), stdin=hook_input(event))
        for event in ("PreCompact", "SessionEnd")
    ]
    assert [(e.returncode, e.stdout, e.stderr) for e in ends] == [(0, "", ""), (0, "", "")]
    episode = example / "episodes" / "EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and log.read_text().count(" extract ") < 2:
        time.sleep(0.2)
    lines = [line.split(" ", 2)[1:] for line in log.read_text().splitlines()]
    extracts = sorted(text for event, text in lines if event == "extract")
    assert extracts == [
        # a record type brain does not know, holding nothing it reads (no message), is no warning
        "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33: episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md [success], evidence on 0 "
        "patterns, 2 new tips, 1 value redacted",
        "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33: transcript unchanged since its last extraction; nothing to do",
    ]
    assert episode.is_file() and "ghp_" not in episode.read_text()
    from brain.memory.corpus import Corpus
    from brain.memory.notes.history import note_history
    from brain.vault.vault import Vault

    written = Vault(example)
    versions = note_history(
        Corpus(written), "episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md"
    ).entries
    assert {(entry.by, entry.command) for entry in versions} == {("hook", "hooks run extract")}
    state = modes(example / ".brain" / "hooks")  # session ids and transcript stamps: the owner's alone
    assert "extracted/7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33" in state and set(state.values()) == {0o600}


@pytest.mark.parametrize("stdin", ["{not json", '["a list"]', ""])
def test_a_hook_never_fails_the_agent(example, stdin):
    done = brain_process("hooks", "run", "session-end", "--vault", str(example), stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert " session-end error: InvalidInput: " in (example / ".brain" / "logs" / "hooks.log").read_text()


@pytest.mark.parametrize("start", ["session-start", "codex-session-start", "gemini-session-start"])
def test_a_vault_that_is_not_there_is_told_to_the_user_at_session_start_and_no_hook_fails(tmp_path, start):
    """A vault mistyped, moved or on a disk not mounted: the session-start hook says so to the user (a
    systemMessage, which the model is not handed); every other hook exits 0 and prints nothing."""
    nowhere = tmp_path / "nowhere"
    done = brain_process("hooks", "run", start, "--vault", str(nowhere), stdin=hook_input("SessionStart"))
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == {
        "systemMessage": f"brain's vault {nowhere} is not a folder (mistyped, moved, or on a disk not mounted?), so "
        "this session is not remembered: make the vault there with brain init, or install brain's hooks again with "
        "the right --vault (brain hooks status lists where they are)."
    }
    for event in ("first-prompt", "tool-failure", "session-end", "codex-first-prompt", "gemini-first-prompt"):
        quiet = brain_process("hooks", "run", event, "--vault", str(nowhere), stdin=hook_input("UserPromptSubmit"))
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    assert not nowhere.exists()


def test_codex_notify_finds_the_rollout_and_extracts_it(example, tmp_path):
    codex_home = tmp_path / "codex"
    target = codex_home / "sessions" / "2026" / "03" / "14" / CODEX.name
    target.parent.mkdir(parents=True)
    shutil.copy(CODEX, target)
    payload = json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b",
            "turn-id": "1",
            "input-messages": ["Fix the rounding bug"],
            "last-assistant-message": "Fixed",
        }
    )
    # the argv Codex builds: its `notify` program, then the JSON as the last argument
    done = brain_process(
        "hooks", "run", "codex-notify", "--vault", str(example), payload, env={"CODEX_HOME": str(codex_home)}
    )
    assert (done.returncode, done.stdout) == (0, "")
    episode = example / "episodes" / "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.md"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not episode.is_file():
        time.sleep(0.2)
    assert "Commit 1a2b3c4: Round cart totals with Decimal.quantize" in episode.read_text()


def test_session_end_says_how_many_values_were_redacted(brain, tmp_path):
    out = brain("session", "end", str(CLAUDE))
    assert out.exit_code == 0
    assert (
        out.stdout.splitlines()[0]
        == "episode episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md [success]  (1 value redacted)"
    )
    two = tmp_path / CLAUDE.name
    two.write_text(CLAUDE.read_text().replace("make the tests pass.", "make the tests pass. password=hunter2hunter2"))
    data = json.loads(brain("session", "end", str(two), "--json").stdout)
    assert data["redacted"] == 2
    text = brain("session", "end", str(two))
    assert (
        text.stdout.splitlines()[0]
        == "episode episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md [success]  (2 values redacted)"
    )


def test_a_hook_with_arguments_it_cannot_read_exits_0_silently_and_logs_a_line(vault, tmp_path):
    prompt = json.dumps({"session_id": "x", "prompt": "hi"})
    for args in (["--budget", "abc"], ["--nope"]):
        done = brain_process("hooks", "run", "first-prompt", "--vault", str(vault.root), *args, stdin=prompt)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    lines = [line.split(" ", 1)[1] for line in (vault.root / ".brain" / "logs" / "hooks.log").read_text().splitlines()]
    assert lines == [
        "first-prompt error: bad arguments: argument --budget: invalid int value: 'abc'",
        "first-prompt error: bad arguments: unrecognized arguments: --nope",
    ]
    temp = tmp_path / "temp"
    temp.mkdir()
    done = brain_process("hooks", "run", "session-start", "--budget", stdin=prompt, env={"TMPDIR": str(temp)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert (temp / "brain-hooks.log").read_text().split(" ", 1)[1] == (
        "session-start error: bad arguments: argument --budget: expected one argument\n"
    )
    helped = brain_process("hooks", "run", "--help")
    assert helped.returncode == 0 and helped.stdout.startswith(
        "Usage: brain hooks run [OPTIONS] {AGENT EVENT [JSON]}...\n"
    )


def test_the_hooks_log_is_redacted_with_the_vaults_own_patterns(vault, tmp_path):
    config = vault.root / ".brain" / "config.toml"
    config.write_text(config.read_text() + '\n[redact]\npatterns = ["ACME-[0-9]{6}"]\n')
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": "ACME-123456"})
    env = {"CODEX_HOME": str(tmp_path / "codex")}
    done = brain_process("hooks", "run", "codex-notify", payload, "--vault", str(vault.root), env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (vault.root / ".brain" / "logs" / "hooks.log").read_text()
    assert log.split(" ", 1)[1] == (
        "codex-notify error: InvalidInput: no Codex rollout file for thread [REDACTED:custom]\n"
    )
    config.write_text("[redact\n")  # a config brain cannot read: the default redactor, still a line
    brain_process("hooks", "run", "codex-notify", payload, "--vault", str(vault.root), env=env)
    assert log.count("\n") + 1 == (vault.root / ".brain" / "logs" / "hooks.log").read_text().count("\n")


def test_the_context_hooks_read_the_namespaces_chosen_at_install(example, project, home):
    out = hooks(
        "install", "claude-code", "--project-dir", str(project), "--vault", str(example),
        "--namespace", "ledger-auth", "--namespace", "ledger-api",
    )  # fmt: skip
    assert out.exit_code == 0
    commands = {
        entry["command"].split(" hooks run ")[1].split()[1]: entry["command"]
        for groups in json.loads((project / ".claude" / "settings.local.json").read_text())["hooks"].values()
        for group in groups
        for entry in group["hooks"]
        if " hooks run " in entry["command"]
    }
    namespaces = "--namespace ledger-auth --namespace ledger-api"
    assert commands["session-start"].endswith(f"--vault {example} {namespaces}")
    assert commands["first-prompt"].endswith(f"--vault {example} {namespaces}")
    assert commands["session-end"].endswith(f"--vault {example}")  # an extraction reads no facts
    assert hooks("uninstall", "claude-code", "--project-dir", str(project)).exit_code == 0
    assert (project / ".claude" / "settings.json").read_text() == USER_SETTINGS

    default = brain_process("hooks", "run", "session-start", "--vault", str(example), stdin=hook_input("SessionStart"))
    assert "## Facts valid now" not in json.loads(default.stdout)["hookSpecificOutput"]["additionalContext"]
    chosen = brain_process(
        "hooks", "run", "session-start", "--vault", str(example), "--namespace", "ledger-auth",
        stdin=hook_input("SessionStart"),
    )  # fmt: skip
    context = json.loads(chosen.stdout)["hookSpecificOutput"]["additionalContext"]
    assert (
        "## Facts valid now\n- mobile-access-token-ttl (config, ledger-auth, since 2026-03-17): "
        '{"clients":["ledger-ios","ledger-android"],"seconds":900} [[FACT-mobile-access-token-ttl-v2]]\n'
    ) in context
    bad = hooks("install", "claude-code", "--project-dir", str(project), "--vault", str(example), "--namespace", "a b")
    assert bad.exit_code == 2 and "namespace 'a b' must be one word" in bad.stderr
    assert (project / ".claude" / "settings.json").read_text() == USER_SETTINGS


def test_a_brain_vault_that_names_no_folder_is_a_line_in_the_log_naming_it(tmp_path):
    """A hook run where a relative $BRAIN_VAULT names nothing (exported in another folder) never fails
    the agent: exit 0, the user told at session start, and the log line names $BRAIN_VAULT, its value
    and the fix."""
    temp = tmp_path / "temp"
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "brain", "hooks", "run", "session-start"],
        input=hook_input("SessionStart"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(temp), "BRAIN_VAULT": "vault-example"},
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["systemMessage"].startswith(
        "brain's vault vault-example, from $BRAIN_VAULT, is not a folder (mistyped, moved, or on a disk not mounted?)"
    )
    assert (temp / "brain-hooks.log").read_text().split(" ", 1)[1] == (
        f"session-start error: VaultPathMissing: $BRAIN_VAULT is 'vault-example', which does not exist in "
        f"'{tmp_path.resolve()}' (a relative path is read from the current folder); set $BRAIN_VAULT to an "
        "existing vault (an absolute path works from any folder) or unset it, or give the vault's path\n"
    )


def test_the_first_prompt_does_not_hand_a_session_what_its_start_handed_it(example):
    """The fact the session start handed a session is not handed again at its first prompt (the
    ledger says what the session was given); a session that started elsewhere still gets it."""
    named = ("--vault", str(example), "--namespace", "ledger-auth")
    fact = "- mobile-access-token-ttl (config, ledger-auth, since 2026-03-17): "
    prompt = "Shorten the mobile access token TTL"

    def context(event: str, session: str, **extra: str) -> str:
        stdin = json.dumps({"session_id": session, "cwd": "/work/demo", **extra})
        done = brain_process("hooks", "run", event, *named, stdin=stdin)
        assert (done.returncode, done.stderr) == (0, "")
        return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]) if done.stdout else ""

    assert fact in context("session-start", "started-here", source="startup")
    first = context("first-prompt", "started-here", prompt=prompt)
    assert first.startswith(f"# Context for: {prompt}\n") and fact not in first
    assert "## Patterns for this task\n" in first
    assert fact in context("first-prompt", "started-elsewhere", prompt=prompt)


def test_the_extraction_waits_for_a_transcript_still_being_written(tmp_path):
    """An agent can fire its end hook before it has written the session's last calls (Gemini CLI did,
    1 run in 5): the worker reads the transcript once its size and mtime have settled."""
    import threading
    import time

    from brain.agents.runtime import _settled_stamp

    transcript = tmp_path / "chat.json"
    transcript.write_text("{}\n")

    def keep_writing() -> None:
        for number in range(3):
            time.sleep(0.2)
            with transcript.open("a") as handle:
                handle.write(f'{{"call": {number}}}\n')

    writer = threading.Thread(target=keep_writing)
    writer.start()
    stamp = _settled_stamp(transcript)
    writer.join()
    info = transcript.stat()
    assert stamp == f"{info.st_size}:{info.st_mtime_ns}"
