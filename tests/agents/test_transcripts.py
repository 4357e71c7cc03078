"""Agent transcripts -> episodes: Claude Code (with subagents) and Codex, every record type, torn and
foreign lines, the public samples, and the CLI. Data: tests/data/transcripts (see its README)."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.agents.registry import READERS
from brain.errors import InvalidInput
from brain.memory.sessions.ingest import extract_transcript
from brain.memory.sessions.transcripts import detect_format
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
PUBLIC = TRANSCRIPTS / "public"


def test_claude_code_every_record_type_is_read_or_counted():
    found = extract_transcript(CLAUDE, READERS)
    assert found.format == "claude-code"
    assert found.records == {
        "queue-operation": 2,
        "file-history-snapshot": 1,
        "user": 14,
        "assistant": 14,
        "progress": 1,
        "system": 1,
        "future-record": 1,
        "summary": 1,
        "last-prompt": 1,
    }
    assert found.unknown_records == {"future-record": 1}
    assert found.skipped_lines == 0 and found.subagent_files == 1
    assert found.warnings == (f"{CLAUDE.name}: skipped records of types brain does not know: future-record (1)",)


def test_claude_code_episode_values_come_from_the_transcript():
    episode = extract_transcript(CLAUDE, READERS).episode
    assert episode.title == "EPISODE-2026-03-14-7f3c2a10"
    assert episode.session == "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33"
    assert episode.date == "2026-03-14T09:00:00.000Z"  # the queue-operation that started it
    assert episode.task.startswith("Add retry with exponential backoff to the HTTP client in src/client.py")
    assert episode.duration_minutes == 1.8
    assert episode.outcome == "success"
    # 7 tool calls in the session and 3 in its subagent; the failing test run and the subagent's
    # lint error are the 2 error results, and each is followed by a success of the same command
    assert episode.metrics == {
        "tool_calls": 10,
        "errors": 2,
        "recoveries": 2,
        "commits": 1,
        "files_changed": 1,
        "input_tokens": 3820,
        "output_tokens": 820,
        "cache_read_tokens": 85600,
        "cache_creation_tokens": 400,
    }
    assert [(e.id, e.type, e.text, e.caused_by, e.leads_to) for e in episode.events] == [
        ("e001", "edit", "Edited src/client.py", (), ()),
        (
            "e002",
            "error",
            "Ran `uv run pytest tests/test_client.py -q`: tests failed (1 failed, 4 passed)",
            (),
            ("e004",),
        ),
        ("e003", "edit", "Edited src/client.py", (), ()),
        ("e004", "test", "Ran `uv run pytest tests/test_client.py -q`: tests passed (5 passed)", ("e002",), ()),
        # the subagent's events, in time order among its parent's
        (
            "e005",
            "error",
            "`uv run ruff check src` failed: src/client.py:1:8: F401 [*] `time` imported but unused",
            (),
            ("e007",),
        ),
        ("e006", "edit", "Edited src/client.py", (), ()),
        ("e007", "recovery", "`uv run ruff check src` succeeded", ("e005",), ()),
        ("e008", "commit", "Commit 3f9a2c1: Retry HTTP calls with exponential backoff and jitter", (), ()),
    ]
    assert episode.context == (
        "Claude Code session `7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33` in `/work/demo`, extracted by rules from "
        "`7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl` and 1 subagent transcripts."
    )
    first, second = episode.decisions
    assert (first.chosen, first.options, first.rationale, first.outcome) == (
        "Use exponential backoff with jitter rather than a fixed delay",
        ("Use exponential backoff with jitter", "a fixed delay"),
        "fixed delays make every client retry in lockstep",
        "success",
    )
    assert (second.type, second.chosen, second.rationale) == (
        "recovery",
        "Count attempts, so the first call is attempt 1",
        "The test fails because the loop counts retries, not attempts",
    )
    assert episode.lessons == (
        "`uv run pytest tests/test_client.py -q` failed (AssertionError: expected 3 attempts, got 2); "
        "it passed after editing src/client.py.",
        "`uv run ruff check src` failed (src/client.py:1:8: F401 [*] `time` imported but unused); "
        "it worked after editing src/client.py.",
    )


def test_codex_rollout_episode():
    found = extract_transcript(CODEX, READERS)
    episode = found.episode
    assert found.format == "codex" and found.unknown_records == {"future_item": 1}
    assert episode.session == "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b"
    assert episode.task == "Fix the rounding bug in cart totals (tests/test_cart.py fails) and commit the fix"
    assert episode.metrics == {
        "tool_calls": 4,
        "errors": 1,
        "recoveries": 1,
        "commits": 1,
        "files_changed": 1,
        "input_tokens": 12000,
        "output_tokens": 1800,
        "cache_read_tokens": 30000,
        "cache_creation_tokens": 0,
    }
    assert [(e.type, e.text) for e in episode.events] == [
        ("error", "Ran `pytest tests/test_cart.py -q`: tests failed (1 failed, 1 passed)"),
        ("edit", "Edited shop/cart.py"),
        ("test", "Ran `pytest tests/test_cart.py -q`: tests passed (2 passed)"),
        ("commit", "Commit 1a2b3c4: Round cart totals with Decimal.quantize"),
    ]
    (decision,) = episode.decisions
    assert decision.options == ("Round with Decimal.quantize and ROUND_HALF_EVEN", "float round()")
    assert decision.rationale == "float rounding is what drifts by a cent"
    assert episode.outcome == "success"


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
    episode = extract_transcript(PUBLIC / name, READERS).episode
    assert (episode.outcome, episode.metrics["errors"], [e.type for e in episode.events]) == (outcome, errors, events)


def test_the_real_samples_keep_their_redacted_prompt_as_the_task():
    assert (
        extract_transcript(PUBLIC / "kvsankar-real-claude-session-01.jsonl", READERS).episode.task
        == "[REDACTED_PROMPT]"
    )
    codex = extract_transcript(PUBLIC / "kvsankar-real-codex-session-01.jsonl", READERS).episode
    assert codex.task == "[REDACTED_PROMPT]" and codex.metrics["input_tokens"] == 22539 - 20864


def test_a_torn_last_line_and_a_comment_header_are_skipped_and_counted(tmp_path):
    torn = tmp_path / "session.jsonl"
    torn.write_text("# exported from a laptop\n" + CLAUDE.read_text() + '{"type":"assistant","message":{"con', "utf-8")
    found = extract_transcript(torn, READERS)
    assert found.skipped_lines == 2 and found.lines == 31
    assert found.episode.metrics["tool_calls"] == 7  # no subagent folder beside this copy
    assert f"{torn.name}: skipped 2 lines that are not JSON" in found.warnings


def test_subagents_are_folded_into_their_parent_not_read_alone(tmp_path):
    copy = tmp_path / "claude-code"
    shutil.copytree(TRANSCRIPTS / "claude-code", copy)
    from brain.memory.sessions.ingest import extract_paths

    (found,) = extract_paths([copy], READERS)
    assert found.subagent_files == 1 and found.episode.metrics["tool_calls"] == 10


def test_format_is_detected_per_file_and_can_be_forced(tmp_path):
    assert detect_format(CLAUDE, READERS) == "claude-code" and detect_format(CODEX, READERS) == "codex"
    renamed = tmp_path / "rollout.txt"
    shutil.copy(CODEX, renamed)
    assert extract_transcript(renamed, READERS, "codex").episode.metrics["tool_calls"] == 4
    with pytest.raises(InvalidInput, match=r"^format .gemini. is not one of: claude-code, codex, ai-agents$"):
        extract_transcript(renamed, READERS, "gemini")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"foo": 1}\n{"bar": 2}\n',
            r"not a transcript brain knows \(Claude Code, Codex\) nor an ai-agents session log",
        ),
        ("hello\nworld\n", "not a transcript brain knows"),
        (b"\x00\x01binary", "is a binary file, not a transcript or a session log"),
    ],
)
def test_not_a_transcript_is_one_error(tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InvalidInput, match=message):
        extract_transcript(path, READERS)


def test_cli_extract_several_transcripts(brain, vault):
    out = brain("episode", "extract", str(CLAUDE), str(CODEX), "--json")
    assert out.exit_code == 0
    rows = json.loads(out.output)
    assert [(r["format"], r["title"], r["status"], r["outcome"], r["redacted"]) for r in rows] == [
        ("claude-code", "EPISODE-2026-03-14-7f3c2a10", "created", "success", 1),
        ("codex", "EPISODE-2026-03-14-0199a3b2", "created", "success", 0),
    ]
    again = brain("episode", "extract", str(CLAUDE))
    assert again.stdout == (
        "unchanged episodes/EPISODE-2026-03-14-7f3c2a10.md  [success] 2 decisions, 8 events, 2 lessons  "
        "(claude-code: 36 lines, 10 tool calls, 2 errors, 0 lines skipped, 1 value redacted)\n"
    )
    assert again.stderr == f"warning: {CLAUDE.name}: skipped records of types brain does not know: future-record (1)\n"


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
    assert out.stderr == "error: format 'nope' is not one of: claude-code, codex, ai-agents\n"
    assert sorted((vault.root / "episodes").iterdir()) == before


def test_session_end_on_a_transcript_twice_records_evidence_once(brain, vault, tmp_path):
    brain("pattern", "add", "PATTERN-retry-with-jitter", "--outcome", "success", "--trigger", "t", "--action", "a")
    grown = tmp_path / "session.jsonl"
    lines = CLAUDE.read_text().splitlines(keepends=True)
    grown.write_text("".join(lines[:30]))
    first = json.loads(brain("session", "end", str(grown), "--pattern", "PATTERN-retry-with-jitter", "--json").output)
    grown.write_text("".join(lines))  # the session went on: the same episode, updated
    second = json.loads(brain("session", "end", str(grown), "--pattern", "PATTERN-retry-with-jitter", "--json").output)
    assert first["episode"] == second["episode"] == "EPISODE-2026-03-14-7f3c2a10"
    assert first["patterns_updated"] == ["PATTERN-retry-with-jitter"] and second["patterns_updated"] == []
    pattern = json.loads(brain("note", "read", "PATTERN-retry-with-jitter", "--json").output)
    assert pattern["frontmatter"]["occurrences"] == 2  # the add, then this session once
    assert len(list((vault.root / "episodes").iterdir())) == 1


def test_a_100_mb_transcript_is_streamed_in_bounded_memory(tmp_path):
    """A generated 100 MB transcript (large tool outputs, as a long session has), read in a child
    process whose peak memory is measured: the reader holds one line at a time."""
    path = tmp_path / "big.jsonl"
    big = "x" * 100_000
    with path.open("w") as handle:
        for n in range(1000):
            when = f"2026-03-14T{9 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
            call = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": "ls"}}
            handle.write(
                json.dumps(
                    {
                        "type": "assistant",
                        "sessionId": "big",
                        "timestamp": when,
                        "message": {"id": f"m{n}", "content": [call]},
                    }
                )
                + "\n"
            )
            result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": big}
            handle.write(
                json.dumps({"type": "user", "sessionId": "big", "timestamp": when, "message": {"content": [result]}})
                + "\n"
            )
    assert path.stat().st_size > 100_000_000
    script = (
        "import resource, sys, json\n"
        "from brain.agents.registry import READERS\n"
        "from brain.memory.sessions.ingest import extract_transcript\n"
        "def peak():  # KB; VmHWM is this image's own high-water mark (ru_maxrss keeps the forked parent's)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1])\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "e = extract_transcript(sys.argv[1], READERS).episode\n"
        "print(json.dumps([e.metrics['tool_calls'], e.metrics['errors'], e.duration_minutes, e.session, peak()]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    calls, errors, minutes, session, peak_kb = json.loads(out.stdout)
    assert (calls, errors, minutes, session) == (1000, 0, 16.6, "big")  # 09:00:00 to 09:16:39
    assert peak_kb < 200_000  # KB: the file is 100 MB; the process stays under 200 MB


def _files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


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
    cases = [
        ((str(tmp_path / "notes.jsonl"),), "error: notes.jsonl is not a transcript brain knows"),
        ((str(CLAUDE), "--format", "gemini"), "error: format 'gemini' is not one of: claude-code, codex, ai-agents\n"),
        (
            (str(tmp_path / "gone.jsonl"),),
            f"error: session log '{tmp_path / 'gone.jsonl'}' does not exist; "
            "give the transcript or log of the session that ended\n",
        ),
    ]
    for args, message in cases:
        out = brain("session", "end", *args)
        assert (out.exit_code, out.stdout, out.stderr.count("\n")) == (1, "", 1), out.stderr
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
    ],
)
def test_the_error_line_of_a_tool_output(output, line):
    from brain.memory.sessions.commands import error_line

    assert error_line(output) == line
