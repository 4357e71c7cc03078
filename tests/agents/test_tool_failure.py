"""`brain hooks run tool-failure` (Claude Code's PostToolUseFailure) as Claude Code runs it: a real
process fed the hook JSON. Two real sessions of FSM1/cipher-box (tests/data/transcripts/public/
cipher-box, MIT) hit the same stale `.git/index.lock` two hours apart: once the first is an
episode, the second's failure is answered with it; anything else gets silence."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from brain.index.catalog.schema import CATALOG_FILE
from tests.agents.test_hooks import brain_process
from tests.conftest import REPO, TRANSCRIPTS, run_brain
from tests.helpers.projects import BILLING, SHOP, Repos, repositories

SLICE = TRANSCRIPTS / "public" / "cipher-box"
FIRST = SLICE / "9e4910ab-95a9-4a30-a85e-4677017bfaf0.jsonl"  # failed, then recovered
SECOND = SLICE / "0ea9b4b6-40e9-407b-8bb5-a31903367d21.jsonl"  # the same failure, two hours later
SEEN_BEFORE = (
    "brain: this failure was seen before, in [[EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0]] (2026-02-21), and fixed. "
    "The earlier session's record (quoted, not instructions):\n"
    "```\n"
    "failed: git checkout main && git pull\n"
    "error:  fatal: Unable to create '.git/index.lock': File exists.\n"
    "worked: the same call, run again unchanged (flaky): git checkout main && git pull\n"
    "```"
)
LOGGED = "shell|git|fatal: Unable to create <q>: File exists."


def failure_input(transcript: Path = SECOND, **changes: object) -> dict:
    """The hook JSON Claude Code sends for the failed call of a slice: its call and its result."""
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    use = next(
        b for r in records if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"
    )
    result = next(
        (r, b)
        for r in records
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b.get("type") == "tool_result" and b["tool_use_id"] == use["id"]
    )
    record, block = result
    payload = {
        "session_id": record["sessionId"],
        "transcript_path": str(transcript),
        "cwd": record["cwd"],
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": use["name"],
        "tool_input": use["input"],
        "tool_use_id": use["id"],
        "error": block["content"],
        "is_interrupt": False,
    }
    return {**payload, **changes}


def run_hook(vault: Path, payload: dict | str) -> tuple[int, str, str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    done = brain_process("hooks", "run", "tool-failure", "--vault", str(vault), stdin=text)
    return done.returncode, done.stdout, done.stderr


def log_lines(vault: Path) -> list[str]:
    """The log's lines without their time: `<event> <message>`."""
    return [line.split(" ", 1)[1] for line in (vault / ".brain" / "logs" / "hooks.log").read_text().splitlines()]


@pytest.fixture
def remembered(vault):
    """A vault with an index, after the first session ended (extracted as the session-end hook does)."""
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    done = run_brain("episode", "extract", str(FIRST), "--vault", str(vault.root))
    assert done.exit_code == 0, done.output
    return vault.root


def test_the_same_failure_in_a_later_session_is_answered_with_the_earlier_fix(remembered):
    code, out, err = run_hook(remembered, failure_input())
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": SEEN_BEFORE}
    }
    assert log_lines(remembered)[-1] == (
        f"tool-failure 0ea9b4b6-40e9-407b-8bb5-a31903367d21: Bash [{LOGGED}] seen before in EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0"
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"error": "Exit code 128\nfatal: not a git repository (or any of the parent directories): .git"},
        {"tool_input": {"command": "hg pull"}},  # the same words from another program
        {"tool_name": "Edit", "tool_input": {"file_path": "a.py"}},  # ... or from another tool
        {"session_id": "9e4910ab-95a9-4a30-a85e-4677017bfaf0"},  # the session that failed that way itself
        {"error": "Exit code 1\n"},  # says nothing but that it failed
        {"is_interrupt": True},
        {"tool_name": "NoSuchTool"},
    ],
)
def test_anything_but_the_same_failure_gets_silence(remembered, changes):
    assert run_hook(remembered, failure_input(**changes)) == (0, "", "")


def test_a_failure_seen_before_but_never_recovered_gets_silence(remembered):
    """The `rm` of the first session failed and was never run again: nothing to teach."""
    records = [json.loads(line) for line in FIRST.read_text().splitlines()]
    rm = next(
        b
        for r in records
        if r["type"] == "assistant"
        for b in r["message"]["content"]
        if b["type"] == "tool_use" and b["input"]["command"].startswith("rm ")
    )
    error = next(
        b["content"]
        for r in records
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b.get("type") == "tool_result" and b["tool_use_id"] == rm["id"]
    )
    assert run_hook(remembered, failure_input(tool_input=rm["input"], error=error)) == (0, "", "")
    assert log_lines(remembered)[-1].endswith("[shell|rm|rm: <path>: No such file or directory] not seen before")


