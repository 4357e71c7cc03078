"""Transcript extraction at its edges: two sessions whose ids begin alike, a format that does not fit
the file, an error never recovered, text an IDE put in the first message, files written by a shell.
Real files in temp folders; the CLI through CliRunner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from brain.agents.registry import READERS
from brain.memory.sessions.ingest import extract_transcript
from brain.notes.parse import parse_note
from tests.conftest import TRANSCRIPTS

CLAUDE = TRANSCRIPTS / "claude-code" / "-work-demo" / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
CODEX = (
    TRANSCRIPTS
    / "codex"
    / "2026"
    / "03"
    / "14"
    / "rollout-2026-03-14T10-00-00-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
)
CODEX_ID = "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b"
TASK = "Fix the rounding bug in cart totals (tests/test_cart.py fails) and commit the fix"


def _files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _codex_copy(folder: Path, session: str, task: str) -> Path:
    """The Codex sample as another session: its id and its task changed."""
    path = folder / f"rollout-2026-03-14T10-00-30-{session}.jsonl"
    path.write_text(CODEX.read_text().replace(CODEX_ID, session).replace(TASK, task))
    return path


# ---------------------------------------------------------------- 1. two sessions, one name


def test_two_codex_sessions_started_within_a_minute_get_a_note_each(brain, vault, tmp_path):
    other = _codex_copy(tmp_path, "0199a3b2-77aa-7e5f-8a9b-111111111111", "Add a discount code field to checkout")
    first = brain("episode", "extract", str(CODEX))
    second = brain("episode", "extract", str(other))
    assert first.stdout.startswith("created episodes/EPISODE-2026-03-14-0199a3b2.md ")
    assert second.stdout.startswith("created episodes/EPISODE-2026-03-14-0199a3b2-77aa.md ")
    notes = {p.name: parse_note(p.read_text()) for p in (vault.root / "episodes").iterdir()}
    mine, theirs = notes["EPISODE-2026-03-14-0199a3b2.md"], notes["EPISODE-2026-03-14-0199a3b2-77aa.md"]
    assert (mine.frontmatter["session"], mine.frontmatter["task"]) == (CODEX_ID, TASK)
    assert (theirs.frontmatter["session"], theirs.frontmatter["task"]) == (
        "0199a3b2-77aa-7e5f-8a9b-111111111111",
        "Add a discount code field to checkout",
    )
    assert theirs.frontmatter["episode_id"] == "episode-2026-03-14-0199a3b2-77aa"
    assert "`0199a3b2-77aa-7e5f-8a9b-111111111111`" in theirs.section_text("Context")
    # each session extracted again finds its own note
    assert brain("episode", "extract", str(other)).stdout.startswith(
        "unchanged episodes/EPISODE-2026-03-14-0199a3b2-77aa.md "
    )
    assert brain("episode", "extract", str(CODEX)).stdout.startswith(
        "unchanged episodes/EPISODE-2026-03-14-0199a3b2.md "
    )
    assert len(notes) == 2 and len(list((vault.root / "episodes").iterdir())) == 2


def test_two_sessions_with_the_same_start_in_one_command_get_a_note_each(brain, vault, tmp_path):
    other = _codex_copy(tmp_path, "0199a3b2-77aa-7e5f-8a9b-111111111111", "Add a discount code field to checkout")
    out = brain("episode", "extract", str(CODEX), str(other))
    assert [line.split("  ")[0] for line in out.stdout.splitlines()] == [
        "created episodes/EPISODE-2026-03-14-0199a3b2.md",
        "created episodes/EPISODE-2026-03-14-0199a3b2-77aa.md",
    ]


def test_session_end_of_a_second_session_with_the_same_start_keeps_both(brain, vault, tmp_path):
    other = _codex_copy(tmp_path, "0199a3b2-1c4d-7e5f-8a9b-222222222222", "Rename the cart module")
    one = json.loads(brain("session", "end", str(CODEX), "--json").output)
    two = json.loads(brain("session", "end", str(other), "--json").output)
    assert (one["episode"], two["episode"]) == ("EPISODE-2026-03-14-0199a3b2", "EPISODE-2026-03-14-0199a3b2-1c4d")


def test_a_stored_context_line_is_refreshed_unless_a_person_edited_it(brain, vault, tmp_path):
    """The subagent's file appears after the first extraction: brain's Context line says so; a Context
    a person wrote stays as they wrote it."""
    folder = tmp_path / "-work-demo"
    folder.mkdir()
    transcript = folder / CLAUDE.name
    shutil.copy(CLAUDE, transcript)
    brain("episode", "extract", str(transcript))
    note = vault.root / "episodes" / "EPISODE-2026-03-14-7f3c2a10.md"
    before = parse_note(note.read_text()).section_text("Context")
    assert before.strip().endswith(f"extracted by rules from `{CLAUDE.name}`.")
    shutil.copytree(CLAUDE.with_suffix(""), transcript.with_suffix(""))
    assert brain("episode", "extract", str(transcript)).stdout.startswith("updated ")
    assert parse_note(note.read_text()).section_text("Context").strip() == (
        "Claude Code session `7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33` in `/work/demo`, extracted by rules from "
        f"`{CLAUDE.name}` and 1 subagent transcripts."
    )
    edited = note.read_text().replace("extracted by rules", "the retry work, extracted by rules")
    note.write_text(edited)
    shutil.rmtree(transcript.with_suffix(""))
    brain("episode", "extract", str(transcript))
    assert "the retry work, extracted by rules" in parse_note(note.read_text()).section_text("Context")


# ---------------------------------------------------------------- 2. a format that does not fit


def test_a_forced_format_the_file_does_not_have_is_one_error_and_writes_nothing(brain, vault):
    brain("episode", "extract", str(CLAUDE))
    before = _files_of(vault.root)
    out = brain("episode", "extract", str(CLAUDE), "--format", "codex")
    assert out.exit_code == 1
    assert out.stderr == (
        f"error: {CLAUDE.name} has no codex records (its records look like claude-code); "
        "drop --format or pass --format claude-code\n"
    )
    out = brain("session", "end", str(CODEX), "--format", "claude-code")
    assert out.exit_code == 1
    assert out.stderr == (
        f"error: {CODEX.name} has no claude-code records (its records look like codex); "
        "drop --format or pass --format codex\n"
    )
    assert _files_of(vault.root) == before
    # the hooks' detached extraction logs the same line and writes no episode
    out = brain("hooks", "run", "extract", "--transcript", str(CLAUDE), "--session", "7f3c2a10", "--format", "codex")
    assert (out.exit_code, out.stdout) == (0, "")
    log = (vault.root / ".brain" / "logs" / "hooks.log").read_text().splitlines()
    assert log[-1].endswith(
        f" extract error: InvalidInput: {CLAUDE.name} has no codex records (its records look like claude-code); "
        "drop --format or pass --format claude-code"
    )
    assert {k: v for k, v in _files_of(vault.root).items() if k.startswith("episodes/")} == {
        k: v for k, v in before.items() if k.startswith("episodes/")
    }


# ---------------------------------------------------------------- 4. outcome


def _claude(path: Path, *records: dict) -> Path:
    """A Claude Code transcript of `records` (each a `message` for a user or assistant record)."""
    lines = []
    for number, (kind, content) in enumerate((r["type"], r["content"]) for r in records):
        lines.append(
            {
                "type": kind,
                "sessionId": "5e55a0b1-aaaa-4bbb-8ccc-0123456789ab",
                "cwd": "/work/app",
                "timestamp": f"2026-03-15T10:00:{number:02d}.000Z",
                "uuid": f"u{number}",
                "message": {"role": kind, "content": content, **({"id": f"m{number}"} if kind == "assistant" else {})},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _user(text):
    return {"type": "user", "content": text}


def _bash(call_id: str, command: str) -> dict:
    return {
        "type": "assistant",
        "content": [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}],
    }


def _result(call_id: str, text: str, error: bool = False) -> dict:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
    return {"type": "user", "content": [block]}


@pytest.mark.parametrize(
    ("task", "check", "output", "later", "later_output"),
    [  # a check that failed and never passed again, then another call that succeeded
        (
            "Build the app",
            "npm run build",
            "src/app.ts(3,1): error TS2304: Cannot find name 'foo'.\nExit code 2",
            "ls dist",
            "index.html",
        ),
        ("Tidy the module", "npm run lint", "src/a.ts: 1 problem (1 error)", "npm run dev", "ready on :3000"),
    ],
)
def test_a_check_that_failed_and_never_passed_is_a_failure_though_a_later_call_succeeds(
    tmp_path, task, check, output, later, later_output
):
    path = _claude(
        tmp_path / "s.jsonl",
        _user(task),
        _bash("t1", check),
        _result("t1", output, error=True),
        _bash("t2", later),
        _result("t2", later_output),
    )
    assert extract_transcript(path, READERS).episode.outcome == "failure"


def test_a_build_that_passed_again_and_a_failed_ls_leave_a_success(tmp_path):
    path = _claude(
        tmp_path / "s.jsonl",
        _user("Build the app"),
        _bash("t1", "cat notes.txt"),
        _result("t1", "cat: notes.txt: No such file or directory", error=True),
        _bash("t2", "cd web && npm run build"),
        _result("t2", "error TS2304: Cannot find name 'foo'.", error=True),
        _bash("t3", "npm run build -- --mode production"),
        _result("t3", "built in 2.1s"),
        _bash("t4", "git status --short"),
        _result("t4", " M src/app.ts"),
    )
    episode = extract_transcript(path, READERS).episode
    assert (episode.outcome, episode.metrics["errors"], episode.metrics["recoveries"]) == ("success", 2, 1)


# ---------------------------------------------------------------- 5. the task


def test_the_task_is_the_request_not_the_file_the_ide_had_open(tmp_path):
    ide = (
        "<ide_opened_file>The user opened the file /work/app/src/util.py in the IDE. "
        "This may or may not be related to the current task.</ide_opened_file>"
    )
    path = _claude(
        tmp_path / "s.jsonl",
        _user([{"type": "text", "text": ide}, {"type": "text", "text": "Rename the helper parse_x to parse_record"}]),
    )
    assert extract_transcript(path, READERS).episode.task == "Rename the helper parse_x to parse_record"


def test_the_task_skips_shell_output_and_takes_a_request_after_a_selection(tmp_path):
    path = _claude(
        tmp_path / "s.jsonl",
        _user("<bash-input>git log -1</bash-input>"),
        _user("<bash-stdout>commit 3f9a2c1\nAuthor: me</bash-stdout><bash-stderr></bash-stderr>"),
        _user("<local-command-stdout>Set model to opus</local-command-stdout>"),
        _user(
            '<ide_selection lines="3-4">The user selected lines 3 to 4 from src/util.py:\ndef parse_x(raw):\n'
            "</ide_selection>\nWhy does this return None for empty input?"
        ),
    )
    assert extract_transcript(path, READERS).episode.task == "Why does this return None for empty input?"


# ---------------------------------------------------------------- 6. files written by a shell


def test_codex_files_written_by_shell_redirection_are_counted(tmp_path):
    def call(number: int, script: str) -> list[dict]:
        when = f"2026-03-15T10:00:{number:02d}.000Z"
        arguments = json.dumps({"command": ["bash", "-lc", script]})
        return [
            {
                "timestamp": when,
                "type": "response_item",
                "payload": {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": f"c{number}"},
            },
            {
                "timestamp": when,
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"c{number}", "output": "Exit code: 0\n"},
            },
        ]

    records = [
        {"timestamp": "2026-03-15T10:00:00.000Z", "type": "session_meta", "payload": {"id": "019a-x", "cwd": "/w"}},
        *call(1, "cat > src/x.py <<'EOF'\nif a > b:\n    print(a >> 2)\nEOF"),
        *call(2, "echo 'VERSION = 2' >> src/version.py 2>&1"),
        *call(3, "printf 'a\\n' | tee notes/a.txt docs/b.txt > /dev/null"),
        *call(4, "grep -r foo src > /dev/null; ls > $OUT"),
        *call(5, 'python -c "print(1 > 0)"'),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    episode = extract_transcript(path, READERS).episode
    assert episode.metrics["files_changed"] == 4
    assert [e.text for e in episode.events] == [
        "Edited src/x.py",
        "Edited src/version.py",
        "Edited notes/a.txt, docs/b.txt",
    ]
