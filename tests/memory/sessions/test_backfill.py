"""`brain episode extract --from claude-code|codex`: the sessions an agent keeps, found in its own store,
extracted oldest first, once each (keyed by session id and content hash), a grown one again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import TRANSCRIPTS, run_brain
from tests.helpers.mcp_harness import snapshot

DEMO = TRANSCRIPTS / "claude-code" / "-work-demo" / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
SPOTTER = TRANSCRIPTS / "public" / "spotter" / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
KVSANKAR = TRANSCRIPTS / "public" / "kvsankar-real-claude-session-01.jsonl"
CODEX = TRANSCRIPTS / "codex" / "2026" / "03" / "14"


def with_subagents(transcript: Path, folder: Path, name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or transcript.name)
    shutil.copy2(transcript, target)
    subagents = transcript.with_suffix("")
    if subagents.is_dir():
        shutil.copytree(subagents, target.with_suffix(""))
    return target


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A home whose Claude Code kept three sessions (one with subagents) and one file with nothing in it."""
    folder = tmp_path / "home"
    projects = folder / ".claude" / "projects"
    with_subagents(DEMO, projects / "-work-demo")
    with_subagents(SPOTTER, projects / "-home-USER-projects-spotter-worktrees-spotter-4te")
    with_subagents(KVSANKAR, projects / "-tmp-agent-history", "06090cb1-3e64-433a-bc7e-a621c0f596d2.jsonl")
    (projects / "-work-empty").mkdir()
    (projects / "-work-empty" / "5d0c0c0c-empty.jsonl").write_text("not a record\n")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return folder


def backfill(vault, *args: str):
    return run_brain("episode", "extract", *args, "--vault", str(vault.root))


def test_backfill_extracts_every_session_oldest_first_and_twice_adds_nothing(vault, home):
    store = home / ".claude" / "projects"
    first = backfill(vault, "--from", "claude-code")
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert [line.split("  [")[0] for line in lines[:-1]] == [
        "created episodes/EPISODE-2026-02-12-ae4a77f8-aedd-4bc1-888f-c94edc91af04.md",
        "created episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md",
        "created episodes/EPISODE-2026-06-05-06090cb1-3e64-433a-bc7e-a621c0f596d2.md",
    ]
    assert lines[-1] == f"4 sessions in {store}: 3 created, 1 skipped, 0 already in the vault"
    assert first.stderr.splitlines()[-1] == (
        "warning: skipped 5d0c0c0c-empty.jsonl: "
        "5d0c0c0c-empty.jsonl holds no claude-code records (1 lines that are not JSON)"
    )
    assert len(list((vault.root / "episodes").glob("EPISODE-*.md"))) == 3
    # it names every session: readable by its owner only (issue 40, 9)
    assert (vault.brain_dir / "sessions" / "backfilled.json").stat().st_mode & 0o777 == 0o600

    before = snapshot(vault.root)
    second = backfill(vault, "--from", "claude-code")
    assert second.exit_code == 0
    assert second.stdout == f"4 sessions in {store}: 4 already in the vault\n"
    assert snapshot(vault.root) == before


def test_a_session_that_grew_is_extracted_again_into_its_own_episode(vault, home):
    assert backfill(vault, "--from", "claude-code").exit_code == 0
    transcript = home / ".claude" / "projects" / "-work-demo" / DEMO.name
    records = transcript.read_text().splitlines()
    transcript.write_text("\n".join([*records, records[-1]]) + "\n")  # one more record, as a resumed session adds
    again = backfill(vault, "--from", "claude-code")
    lines = again.stdout.splitlines()
    assert [line.split("  [")[0] for line in lines[:-1]] == [
        "unchanged episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md"
    ]
    assert lines[-1].endswith(": 1 unchanged, 3 already in the vault")


