"""The memory replay's yardstick on a real slice of two public histories (tests/data/replay, see its
README): how it reads Claude Code and Codex sessions, which failures are twins and how they were
recovered (replay_truth, which imports nothing of brain), how an answer is judged, the scoring and
the leave-one-project-out choice, Codex's rollout with and without the end event, the settings a
grid applies, the histories' materialising from a git branch, and one replay through the real
hook entry points."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import histories
from benchmarks.quality import memory_replay as replay
from benchmarks.quality import replay_truth as truth
from tests.conftest import DATA

SLICE = DATA / "replay"


def read(project: str) -> list[truth.SessionCalls]:
    entries = histories.load(project, SLICE)
    sessions = [truth.read_session(i, e.session_id, e.path, e.agent) for i, e in enumerate(entries)]
    truth.prepare(sessions)
    return sessions


def repeats(sessions: list[truth.SessionCalls]) -> dict[str, list[str]]:
    """Each failure with an earlier twin: its twins' keys."""
    found, earlier = {}, []
    for session in sessions:
        for call in session.failures:
            twins = [other.key for other in earlier if truth.are_twins(call, other)]
            if twins:
                found[call.key] = twins
        earlier += session.failures
    return found


def test_the_slice_reads_as_claude_code_and_codex_sessions_with_their_versions() -> None:
    claude, codex = histories.load("context-evaluator", SLICE), histories.load("git-sync", SLICE)
    assert [(s.agent, s.version) for s in claude] == [("claude-code", "2.1.47")] * 2
    assert [(s.agent, s.version) for s in codex] == [("codex", "0.139.0")] * 3
    sessions = read("git-sync")
    assert [(len(s.calls), len(s.failures)) for s in sessions] == [(6, 2), (6, 1), (8, 2)]
    refused = sessions[2].calls[6]  # `rm -rf ...` the sandbox's policy rejected: no failure
    assert (refused.ok, refused.command) == (None, "rm -rf .gocache /tmp/auth.test.exe && git status --short")


def test_claude_code_twins_protocol_errors_apart_and_the_recovery_that_dropped_rtk() -> None:
    sessions = read("context-evaluator")
    failures = [call for session in sessions for call in session.failures]
    assert [(c.key.split(":")[0], c.kind, c.protocol) for c in failures] == [
        ("0", "Edit", "string-not-found"),
        ("0", "Edit", "string-not-found"),
        ("0", "shell", None),
        ("1", "Edit", "string-not-found"),
        ("1", "Edit", "string-not-found"),
        ("1", "shell", None),
    ]
    shell = failures[5]
    assert shell.lines[:2] == ("error: unrecognized subcommand 'bun'", "Usage: rtk [OPTIONS] <COMMAND>")
    assert repeats(sessions) == {
        failures[3].key: [failures[0].key, failures[1].key],
        failures[4].key: [failures[0].key, failures[1].key],
        shell.key: [failures[2].key],
    }
    fixed = truth.recovery(shell, sessions[1])
    assert fixed is not None
    assert (fixed.call.command, fixed.via, fixed.added, fixed.dropped, fixed.retry) == (
        "bun run test 2>&1 | tail -20",  # `tail` runs no program the failure ran: no part of the change
        "same-target",
        (),
        ("rtk",),
        False,
    )


def test_codex_twins_across_commands_and_their_recoveries() -> None:
    sessions = read("git-sync")
    first = sessions[0].failures[1]
    assert first.command == "GOOS=windows GOARCH=amd64 go test ./internal/auth"
    assert first.lines == (
        "fork/exec <tmp>: exec format error",
        "FAIL entire.io/entire/git-sync/internal/auth #s",
        "FAIL",
    )
    second = sessions[1].failures[0]  # `GOOS=windows go test ./...`: more packages fail, the same first line
    assert repeats(sessions) == {second.key: [first.key], sessions[2].failures[1].key: [first.key, second.key]}
    found = [truth.recovery(call, session) for session in sessions for call in session.failures]
    assert [(r.call.command, r.added) if r else None for r in found] == [
        (
            "GOOS=windows GOARCH=amd64 go test -c ./internal/auth -o /tmp/auth.test.exe",
            ("GOOS=windows", "GOARCH=amd64", "-c", "/internal/auth", "-o", "/tmp/auth.test.exe"),
        ),
        (
            "GOOS=windows GOARCH=amd64 go test -c ./internal/auth -o /tmp/auth.test.exe",
            ("-c", "-o", "/tmp/auth.test.exe"),
        ),
        ("GOOS=windows go test -run '^$' -exec=true ./...", ("-run", "-exec=true")),
        (  # `grep ... | head && go test ./...`: no program named in the error, so each one; `go test` ran next
            "GOCACHE=$(pwd)/.gocache GOOS=windows GOARCH=amd64 go test -c ./internal/auth -o /tmp/auth.test.exe",
            (
                "GOCACHE",
                "/.gocache",
                "GOOS=windows",
                "GOARCH=amd64",
                "-c",
                "/internal/auth",
                "-o",
                "/tmp/auth.test.exe",
            ),
        ),
        (
            "GOCACHE=$(pwd)/.gocache GOOS=windows GOARCH=amd64 go test -c ./internal/auth -o /tmp/auth.test.exe",
            ("-c", "-o", "/tmp/auth.test.exe"),
        ),
    ]


