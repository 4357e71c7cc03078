"""`brain hooks install/uninstall` never loses or leaks what is not brain's: a user's later edits
survive uninstall, another vault updates in place, symlinked settings stay links, no file holding
credentials is copied into the vault, a user's command that merely mentions brain's hook stays
theirs, a project install commits no path of this machine, and no hook is installed at two scopes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from brain.vault.init import init_vault
from tests.agents.test_hooks import USER_SETTINGS, codex_hooks_lines, hook_input, hooks
from tests.conftest import REPO

BRAIN = str(Path(sys.executable).parent / "brain")
TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyz"  # a made-up GitHub token in ~/.claude.json
CLAUDE_JSON = {
    "oauthAccount": {"emailAddress": "me@example.com"},
    "mcpServers": {"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": TOKEN}}},
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return folder


@pytest.fixture
def repo(tmp_path):
    """A git repository whose committed `.claude/settings.json` holds the user's own settings."""
    folder = tmp_path / "repo"
    (folder / ".git").mkdir(parents=True)
    (folder / "src" / "lib").mkdir(parents=True)
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text(USER_SETTINGS)
    return folder


@pytest.fixture
def brain_on_path(monkeypatch):
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


def brain_hooks(path: Path) -> list[str]:
    """The command of every hook in a settings file."""
    data = json.loads(path.read_text())
    return [hook["command"] for groups in data.get("hooks", {}).values() for g in groups for hook in g["hooks"]]


def command(event: str, vault: Path, *extra: str) -> str:
    """The command of Claude Code's hook EVENT, as brain installs it (named by its agent)."""
    return " ".join([BRAIN, "hooks", "run", "claude-code", event, "--vault", str(vault), *extra])


def user_hook_settings(vault: Path, *namespace: str) -> dict:
    """~/.claude/settings.json after a user-scope install into USER_SETTINGS."""
    first = ("--namespace", namespace[0]) if namespace else ()
    brain = {
        "SessionStart": command("session-start", vault, *first),
        "UserPromptSubmit": command("first-prompt", vault, *first),
        "PostToolUseFailure": command("tool-failure", vault),
        "PreCompact": command("session-end", vault),
        "SessionEnd": command("session-end", vault),
    }
    hooks = {event: [{"hooks": [{"type": "command", "command": c, "timeout": 10}]}] for event, c in brain.items()}
    hooks["SessionStart"].insert(0, {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]})
    return {**json.loads(USER_SETTINGS), "hooks": hooks}


# ---------------------------------------------------------------- 1. a user's later edits survive uninstall


@pytest.mark.parametrize("scope", ["user", "project"])
def test_a_hook_the_user_adds_between_two_installs_survives_uninstall(scope, vault, repo, home):
    settings = home / ".claude" / "settings.json" if scope == "user" else repo / ".claude" / "settings.local.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(USER_SETTINGS)
    install = ("install", "claude-code", "--scope", scope, "--project-dir", str(repo), "--vault", str(vault.root))
    assert hooks(*install).exit_code == 0
    data = json.loads(settings.read_text())
    mine = {"type": "command", "command": "notify-send 'session over'"}
    data["hooks"]["SessionEnd"].append({"hooks": [mine]})
    settings.write_text(json.dumps(data, indent=2))
    assert hooks(*install, "--namespace", "work").exit_code == 0
    assert json.loads(settings.read_text())["hooks"]["SessionEnd"][0] == {"hooks": [mine]}
    out = hooks("uninstall", "claude-code", "--scope", scope, "--project-dir", str(repo))
    assert out.exit_code == 0
    expected = json.loads(USER_SETTINGS)
    expected["hooks"]["SessionEnd"] = [{"hooks": [mine]}]
    assert json.loads(settings.read_text()) == expected
    assert list((vault.root / ".brain" / "hooks" / "installed").iterdir()) == []


def test_a_setting_the_user_changes_after_install_survives_uninstall(vault, repo, home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(USER_SETTINGS)
    hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root))
    data = json.loads(settings.read_text())
    data["model"] = "sonnet"
    settings.write_text(json.dumps(data, indent=2) + "\n")
    hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root), "--namespace", "work")
    hooks("uninstall", "claude-code", "--scope", "user")
    assert json.loads(settings.read_text()) == {**json.loads(USER_SETTINGS), "model": "sonnet"}