def test_a_session_with_a_line_nested_too_deep_is_extracted_and_so_are_those_after_it(vault, home):
    """Issue 40, 2: a line nested ~1,000 levels deep in the oldest session ended the backfill in a
    RecursionError, and every later session with it."""
    oldest = home / ".claude" / "projects" / "-home-USER-projects-spotter-worktrees-spotter-4te" / SPOTTER.name
    first, *rest = oldest.read_text(encoding="utf-8").splitlines(keepends=True)
    oldest.write_text(first + '{"type": "user", "deep": ' + "[" * 1000 + "]" * 1000 + "}\n" + "".join(rest))
    done = backfill(vault, "--from", "claude-code")
    assert done.exit_code == 0, done.output
    assert [line.split("  [")[0] for line in done.stdout.splitlines()[:-1]] == [
        "created episodes/EPISODE-2026-02-12-ae4a77f8-aedd-4bc1-888f-c94edc91af04.md",
        "created episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md",
        "created episodes/EPISODE-2026-06-05-06090cb1-3e64-433a-bc7e-a621c0f596d2.md",
    ]


def test_project_limits_the_backfill_to_sessions_run_in_that_folder(vault, home):
    done = backfill(vault, "--from", "claude-code", "--project", "/work/demo")
    lines = done.stdout.splitlines()
    assert [line.split("  [")[0] for line in lines[:-1]] == [
        "created episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md"
    ]
    assert lines[-1] == f"1 session in {home / '.claude' / 'projects'}: 1 created, 0 already in the vault"


def test_a_dry_run_writes_and_records_nothing(vault, home):
    before = snapshot(vault.root)
    done = backfill(vault, "--from", "claude-code", "--dry-run")
    assert done.stdout.splitlines()[-1].endswith(": 3 would write, 1 skipped, 0 already in the vault")
    assert snapshot(vault.root) == before
    assert (
        backfill(vault, "--from", "claude-code")
        .stdout.splitlines()[-1]
        .endswith(": 3 created, 1 skipped, 0 already in the vault")
    )


def test_codex_sessions_come_from_codex_home(vault, home, tmp_path, monkeypatch):
    codex_home = tmp_path / "codex-home"
    shutil.copytree(CODEX, codex_home / "sessions" / "2026" / "03" / "14")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    done = backfill(vault, "--from", "codex", "--json")
    assert done.exit_code == 0
    report = json.loads(done.stdout)
    assert (report["store"], report["sessions"], report["already_in_vault"]) == (
        str(codex_home / "sessions"),
        1,
        0,
    )
    assert report["counts"] == {"created": 1}
    [result] = report["results"]
    assert (result["session"], result["status"], result["started"]) == (
        "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b",
        "created",
        "2026-03-14T10:00:00.000Z",
    )
    assert result["episode"]["format"] == "codex"


def test_claude_config_dir_moves_the_store(vault, home, tmp_path, monkeypatch):
    moved = tmp_path / "claude-config"
    with_subagents(DEMO, moved / "projects" / "-work-demo")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    done = backfill(vault, "--from", "claude-code")
    assert done.stdout.splitlines()[-1] == f"1 session in {moved / 'projects'}: 1 created, 0 already in the vault"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--from", "cursor"), "error: agent 'cursor' is not one of: claude-code, codex, gemini"),
        (("--from", "claude-code", "some.jsonl"), "error: give transcripts or --from AGENT, not both"),
        (("--project", "/work"), "error: --project goes with --from AGENT; give --from claude-code, codex or gemini"),
        ((), "error: give transcripts, session logs or folders of them, or --from AGENT (claude-code, codex, gemini)"),
    ],
)
def test_bad_backfill_usage_is_one_line_and_exit_2(vault, home, args, message):
    before = snapshot(vault.root)
    done = backfill(vault, *args)
    assert (done.exit_code, done.stderr.strip()) == (2, message)
    assert snapshot(vault.root) == before


def test_an_agent_that_kept_no_sessions_is_one_line(vault, home, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    done = backfill(vault, "--from", "codex")
    assert done.exit_code == 2
    assert done.stderr.strip() == (
        f"error: '{tmp_path / 'no-codex' / 'sessions'}' does not exist; the agent has kept no sessions there "
        "(or keeps them elsewhere)"
    )
