"""Agent transcripts -> episodes, whichever agent wrote them: the public samples, the format detected
per file or forced, what is not a transcript, `brain episode extract` and `brain session end` with
their one-line errors, the error line of a tool output. Each agent's reader has its own file.
Data: tests/data/transcripts (see its README)."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.errors import InvalidInput
from brain.memory.sessions.ingest import extract_transcript
from brain.memory.sessions.transcripts.files import detect_format
from brain.memory.sessions.transcripts.readers import READERS
from tests.conftest import CLAUDE, CODEX, TRANSCRIPTS

PUBLIC = TRANSCRIPTS / "public"


def _files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("name", "outcome", "errors", "events"),
    [
        # a user rejecting an edit and a test run: errors by the rule, and the session ends partial
        ("kvsankar-claude_with_rejection.jsonl", "partial", 2, ["correction", "edit", "correction"]),
        # `echo 'Hello World' > test.txt` wrote test.txt: an edit by redirection
        ("kvsankar-codex_with_escalation.jsonl", "partial", 0, ["edit", "correction", "correction"]),
        ("kvsankar-claude_forked_session.jsonl", "success", 0, ["edit", "correction", "edit"]),
        ("simonw-sample_session.jsonl", "success", 0, ["edit", "commit"]),
        ("kvsankar-real-claude-session-01.jsonl", "success", 0, []),
        ("kvsankar-real-codex-session-01.jsonl", "success", 0, []),
    ],
)
def test_public_samples(name, outcome, errors, events):
    episode = extract_transcript(PUBLIC / name).episode
    assert (episode.outcome, episode.metrics["errors"], [e.type for e in episode.events]) == (outcome, errors, events)


def test_the_real_samples_keep_their_redacted_prompt_as_the_task():
    assert extract_transcript(PUBLIC / "kvsankar-real-claude-session-01.jsonl").episode.task == "[REDACTED_PROMPT]"
    codex = extract_transcript(PUBLIC / "kvsankar-real-codex-session-01.jsonl").episode
    assert codex.task == "[REDACTED_PROMPT]" and codex.metrics["input_tokens"] == 22539 - 20864


def test_format_is_detected_per_file_and_can_be_forced(tmp_path):
    assert detect_format(CLAUDE, READERS) == "claude-code" and detect_format(CODEX, READERS) == "codex"
    renamed = tmp_path / "rollout.txt"
    shutil.copy(CODEX, renamed)
    assert extract_transcript(renamed, "codex").episode.metrics["tool_calls"] == 4
    with pytest.raises(InvalidInput, match=r"^format .cursor. is not one of: claude-code, codex, gemini, ai-agents$"):
        extract_transcript(renamed, "cursor")


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


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"foo": 1}\n{"bar": 2}\n',
            r"not a transcript brain knows \(Claude Code, Codex, Gemini CLI\) nor an ai-agents session log",
        ),
        ("hello\nworld\n", "not a transcript brain knows"),
        (b"\x00\x01binary", "is a binary file, not a transcript or a session log"),
    ],
)
def test_not_a_transcript_is_one_error(tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InvalidInput, match=message):
        extract_transcript(path)


def test_cli_extract_several_transcripts(brain, vault):
    out = brain("episode", "extract", str(CLAUDE), str(CODEX), "--json")
    assert out.exit_code == 0
    rows = json.loads(out.output)
    assert [(r["format"], r["title"], r["status"], r["outcome"], r["redacted"]) for r in rows] == [
        ("claude-code", "EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33", "created", "success", 1),
        ("codex", "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b", "created", "success", 0),
    ]
    again = brain("episode", "extract", str(CLAUDE))
    assert again.stdout == (
        "unchanged episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md  [success] 2 decisions, 8 events, 2 lessons  "
        "(claude-code: 36 lines, 10 tool calls, 2 errors, 0 lines skipped, 1 value redacted)\n"
    )
    assert again.stderr == ""  # its future-record holds no message: nothing brain would read was skipped


def test_cli_bad_input_is_one_line_and_writes_nothing(brain, vault, tmp_path):
    before = sorted((vault.root / "episodes").iterdir())
    (tmp_path / "x.jsonl").write_text('{"foo": 1}\n')
    out = brain("episode", "extract", str(tmp_path / "x.jsonl"), str(CLAUDE))
    assert (
        out.exit_code == 1
        and out.stderr.count("\n") == 1
        and out.stderr.startswith("error: x.jsonl is not a transcript")
    )
    out = brain("episode", "extract", str(CLAUDE), "--format", "nope")
    assert out.stderr == "error: format 'nope' is not one of: claude-code, codex, gemini, ai-agents\n"
    assert sorted((vault.root / "episodes").iterdir()) == before


def test_session_end_on_a_transcript_twice_records_evidence_once(brain, vault, tmp_path):
    brain("pattern", "add", "PATTERN-retry-with-jitter", "--outcome", "success", "--trigger", "t", "--action", "a")
    grown = tmp_path / "session.jsonl"
    lines = CLAUDE.read_text().splitlines(keepends=True)
    grown.write_text("".join(lines[:30]))
    first = json.loads(brain("session", "end", str(grown), "--pattern", "PATTERN-retry-with-jitter", "--json").output)
    grown.write_text("".join(lines))  # the session went on: the same episode, updated
    second = json.loads(brain("session", "end", str(grown), "--pattern", "PATTERN-retry-with-jitter", "--json").output)
    assert first["episode"] == second["episode"] == "EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33"
    assert first["patterns_updated"] == ["PATTERN-retry-with-jitter"] and second["patterns_updated"] == []
    pattern = json.loads(brain("note", "read", "PATTERN-retry-with-jitter", "--json").output)
    assert pattern["frontmatter"]["occurrences"] == 2  # the add, then this session once
    assert len(list((vault.root / "episodes").iterdir())) == 1


def _without_read_override() -> None:
    """In the child before it runs: a root process loses the right to read what it may not (the
    capabilities CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH leave its bounding set), so a file with
    mode 000 is unreadable to it as to anyone."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_cli_an_unreadable_transcript_is_one_line_and_writes_nothing(vault, tmp_path):
    """A real `brain episode extract` process that may not read the transcript."""
    transcript = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, transcript)
    transcript.chmod(0o000)
    before = _files_of(vault.root)
    command = [sys.executable, "-m", "brain", "episode", "extract", str(transcript), "--vault", str(vault.root)]
    done = subprocess.run(command, capture_output=True, text=True, preexec_fn=_without_read_override, timeout=120)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"error: cannot read {transcript}: Permission denied\n"
    assert _files_of(vault.root) == before