# ---------------------------------------------------------------- 2. another vault updates in place


def test_installing_with_another_vault_updates_in_place_and_one_uninstall_takes_all_out(tmp_path, home):
    first = init_vault(tmp_path / "A")[0].root
    second = init_vault(tmp_path / "B")[0].root
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(USER_SETTINGS)
    hooks("install", "claude-code", "--scope", "user", "--vault", str(first))
    out = hooks("install", "claude-code", "--scope", "user", "--vault", str(second))
    assert out.stdout == (f"updated   {settings}  (hooks)\nupdated   {home}/.claude.json  (mcp server)\n")
    assert json.loads(settings.read_text()) == user_hook_settings(second)
    assert json.loads((home / ".claude.json").read_text())["mcpServers"] == {
        "brain": {"type": "stdio", "command": BRAIN, "args": ["mcp", "--vault", str(second), "--tools", "agent"]}
    }
    out = hooks("uninstall", "claude-code", "--scope", "user")
    assert out.stdout == f"updated   {settings}  (hooks)\nremoved   {home}/.claude.json  (mcp server)\n"
    assert json.loads(settings.read_text()) == json.loads(USER_SETTINGS)
    assert not (home / ".claude.json").exists()
    status = hooks("status", "--project-dir", str(tmp_path), "--json")
    assert [row["entries"] for row in json.loads(status.stdout)["files"]] == [
        []
    ] * 12  # Claude Code 6, Codex 4, Gemini 2
    for vault in (first, second):
        assert list((vault / ".brain" / "hooks" / "installed").iterdir()) == []


def test_codex_with_another_vault_updates_in_place_and_one_uninstall_takes_all_out(tmp_path, home):
    first = init_vault(tmp_path / "A")[0].root
    second = init_vault(tmp_path / "B")[0].root
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5-codex"\n')
    hooks("install", "codex", "--scope", "user", "--vault", str(first))
    out = hooks("install", "codex", "--scope", "user", "--vault", str(second))
    assert out.stdout == f"updated   {config}  (notify and mcp server)\n" + codex_hooks_lines(config.parent, "updated")
    assert tomllib.loads(config.read_text())["notify"][-1] == str(second)
    assert brain_hooks(config.parent / "hooks.json") == [
        f"{BRAIN} hooks run codex {name} --vault {second}"
        for name in ("session-start", "first-prompt", "tool-failure", "stop")
    ]
    out = hooks("uninstall", "codex", "--scope", "user")
    hooks_file = config.parent / "hooks.json"
    assert out.stdout == f"updated   {config}  (notify and mcp server)\nremoved   {hooks_file}  (hooks)\n"
    assert config.read_text() == 'model = "gpt-5-codex"\n' and not hooks_file.exists()
    for vault in (first, second):
        assert list((vault / ".brain" / "hooks" / "installed").iterdir()) == []


# ---------------------------------------------------------------- 3. symlinked settings files


def test_a_symlinked_settings_file_is_edited_through_the_link(vault, home):
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text(USER_SETTINGS)
    (dotfiles / "config.toml").write_text('model = "gpt-5-codex"\n')
    settings, config = home / ".claude" / "settings.json", home / ".codex" / "config.toml"
    for link, target in ((settings, "settings.json"), (config, "config.toml")):
        link.parent.mkdir()
        link.symlink_to(Path("..") / "dotfiles" / target)
    assert hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root)).exit_code == 0
    assert hooks("install", "codex", "--scope", "user", "--vault", str(vault.root)).exit_code == 0
    assert settings.is_symlink() and config.is_symlink()
    assert json.loads((dotfiles / "settings.json").read_text()) == user_hook_settings(vault.root)
    assert '"codex", "notify"' in (dotfiles / "config.toml").read_text()
    assert sorted(p.name for p in dotfiles.iterdir()) == ["config.toml", "settings.json"]  # no temp file left
    hooks("uninstall", "claude-code", "--scope", "user")
    hooks("uninstall", "codex", "--scope", "user")
    assert settings.is_symlink() and config.is_symlink()
    assert json.loads((dotfiles / "settings.json").read_text()) == json.loads(USER_SETTINGS)
    assert (dotfiles / "config.toml").read_text() == 'model = "gpt-5-codex"\n'


