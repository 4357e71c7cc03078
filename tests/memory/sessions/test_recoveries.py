"""Recoveries that understand a fix (issue 43, point 1): a failure is recovered by the later call that
succeeds on the same target or supplies what the failure lacked, even when the command differs; the
lesson says what was different; a retry says it is one; a Read of another file is no recovery.

Transcripts are written in the shapes Claude Code and Codex write (records with `cwd`, `tool_use` /
`tool_result` blocks; a rollout's `function_call` with `workdir`), extracted by the real reader, and
the episode is rendered to markdown and read back as the catalog reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.markdown.parse import parse_note
from brain.memory.episodes.note import episode_from_note, render_episode
from brain.memory.episodes.recovery import Recovery, episode_recoveries
from brain.memory.episodes.signature import recorded_failures
from brain.memory.sessions.commands import display_command
from brain.memory.sessions.ingest import extract_transcript
from tests.conftest import TRANSCRIPTS

SESSION = "5e55a0b1-aaaa-4bbb-8ccc-0123456789ab"
APP = "/work/app"


def claude(path: Path, *records: tuple[str, object, str]) -> Path:
    """A Claude Code transcript: (kind, message content, the shell's folder) per record."""
    lines = []
    for number, (kind, content, cwd) in enumerate(records):
        message = {"role": kind, "content": content, **({"id": f"msg_{number}"} if kind == "assistant" else {})}
        lines.append(
            {
                "parentUuid": f"u{number - 1}" if number else None,
                "isSidechain": False,
                "type": kind,
                "sessionId": SESSION,
                "cwd": cwd,
                "version": "2.1.332",
                "timestamp": f"2026-03-15T10:00:{number:02d}.000Z",
                "uuid": f"u{number}",
                "message": message,
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def ask(text: str) -> tuple[str, object, str]:
    return ("user", text, APP)


def call(call_id: str, tool: str, args: dict, cwd: str = APP) -> tuple[str, object, str]:
    return ("assistant", [{"type": "tool_use", "id": call_id, "name": tool, "input": args}], cwd)


def bash(call_id: str, command: str, cwd: str = APP) -> tuple[str, object, str]:
    return call(call_id, "Bash", {"command": command, "description": "run it"}, cwd)


def result(call_id: str, text: str, error: bool = False) -> tuple[str, object, str]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
    return ("user", [block], APP)


def extracted(path: Path):
    """The episode as extracted, and as read back from its rendered note."""
    episode = extract_transcript(path).episode
    again = episode_from_note(parse_note(render_episode(episode), path="episodes/x.md"))
    return episode, again


def links(episode) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
    return [(e.id, e.type, e.caused_by, e.leads_to) for e in episode.events]


# ---------------------------------------------------------------- the case


def test_a_missing_file_created_by_another_command_is_the_recovery(tmp_path):
    """Issue 43's simplest real case: `cat` of a missing file, then a chain that creates it and reads it."""
    fix = "mkdir -p config && printf 'rate: 10\\n' > config/limits.yaml && cat config/limits.yaml"
    path = claude(
        tmp_path / "s.jsonl",
        ask("Show the rate limits in config/limits.yaml"),
        bash("toolu_1", "cat config/limits.yaml"),
        result("toolu_1", "Exit code 1\ncat: config/limits.yaml: No such file or directory", error=True),
        bash("toolu_2", fix),
        result("toolu_2", "rate: 10"),
    )
    episode, again = extracted(path)
    assert episode.metrics["errors"] == 1 and episode.metrics["recoveries"] == 1
    assert [(e.id, e.type, e.text) for e in episode.events] == [
        ("e001", "error", "`cat config/limits.yaml` failed: cat: config/limits.yaml: No such file or directory"),
        ("e002", "recovery", f"`{fix}` succeeded"),
    ]
    assert links(episode) == [("e001", "error", (), ("e002",)), ("e002", "recovery", ("e001",), ())]
    change = f"`config/limits.yaml` did not exist; `{fix}` created it"
    assert episode.lessons == (
        f"`cat config/limits.yaml` failed (cat: config/limits.yaml: No such file or directory): {change}.",
    )
    assert episode_recoveries(again) == [
        Recovery(
            "e001",
            "e002",
            "cat config/limits.yaml",
            "cat: config/limits.yaml: No such file or directory",
            fix,
            change,
            retry=False,
        )
    ]
    (recorded,) = recorded_failures(again)  # what the catalog keeps, and the failure hook hands over
    assert (recorded.fix, recorded.fix_command, recorded.change, recorded.retry) == (change + ".", fix, change, False)


def test_a_file_written_by_the_write_tool_recovers_a_read_of_it(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Set the rate limit"),
        call("toolu_1", "Read", {"file_path": f"{APP}/config/limits.yaml"}),
        result("toolu_1", "<tool_use_error>File does not exist.</tool_use_error>", error=True),
        call("toolu_2", "Write", {"file_path": f"{APP}/config/limits.yaml", "content": "rate: 10\n"}),
        result("toolu_2", f"File created successfully at: {APP}/config/limits.yaml"),
    )
    episode, again = extracted(path)
    assert links(episode) == [("e001", "error", (), ("e002",)), ("e002", "edit", ("e001",), ())]
    assert episode.lessons == (
        "Read on config/limits.yaml failed (File does not exist.): `config/limits.yaml` did not exist; Write created it.",
    )
    assert [(r.failed, r.fix, r.retry) for r in episode_recoveries(again)] == [
        ("Read config/limits.yaml", "Edited config/limits.yaml", False)
    ]


# ---------------------------------------------------------------- what was different


def test_a_cd_into_the_folder_the_shell_was_already_in(tmp_path):
    """Claude Code's shell keeps its folder: `cd src` fails once the agent is in src."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Run the Go tests"),
        bash("toolu_1", "cd src && go test ./...", cwd=f"{APP}/src"),
        result("toolu_1", "Exit code 1\n/bin/bash: line 1: cd: src: No such file or directory", error=True),
        bash("toolu_2", "go test ./...", cwd=f"{APP}/src"),
        result("toolu_2", "ok  \texample.com/app/pkg\t0.012s"),
    )
    episode, again = extracted(path)
    assert links(episode) == [("e001", "error", (), ("e002",)), ("e002", "test", ("e001",), ())]
    assert episode.lessons == (
        "`cd src && go test ./...` failed (/bin/bash: line 1: cd: src: No such file or directory): "
        "without `cd src`: the shell was already in `src`; `go test ./...` from there passed.",
    )
    assert episode_recoveries(again)[0].fix == "go test ./..."


def test_a_subcommand_the_program_has_not_replaced_by_one_it_has(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Show the tool"),
        bash("toolu_1", "mcp-cli info context7/resolve-library-id"),
        result(
            "toolu_1",
            "Exit code 2\nUsage: mcp-cli [OPTIONS] COMMAND [ARGS]...\n╭─ Error ───────────────╮\n"
            "│ No such command 'info'. │\n╰───────────────────────╯",
            error=True,
        ),
        bash("toolu_2", "mcp-cli tools context7"),
        result("toolu_2", "resolve-library-id\nquery-docs"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`mcp-cli info context7/resolve-library-id` failed (Error: No such command 'info'.): `tools` instead of"
        " `info`, which the error refused: `mcp-cli tools context7` worked.",
    )


def test_a_folder_read_as_a_file_then_listed(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Show the lint tasks"),
        bash("toolu_1", "cat mise-tasks/lint"),
        result("toolu_1", "Exit code 1\ncat: mise-tasks/lint: Is a directory", error=True),
        bash("toolu_2", "ls mise-tasks/lint && head -5 mise-tasks/lint/*"),
        result("toolu_2", "go\nshellcheck"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`cat mise-tasks/lint` failed (cat: mise-tasks/lint: Is a directory): `mise-tasks/lint` is a folder, not a"
        " file: `ls mise-tasks/lint && head -5 mise-tasks/lint/*` worked.",
    )


def test_a_folder_the_read_tool_was_called_on_then_globbed(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Read the hooks"),
        call("toolu_1", "Read", {"file_path": f"{APP}/hooks"}),
        result("toolu_1", "EISDIR: illegal operation on a directory, read", error=True),
        call("toolu_2", "Glob", {"pattern": "*.sh", "path": f"{APP}/hooks"}),
        result("toolu_2", f"{APP}/hooks/pre-commit.sh"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "Read on hooks failed (EISDIR: illegal operation on a directory, read): `hooks` is a folder, not a file:"
        " Glob of `hooks` worked.",
    )


def test_a_cd_that_zoxide_stands_in_for_failed_because_the_shell_was_already_there(tmp_path):
    """With `zoxide init --cmd cd`, zoxide speaks for the `cd`; the grep after it never ran."""
    zoxide = (
        "Exit code 1\nzoxide: detected a possible configuration issue.\n"
        "Please ensure that zoxide is initialized right at the end of your shell configuration file.\n\n"
        "If the issue persists, consider filing an issue at:\nhttps://github.com/ajeetdsouza/zoxide/issues\n\n"
        "Disable this message by setting _ZO_DOCTOR=0.\n\nzoxide: you are already in the only match"
    )
    path = claude(
        tmp_path / "s.jsonl",
        ask("Find the router"),
        bash("toolu_1", "cd apps/api && grep -n router app/main.py", cwd=f"{APP}/apps/api"),
        result("toolu_1", zoxide, error=True),
        bash("toolu_2", "grep -n router app/main.py", cwd=f"{APP}/apps/api"),
        result("toolu_2", "12:app.include_router(router)"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`cd apps/api && grep -n router app/main.py` failed (zoxide: you are already in the only match): "
        "without `cd apps/api`: the shell was already in `apps/api`; `grep -n router app/main.py` from there worked.",
    )


def test_a_cd_into_a_folder_that_is_not_there_dropped_from_the_command_that_worked(tmp_path):
    """The change is the `cd` left out, said first: the agent's next command runs where it is."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Run the Go tests"),
        bash("toolu_1", "cd src && go test ./...", cwd=APP),
        result("toolu_1", "Exit code 1\n/bin/bash: line 1: cd: src: No such file or directory", error=True),
        bash("toolu_2", "go test ./...", cwd=APP),
        result("toolu_2", "ok  \texample.com/app/pkg\t0.012s"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`cd src && go test ./...` failed (/bin/bash: line 1: cd: src: No such file or directory): "
        "without `cd src`: there was no folder `src` there; `go test ./...` passed.",
    )


def test_the_same_command_from_another_folder(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Run the Go tests"),
        bash("toolu_1", "go test ./..."),
        result(
            "toolu_1",
            "Exit code 1\npattern ./...: directory prefix . does not contain main module or its selected dependencies",
            error=True,
        ),
        bash("toolu_2", "cd src && go test ./..."),
        result("toolu_2", "ok  \texample.com/app/pkg\t0.012s"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`go test ./...` failed (pattern ./...: directory prefix . does not contain main module or its selected "
        "dependencies): run from `src`: `cd src && go test ./...` passed.",
    )


def test_a_missing_module_installed_by_pip(tmp_path):
    traceback = (
        'Exit code 1\nTraceback (most recent call last):\n  File "/work/app/app.py", line 1, in <module>\n'
        "    import yaml\nModuleNotFoundError: No module named 'yaml'"
    )
    path = claude(
        tmp_path / "s.jsonl",
        ask("Run the app"),
        bash("toolu_1", "python app.py"),
        result("toolu_1", traceback, error=True),
        bash("toolu_2", "pip install pyyaml"),
        result("toolu_2", "Successfully installed PyYAML-6.0.2"),
        bash("toolu_3", "python app.py"),
        result("toolu_3", "ok"),
    )
    episode, again = extracted(path)
    assert links(episode) == [("e001", "error", (), ("e002",)), ("e002", "recovery", ("e001",), ())]
    assert episode.lessons == (
        "`python app.py` failed (ModuleNotFoundError: No module named 'yaml'): "
        "module `yaml` was missing; `pip install pyyaml` installed it.",
    )
    assert episode_recoveries(again)[0].fix == "pip install pyyaml"


def test_python3_where_python_is_missing(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Make the fixtures"),
        bash("toolu_1", "python scripts/gen.py --out fixtures.json"),
        result("toolu_1", "Exit code 127\n/bin/bash: line 1: python: command not found", error=True),
        bash("toolu_2", "python3 scripts/gen.py --out fixtures.json"),
        result("toolu_2", "wrote fixtures.json"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`python scripts/gen.py --out fixtures.json` failed (/bin/bash: line 1: python: command not found): "
        "`python3` instead of `python`: `python3 scripts/gen.py --out fixtures.json` worked.",
    )


def test_the_failing_stage_of_a_pipe_is_what_counts(tmp_path):
    """The IndentationError is Python's, not `gh`'s: the fix is Python's inline script."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Count the open pull requests"),
        bash("toolu_1", "gh api repos/a/b/pulls | python -c 'import json,sys\n  print(len(json.load(sys.stdin)))'"),
        result(
            "toolu_1",
            '  File "<string>", line 2\n    print(len(json.load(sys.stdin)))\nIndentationError: unexpected indent',
            error=True,
        ),
        bash("toolu_2", "gh api repos/a/b/pulls | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'"),
        result("toolu_2", "3"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`gh api repos/a/b/pulls | python -c 'import json,sys` failed (IndentationError: unexpected indent): "
        "`python3` instead of `python`; another `-c` text: "
        "`gh api repos/a/b/pulls | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'` worked.",
    )


@pytest.mark.parametrize(
    ("where", "instead"),
    [
        ("src", "`func Handle` instead of `func Handle\\nreturn`"),
        ("src/api", "`func Handle src/api` instead of `func Handle\\nreturn src`"),  # a folder inside it
    ],
)
def test_an_argument_corrected(tmp_path, where, instead):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Find the handlers"),
        bash("toolu_1", "rg -n 'func Handle\\nreturn' src"),
        result("toolu_1", 'Exit code 2\nrg: the literal "\\n" is not allowed in a regex', error=True),
        bash("toolu_2", f"rg -n 'func Handle' {where}"),
        result("toolu_2", "src/a.go:3:func HandleX() {"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`rg -n 'func Handle\\nreturn' src` failed (rg: the literal \"\\n\" is not allowed in a regex): "
        f"{instead}: `rg -n 'func Handle' {where}` worked.",
    )


# ---------------------------------------------------------------- retries and what is no recovery


def test_a_retry_that_works_unchanged_is_flaky(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Fetch the schema"),
        bash("toolu_1", "curl -sf https://api.example.com/schema.json"),
        result("toolu_1", "Exit code 7\ncurl: (7) Failed to connect to api.example.com port 443", error=True),
        bash("toolu_2", "ls"),  # looking around is no fix
        result("toolu_2", "app.py"),
        bash("toolu_3", "curl -sf https://api.example.com/schema.json"),
        result("toolu_3", "{}"),
    )
    episode, again = extracted(path)
    assert episode.lessons == (
        "`curl -sf https://api.example.com/schema.json` failed (curl: (7) Failed to connect to api.example.com "
        "port 443): it worked when run again unchanged (flaky).",
    )
    assert episode_recoveries(again)[0].retry is True


def test_the_same_command_after_an_edit_is_no_retry(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Fix the build"),
        bash("toolu_1", "make build"),
        result("toolu_1", "Exit code 2\nmain.c:3:1: error: expected ';' before '}' token", error=True),
        call("toolu_2", "Edit", {"file_path": f"{APP}/main.c", "old_string": "x", "new_string": "x;"}),
        result("toolu_2", "The file has been updated."),
        bash("toolu_3", "make build"),
        result("toolu_3", "cc -o app main.c"),
    )
    episode, again = extracted(path)
    assert episode.lessons == (
        "`make build` failed (main.c:3:1: error: expected ';' before '}' token): it worked after editing main.c.",
    )
    assert episode_recoveries(again)[0].retry is False


def test_a_read_of_another_file_is_no_recovery(tmp_path):
    """Issue 40 point 19: a failed Read of A, then a Read of B, is no recovery and writes no lesson."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Look at the test helpers"),
        call("toolu_1", "Read", {"file_path": f"{APP}/test/support/conn_case.ex"}),
        result("toolu_1", "<tool_use_error>File does not exist.</tool_use_error>", error=True),
        call("toolu_2", "Read", {"file_path": f"{APP}/test/support/data_case.ex"}),
        result("toolu_2", "defmodule App.DataCase do"),
        bash("toolu_3", "cat test/support/fixtures.ex"),
        result("toolu_3", "defmodule App.Fixtures do"),
    )
    episode, again = extracted(path)
    assert episode.metrics["recoveries"] == 0 and episode.lessons == ()
    assert links(episode) == [("e001", "error", (), ())]
    assert episode_recoveries(again) == []
    assert episode.outcome == "success"  # a failed look fails nothing


def test_the_same_file_one_folder_up_is_a_recovery(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Look at the resume command"),
        call("toolu_1", "Read", {"file_path": f"{APP}/cmd/cli/commands/resume.go"}),
        result("toolu_1", "<tool_use_error>File does not exist.</tool_use_error>", error=True),
        call("toolu_2", "Read", {"file_path": f"{APP}/cmd/cli/resume.go"}),
        result("toolu_2", "package cli"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "Read on cmd/cli/commands/resume.go failed (File does not exist.): `cmd/cli/commands/resume.go` is not "
        "there: the file is at `cmd/cli/resume.go`; Read worked.",
    )


def test_the_same_file_found_at_another_place_is_a_recovery(tmp_path):
    """A file of that name in a folder of that name, elsewhere: the file the Read wanted, moved."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Look at the zsh settings"),
        call("toolu_1", "Read", {"file_path": f"{APP}/nix/home/programs/zsh.nix"}),
        result("toolu_1", "<tool_use_error>File does not exist.</tool_use_error>", error=True),
        call("toolu_2", "Glob", {"pattern": "**/zsh.nix"}),
        result("toolu_2", f"{APP}/nix/modules/home/programs/zsh.nix"),
        call("toolu_3", "Read", {"file_path": f"{APP}/nix/modules/home/programs/zsh.nix"}),
        result("toolu_3", "{ programs.zsh.enable = true; }"),
    )
    episode, _ = extracted(path)
    assert links(episode) == [("e001", "error", (), ("e002",)), ("e002", "recovery", ("e001",), ())]
    assert episode.lessons == (
        "Read on nix/home/programs/zsh.nix failed (File does not exist.): `nix/home/programs/zsh.nix` is not "
        "there: the file is at `nix/modules/home/programs/zsh.nix`; Read worked.",
    )


def test_a_folder_flag_dropped_is_said(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Show the status"),
        bash("toolu_1", f"git -C {APP} status"),
        result(
            "toolu_1", "Exit code 2\nerror: unexpected argument '-C' found\nUsage: rtk git [OPTIONS] <COMMAND>", True
        ),
        bash("toolu_2", "git status"),
        result("toolu_2", "On branch main"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        f"`git -C {APP} status` failed (error: unexpected argument '-C' found): "
        f"without `-C {APP}`: `git status` worked.",
    )


@pytest.mark.parametrize(
    ("failed", "output", "later", "change"),
    [
        (
            "entire checkpoint search 'level 4' --json --no-pager",
            "Error: Invalid usage: unknown flag: --no-pager",
            "entire checkpoint search --help",
            "without `--no-pager`; `--help` instead of `level 4 --json --no-pager`",
        ),
        ("go run ./cmd -verbose", "flag provided but not defined: -verbose", "go run ./cmd", "without `-verbose`"),
        (  # a flag the usage text lists is no flag the error refused
            "entire status --json",
            "Usage:\n  entire status [flags]\nFlags:\n  --json   print JSON\nError: not a git repository",
            "entire status",
            "without `--json`",
        ),
    ],
)
def test_an_option_the_error_refused_unquoted_leads_the_change(tmp_path, failed, output, later, change):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Do the work"),
        bash("toolu_1", failed),
        result("toolu_1", f"Exit code 1\n{output}", error=True),
        bash("toolu_2", later),
        result("toolu_2", "done"),
    )
    episode, _ = extracted(path)
    assert [lesson.split("): ", 1)[1] for lesson in episode.lessons] == [f"{change}: `{later}` worked."]


@pytest.mark.parametrize(
    ("failed", "output", "later"),
    [
        ("cat notes/a.md", "cat: notes/a.md: No such file or directory", "cat notes/b.md"),
        ("git push", "error: failed to push some refs to 'origin'", "git status"),
        ("python manage.py migrate", "django.db.utils.OperationalError: no such table: x", "python manage.py check"),
        ("npm test", "Error: Cannot find module 'vitest'", "npm install lodash"),
        ("rtk bun run test 2>&1", "error: unrecognized subcommand 'bun'", "bun run lint 2>&1 | head -60"),
        ("mise run test", "--- FAIL: TestResume (0.01s)", "mise run lint"),  # a lint passing says nothing of tests
        ("rg -n 'func Handle\\nreturn' src", 'rg: the literal "\\n" is not allowed in a regex', "rg -n 'Handle' docs"),
    ],
)
def test_a_later_success_on_something_else_is_no_recovery(tmp_path, failed, output, later):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Do the work"),
        bash("toolu_1", failed),
        result("toolu_1", f"Exit code 1\n{output}", error=True),
        bash("toolu_2", later),
        result("toolu_2", "done"),
    )
    episode, _ = extracted(path)
    assert (episode.metrics["recoveries"], episode.lessons) == (0, ())


def test_tests_that_pass_after_a_failed_build_recover_it(tmp_path):
    """Running tests builds the code: tests that pass show that the build works now."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Fix the build"),
        bash("toolu_1", "go build ./..."),
        result("toolu_1", "Exit code 1\n./main.go:3:2: undefined: Run", error=True),
        call("toolu_2", "Edit", {"file_path": f"{APP}/main.go", "old_string": "Run", "new_string": "run"}),
        result("toolu_2", "edited"),
        bash("toolu_3", "go test ./..."),
        result("toolu_3", "ok  example.com/app 0.01s"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`go build ./...` failed (./main.go:3:2: undefined: Run): `go test ./...` passed, after editing main.go.",
    )


def test_the_error_event_names_the_failing_test_printed_mid_way_through_a_long_output(tmp_path):
    """The extractor reads the error line from the whole output, as the failure hook does: a runner's
    log fills the head of a long output and its packages' summary the tail."""
    log = "\n".join(f"INFO created branch entire/sessions for session {n}" for n in range(40))
    summary = "\n".join(f"ok  \tacme.io/shop/pkg{n}\t0.{n}s" for n in range(40))
    output = (
        f"Exit code 1\n{log}\n    resume_test.go:42: got 2 sessions, want 1\n--- FAIL: TestResume (0.01s)\n{summary}"
    )
    path = claude(
        tmp_path / "s.jsonl", ask("Run the tests"), bash("toolu_1", "mise run test"), result("toolu_1", output, True)
    )
    episode, _ = extracted(path)
    assert [e.text for e in episode.events] == ["`mise run test` failed: resume_test.go:42: got 2 sessions, want 1"]


def test_a_search_that_failed_is_recovered_though_an_earlier_search_elsewhere_never_was(tmp_path):
    """Two Grep calls on two folders are two failures: the first, never recovered, does not hide the second."""
    rejected = "Search failed: rg: regex parse error: look-around is not supported"
    path = claude(
        tmp_path / "s.jsonl",
        ask("Find the renderers"),
        call("toolu_1", "Grep", {"pattern": "(?<!x)color", "path": f"{APP}/ansi"}),
        result("toolu_1", rejected, error=True),
        call("toolu_2", "Grep", {"pattern": "(?<!\\.)Render\\(", "path": f"{APP}/src"}),
        result("toolu_2", rejected, error=True),
        call("toolu_3", "Grep", {"pattern": "\\bRender\\(", "path": f"{APP}/src"}),
        result("toolu_3", "Found 12 files"),
    )
    episode, _ = extracted(path)
    assert links(episode) == [
        ("e001", "error", (), ()),
        ("e002", "error", (), ("e003",)),
        ("e003", "recovery", ("e002",), ()),
    ]
    assert episode.lessons == (f"Grep failed ({rejected}): it worked with other pattern.",)


def test_a_tool_whose_own_program_could_not_start_lacked_no_file(tmp_path):
    """`posix_spawn '/opt/.../claude'` failing is the tool's own program missing, not the folder it
    searched: a file written there later is no recovery."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Find the strategy"),
        call("toolu_1", "Grep", {"pattern": "Strategy", "path": f"{APP}/cmd/agent"}),
        result(
            "toolu_1",
            "ENOENT: no such file or directory, posix_spawn '/opt/homebrew/Caskroom/claude-code/2.1.14/claude'",
            error=True,
        ),
        call("toolu_2", "Write", {"file_path": f"{APP}/cmd/agent/registry.go", "content": "package agent\n"}),
        result("toolu_2", "File created successfully"),
    )
    episode, _ = extracted(path)
    assert (episode.metrics["recoveries"], episode.lessons) == (0, ())


def test_error_texts_keep_no_escaped_line_breaks(tmp_path):
    """A hook's message passed on as JSON holds `\\n` sequences: they are line breaks, not text."""
    hook = "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix format' to fix."
    path = claude(
        tmp_path / "s.jsonl",
        ask("Commit it"),
        bash("toolu_1", "git commit -m 'feat: x'"),
        result("toolu_1", f"Exit code 1\n{hook}", error=True),
    )
    episode, _ = extracted(path)
    assert [e.text for e in episode.events] == ["`git commit -m 'feat: x'` failed: Pre-commit validation failed:"]


# ---------------------------------------------------------------- Codex


def test_a_codex_rollout_recovers_by_its_workdir(tmp_path):
    """Codex runs each command in its `workdir`: the `cd` into the folder it already runs in fails."""

    def item(when: int, payload: dict) -> dict:
        return {"timestamp": f"2026-03-14T10:00:{when:02d}.000Z", "type": "response_item", "payload": payload}

    def shell(when: int, call_id: str, command: str) -> dict:
        args = {"command": ["bash", "-lc", command], "workdir": "/work/shop/web"}
        return item(when, {"type": "function_call", "name": "shell", "arguments": json.dumps(args), "call_id": call_id})

    def output(when: int, call_id: str, text: str, code: int) -> dict:
        said = json.dumps({"output": text, "metadata": {"exit_code": code, "duration_seconds": 0.1}})
        return item(when, {"type": "function_call_output", "call_id": call_id, "output": said})

    meta = {"id": "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a60", "timestamp": "2026-03-14T10:00:00.000Z", "cwd": "/work/shop"}
    records = [
        {"timestamp": "2026-03-14T10:00:00.000Z", "type": "session_meta", "payload": meta},
        item(1, {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Build the web app"}]}),
        shell(2, "call_1", "cd web && npm run build"),
        output(3, "call_1", "bash: line 1: cd: web: No such file or directory\n", 1),
        shell(4, "call_2", "npm run build"),
        output(5, "call_2", "built in 1.2s\n", 0),
    ]
    path = tmp_path / "rollout-2026-03-14T10-00-00-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a60.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    episode, _ = extracted(path)
    assert episode.lessons == (
        "`cd web && npm run build` failed (bash: line 1: cd: web: No such file or directory): "
        "without `cd web`: the shell was already in `web`; `npm run build` from there worked.",
    )


def test_a_real_codex_retry_with_escalated_permissions_is_no_flaky_retry():
    """codemie-ai/codemie-code (Apache-2.0): `ps` is refused by the sandbox, then run again with
    `sandbox_permissions: require_escalated`: the permission is what changed."""
    rollout = TRANSCRIPTS / "public/codemie/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
    episode, again = extracted(rollout)
    assert episode.lessons[-1] == (
        '`ps -ef | rg -i "Google Chrome|chrome.*remote|codemie|codemie-ui"` failed (zsh:1: operation not permitted: '
        "ps): the same command with `sandbox_permissions: require_escalated` worked."
    )
    assert episode_recoveries(again)[-1].retry is False


def test_a_text_given_another_way_is_named_when_nothing_else_changed(tmp_path):
    """A GraphQL query rewritten: the query is what changed (a commit's message after edits is not)."""
    query = 'query=\'\n{ repository(owner: "a", name: "b") { pullRequest(number: 1) { body(truncate: 80) } } }\''
    path = claude(
        tmp_path / "s.jsonl",
        ask("Read the review threads"),
        bash("toolu_1", f"gh api graphql -f {query}"),
        result("toolu_1", "Exit code 1\ngh: Field 'body' doesn't accept argument 'truncate'", error=True),
        bash("toolu_2", f"gh api graphql -f {query.replace('body(truncate: 80)', 'body')}"),
        result("toolu_2", '{"data": {}}'),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (  # the query over lines is folded into one, and its change named
        '`gh api graphql -f query=\' { repository(owner: "a", name: "b") { pullRequest(n...` failed '
        "(gh: Field 'body' doesn't accept argument 'truncate'): "
        "another `query=` text: `body` instead of `body(truncate: 80)`: "
        '`gh api graphql -f query=\' { repository(owner: "a", name: "b") { pullRequest(number: 1) { body } } }\'` '
        "worked.",
    )


def test_what_the_error_quoted_and_the_fix_dropped_is_the_change(tmp_path):
    """rg's pattern (a text with spaces, not shown word by word) lost its literal `\\n` and the folder
    changed too: the error named the `\\n`, so the change says it first."""
    path = claude(
        tmp_path / "s.jsonl",
        ask("Find the results settings"),
        bash("toolu_1", 'rg -n "results:\\n  repo_path: (true|false) # sync settings" docs packages/core/src'),
        result("toolu_1", 'Exit code 2\nrg: the literal "\\n" is not allowed in a regex', error=True),
        bash("toolu_2", 'rg -n "  repo_path: (true|false) # sync settings" docs/guide packages/core/src'),
        result("toolu_2", "docs/guide/a.md:3:  repo_path: true # sync settings"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        '`rg -n "results:\\n  repo_path: (true|false) # sync settings" docs packages/cor...` failed '
        '(rg: the literal "\\n" is not allowed in a regex): '
        "without `\\n`; `docs/guide` instead of `docs`: "
        '`rg -n "  repo_path: (true|false) # sync settings" docs/guide packages/core/src` worked.',
    )


def test_the_file_the_error_suggested(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Check the linter settings"),
        call("toolu_1", "Read", {"file_path": f"{APP}/.golangci.yml"}),
        result("toolu_1", "<tool_use_error>File does not exist. Did you mean .golangci.yaml?</tool_use_error>", True),
        call("toolu_2", "Read", {"file_path": f"{APP}/.golangci.yaml"}),
        result("toolu_2", "linters:\n  enable: [govet]"),
    )
    episode, _ = extracted(path)
    assert episode.lessons == (
        "Read on .golangci.yml failed (File does not exist. Did you mean .golangci.yaml?): "
        "`.golangci.yml` does not exist; the error named `.golangci.yaml`: Read worked.",
    )


@pytest.mark.parametrize(
    ("failed", "output", "later", "lesson"),
    [
        (
            call("toolu_1", "Grep", {"pattern": "Resume", "path": "cmd/cli/commands"}),
            "<tool_use_error>Path does not exist: cmd/cli/commands</tool_use_error>",
            call("toolu_2", "Grep", {"pattern": "Resume", "path": "cmd/cli"}),
            "Grep failed (Path does not exist: cmd/cli/commands): `cmd/cli/commands` does not exist; "
            "Grep of `cmd/cli`, a folder above it, worked.",
        ),
        (
            bash("toolu_1", "ls -la cmd/cli/commands/"),
            "Exit code 1\nls: cmd/cli/commands/: No such file or directory",
            bash("toolu_2", "ls -la cmd/"),
            "`ls -la cmd/cli/commands/` failed (ls: cmd/cli/commands/: No such file or directory): "
            "`cmd/cli/commands/` does not exist; `ls -la cmd/`, on a folder above it, worked.",
        ),
        (  # a search elsewhere is no recovery
            call("toolu_1", "Grep", {"pattern": "Resume", "path": "cmd/cli/commands"}),
            "<tool_use_error>Path does not exist: cmd/cli/commands</tool_use_error>",
            call("toolu_2", "Grep", {"pattern": "Resume", "path": "internal/session"}),
            None,
        ),
    ],
)
def test_a_search_one_folder_up(tmp_path, failed, output, later, lesson):
    path = claude(
        tmp_path / "s.jsonl", ask("Find the resume command"), failed, result("toolu_1", output, True), later,
        result("toolu_2", "cmd/cli/resume.go"),
    )  # fmt: skip
    episode, _ = extracted(path)
    assert episode.lessons == ((lesson,) if lesson else ())


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("gh api graphql -f query='\n{ viewer {\n  login } }'", "gh api graphql -f query=' { viewer { login } }'"),
        ("python3 -c 'import sys\n    print(1)'", "python3 -c 'import sys"),  # a script's lines are its meaning
        ("cat > a.txt <<'EOF'\nhello\nEOF", "cat > a.txt <<'EOF'"),
        ("\n\ngo test ./...\ngo vet ./...", "go test ./..."),
        ("echo 'never closed\nat all", "echo 'never closed"),
    ],
)
def test_a_command_is_shown_by_its_first_line_or_its_quoted_text_folded(command: str, shown: str) -> None:
    assert display_command(command) == shown


def test_a_test_run_that_never_ran_is_the_commands_failure_not_the_tests(tmp_path):
    path = claude(
        tmp_path / "s.jsonl",
        ask("Run the tests"),
        bash("toolu_1", "rtk bun run test 2>&1"),
        result(
            "toolu_1", "Exit code 2\nerror: unrecognized subcommand 'bun'\n\nUsage: rtk [OPTIONS] <COMMAND>", error=True
        ),
        bash("toolu_2", "bun run test 2>&1"),
        result("toolu_2", " 12 pass\n 0 fail\nRan 12 tests across 3 files."),
    )
    episode, _ = extracted(path)
    failed = next(event for event in episode.events if event.type == "error")
    assert failed.text == "`rtk bun run test 2>&1` failed: error: unrecognized subcommand 'bun'"
    assert episode.lessons == (
        "`rtk bun run test 2>&1` failed (error: unrecognized subcommand 'bun'): `bun run test 2>&1` passed.",
    )