def test_session_end_bad_input_is_one_line_and_writes_nothing(brain, vault, tmp_path):
    (tmp_path / "notes.jsonl").write_text('{"foo": 1}\n')
    before = _files_of(vault.root)
    cases = [  # what is in a file: 1; a value or path the command line gets wrong: a usage error, 2
        ((str(tmp_path / "notes.jsonl"),), 1, "error: notes.jsonl is not a transcript brain knows"),
        (
            (str(CLAUDE), "--format", "cursor"),
            2,
            "error: format 'cursor' is not one of: claude-code, codex, gemini, ai-agents\n",
        ),
        (
            (str(tmp_path / "gone.jsonl"),),
            2,
            f"error: session log '{tmp_path / 'gone.jsonl'}' does not exist; "
            "give the transcript or log of the session that ended\n",
        ),
    ]
    for args, code, message in cases:
        out = brain("session", "end", *args)
        assert (out.exit_code, out.stdout, out.stderr.count("\n")) == (code, "", 1), out.stderr
        assert out.stderr.startswith(message), out.stderr
    assert _files_of(vault.root) == before


@pytest.mark.parametrize(
    ("output", "line"),
    [
        (
            "<tool_use_error>String to replace not found in file.</tool_use_error>",
            "String to replace not found in file.",
        ),
        # a hook's message passed on as JSON: escaped line breaks, none real
        (
            "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix format' to fix.",
            "Pre-commit validation failed:",
        ),
        ('print("a\\nb")\nTypeError: boom', "TypeError: boom"),  # real lines: an escaped one stays as it is
        (  # Claude Code's Edit error: its message, then the text it sought, which may read like an error
            "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false.\n"
            'String: \treturn fmt.Errorf("failed to setup hooks: %w", err)</tool_use_error>',
            "Found 2 matches of the string to replace, but replace_all is false.",
        ),
        (  # a runner's wrapper and Go's lines for passing packages name no failure, nor does a log line
            "Exit code 1\n[test] $ go test ./...\n[test] ERROR task failed\n?   \tapp/cmd\t[no test files]\n"
            "2026/02/03 11:25:30 INFO deleted orphaned branch\ntimeout waiting for the daemon",
            "timeout waiting for the daemon",
        ),
        (  # Go names the package first, then the diagnostic, which may open with a quote
            'Exit code 1\n# example.com/app/store\nstore/state.go:10:2: "example.com/app/paths" imported and not used',
            'store/state.go:10:2: "example.com/app/paths" imported and not used',
        ),
        (  # golangci-lint's typecheck header `file:1: : # package` is no diagnostic
            "Exit code 1\n[lint] $ golangci-lint run ./...\nlist/actions.go:1: : # example.com/app/list\n"
            "list/data.go:685:2: declared and not used: repo (typecheck)\npackage list",
            "list/data.go:685:2: declared and not used: repo (typecheck)",
        ),
        (  # Go names the failed test, then says under it what went wrong
            "Exit code: 1\nOutput:\n--- FAIL: TestRelayClosesPack (0.00s)\n"
            "    incremental_test.go:88: unexpected error: strategy requires CanTagRelay\nFAIL\n",
            "incremental_test.go:88: unexpected error: strategy requires CanTagRelay",
        ),
        ("--- FAIL: TestRelayClosesPack (0.00s)\nFAIL\n", "--- FAIL: TestRelayClosesPack (0.00s)"),
        (  # typer and rich-click draw a panel around the error: its frame is no part of the line
            "Exit code 2\nUsage: mcp-cli [OPTIONS] COMMAND [ARGS]...\nTry 'mcp-cli --help' for help.\n"
            "╭─ Error ─────────────────────────────╮\n│ No such command 'info'.             │\n"
            "╰─────────────────────────────────────╯",
            "Error: No such command 'info'.",
        ),
    ],
)
def test_the_error_line_of_a_tool_output(output, line):
    from brain.memory.sessions.commands import error_line

    assert error_line(output) == line


