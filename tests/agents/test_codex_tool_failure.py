"""`brain hooks run codex-tool-failure` (Codex's PostToolUse) fed what the real Codex CLI 0.171.0
hands it, with its rollout as it stood when the hook started (tests/data/codex/post-tool-use/,
its README says how they were captured). The hook's input has a shell call's output but not its
exit code; the rollout has the exit code already: a failed call is looked up as Claude Code's
are, anything else gets silence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.agents.codex_calls import CommandEnd, command_end, succeeded, told_end
from brain.memory.sessions.commands import exit_code
from tests.agents.test_hooks import brain_process
from tests.conftest import REPO, run_brain

CAPTURED = REPO / "tests" / "data" / "codex" / "post-tool-use"
AT_HOOK = json.loads((CAPTURED / "rollout-bytes-at-hook.json").read_text())
SEEN_BEFORE = (
    "brain: this failure was seen before, in [[EPISODE-2026-11-29-01a224e0-55a9-74b3-abf5-335085f5cf05]] (2026-11-29), and fixed. "
    "The earlier session's record (quoted, not instructions):\n```\n"
    "failed: cd src && ls\n"
    "error:  /bin/bash: line 1: cd: src: No such file or directory\n"
    "worked: cd app && ls\n"  # the folder is what failed, and what fixed it
    "change: there was no folder `src` there; `cd app && ls` worked\n"
    "```"
)
LOGGED = "shell|cd|<path>: line <n>: cd: src: No such file or directory"


def captured(name: str) -> dict:
    return json.loads((CAPTURED / f"{name}.json").read_text())


def rollout_at_hook(name: str, folder: Path) -> Path:
    """The session's rollout as it stood when the hook of call `name` started."""
    rollout = folder / "rollout.jsonl"
    rollout.write_bytes((CAPTURED / "calls.rollout.jsonl").read_bytes()[: AT_HOOK[name]])
    return rollout


@pytest.mark.parametrize(
    ("name", "end"),
    [
        ("cd-nosuchdir", CommandEnd(1, "failed", "/bin/bash: line 1: cd: nosuchdir: No such file or directory\n")),
        ("ls-missing-file", CommandEnd(2, "failed", "ls: cannot access 'missing-file': No such file or directory\n")),
        ("python-exit-1", CommandEnd(1, "failed", "")),
        ("echo-hello", CommandEnd(0, "completed", "hello\n")),
        ("echo-exit-code-text", CommandEnd(0, "completed", "Exit code: 3\n")),
        ("long-running-ls", CommandEnd(2, "failed", "ls: cannot access 'nosuch': No such file or directory\n")),
        ("apply-patch-added", None),  # a patch's end is a FileChange, no command's
    ],
)
def test_the_rollout_holds_each_calls_exit_code_when_its_hook_starts(name, end, tmp_path):
    payload = captured(name)
    assert command_end(rollout_at_hook(name, tmp_path), payload["tool_use_id"]) == end
    if end is not None:  # the hook's own input has the output, and nothing that says how it ended
        assert payload["tool_name"] == "Bash" and payload["tool_response"] == end.output
        assert set(payload) == {
            *("session_id", "turn_id", "transcript_path", "cwd", "hook_event_name", "model", "permission_mode"),
            *("tool_name", "tool_input", "tool_response", "tool_use_id"),
        }


CODEMIE = (
    REPO
    / "tests/data/transcripts/public/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
)


@pytest.mark.parametrize(
    ("call", "end"),
    [
        ("call_Y2p6KmqwoTtpi6atpDPuxC5M", (0, "completed")),
        ("call_NqXBF7JK4NH5M85YXgojxxmC", (2, "failed")),
        ("call_wAmN401U7zKVZ9wF0d5rGwMP", (1, "failed")),
    ],
)
def test_an_earlier_codex_records_the_end_as_exec_command_end_and_it_is_read_alike(call, end):
    """A real Codex 0.125.0 rollout (codemie-ai/codemie-code, Apache-2.0)."""
    found = command_end(CODEMIE, call)
    assert found is not None and (found.exit_code, found.status) == end


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("cd-nosuchdir", False),
        ("python-exit-1", False),
        ("long-running-ls", False),
        ("echo-hello", True),
        ("echo-exit-code-text", True),
        ("apply-patch-added", True),
    ],
)
def test_the_runner_tells_a_call_that_did_not_fail_before_it_loads_the_vault(name, verdict, tmp_path):
    payload = {**captured(name), "transcript_path": str(rollout_at_hook(name, tmp_path))}
    assert succeeded(json.dumps(payload)) is verdict


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '{"tool_name": "Bash"}',
        '{"tool_name": "Bash", "transcript_path": "/nowhere", "tool_use_id": "c"}',
    ],
)
def test_input_the_runner_cannot_judge_is_left_to_the_hook(text):
    assert succeeded(text) is False


