"""The Claude Code reader: every record type, the episode's values, torn lines, subagents folded into
their parent, a 100 MB transcript in bounded memory, the outcome and the task a session gives, a
real session with subagents. Data: tests/data/transcripts (see its README)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.markdown.parse import parse_note
from brain.memory.sessions.ingest import extract_transcript
from tests.conftest import CLAUDE, REPO, TRANSCRIPTS, run_brain

PUBLIC = TRANSCRIPTS / "public"
SPOTTER = PUBLIC / "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"


def test_claude_code_every_record_type_is_read_or_counted():
    found = extract_transcript(CLAUDE)
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
    assert found.warnings == ()  # a type brain does not know, with no message in it: metadata, not warned about


# Records of the metadata types Claude Code 2.1.332 writes, as it wrote them in the end-to-end check
# (tests/e2e), their long fields cut: a copy of the API request, its shape and a blob of it, the cost.
CLAUDE_2_1_332 = [
    {"type": "atis-latch", "atis": "", "sessionId": "f20b8172-7ab7-400f-b1b0-5b5a7f64a523"},
    {
        "type": "api-request-shape",
        "sessionId": "f20b8172-7ab7-400f-b1b0-5b5a7f64a523",
        "shapeHash": "a56195b3",
        "timestamp": "2026-12-07T14:08:36.200Z",
        "version": "2.1.332",
        "shape": {"system": [{"type": "text", "text": "You are a Claude agent."}]},
    },
    {
        "type": "api-request-blob",
        "sessionId": "f20b8172-7ab7-400f-b1b0-5b5a7f64a523",
        "hash": "f93e3c5d",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "<system-reminder>gitStatus</system-reminder>"}],
        },
    },
    {
        "type": "api-request",
        "sessionId": "f20b8172-7ab7-400f-b1b0-5b5a7f64a523",
        "id": "c67ed9f0",
        "timestamp": "2026-12-07T14:08:36.200Z",
        "version": "2.1.332",
        "querySource": "sdk",
        "params": {"model": "claude-opus-5-5"},
    },
    {"type": "cost-state", "sessionId": "f20b8172-7ab7-400f-b1b0-5b5a7f64a523", "totalCostUSD": 0.00014},
]


def test_the_record_types_claude_code_writes_now_are_read_quietly_and_a_new_one_holding_a_message_is_told(
    tmp_path,
):
    """Claude Code 2.1.332 writes metadata records brain does not read (api-request, atis-latch,
    cost-state, ...): known, so no warning at every extraction. A type a later version adds is
    warned about only when it carries a message, the part of a record brain reads."""
    lines = CLAUDE.read_text().splitlines()
    later = {"type": "assistant-v2", "uuid": "v2-1", "message": {"role": "assistant", "content": "new shape"}}
    session = tmp_path / CLAUDE.name
    session.write_text("\n".join([*lines, *(json.dumps(record) for record in CLAUDE_2_1_332)]) + "\n")
    found = extract_transcript(session)
    assert {kind: found.records[kind] for kind in ("api-request", "atis-latch", "cost-state")} == {
        "api-request": 1,
        "atis-latch": 1,
        "cost-state": 1,
    }
    assert found.unknown_records == {"future-record": 1} and found.warnings == ()
    session.write_text(session.read_text() + json.dumps(later) + "\n")
    again = extract_transcript(session)
    assert again.unknown_records == {"future-record": 1, "assistant-v2": 1}
    assert again.warnings == (f"{CLAUDE.name}: skipped records of types brain does not know: assistant-v2 (1)",)


def test_claude_code_episode_values_come_from_the_transcript():
    episode = extract_transcript(CLAUDE).episode
    assert episode.title == "EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33"
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
        "`uv run pytest tests/test_client.py -q` failed (AssertionError: expected 3 attempts, got 2): "
        "it passed after editing src/client.py.",
        "`uv run ruff check src` failed (src/client.py:1:8: F401 [*] `time` imported but unused): "
        "it worked after editing src/client.py.",
    )


def test_a_torn_last_line_and_a_comment_header_are_skipped_and_counted(tmp_path):
    torn = tmp_path / "session.jsonl"
    torn.write_text("# exported from a laptop\n" + CLAUDE.read_text() + '{"type":"assistant","message":{"con', "utf-8")
    found = extract_transcript(torn)
    assert found.skipped_lines == 2 and found.lines == 31
    assert found.episode.metrics["tool_calls"] == 7  # no subagent folder beside this copy
    assert f"{torn.name}: skipped 2 lines that are not JSON" in found.warnings


def test_subagents_are_folded_into_their_parent_not_read_alone(tmp_path):
    copy = tmp_path / "claude-code"
    shutil.copytree(TRANSCRIPTS / "claude-code", copy)
    from brain.memory.sessions.ingest import extract_paths

    (found,) = extract_paths([copy])
    assert found.subagent_files == 1 and found.episode.metrics["tool_calls"] == 10


def test_a_stored_context_line_is_refreshed_unless_a_person_edited_it(brain, vault, tmp_path):
    """The subagent's file appears after the first extraction: brain's Context line says so; a Context
    a person wrote stays as they wrote it."""
    folder = tmp_path / "-work-demo"
    folder.mkdir()
    transcript = folder / CLAUDE.name
    shutil.copy(CLAUDE, transcript)
    brain("episode", "extract", str(transcript))
    note = vault.root / "episodes" / "EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md"
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
        "from brain.memory.sessions.ingest import extract_transcript\n"
        "def peak():  # KB; VmHWM is this image's own high-water mark (ru_maxrss keeps the forked parent's)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1])\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "e = extract_transcript(sys.argv[1]).episode\n"
        "print(json.dumps([e.metrics['tool_calls'], e.metrics['errors'], e.duration_minutes, e.session, peak()]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    calls, errors, minutes, session, peak_kb = json.loads(out.stdout)
    assert (calls, errors, minutes, session) == (1000, 0, 16.6, "big")  # 09:00:00 to 09:16:39
    assert peak_kb < 200_000  # KB: the file is 100 MB; the process stays under 200 MB


# ---------------------------------------------------------------- the outcome


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
    assert extract_transcript(path).episode.outcome == "failure"


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
    episode = extract_transcript(path).episode
    assert (episode.outcome, episode.metrics["errors"], episode.metrics["recoveries"]) == ("success", 2, 1)


@pytest.mark.parametrize(
    ("failed", "output", "later", "change"),
    [  # what shows that a failed command works now: the same command, a check of the same program, a merge concluded
        (
            "go build -tags=e2e ./e2e/...",
            "e2e/env.go:12:2: undefined: defaultAgent",
            "go test -tags=e2e -c ./e2e/...",
            "`go test -tags=e2e -c ./e2e/...` passed",
        ),
        # the part of the chain that failed (the lint) worked alone
        (
            "mise run fmt && mise run lint",
            "[lint] a.go:3:1: x is unused (unused)",
            "mise run lint",
            "`mise run lint` worked",
        ),
        (
            "git merge origin/main",
            "CONFLICT (content): Merge conflict in a.go",
            "git commit --no-edit",
            "the merge was concluded: `git commit --no-edit` worked",
        ),
        (
            "git pull --rebase",
            "error: could not apply 1a2b3c4... fix",
            "git rebase --continue",
            "the pull was concluded: `git rebase --continue` worked",
        ),
        ("go build ./...", "a.go:3:1: undefined: x", "go env GOPATH", None),  # go, but no build
        ("npx tsc --noEmit", "a.ts(3,1): error TS2304", "npx eslint .", None),  # two programs
    ],
)
def test_a_failed_command_is_recovered_by_what_shows_it_works_now(tmp_path, failed, output, later, change):
    path = _claude(
        tmp_path / "s.jsonl",
        _user("Make it build"),
        _bash("t1", failed),
        _result("t1", f"Exit code 1\n{output}", error=True),
        _bash("t2", later),
        _result("t2", "done"),
    )
    episode = extract_transcript(path).episode
    recovered = int(change is not None)
    assert episode.metrics["recoveries"] == recovered
    error = next(event for event in episode.events if event.type == "error")
    assert len(error.leads_to) == recovered
    assert episode.lessons == ((f"`{failed}` failed ({output.splitlines()[-1]}): {change}.",) if change else ())


# ---------------------------------------------------------------- the task


def test_the_task_is_the_request_not_the_file_the_ide_had_open(tmp_path):
    ide = (
        "<ide_opened_file>The user opened the file /work/app/src/util.py in the IDE. "
        "This may or may not be related to the current task.</ide_opened_file>"
    )
    path = _claude(
        tmp_path / "s.jsonl",
        _user([{"type": "text", "text": ide}, {"type": "text", "text": "Rename the helper parse_x to parse_record"}]),
    )
    assert extract_transcript(path).episode.task == "Rename the helper parse_x to parse_record"


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
    assert extract_transcript(path).episode.task == "Why does this return None for empty input?"


# ---------------------------------------------------------------- a real session, counted from its raw JSON by a reading independent of brain's readers


def _records(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def _claude_blocks(paths: list[Path]):
    for path in paths:
        for record in _records(path):
            content = (record.get("message") or {}).get("content")
            if isinstance(content, list):
                yield from (block for block in content if isinstance(block, dict))


@pytest.fixture
def example_vault(tmp_path) -> Path:
    """A copy of vault-example/, without its index."""
    shutil.copytree(REPO / "vault-example", tmp_path / "vault", ignore=shutil.ignore_patterns(".brain"))
    return tmp_path / "vault"


def _extract(vault: Path, transcript: Path) -> dict:
    result = run_brain("episode", "extract", str(transcript), "--vault", str(vault), "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    return found[0] if isinstance(found, list) else found


def test_a_real_claude_code_session_with_subagents(example_vault):
    files = [SPOTTER, *sorted((SPOTTER.parent / SPOTTER.stem / "subagents").glob("agent-*.jsonl"))]
    blocks = list(_claude_blocks(files))
    calls = sum(1 for b in blocks if b.get("type") == "tool_use")
    errors = sum(1 for b in blocks if b.get("type") == "tool_result" and b.get("is_error"))
    assert (len(files), calls, errors) == (3, 254, 12)

    report = _extract(example_vault, SPOTTER)
    note = (example_vault / report["path"]).read_text(encoding="utf-8")
    assert report["subagent_files"] == 2 and report["lines"] == 2427 and report["skipped_lines"] == 0
    assert f"  tool_calls: {calls}\n  errors: {errors}\n" in note
    assert "  commits: 6\n" in note and "duration_minutes: 53.1\n" in note and "outcome: success\n" in note
    assert "task: Work on bead spotter-4te. Run bd show spotter-4te to see the issue details" in note
    # an error and what recovered it are linked both ways
    assert re.search(r"e004 \(error\): Edit lib/spotter/telemetry/otel.ex failed: .*\(leads_to: \[\[e005\]\]\)", note)
    assert "e005 (edit): Edited lib/spotter/telemetry/otel.ex (caused_by: [[e004]])" in note
    shas = re.findall(r"\(commit\): Commit ([0-9a-f]{7}):", note)
    assert len(shas) == 6 and shas[0] == "12e2d10"