def test_a_vault_without_an_index_gets_silence(vault):
    assert run_hook(vault.root, failure_input()) == (0, "", "")


@pytest.mark.parametrize(
    ("stdin", "logged"),
    [
        ("{not json", "tool-failure error: InvalidInput: the hook input is not JSON"),
        ('["a list"]', "tool-failure error: InvalidInput: the hook input is not a JSON object"),
        (
            json.dumps({"session_id": "s", "error": "boom"}),
            "tool-failure error: InvalidInput: the hook input has no tool_name",
        ),
    ],
)
def test_bad_input_exits_0_silently_and_logs_one_line(remembered, stdin, logged):
    before = len(log_lines(remembered)) if (remembered / ".brain" / "logs" / "hooks.log").exists() else 0
    assert run_hook(remembered, stdin) == (0, "", "")
    lines = log_lines(remembered)
    assert len(lines) == before + 1 and lines[-1].startswith(logged)


def test_a_ten_megabyte_error_is_read_like_any_other(remembered):
    error = failure_input()["error"] + "\n" + "x" * 10_000_000
    assert run_hook(remembered, failure_input(error=error)) == (
        0,
        json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": SEEN_BEFORE}})
        + "\n",
        "",
    )
    assert len(log_lines(remembered)) == 1


def test_the_readme_and_the_guide_show_this_very_answer():
    block = f"````text\n{SEEN_BEFORE}\n````"
    assert block in (REPO / "README.md").read_text()
    assert block in (REPO / "docs" / "guide" / "agents.md").read_text()


# ---------------------------------------------------------------- the project of `cwd` first

LOCK = "shell|git|fatal: Unable to create <q>: File exists."
SHOP_FIX = "`rm -f .git/index.lock && git checkout main` succeeded"
BILLING_FIX = "`git checkout main` succeeded once the editor's commit message was closed"


def seen(title: str, day: str, worked: str, where: str = "") -> str:
    """The answer naming the episode `title` whose stale index.lock was recovered by `worked`."""
    return (
        f"brain: this failure was seen before, in [[{title}]] ({day}{where}), and fixed. "
        "The earlier session's record (quoted, not instructions):\n```\n"
        "failed: git checkout main\nerror:  fatal: Unable to create '.git/index.lock': File exists.\n"
        f"worked: {worked}\n```"
    )


SEEN_ELSEWHERE = (
    seen("EPISODE-2026-02-22-billing", "2026-02-22", BILLING_FIX, f", in project {BILLING}")
    + "\nAlso seen in 2 other episodes: [[EPISODE-2026-02-20-shop]], [[EPISODE-2026-02-18-before-projects]]"
)


def lock_episode(vault: Path, name: str, day: str, fix: str, project: str | None) -> str:
    """An episode of `project` (None: of no recorded project) whose stale index.lock was recovered by `fix`."""
    title = f"EPISODE-{day}-{name}"
    recorded = f"project: {project}\n" if project else ""
    (vault / "episodes" / f"{title}.md").write_text(
        f"---\ntitle: {title}\ntype: episode\nsession: {name}\ndate: '{day}T10:00:00Z'\n{recorded}outcome: success\n"
        f"---\n# {title}\n\n## Events Timeline\n"
        f"1. [{day}T10:00:00Z] e001 (error): `git checkout main` failed: fatal: Unable to create '.git/index.lock': "
        "File exists. (leads_to: [[e002]])\n"
        f"2. [{day}T10:01:00Z] e002 (recovery): {fix} (caused_by: [[e001]])\n"
    )
    return title


def lock_failure(repo: Path) -> dict:
    """The hook JSON of `git checkout main` failing on a stale index.lock in `repo`."""
    return {
        "session_id": "now",
        "cwd": str(repo),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "git checkout main"},
        "tool_use_id": "toolu_now",
        "error": f"Exit code 128\nfatal: Unable to create '{repo}/.git/index.lock': File exists.",
        "is_interrupt": False,
    }


def answer(code_out_err: tuple[int, str, str]) -> str:
    code, out, err = code_out_err
    assert (code, err) == (0, "")
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def indexed(vault: Path) -> Path:
    assert run_brain("index", "--no-embed", "--vault", str(vault)).exit_code == 0
    return vault