def test_a_symlinked_file_left_empty_by_uninstall_stays_a_link(vault, home):
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text("{}\n")
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles / "settings.json")
    hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root))
    out = hooks("uninstall", "claude-code", "--scope", "user")
    assert out.stdout.splitlines()[0] == f"updated   {link}  (hooks)"
    assert link.is_symlink() and (dotfiles / "settings.json").read_text() == "{}\n"


# ---------------------------------------------------------------- 4. no credentials in the vault


def _files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


def test_a_user_install_copies_no_credentials_into_the_vault(vault, home):
    claude_json = home / ".claude.json"
    claude_json.write_text(json.dumps(CLAUDE_JSON, indent=2))
    claude_json.chmod(0o600)
    for _ in range(2):
        assert hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root)).exit_code == 0
    assert stat.S_IMODE(claude_json.stat().st_mode) == 0o600
    kept = _files(vault.root / ".brain" / "hooks")
    assert len(kept) == 2
    for file in kept:
        text = file.read_text()
        assert TOKEN not in text and "oauthAccount" not in text and "echo hi" not in text
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
        assert sorted(json.loads(text)) == ["created_file", "created_folders", "entries", "path", "sha256"]
    assert stat.S_IMODE((vault.root / ".brain" / "hooks" / "installed").stat().st_mode) == 0o700
    record = next(json.loads(f.read_text()) for f in kept if json.loads(f.read_text())["path"] == str(claude_json))
    assert record["entries"] == [f"mcpServers.brain: {BRAIN} mcp --vault {vault.root} --tools agent"]
    assert record["created_file"] is False
    hooks("uninstall", "claude-code", "--scope", "user")
    assert json.loads(claude_json.read_text()) == CLAUDE_JSON and stat.S_IMODE(claude_json.stat().st_mode) == 0o600


def _legacy_install(vault: Path, home: Path) -> Path:
    """What an earlier brain left: ~/.claude.json with brain's server, and its whole text before and
    after install copied into the vault at mode 644."""
    import hashlib

    claude_json = home / ".claude.json"
    before = json.dumps(CLAUDE_JSON, indent=2)
    server = {"type": "stdio", "command": BRAIN, "args": ["mcp", "--vault", str(vault)]}
    after = json.dumps({**CLAUDE_JSON, "mcpServers": {**CLAUDE_JSON["mcpServers"], "brain": server}}, indent=2)
    claude_json.write_text(after)
    folder = vault / ".brain" / "hooks" / "installed"
    folder.mkdir(parents=True)
    record = folder / f"{hashlib.sha256(str(claude_json.resolve()).encode()).hexdigest()[:20]}.json"
    legacy = {"path": str(claude_json), "before": before, "after": after, "created_folders": []}
    record.write_text(json.dumps(legacy))
    record.chmod(0o644)
    return record


@pytest.mark.parametrize("then", ["install", "uninstall"])
def test_copies_an_earlier_version_kept_are_gone_after_the_next_install_or_uninstall(then, vault, home):
    record = _legacy_install(vault.root, home)
    args = ("--scope", "user") + (("--vault", str(vault.root)) if then == "install" else ())
    assert hooks(then, "claude-code", *args).exit_code == 0
    for file in _files(vault.root / ".brain" / "hooks"):
        assert TOKEN not in file.read_text() and stat.S_IMODE(file.stat().st_mode) == 0o600
    if then == "uninstall":
        assert not record.exists()
        assert json.loads((home / ".claude.json").read_text()) == CLAUDE_JSON


# ---------------------------------------------------------------- 5. brain's entries, told apart exactly