@pytest.mark.parametrize(
    ("answer", "holds"),
    [
        ("What fixed it: `GOOS=windows go test -c ./internal/auth -o /tmp/auth.test.exe` succeeded", True),
        ("What fixed it: `go test -c -o /tmp/x.exe ./internal/auth`", True),  # -c, -o and the folder of the file
        ("What fixed it: `GOOS=windows go test -run '^$' -exec=true ./...` succeeded", False),  # another fix
        ("It worked after running it again.", False),
        ("build the test binary with go test -c and -o /tmp/auth.test.exe", True),  # no quoting: the words
        ("", False),
    ],
)
def test_an_answer_holds_the_fix_when_it_makes_the_same_change(answer: str, holds: bool) -> None:
    sessions = read("git-sync")
    failure = sessions[2].failures[1]
    fixed = truth.recovery(failure, sessions[2])
    assert fixed is not None
    assert truth.answer_holds(answer, fixed) is holds


def test_a_dropped_word_is_held_by_the_command_without_it_and_a_retry_by_saying_so() -> None:
    sessions = read("context-evaluator")
    fixed = truth.recovery(sessions[1].failures[2], sessions[1])
    assert fixed is not None
    assert truth.answer_holds("- What fixed it: `bun run test 2>&1` succeeded", fixed) is True
    assert truth.answer_holds("- What fixed it: `rtk test bun run test 2>&1` succeeded", fixed) is False
    same = truth.Recovery(fixed.failure, fixed.failure, "same-target", (), (), (), True)
    assert truth.answer_holds("it worked after running it again", same) is True
    assert truth.answer_holds("it worked after editing x.go", same) is False


def test_commands_are_read_the_shells_way() -> None:
    assert truth.stages("cd src && go test ./... 2>&1 | tail -5") == [
        ["cd", "src"],
        ["go", "test", "./..."],
        ["tail", "-5"],
    ]
    assert truth.normalised_programs('ssh host "sudo -u postgres psql db -c \\"SELECT 1; \\"" | head') == {
        "psql",
        "head",
    }
    assert truth.normalised_programs("A=1 npx tsc --noEmit; uv run python3.12 -c 'x'; bash scripts/ci.sh") == {
        "tsc",
        "python",
        "ci.sh",
    }
    assert truth.normalised_programs("git -C /repo push && mise run lint") == {"git push", "mise run lint"}
    assert truth.stages("git commit -m \"$(cat <<'EOF'\nfix; it\nEOF\n)\"\ngit push") == [
        ["git", "commit", "-m", "$SUB"],
        ["git", "push"],
    ]


def recorded(project: str, sessions: list[truth.SessionCalls]) -> dict[str, Any]:
    """A replay's result written by hand: every asked call answered "" but those given below."""
    answers: dict[str, Any] = {}
    successes: dict[str, Any] = {}
    for session in sessions:
        for call, what in replay.to_ask(session):
            into = answers if what == "failure" else successes
            if call.agent == "codex":
                into[call.key] = {"0": {"with_end": ["", 1.0, False], "without_end": ["", 150.0, True]}}
            else:
                into[call.key] = {"0": {"claude": ["", 2.0, False]}}
    return {
        "answers": answers,
        "successes": successes,
        "episodes": {"0": "EP-0", "1": "EP-1", "2": "EP-2"},
        "points": [{}],
    }