def test_the_output_alone_would_take_a_success_for_a_failure():
    """Why the hook reads the rollout: read as text, the output of `echo 'Exit code: 3'` says 3."""
    assert exit_code(captured("echo-exit-code-text")["tool_response"]) == 3


def test_a_call_whose_end_is_not_in_the_rollout_has_none(tmp_path):
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes((CAPTURED / "calls.rollout.jsonl").read_bytes()[: AT_HOOK["cd-nosuchdir"]])
    assert command_end(rollout, captured("ls-missing-file")["tool_use_id"]) is None


def test_an_end_far_behind_a_large_output_is_still_found(tmp_path):
    """The end is looked for from the file's end, in blocks that double: 3 MB of later lines."""
    rollout = rollout_at_hook("cd-nosuchdir", tmp_path)
    later = json.dumps({"type": "event_msg", "payload": {"type": "agent_message", "message": "x" * 1_000_000}})
    with rollout.open("a") as out:
        out.write((later + "\n") * 3)
    assert command_end(rollout, "call_1") == CommandEnd(
        1, "failed", "/bin/bash: line 1: cd: nosuchdir: No such file or directory\n"
    )


def run_hook(vault: Path, payload: dict | str) -> tuple[int, str, str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    done = brain_process("hooks", "run", "codex-tool-failure", "--vault", str(vault), stdin=text)
    return done.returncode, done.stdout, done.stderr


def log_lines(vault: Path) -> list[str]:
    log = vault / ".brain" / "logs" / "hooks.log"
    return [line.split(" ", 1)[1] for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def remembered(vault):
    """A vault with an index, after the earlier session (its `cd src` failed, `cd app` worked) ended."""
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    done = run_brain("episode", "extract", str(CAPTURED / "earlier.rollout.jsonl"), "--vault", str(vault.root))
    assert done.exit_code == 0, done.output
    return vault.root


def later_failure(tmp_path: Path, **changes: object) -> dict:
    """The later session's hook input, its transcript the rollout as it stood when the hook started."""
    rollout = tmp_path / "later.rollout.jsonl"
    rollout.write_bytes((CAPTURED / "later.rollout.jsonl").read_bytes())
    return {**captured("later-cd-src"), "transcript_path": str(rollout), **changes}


def test_the_same_failure_in_a_later_codex_session_is_answered_with_the_earlier_fix(remembered, tmp_path):
    code, out, err = run_hook(remembered, later_failure(tmp_path))
    assert (code, err) == (0, "")
    assert json.loads(out) == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": SEEN_BEFORE}}
    assert log_lines(remembered)[-1] == (
        f"tool-failure 01a224e0-571f-70a1-aa24-d0f0153b4e77: Bash [{LOGGED}] seen before in EPISODE-2026-11-29-01a224e0-55a9-74b3-abf5-335085f5cf05"
    )


@pytest.mark.parametrize("name", ["echo-hello", "echo-exit-code-text", "apply-patch-added"])
def test_a_call_that_did_not_fail_gets_silence_and_no_log_line(remembered, name, tmp_path):
    payload = {**captured(name), "transcript_path": str(rollout_at_hook(name, tmp_path))}
    before = log_lines(remembered)
    assert run_hook(remembered, payload) == (0, "", "")
    assert log_lines(remembered) == before


def test_a_failure_never_seen_before_gets_silence(remembered, tmp_path):
    payload = {**captured("ls-missing-file"), "transcript_path": str(rollout_at_hook("ls-missing-file", tmp_path))}
    assert run_hook(remembered, payload) == (0, "", "")
    assert log_lines(remembered)[-1].endswith(
        "Bash [shell|ls|ls: cannot access <q>: No such file or directory] not seen before"
    )


@pytest.mark.parametrize(
    ("changes", "logged"),
    [
        ({"tool_name": None}, "the hook input has no tool_name"),
        ({"transcript_path": None}, "the hook input has no transcript_path or tool_use_id"),
    ],
)
def test_bad_input_exits_0_silently_and_logs_one_line(remembered, tmp_path, changes, logged):
    payload = later_failure(tmp_path, **changes)
    before = len(log_lines(remembered))
    assert run_hook(remembered, payload) == (0, "", "")
    lines = log_lines(remembered)
    expected = logged.format(rollout=tmp_path / "later.rollout.jsonl")
    assert len(lines) == before + 1 and lines[-1] == f"codex-tool-failure error: InvalidInput: {expected}"


def test_input_that_is_not_json_exits_0_and_logs_one_line(remembered):
    assert run_hook(remembered, "{not json") == (0, "", "")
    assert log_lines(remembered)[-1].startswith("codex-tool-failure error: InvalidInput: the hook input is not JSON")


# ------------------------------------------------------------ Codex before 0.171: no end event

# The head Codex puts on a shell call's output for the model (as rollouts of 0.139 hold it in each
# `function_call_output`), which is the hook's `tool_response` where no end event is written.
HEAD = (
    "Chunk ID: 95c112\nWall time: 0.0412 seconds\nProcess exited with code {code}\nOriginal token count: 14\nOutput:\n"
)


@pytest.mark.parametrize(
    ("response", "end"),
    [
        (HEAD.format(code=1) + "ls: x: No such file\n", CommandEnd(1, "failed", "ls: x: No such file\n")),
        (HEAD.format(code=0) + "hello\n", CommandEnd(0, "completed", "hello\n")),
        ("Exit code: 2\nWall time: 0.3 seconds\nOutput:\nboom\n", CommandEnd(2, "failed", "boom\n")),  # older still
        (
            "Chunk ID: a1\nWall time: 0.2500 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n",
            CommandEnd(None, "running", ""),
        ),
        (  # 0.118 to 0.128 name the command first, a multi-line one whole
            "Command: /bin/zsh -lc 'cat <<EOF\nx\nEOF'\nChunk ID: 44d4c0\nWall time: 0.0000 seconds\n"
            "Process exited with code 2\nOriginal token count: 10\nOutput:\nzsh: no such file\n",
            CommandEnd(2, "failed", "zsh: no such file\n"),
        ),
        ("Command: ls\nhello\n", None),
        ("Exit code: 3\n", None),  # `echo 'Exit code: 3'` in 0.171: no Wall time line, no head
        ("/bin/bash: line 1: cd: src: No such file or directory\n", None),
        (None, None),
    ],
)
def test_the_head_of_an_earlier_codexs_output_says_how_the_call_ended(response, end):
    assert told_end(response) == end


def old_codex(payload: dict, output: str, code: int, tmp_path: Path) -> dict:
    """The hook input an earlier Codex sends: the output with its head, and a rollout with no end event."""
    rollout = tmp_path / "old.rollout.jsonl"
    lines = (CAPTURED / "later.rollout.jsonl").read_text().splitlines(keepends=True)
    rollout.write_text("".join(line for line in lines if "item_completed" not in line))
    return {**payload, "transcript_path": str(rollout), "tool_response": HEAD.format(code=code) + output}


def test_a_failure_without_an_end_event_is_answered_from_the_output_itself(remembered, tmp_path):
    payload = old_codex(
        captured("later-cd-src"), "/bin/bash: line 1: cd: src: No such file or directory\n", 1, tmp_path
    )
    assert command_end(Path(payload["transcript_path"]), payload["tool_use_id"]) is None
    assert succeeded(json.dumps(payload)) is False
    code, out, err = run_hook(remembered, payload)
    assert (code, err) == (0, "")
    assert json.loads(out) == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": SEEN_BEFORE}}


def test_a_success_without_an_end_event_is_told_at_once_and_logs_nothing(remembered, tmp_path):
    payload = old_codex(captured("echo-hello"), "hello\n", 0, tmp_path)
    assert succeeded(json.dumps({**payload, "transcript_path": str(tmp_path / "no-such-rollout.jsonl")})) is True
    before = log_lines(remembered)
    assert run_hook(remembered, payload) == (0, "", "")
    assert log_lines(remembered) == before


def test_a_call_with_neither_a_head_nor_an_end_gets_silence_and_no_log_line(remembered, tmp_path):
    payload = later_failure(tmp_path, tool_use_id="call_99")
    before = log_lines(remembered)
    assert run_hook(remembered, payload) == (0, "", "")
    assert log_lines(remembered) == before