def test_a_users_command_that_mentions_brains_hook_is_not_taken_for_brains(vault, home):
    theirs = [
        "my-wrapper brain hooks run session-end --foo",
        "echo 'hooks run session-end'",
        f"{BRAIN} hooks run session-end --vault {vault.root} --foo",
        f"nice {BRAIN} hooks run session-start --vault {vault.root}",
    ]
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"SessionEnd": [{"hooks": [{"type": "command", "command": text} for text in theirs]}]}
    settings.write_text(json.dumps({"hooks": mine}, indent=2) + "\n")
    hooks("install", "claude-code", "--scope", "user", "--vault", str(vault.root))
    assert brain_hooks(settings)[:4] == theirs and len(brain_hooks(settings)) == 9
    status = json.loads(hooks("status", "--json").stdout)["files"]
    assert [len(row["entries"]) for row in status if row["path"] == str(settings)] == [5]
    hooks("uninstall", "claude-code", "--scope", "user")
    assert json.loads(settings.read_text()) == {"hooks": mine}


# ---------------------------------------------------------------- 6. scopes: committed, local, never two


def _machine_paths(folder: Path, *paths: str) -> list[str]:
    """The files under `folder` a team commits that name any of `paths` (a vault's `.brain/` state,
    which its `.gitignore` keeps out of git, aside)."""
    committed = [f for f in _files(folder) if ".brain" not in f.parts or f.name == ".gitignore"]
    return [str(f.relative_to(folder)) for f in committed if any(p in f.read_text(errors="replace") for p in paths)]


def test_a_project_install_from_a_subfolder_writes_the_repository_root_and_commits_no_machine_path(
    vault, repo, home, brain_on_path
):
    sub = repo / "src" / "lib"
    out = hooks("install", "claude-code", "--project-dir", str(sub), "--vault", str(vault.root))
    assert out.exit_code == 0, out.stderr
    assert out.stdout == (
        f"project   {repo}  (git top level of {sub})\n"
        f"created   {repo}/.claude/settings.local.json  (hooks, this machine only)\n"
        f"created   {home}/.claude.json  (mcp server, this machine only)\n"
    )
    assert not (sub / ".claude").exists()
    assert (repo / ".claude" / "settings.json").read_text() == USER_SETTINGS and not (repo / ".mcp.json").exists()
    assert _machine_paths(repo, str(vault.root), BRAIN) == [".claude/settings.local.json"]
    local = json.loads((repo / ".claude" / "settings.local.json").read_text())
    assert sorted(local) == ["hooks"] and local["hooks"]["SessionStart"][0]["hooks"][0]["command"] == command(
        "session-start", vault.root
    )
    assert json.loads((home / ".claude.json").read_text()) == {
        "projects": {
            str(repo): {
                "mcpServers": {
                    "brain": {
                        "type": "stdio",
                        "command": BRAIN,
                        "args": ["mcp", "--vault", str(vault.root), "--tools", "agent"],
                    }
                }
            }
        }
    }
    status = hooks("status", "--project-dir", str(sub))
    assert status.stdout.splitlines() == [
        f"{repo}/.claude/settings.json: nothing from brain",
        f"{repo}/.claude/settings.local.json:",
        f"  SessionStart: {command('session-start', vault.root)}",
        f"  UserPromptSubmit: {command('first-prompt', vault.root)}",
        f"  PostToolUseFailure: {command('tool-failure', vault.root)}",
        f"  PreCompact: {command('session-end', vault.root)}",
        f"  SessionEnd: {command('session-end', vault.root)}",
        f"{repo}/.mcp.json: no such file",
        f"{home}/.claude.json (project {repo}):",
        f"  projects.{repo}.mcpServers.brain: {BRAIN} mcp --vault {vault.root} --tools agent",
        f"{home}/.claude/settings.json: no such file",
        f"{home}/.claude.json: nothing from brain",
        f"{repo}/.codex/config.toml: no such file",
        f"{repo}/.codex/hooks.json: no such file",
        f"{home}/.codex/config.toml: no such file",
        f"{home}/.codex/hooks.json: no such file",
        f"{repo}/.gemini/settings.json: no such file",
        f"{home}/.gemini/settings.json: no such file",
        f"vault {vault.root}:",
        f"  index: none yet (run 'brain index --vault {vault.root}')",
        "  last runs: none",
        "  episodes captured, last 7 days: 0",
    ]
    out = hooks("uninstall", "claude-code", "--project-dir", str(sub))
    assert out.stdout == (
        f"unchanged {repo}/.claude/settings.json  (hooks)\n"
        f"removed   {repo}/.claude/settings.local.json  (hooks, this machine only)\n"
        f"absent    {repo}/.mcp.json  (mcp server)\n"
        f"removed   {home}/.claude.json  (mcp server, this machine only)\n"
    )
    assert sorted(str(p.relative_to(repo)) for p in _files(repo)) == [".claude/settings.json"]