def test_the_hooks_fenced_record_is_read_line_by_line() -> None:
    sessions = read("context-evaluator")
    fixed = truth.recovery(sessions[1].failures[2], sessions[1])
    assert fixed is not None
    record = "brain: seen before in [[EP-0]], and fixed. The record:\n```\nfailed: {}\nerror: boom\nworked: {}\n```"
    right = record.format("rtk test bun run test 2>&1", "bun run test 2>&1")
    assert (truth.answer_holds(right, fixed), truth.answer_holds_v1(right, fixed)) == (True, False)
    # the failed command alone is not the fix, though the first yardstick counted it neither
    wrong = record.format("bun run test 2>&1", "rtk test bun run test 2>&1")
    assert (truth.answer_holds(wrong, fixed), truth.answer_holds_v1(wrong, fixed)) == (False, False)
    edited = truth.Recovery(fixed.failure, fixed.call, "file", (), (), ("auth.go",), False)
    named_by_the_error = "```\nfailed: go vet\nerror: auth.go:3: unused\nworked: go vet\n```"
    assert (truth.answer_holds(named_by_the_error, edited), truth.answer_holds_v1(named_by_the_error, edited)) == (
        False,
        True,
    )
    said = "```\nfailed: go vet\nworked: go vet\nchange: it worked after editing `auth.go`\n```"
    assert truth.answer_holds(said, edited) is True
    # the recovery dropped `rtk`: an answer saying the fix went without it holds it, whatever it ran
    without = "```\nfailed: rtk test bun run lint\nworked: bun run lint\nchange: without `rtk test`: it worked\n```"
    assert (truth.answer_holds(without, fixed), truth.answer_holds_v1(without, fixed)) == (True, False)


def test_scoring_a_recorded_replay_gives_exact_figures() -> None:
    claude = read("context-evaluator")
    result = recorded("context-evaluator", claude)
    shell, protocol, fresh = claude[1].failures[2], claude[1].failures[0], claude[0].failures[2]
    result["answers"][shell.key]["0"]["claude"] = ["seen in [[EP-0]]. What fixed it: `bun run test 2>&1`", 3.0, False]
    result["answers"][protocol.key]["0"]["claude"] = ["[[EP-0]]: read the file first", 1.0, False]
    result["answers"][fresh.key]["0"]["claude"] = ["seen in [[EP-9]]", 4.0, False]  # nothing earlier: a false alarm
    scored = replay.score(claude, result, 0)
    counts = scored["counts"]
    assert {
        k: counts[k] for k in ("failures", "repeats", "hits", "correct", "correct_of", "fresh", "fresh_answered")
    } == {
        "failures": 2,
        "repeats": 1,
        "hits": 1,
        "correct": 1,
        "correct_of": 1,
        "fresh": 1,
        "fresh_answered": 1,
    }
    assert (counts["protocol_failures"], counts["protocol_repeats"], counts["protocol_hits"]) == (4, 2, 1)
    figures = scored["figures"]
    assert (figures["repeat_recall"], figures["false_alarms"], figures["answer_correctness"]) == (1.0, 1.0, 1.0)
    assert figures["tokens_per_answer"] == 8.0  # 13, 7 and 4 (characters // 4)
    assert figures["hook_ms"] == {"p50_ms": 2.0, "p95_ms": 4.0}

    codex = read("git-sync")
    result = recorded("git-sync", codex)
    later, last = codex[1].failures[0], codex[2].failures[1]
    result["answers"][later.key]["0"]["with_end"][0] = (
        "[[EP-0]] fixed by `GOOS=windows go test -c ./x -o /tmp/x.test.exe`"
    )
    result["answers"][last.key]["0"]["with_end"][0] = "[[EP-0]]: it worked after running it again"
    counts = replay.score(codex, result, 0)["counts"]
    assert {k: counts[k] for k in counts if k.startswith("codex_")} == {
        "codex_failures": 5,
        "codex_successes": 14,
        "codex_with_end_repeats": 2,
        "codex_with_end_hits": 2,
        "codex_with_end_fresh": 3,
        "codex_with_end_fresh_answered": 0,
        "codex_with_end_successes_answered": 0,
        "codex_with_end_logged_errors": 0,
        "codex_with_end_correct": 0,  # the first fix ran `-run '^$' -exec=true`; the second was no retry
        "codex_without_end_repeats": 2,
        "codex_without_end_hits": 0,
        "codex_without_end_fresh": 3,
        "codex_without_end_fresh_answered": 0,
        "codex_without_end_successes_answered": 0,
        "codex_without_end_logged_errors": 19,
        "codex_without_end_correct": 0,
        "codex_as_is_repeats": 2,  # 0.139 writes no end event: as it is, the rollout has none
        "codex_as_is_hits": 0,
        "codex_as_is_fresh": 3,
        "codex_as_is_fresh_answered": 0,
        "codex_as_is_correct": 0,
    }


