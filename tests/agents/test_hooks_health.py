"""`brain hooks status` shows health: a broken install (its program or vault gone) with its fix, the
index's freshness, each hook's last run and the hooks log's last errors, the episodes captured; and
`brain hooks install` warns about a vault with no index."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

from brain.agents.health import vault_health
from brain.vault.init import init_vault
from tests.agents.test_hooks import brain_process
from tests.conftest import REPO

BRAIN = str(Path(sys.executable).parent / "brain")
LOG = """2026-11-28T10:00:00Z session-start context of 120 tokens
2026-11-28T10:01:00Z session-end error: ValueError: bad transcript
2026-11-28T10:02:00Z session-end s1: extraction started for /t.jsonl
2026-11-28T10:03:00Z tool-failure error: bad arguments: unrecognized arguments: x
"""


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "BRAIN_VAULT": ""}


def test_a_deleted_vault_and_a_missing_program_are_shown_broken_with_the_fix(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    home.mkdir()
    init_vault(vault)
    assert (
        brain_process(
            "hooks", "install", "claude-code", "--scope", "user", "--vault", str(vault), env=_env(home)
        ).returncode
        == 0
    )
    settings = home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace(BRAIN, "/gone/bin/brain"))
    shutil.rmtree(vault)
    out = brain_process("hooks", "status", "--project-dir", str(tmp_path), "--json", env=_env(home))
    files = {item["path"]: item for item in json.loads(out.stdout)["files"]}
    again = "run 'brain hooks install claude-code --scope user --vault VAULT' again"
    assert files[str(settings)]["broken"] == [
        f"the brain program /gone/bin/brain does not exist; {again}",
        f"the vault {vault} does not exist; {again}",
    ]
    text = brain_process("hooks", "status", "--project-dir", str(tmp_path), env=_env(home)).stdout
    assert (
        f"{settings}:\n"
        + "".join(
            f"  {event}: /gone/bin/brain hooks run claude-code {name} --vault {vault}\n"
            for event, name in (
                ("SessionStart", "session-start"),
                ("UserPromptSubmit", "first-prompt"),
                ("PostToolUseFailure", "tool-failure"),
                ("PreCompact", "session-end"),
                ("SessionEnd", "session-end"),
            )
        )
        + f"  broken: the brain program /gone/bin/brain does not exist; {again}\n"
        f"  broken: the vault {vault} does not exist; {again}\n"
    ) in text


def test_a_missing_program_alone_names_the_vault_to_install_again_with(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    home.mkdir()
    init_vault(vault)
    assert (
        brain_process("hooks", "install", "gemini", "--scope", "user", "--vault", str(vault), env=_env(home)).returncode
        == 0
    )
    settings = home / ".gemini" / "settings.json"
    settings.write_text(settings.read_text().replace(BRAIN, "/gone/bin/brain"))
    out = brain_process("hooks", "status", "--project-dir", str(tmp_path), "--json", env=_env(home))
    files = {item["path"]: item for item in json.loads(out.stdout)["files"]}
    assert files[str(settings)]["broken"] == [
        "the brain program /gone/bin/brain does not exist; "
        f"run 'brain hooks install gemini --scope user --vault {vault}' again"
    ]
    assert files[str(settings)]["vaults"] == [str(vault)]


def test_last_runs_and_last_errors_come_from_the_hooks_log(tmp_path):
    vault = tmp_path / "vault"
    init_vault(vault)
    (vault / ".brain" / "logs").mkdir(parents=True, exist_ok=True)
    (vault / ".brain" / "logs" / "hooks.log").write_text(LOG)
    out = brain_process("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(vault), env=_env(tmp_path))
    assert (
        f"vault {vault}:\n"
        f"  index: none yet (run 'brain index --vault {vault}')\n"
        "  last runs: session-end 2026-11-28T10:02:00Z ok; session-start 2026-11-28T10:00:00Z ok; "
        "tool-failure 2026-11-28T10:03:00Z error\n"
        "  last errors:\n"
        "    2026-11-28T10:01:00Z session-end error: ValueError: bad transcript\n"
        "    2026-11-28T10:03:00Z tool-failure error: bad arguments: unrecognized arguments: x\n"
        "  episodes captured, last 7 days: 0\n"
    ) in out.stdout
    found = json.loads(
        brain_process("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(vault), "--json").stdout
    )["vaults"][0]
    assert found["last_runs"][2] == {"event": "tool-failure", "at": "2026-11-28T10:03:00Z", "result": "error"}
    assert found["index"] == "none"


def test_episodes_captured_in_the_last_seven_days(tmp_path):
    """Two episodes extracted from transcripts count; one written by hand (no `source_format`) does not."""
    vault = tmp_path / "vault"
    init_vault(vault)
    transcripts = REPO / "tests" / "data" / "transcripts"
    for path in (transcripts / "claude-code" / "-work-demo", transcripts / "public" / "kvsankar-claude_golden.jsonl"):
        assert brain_process("episode", "extract", str(path), "--vault", str(vault)).returncode == 0
    older = (
        vault / "episodes" / "EPISODE-2025-01-03-golden-claude-001.md"
    )  # dated 2025-01-03: bring it to the same week
    older.write_text(older.read_text().replace("date: '2025-01-03T10:00:00.000Z'", "date: '2026-03-12T10:00:00.000Z'"))
    (vault / "episodes" / "by-hand.md").write_text("---\ntype: episode\ndate: '2026-03-14'\n---\nWritten by hand.\n")
    week = datetime(2026, 3, 16, tzinfo=UTC)
    assert vault_health(vault, now=week).episodes == 2
    assert vault_health(vault, now=datetime(2026, 3, 20, tzinfo=UTC)).episodes == 1  # 2026-03-12 is 8 days back
    assert vault_health(vault, now=datetime(2026, 3, 13, tzinfo=UTC)).episodes == 1  # 2026-03-14 is still to come
    assert brain_process("index", "--vault", str(vault)).returncode == 0  # from the catalog, the same
    assert vault_health(vault, now=week).episodes == 2


def test_the_no_index_warning_fires_on_a_fresh_vault_and_not_after_brain_index(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    home.mkdir()
    init_vault(vault)
    warning = f"{vault} has no index yet: run 'brain index --vault {vault}' so the hooks answer at once"
    install = ("hooks", "install", "claude-code", "--scope", "user", "--vault", str(vault))
    assert warning in brain_process(*install, env=_env(home)).stderr
    assert brain_process("index", "--vault", str(vault)).returncode == 0
    assert warning not in brain_process(*install, env=_env(home)).stderr


def test_status_shows_log_lines_without_their_control_characters_and_counts_no_garbage_as_a_run(tmp_path):
    """Issue 40, 16: `hooks status` printed the log's lines raw, ANSI escapes included (a terminal
    obeys them), and took any line of two words (a traceback's, a worker's stray output) for a run."""
    vault = tmp_path / "vault"
    init_vault(vault)
    (vault / ".brain" / "logs").mkdir(parents=True, exist_ok=True)
    (vault / ".brain" / "logs" / "hooks.log").write_text(
        "2026-11-28T10:00:00Z session-start context of 120 tokens\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in <module>\n'
        "garbage line\n"
        "2026-11-28T10:01:00Z tool-failure error: \x1b[31mred\x1b[0m \x1b]0;title\x07 and a \rcarriage return\n"
        "\x1b[2J 2026-11-28T10:02:00Z\n"
    )
    out = brain_process("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(vault), env=_env(tmp_path))
    assert out.returncode == 0 and "\x1b" not in out.stdout and "\r" not in out.stdout and "\x07" not in out.stdout
    assert (
        "  last runs: session-start 2026-11-28T10:00:00Z ok; tool-failure 2026-11-28T10:01:00Z error\n"
        "  last errors:\n"
        "    2026-11-28T10:01:00Z tool-failure error: \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 and a \\rcarriage return\n"
    ) in out.stdout
    found = json.loads(
        brain_process("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(vault), "--json").stdout
    )["vaults"][0]
    assert [run["event"] for run in found["last_runs"]] == ["session-start", "tool-failure"]