@pytest.fixture
def example_in_repo(repo):
    """The example vault inside the repository, as `notes/`."""
    shutil.copytree(REPO / "vault-example", repo / "notes")
    return repo / "notes"


def test_a_vault_inside_the_repository_with_brain_on_path_is_committed_portable(
    example_in_repo, repo, home, tmp_path, brain_on_path
):
    out = hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(example_in_repo))
    assert out.stdout == (
        f"project   {repo}  (git top level)\n"
        f"updated   {repo}/.claude/settings.json  (hooks)\n"
        f"created   {repo}/.mcp.json  (mcp server)\n"
    )
    portable = 'brain hooks run claude-code {} --vault "$CLAUDE_PROJECT_DIR"/notes'
    assert brain_hooks(repo / ".claude" / "settings.json") == [
        "echo hi",
        portable.format("session-start"),
        portable.format("first-prompt"),
        portable.format("tool-failure"),
        portable.format("session-end"),
        portable.format("session-end"),
    ]
    assert json.loads((repo / ".mcp.json").read_text()) == {
        "mcpServers": {
            "brain": {
                "type": "stdio",
                "command": "brain",
                "args": ["mcp", "--vault", "${CLAUDE_PROJECT_DIR:-.}/notes", "--tools", "agent"],
            }
        }
    }
    assert _machine_paths(repo, str(tmp_path), BRAIN) == []
    assert not (home / ".claude.json").exists() and not (repo / ".claude" / "settings.local.json").exists()
    # the committed command works as Claude Code runs it: through a shell, from any folder
    done = subprocess.run(
        ["sh", "-c", portable.format("session-start")],
        input=hook_input("SessionStart", source="startup"),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(repo)},
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert "## Core tips" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert hooks("uninstall", "claude-code", "--project-dir", str(repo)).stdout == (
        f"updated   {repo}/.claude/settings.json  (hooks)\n"
        f"absent    {repo}/.claude/settings.local.json  (hooks, this machine only)\n"
        f"removed   {repo}/.mcp.json  (mcp server)\n"
        f"absent    {home}/.claude.json  (mcp server, this machine only)\n"
    )
    assert json.loads((repo / ".claude" / "settings.json").read_text()) == json.loads(USER_SETTINGS)
    # the vault named from $CLAUDE_PROJECT_DIR is found: what install remembered there is gone
    assert list((example_in_repo / ".brain" / "hooks" / "installed").iterdir()) == []


def test_without_brain_on_path_the_entries_move_to_this_machines_files(example_in_repo, repo, home, monkeypatch):
    here = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([here, os.environ.get("PATH", "")]))
    hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(example_in_repo))
    kept = [part for part in os.environ["PATH"].split(os.pathsep) if part and Path(part) != Path(here)]
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    out = hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(example_in_repo))
    assert out.stdout == (
        f"project   {repo}  (git top level)\n"
        f"updated   {repo}/.claude/settings.json  (hooks)\n"
        f"created   {repo}/.claude/settings.local.json  (hooks, this machine only)\n"
        f"removed   {repo}/.mcp.json  (mcp server)\n"
        f"created   {home}/.claude.json  (mcp server, this machine only)\n"
    )
    assert json.loads((repo / ".claude" / "settings.json").read_text()) == json.loads(USER_SETTINGS)
    assert brain_hooks(repo / ".claude" / "settings.local.json")[0] == command("session-start", example_in_repo)