def test_leave_one_project_out_reports_each_project_at_the_point_best_on_the_others() -> None:
    def at(hits: int, repeats: int, alarms: int = 0) -> dict[str, Any]:
        counts = {
            "hits": hits,
            "repeats": repeats,
            "correct": 0,
            "correct_of": 0,
            "fresh_answered": alarms,
            "fresh": 10,
        }
        return {"counts": counts, "figures": {"repeat_recall": hits / repeats}}

    scored = {
        "a": [at(1, 4), at(4, 4)],  # point 1 is best for a, but a's own figures must not choose it
        "b": [at(2, 4), at(1, 4)],
        "c": [at(2, 4), at(3, 4, alarms=5)],  # point 1 recalls more on c, with half its fresh failures answered
    }
    chosen = replay.held_out(scored)
    assert {name: (entry["point"], entry["figures"]["repeat_recall"]) for name, entry in chosen.items()} == {
        "a": (0, 0.25),  # b and c pooled: point 0 (4/8) beats point 1 (4/8 - 2 x 0.15)
        "b": (1, 0.25),  # a and c: point 1 (7/8 - 2 x 0.15) beats point 0 (3/8)
        "c": (1, 0.75),  # a and b: point 1 (5/8) beats point 0 (3/8)
    }


def test_the_codex_rollout_as_the_hook_finds_it_with_and_without_the_end_event() -> None:
    entries = histories.load("git-sync", SLICE)
    sessions = read("git-sync")
    call = sessions[1].failures[0]
    lines = entries[1].path.read_text(encoding="utf-8").splitlines()
    with_end = replay.codex_rollout(lines, call, "with_end").splitlines()
    without = replay.codex_rollout(lines, call, "without_end").splitlines()
    assert without == lines[: call.output_line]  # 0.139 writes no end event: the rollout as it was
    assert with_end[:-1] == without
    end = json.loads(with_end[-1])["payload"]
    assert (end["type"], end["item"]["id"], end["item"]["exit_code"], end["item"]["status"]) == (
        "item_completed",
        call.call_id,
        1,
        "failed",
    )
    assert end["item"]["aggregated_output"].startswith("fork/exec /var/folders/")


@dataclasses.dataclass(frozen=True)
class Knobs:
    threshold: float = 0.5
    weigh: bool = True


KNOBS = Knobs()


def test_a_grid_point_is_applied_as_a_frozen_dataclass_or_as_config_keys_and_undone(tmp_path: Path) -> None:
    grid = replay.parse_grid(["threshold=0.6,0.7", "weigh=false"], f"attr:{__name__}:KNOBS")
    assert grid.points() == [{"threshold": 0.6, "weigh": False}, {"threshold": 0.7, "weigh": False}]
    module = sys.modules[__name__]
    with replay.applied(grid, grid.points()[1], tmp_path):
        assert module.KNOBS == Knobs(0.7, False)
    assert module.KNOBS == Knobs()
    grid = replay.parse_grid(["CHANGE_WORDS=3"], "attr:benchmarks.quality.replay_truth")
    with replay.applied(grid, {"CHANGE_WORDS": 3}, tmp_path):
        assert truth.CHANGE_WORDS == 3
    assert truth.CHANGE_WORDS == 8
    (tmp_path / ".brain").mkdir()
    config = tmp_path / ".brain" / "config.toml"
    config.write_text("[hooks]\nbudget = 1000\n", encoding="utf-8")
    grid = replay.parse_grid(["match=0.8"], "config:hooks")
    with replay.applied(grid, {"match": 0.8}, tmp_path):
        assert config.read_text(encoding="utf-8") == "[hooks]\nbudget = 1000\nmatch = 0.8\n"
    assert config.read_text(encoding="utf-8") == "[hooks]\nbudget = 1000\n"
    with pytest.raises(SystemExit, match="needs --apply"):
        replay.parse_grid(["x=1"], "")


def git(folder: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], input=data, check=True, capture_output=True
    ).stdout.decode()