# ---------------------------------------------------------------- lines nested past any reader's depth
# Issue 40, 2: one line nested ~1,000 levels deep ended the whole extraction in a RecursionError.

GEMINI = TRANSCRIPTS / "gemini" / "3f9a0c1d2b" / "chats" / "session-2026-03-20T09-00-7c1e2d3f.jsonl"
DEEP_TOOL_INPUT = {  # where each format's first tool call keeps its input, and that input given a deep key
    "claude-code": ('"input": {', '"input": {"deep": {nested}, '),
    "codex": ('"arguments": "{', '"arguments": "{\\"deep\\": {nested}, '),
    "gemini": ('"args": {', '"args": {"deep": {nested}, '),
}


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _hostile_copy(source: Path, format: str, target: Path) -> Path:
    """`source` with a line nested 1,000 levels deep after its first, and its first tool call's
    input holding a value nested 600 levels deep (which parses, and then breaks any recursive walk)."""
    first, *rest = source.read_text(encoding="utf-8").splitlines(keepends=True)
    old, new = DEEP_TOOL_INPUT[format]
    call = next(number for number, line in enumerate(rest) if old in line)
    rest[call] = rest[call].replace(old, new.replace("{nested}", _nested(600)), 1)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(first + f'{{"type": "user", "deep": {_nested(1000)}}}\n' + "".join(rest), encoding="utf-8")
    return target


@pytest.mark.parametrize(("source", "format"), [(CLAUDE, "claude-code"), (CODEX, "codex"), (GEMINI, "gemini")])
def test_a_line_nested_too_deep_is_skipped_and_the_rest_is_read(tmp_path, source, format):
    found = extract_transcript(_hostile_copy(source, format, tmp_path / "hostile" / source.name))
    clean = extract_transcript(shutil.copy(source, tmp_path / source.name))  # without its subagents too
    assert found.format == format
    assert found.skipped_lines == clean.skipped_lines + 1  # the line nested 1,000 levels deep
    assert found.episode.outcome == clean.episode.outcome
    assert [event.type for event in found.episode.events] == [event.type for event in clean.episode.events]
    assert _nested(5) not in json.dumps([event.text for event in found.episode.events])


def test_extract_goes_on_past_a_transcript_nested_too_deep(brain, vault, tmp_path):
    folder = tmp_path / "sessions"
    _hostile_copy(CLAUDE, "claude-code", folder / "a-hostile.jsonl")
    shutil.copy(CODEX, folder / "b-codex.jsonl")
    result = brain("episode", "extract", str(folder))
    assert result.exit_code == 0, result.output
    assert [line.split("  ")[0] for line in result.stdout.splitlines()] == [
        "created episodes/EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md",
        "created episodes/EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.md",
    ]
    assert "warning: a-hostile.jsonl: skipped 1 lines nested too deep to read\n" in result.stderr
