"""A failure's signature: the tool, a shell command's program, the error's line with what changes
from run to run blanked; too little to tell failures apart gives none; an episode's error event
read back gives the signature of the failure it was written from."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.markdown.model import Episode, Event
from brain.markdown.parse import parse_note
from brain.memory.episodes.note import episode_from_note, render_episode
from brain.memory.episodes.signature import Failure, event_failure, program, recorded_failures, signature


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git checkout main && git pull", "git"),
        ("cd apps/api && FOO=1 BAR=x uv run pytest -q tests/a.py", "pytest"),
        ("sudo -E npm install", "npm"),
        ("export A=1; time python -m mypy brain", "mypy"),
        ("(cd web && /usr/local/bin/pnpm build)", "pnpm"),
        ("env LC_ALL=C poetry run ruff check .", "ruff"),
        ("npx -y prettier --check .", "prettier"),
        ("cd only-a-folder", ""),
        ("", ""),
    ],
)
def test_the_program_is_the_first_one_the_command_runs(command, expected):
    assert program(command) == expected


def test_a_signature_is_the_tool_the_program_and_the_blanked_line():
    failure = Failure(
        "Bash",
        "cd /repo && git checkout main && git pull",
        "fatal: Unable to create '/tmp/pytest-17/x/.git/index.lock' at 0a1b2c3d after 1.5s: File exists (code 128)",
    )
    assert signature(failure) == (
        "shell|git|fatal: Unable to create '<tmp> at <hash> after <time>: File exists (code <n>)"
    )
    assert signature(Failure("Edit", "", "<tool_use_error>File has not been read yet.</tool_use_error>")) == (
        "Edit||File has not been read yet."
    )
    # every shell tool is one tool
    assert signature(Failure("exec_command", "git pull", "fatal: not a git repository")) == signature(
        Failure("Bash", "git pull", "fatal: not a git repository")
    )


@pytest.mark.parametrize(
    "line",
    [
        "tail -30",
        "",
        "Sibling tool call errored",
        "[Request interrupted by user for tool use]",
        "[lint] ERROR task failed",  # a runner's wrapper says only that what it ran failed
        "FAIL\texample.com/app/store [build failed]",
        "ok  \texample.com/app/store\t0.52s",  # Go's line for a package that passed
        "?   \texample.com/app/cmd\t[no test files]",
        "2026/02/03 11:25:30 INFO deleted orphaned shadow branch component=cleanup",  # a log line
        "make: *** [Makefile:12: test] Error 2",
        'error: script "lint" exited with code 1',  # bun's, yarn's and CI's word that a script failed
        "error Command failed with exit code 2.",
        "Process completed with exit code 1.",
        "npm error Lifecycle script `test` failed with error:",  # npm 10; npm 6 said `npm ERR!`
        "npm error code 1",
        "FAILURE: Build failed with an exception.",  # Gradle, whatever failed
        "ERROR: InvocationError for command /work/.tox/py311/bin/pytest (exited with code 1)",  # tox
    ],
)
def test_a_line_that_says_too_little_has_no_signature(line):
    assert signature(Failure("Bash", "make", line)) is None


def test_a_command_that_printed_nothing_but_its_exit_code_is_told_by_the_command():
    silent = Failure("Bash", "git config --global core.excludesfile", "Exit code 1")
    assert signature(silent) == "shell|git|Exit code <n>, printing nothing: git config --global core.excludesfile"
    assert signature(Failure("Bash", "git config --global user.name", "Exit code 1")) != signature(silent)
    assert signature(Failure("Bash", "", "Exit code 1")) is None
    assert signature(Failure("Edit", "", "Exit code 1", "a.py")) is None  # only a shell command has one


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
numbers = st.integers(min_value=0, max_value=10**9)


@given(st.lists(words, min_size=3, max_size=8), numbers, numbers, st.uuids(), st.uuids())
def test_numbers_ids_and_temporary_paths_do_not_change_a_signature(parts, first, second, one, other):
    line = " ".join(parts)

    def failure(number: int, uuid: object, folder: str) -> Failure:
        return Failure("Bash", "make build", f"{line} {number} at /tmp/{folder}{number}/out.log id {uuid}")

    assert signature(failure(first, one, "a")) == signature(failure(second, other, "bb"))
    assert signature(failure(first, one, "a")) is not None


@given(
    st.sampled_from(["Edit", "Read", "mcp__github__create_issue", "Bash"]),
    st.lists(words, min_size=3, max_size=12),
    numbers,
)
def test_an_error_event_read_back_gives_the_signature_it_was_written_from(tool, parts, number):
    line = " ".join(parts) + f" ({number})"
    command = "cd x && make build" if tool == "Bash" else ""
    target = "src/a.py" if tool in ("Edit", "Read") else ""  # the extractor names the file of a file tool
    text = (
        f"`{command.removeprefix('cd x && ')}` failed: {line}"
        if command
        else f"{tool} {target}".strip() + f" failed: {line}"
    )
    read = event_failure(text)
    assert read is not None
    assert signature(read) == signature(Failure(tool, command, line, target))
    assert signature(read) != signature(Failure(tool, command, line, "src/b.py")) or tool not in ("Edit", "Read")


def test_an_episode_keeps_its_failures_with_what_fixed_them_through_its_note():
    episode = Episode(
        title="EPISODE-2026-02-21-9e4910ab",
        outcome="success",
        session="9e4910ab",
        date="2026-02-21T00:31:28Z",
        events=(
            Event(
                "`git checkout main` failed: fatal: Unable to create '.git/index.lock': File exists.",
                None,
                "e001",
                "error",
                (),
                ("e003",),
            ),
            Event("`make` failed: Exit code 2", None, "e002", "error"),
            Event("`git checkout main` succeeded", None, "e003", "recovery", ("e001",)),
            Event("Commit 0a1b2c3: switch to main", None, "e004", "commit"),
        ),
        lessons=(
            "`git checkout main` failed (fatal: Unable to create '.git/index.lock': File exists.); "
            "it worked after running `rm .git/index.lock`.",
        ),
    )
    note = parse_note(render_episode(episode), "episodes/EPISODE-2026-02-21-9e4910ab.md")
    found = recorded_failures(episode_from_note(note))
    assert [(f.signature, f.event, f.fix, f.commit) for f in found] == [
        (
            "shell|git|fatal: Unable to create '.git/index.lock': File exists.",
            "e001",
            "`git checkout main` succeeded; it worked after running `rm .git/index.lock`.",
            "Commit 0a1b2c3: switch to main",
        ),
        ("shell|make|Exit code <n>, printing nothing: make", "e002", "", ""),  # kept, but never recovered
    ]


def test_a_failed_test_run_takes_its_line_from_its_lesson():
    episode = Episode(
        title="EPISODE-2026-02-12-ae4a77f8",
        events=(
            Event("Ran `mix test --seed 0`: tests failed (2 failed)", None, "e001", "error", (), ("e002",)),
            Event("Ran `mix test --seed 0`: tests passed", None, "e002", "test", ("e001",)),
            Event("Ran `mix test test/a.exs`: tests failed", None, "e003", "error"),  # never recovered: no lesson
        ),
        lessons=(
            "`mix test --seed 0` failed (test/a_test.exs:12: Spotter.A.run/1 is undefined); "
            "it passed after editing lib/a.ex.",
        ),
    )
    note = parse_note(render_episode(episode), "episodes/EPISODE-2026-02-12-ae4a77f8.md")
    assert [(f.signature, f.fix) for f in recorded_failures(episode_from_note(note))] == [
        (
            "shell|mix|test/a_test.exs:<n>: Spotter.A.run/<n> is undefined",
            "Ran `mix test --seed 0`: tests passed; it passed after editing lib/a.ex.",
        )
    ]


def test_a_one_line_command_of_megabytes_is_read_for_its_program_up_to_a_bound(monkeypatch):
    """The failure hook reads a failed command's program with shlex, which took 9 s over a 10 MB one-line
    command: each part is read up to PROGRAM_CHARS, so the hook's work does not grow with the command."""
    import shlex

    from brain.memory.episodes import signature as module

    read: list[int] = []
    split = shlex.split
    monkeypatch.setattr(module.shlex, "split", lambda text: read.append(len(text)) or split(text))
    command = "FOO=1 pytest " + "x" * 10_000_000 + " && make " + "y" * 10_000_000
    assert module.program(command) == "pytest"
    assert read == [module.PROGRAM_CHARS]
    failure = module.Failure("Bash", command, "boom: the build failed for a reason")
    assert module.signature(failure) == "shell|pytest|boom: the build failed for a reason"