@pytest.mark.parametrize("first", ["user", "project"])
def test_brains_hooks_are_never_installed_at_two_scopes(first, vault, repo, home):
    second = "project" if first == "user" else "user"
    installed = hooks(
        "install", "claude-code", "--scope", first, "--project-dir", str(repo), "--vault", str(vault.root)
    )
    assert installed.exit_code == 0
    files = {p: p.read_bytes() for p in (*_files(home), *_files(repo))}
    out = hooks("install", "claude-code", "--scope", second, "--project-dir", str(repo), "--vault", str(vault.root))
    where = home / ".claude" / "settings.json" if first == "user" else repo / ".claude" / "settings.local.json"
    assert (out.exit_code, out.stdout) == (1, "")
    assert out.stderr == (
        f"error: brain's hooks are already in {where} ({first} scope), and both would run; take them out with "
        f"'brain hooks uninstall claude-code --scope {first}' first\n"
    )
    assert {p: p.read_bytes() for p in (*_files(home), *_files(repo))} == files


def test_a_local_settings_file_brain_creates_is_kept_out_of_git(vault, tmp_path, home):
    repo = tmp_path / "real repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    out = hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(vault.root))
    exclude = repo / ".git" / "info" / "exclude"
    assert out.stdout.splitlines()[1:3] == [
        f"created   {repo}/.claude/settings.local.json  (hooks, this machine only)",
        f"updated   {exclude}  (git ignores .claude/settings.local.json)",
    ]
    assert exclude.read_text().endswith("\n/.claude/settings.local.json\n")
    untracked = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True)
    assert untracked.stdout == ""
    twice = hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(vault.root))
    assert "git ignores" not in twice.stdout and exclude.read_text().count("settings.local.json") == 1
    before = exclude.read_text().removesuffix("/.claude/settings.local.json\n")
    removed = hooks("uninstall", "claude-code", "--project-dir", str(repo))
    lines = removed.stdout.splitlines()
    at = lines.index(f"removed   {repo}/.claude/settings.local.json  (hooks, this machine only)")
    assert lines[at + 1] == f"updated   {exclude}  (git no longer ignores .claude/settings.local.json)"
    assert exclude.read_text() == before  # uninstall takes out the line install added, and only it
    again = hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(vault.root))
    assert "git ignores" in again.stdout and exclude.read_text().count("settings.local.json") == 1


def test_a_claude_json_whose_projects_brain_cannot_read_refuses_install_and_not_uninstall(vault, repo, home):
    claude_json = home / ".claude.json"
    claude_json.write_text('{"projects": 5}\n')
    out = hooks("install", "claude-code", "--project-dir", str(repo), "--vault", str(vault.root))
    assert (out.exit_code, out.stdout) == (1, "")
    assert out.stderr == (
        f"error: {claude_json}: its 'projects' is not an object; fix it by hand, then install again\n"
    )
    assert not (repo / ".claude" / "settings.local.json").exists()
    out = hooks("uninstall", "claude-code", "--project-dir", str(repo))
    assert (
        out.exit_code == 0
        and out.stdout.splitlines()[-1] == f"unchanged {claude_json}  (mcp server, this machine only)"
    )
    assert claude_json.read_text() == '{"projects": 5}\n'


def test_codex_keeps_a_table_added_after_install_and_copies_no_token(tmp_path, home):
    first = init_vault(tmp_path / "A")[0].root
    second = init_vault(tmp_path / "B")[0].root
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = f'model = "gpt-5-codex"\n\n[mcp_servers.github.env]\nGITHUB_TOKEN = "{TOKEN}"\n'
    config.write_text(original)
    hooks("install", "codex", "--scope", "user", "--vault", str(first))
    added = '\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    config.write_text(config.read_text() + added)
    hooks("install", "codex", "--scope", "user", "--vault", str(second))
    assert not any(TOKEN in f.read_text() for f in [*_files(first / ".brain"), *_files(second / ".brain")])
    hooks("uninstall", "codex", "--scope", "user")
    assert config.read_text() == original + added