def test_histories_keep_each_sessions_longest_copy_of_claude_code_and_codex(tmp_path: Path) -> None:
    """A made checkpoint branch: a Claude Code session in two checkpoints (the second longer), a
    Codex rollout, and a Gemini CLI session (one JSON document), read into DIR/PROJECT."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    codex = (SLICE / "git-sync" / "019ed6b1-a43f-7850-b02e-60133b30a0df.jsonl").read_bytes()
    claude = (SLICE / "context-evaluator" / "9aa079d0-1add-45fa-bfb2-933f14c37cbc.jsonl").read_bytes()
    short = b"".join(claude.splitlines(keepends=True)[:10])
    files = {
        "ab/0000000001/0/full.jsonl": short,
        "ab/0000000001/0/metadata.json": b'{"session_id": "cc", "agent": "Claude Code", "created_at": "t1"}',
        "ab/0000000002/0/full.jsonl": claude,
        "ab/0000000002/0/metadata.json": b'{"session_id": "cc", "agent": "Claude Code", "created_at": "t2"}',
        "ab/0000000002/1/full.jsonl": codex,
        "ab/0000000002/1/metadata.json": b'{"session_id": "cx", "agent": "Codex", "created_at": "t3"}',
        "cd/0000000003/0/full.jsonl": b'{"sessionId": "gm", "messages": []}\n'.replace(b"sessionId", b"id"),
        "cd/0000000003/0/metadata.json": b'{"session_id": "gm", "agent": "Agent", "created_at": "t4"}',
    }
    for path, data in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)
    git(repo, "checkout", "-q", "-b", histories.BRANCH)
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "checkpoints")
    sessions = histories.materialise(repo, "demo", tmp_path / "out")
    assert [(s.session_id, s.agent, s.version, s.created_at) for s in sessions] == [
        ("cc", "claude-code", "2.1.47", "t2"),
        ("cx", "codex", "0.139.0", "t3"),
    ]
    assert (tmp_path / "out" / "demo" / "cc.jsonl").read_bytes() == claude
    assert sorted(path.name for path in (tmp_path / "out" / "demo").iterdir()) == ["cc.jsonl", "cx.jsonl", "index.json"]
    assert [s.session_id for s in histories.load("demo", tmp_path / "out")] == ["cc", "cx"]


def test_histories_read_a_later_entires_one_ref_per_checkpoint(tmp_path: Path) -> None:
    """No branch: each checkpoint a ref `refs/entire/checkpoints/<xx>/<id>`, its sessions one folder deep."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    codex = (SLICE / "git-sync" / "019ed6b1-a43f-7850-b02e-60133b30a0df.jsonl").read_bytes()
    checkpoints = {
        "ab/0000000001": (b"".join(codex.splitlines(keepends=True)[:10]), "t1"),
        "cd/0000000002": (codex, "t2"),  # the same session, longer
    }
    for name, (transcript, created) in checkpoints.items():
        for old in repo.glob("[0-9]"):
            shutil.rmtree(old)
        (repo / "0").mkdir()
        (repo / "0" / "full.jsonl").write_bytes(transcript)
        (repo / "0" / "metadata.json").write_text(
            f'{{"session_id": "cx", "agent": "Codex", "created_at": "{created}"}}'
        )
        (repo / "metadata.json").write_text("{}")
        git(repo, "add", "-A")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", name)
        git(repo, "update-ref", f"refs/entire/checkpoints/{name}", "HEAD")
    sessions = histories.materialise(repo, "later", tmp_path / "out")
    assert [(s.session_id, s.agent, s.created_at) for s in sessions] == [("cx", "codex", "t2")]
    assert (tmp_path / "out" / "later" / "cx.jsonl").read_bytes() == codex


def test_one_replay_through_the_real_hooks_answers_every_asked_call(tmp_path: Path) -> None:
    """The hook's answers are brain's to improve; what is checked is that every call the scoring
    reads was put through the hook, in both Codex forms, and every session became an episode."""
    for project in ("context-evaluator", "git-sync"):
        entries = histories.load(project, SLICE)
        sessions = read(project)
        result = replay.replay(project, entries, sessions, replay.Grid({}, ""), tmp_path / project)
        assert result["answers"].keys() | result["successes"].keys() == replay.asked(sessions)
        assert sorted(result["episodes"]) == [str(i) for i in range(len(entries))]
        forms = {form for found in result["answers"].values() for form in found["0"]}
        assert forms == ({"with_end", "without_end"} if project == "git-sync" else {"claude"})
        ran = [(form, *found["0"][form]) for found in result["answers"].values() for form in found["0"]]
        assert all(isinstance(answer, str) and ms > 0 for _, answer, ms, _ in ran)
        assert [form for form, _, _, logged in ran if logged and form != "without_end"] == []  # the hook read its input