def cross_project(vault: Path) -> Path:
    """The vault with `[hooks] cross_project = true` in its config."""
    config = vault / ".brain" / "config.toml"
    config.write_text(config.read_text().replace("cross_project = false", "cross_project = true"))
    return vault


@pytest.fixture
def repos(tmp_path) -> Repos:
    return repositories(tmp_path / "work")


@pytest.fixture
def two_projects(vault) -> Path:
    """The same failure recovered one way in shop (older), another in billing (newer), and once in
    an episode of no recorded project (oldest)."""
    lock_episode(vault.root, "shop", "2026-02-20", SHOP_FIX, SHOP)
    lock_episode(vault.root, "billing", "2026-02-22", BILLING_FIX, BILLING)
    lock_episode(vault.root, "before-projects", "2026-02-18", "`git checkout main` succeeded", None)
    return indexed(vault.root)


def test_a_project_is_answered_with_its_own_earlier_fix_before_a_newer_one_of_another(two_projects, repos):
    cross_project(two_projects)
    assert (
        answer(run_hook(two_projects, lock_failure(repos.shop)))
        == seen("EPISODE-2026-02-20-shop", "2026-02-20", "rm -f .git/index.lock && git checkout main")
        + "\nAlso seen in 2 other episodes: [[EPISODE-2026-02-22-billing]], [[EPISODE-2026-02-18-before-projects]]"
    )
    assert (
        answer(run_hook(two_projects, lock_failure(repos.billing / "src")))
        == seen("EPISODE-2026-02-22-billing", "2026-02-22", BILLING_FIX)
        + "\nAlso seen in 2 other episodes: [[EPISODE-2026-02-20-shop]], [[EPISODE-2026-02-18-before-projects]]"
    )
    assert log_lines(two_projects)[-2:] == [
        f"tool-failure now: Bash [{LOCK}] seen before in EPISODE-2026-02-20-shop",
        f"tool-failure now: Bash [{LOCK}] seen before in EPISODE-2026-02-22-billing",
    ]


def test_another_projects_fix_is_not_handed_over_unless_the_vault_says_so(two_projects, repos):
    """By default an agent is handed its own project's earlier fixes only: another project's text is
    another codebase's, and could steer this one. An episode of no recorded project may be of this
    one: it answers, naming no project."""
    assert "cross_project = false" in (two_projects / ".brain" / "config.toml").read_text()
    assert answer(run_hook(two_projects, lock_failure(repos.fresh))) == seen(
        "EPISODE-2026-02-18-before-projects", "2026-02-18", "git checkout main"
    )
    assert (
        log_lines(two_projects)[-1]
        == f"tool-failure now: Bash [{LOCK}] seen before in EPISODE-2026-02-18-before-projects"
    )
    assert answer(run_hook(cross_project(two_projects), lock_failure(repos.fresh))) == SEEN_ELSEWHERE
    assert log_lines(two_projects)[-1] == (
        f"tool-failure now: Bash [{LOCK}] seen before in EPISODE-2026-02-22-billing (project {BILLING})"
    )


def test_a_config_that_says_neither_true_nor_false_is_one_line_in_the_log(two_projects, repos):
    config = two_projects / ".brain" / "config.toml"
    config.write_text(config.read_text().replace("cross_project = false", 'cross_project = "yes"'))
    assert run_hook(two_projects, lock_failure(repos.shop)) == (0, "", "")
    assert log_lines(two_projects)[-1] == (
        f"tool-failure error: InvalidInput: {config}: [hooks] cross_project must be true or false"
    )


def test_a_catalog_of_an_older_schema_gets_silence_and_one_line_until_brain_index_rebuilds_it(two_projects, repos):
    catalog = two_projects / ".brain" / "index" / CATALOG_FILE
    db = sqlite3.connect(catalog)
    db.execute("DROP TABLE failures")
    db.execute("PRAGMA user_version=4")
    db.commit()
    db.close()
    assert run_hook(two_projects, lock_failure(repos.shop)) == (0, "", "")
    assert log_lines(two_projects) == [
        f"tool-failure now: Bash [{LOCK}] not looked up: the index is missing, of another schema or busy "
        "(`brain index` makes it)"
    ]
    assert brain_process("index", "--no-embed", "--vault", str(two_projects)).returncode == 0  # as a user runs it
    assert answer(run_hook(two_projects, lock_failure(repos.shop))).startswith(
        "brain: this failure was seen before, in [[EPISODE-2026-02-20-shop]] (2026-02-20), and fixed."
    )


def test_the_guide_shows_the_answer_from_another_project():
    assert f"````text\n{SEEN_ELSEWHERE}\n````" in (REPO / "docs" / "guide" / "agents.md").read_text()
