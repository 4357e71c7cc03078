"""A failure's key: the kind of call, the program of the part of a shell command that failed, the
error's template (names, paths, numbers masked) and its terms; too little to tell failures apart
gives none; an episode's error event read back gives the key of the failure it was written from."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.markdown.model import Episode, Event
from brain.markdown.parse import parse_note
from brain.memory.episodes.note import episode_from_note, render_episode
from brain.memory.episodes.signature import (
    Failure,
    blanked,
    event_failure,
    key,
    program,
    recorded_failures,
    signature,
    template,
)


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
        ("bunx tsc --noEmit", "tsc"),
        ("rtk git status", "git"),
        ("timeout 30 cargo test", "cargo"),
        ("python3 scripts/a.py", "python"),
        ("/usr/bin/python3.12 -c 'print(1)'", "python"),
        ("uv run python script.py", "python"),
        ("go test ./... 2>&1 | tail -20", "go"),  # a filter is not what failed
        ("gh api repos/o/r/pulls | python3 -c 'import json'", "python"),  # a pipe's exit code is its last stage's
        ("cat a.txt | grep needle", "grep"),
        ("echo 'a && b; c | d' && make", "make"),  # operators inside quotes split nothing
        ("cd only-a-folder", ""),
        ("", ""),
    ],
)
def test_the_program_is_the_one_the_command_runs(command, expected):
    assert program(command) == expected


@pytest.mark.parametrize(
    ("command", "line", "expected"),
    [
        ("cd src && grep -rn foo .", "cd: src: No such file or directory", "cd"),
        ("cd src && go test ./...", "/bin/bash: line 1: cd: src: No such file or directory", "cd"),
        ("cat missing.txt | grep x", "cat: missing.txt: No such file or directory", "cat"),
        ("gh api repos/o/r | python -c 'import json'", "IndentationError: unexpected indent", "python"),
        ("git add . && git commit -m x", "error: pathspec 'x' did not match any file(s) known to git", "git"),
        ("cd apps/api && grep -n x app.py", "zoxide: you are already in the only match", "cd"),  # zoxide's `cd`
        ("cd apps/api && head -5 app.py", "zoxide: detected a possible configuration issue.", "cd"),
        ("zoxide query foo", "zoxide: no match found", "zoxide"),  # zoxide itself, no `cd`
    ],
)
def test_the_program_is_the_part_of_the_command_the_error_names(command, line, expected):
    assert program(command, line) == expected


def test_zoxides_notice_about_the_shell_is_no_error_line():
    from brain.memory.sessions.commands import error_line

    notice = (
        "Exit code 1\nzoxide: detected a possible configuration issue.\n"
        "Please ensure that zoxide is initialized right at the end of your shell configuration file.\n\n"
        "If the issue persists, consider filing an issue at:\nhttps://github.com/ajeetdsouza/zoxide/issues\n\n"
        "Disable this message by setting _ZO_DOCTOR=0.\n\n"
    )
    assert (
        error_line(notice + "zoxide: you are already in the only match") == "zoxide: you are already in the only match"
    )
    assert error_line(notice + "zoxide: no match found") == "zoxide: no match found"


def test_the_issues_misses_get_one_key():
    """The failures an unseen project repeated and the earlier rule told apart."""
    cd_grep = key(Failure("Bash", "cd src && grep -rn TODO .", "/bin/bash: line 1: cd: src: No such file or directory"))
    cd_go = key(Failure("Bash", "cd src && go test ./...", "/bin/bash: line 1: cd: src: No such file or directory"))
    assert cd_grep == cd_go and cd_grep is not None and cd_grep.program == "cd"
    piped = key(
        Failure("Bash", "gh api repos/o/r/pulls | python -c 'import sys'", "IndentationError: unexpected indent")
    )
    alone = key(Failure("Bash", "python3 -c 'import sys'", "IndentationError: unexpected indent"))
    assert piped == alone and piped is not None and piped.program == "python"
    go = "pattern ./...: directory prefix . does not contain main module or its selected dependencies"
    assert key(Failure("Bash", "go test ./...", go)) == key(Failure("Bash", "go vet ./...", go))


def test_a_key_is_the_kind_the_program_the_template_and_its_terms():
    failure = Failure(
        "Bash",
        "cd /repo && git checkout main && git pull",
        "fatal: Unable to create '/tmp/pytest-17/x/.git/index.lock' at 0a1b2c3d after 1.5s: File exists (code 128)",
    )
    found = key(failure)
    assert found is not None
    assert found.signature == "shell|git|fatal: Unable to create <q> at <hash> after <time>: File exists (code <n>)"
    assert found.terms == (
        *("fatal", "unable", "to", "create", "<q>", "at", "<hash>", "after", "<time>", "file", "exists", "code"),
        *("<n>", "=<tmp>"),
    )
    # every shell tool is one kind
    assert key(Failure("exec_command", "git pull", "fatal: not a git repository")) == key(
        Failure("Bash", "git pull", "fatal: not a git repository")
    )


def test_a_file_is_a_term_of_a_tools_failure_unless_the_error_does_not_depend_on_it():
    read_a = key(Failure("Read", "", "File content (30000 tokens) exceeds maximum allowed tokens (25000).", "a.py"))
    read_b = key(Failure("Read", "", "File content (31000 tokens) exceeds maximum allowed tokens (25000).", "b.py"))
    assert read_a is not None and read_b is not None
    assert read_a.template == read_b.template and "=a.py" in read_a.terms and "=b.py" in read_b.terms
    for line in (
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
        "Found 3 matches of the string to replace, but replace_all is false.",
    ):
        one, other = key(Failure("Edit", "", line, "src/a.py")), key(Failure("Edit", "", line, "lib/b.go"))
        assert one == other and one is not None and one.protocol and not any(t.startswith("=") for t in one.terms)


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
        "● Test suite failed to run",  # Jest, whatever kept the suite from running
        "x Build failed in 1.24s",  # Vite, whatever failed the build
        "src/app.ts:12:3 lint/suspicious/noExplicitAny ━━━━━━━━━━━━━━━━━━━━━━━━━━",  # Biome's header of a file
        "at src/app.ts format ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━",
        "error during build:",  # Vite's, before what failed it
    ],
)
def test_a_line_that_says_too_little_has_no_key(line):
    assert key(Failure("Bash", "make", line)) is None


def test_a_command_that_printed_nothing_but_its_exit_code_is_told_by_the_command():
    silent = Failure("Bash", "git config --global core.excludesfile", "Exit code 1")
    assert signature(silent) == "shell|git|Exit code <n>, printing nothing: git config --global core.excludesfile"
    assert signature(Failure("Bash", "git config --global user.name", "Exit code 1")) != signature(silent)
    assert signature(Failure("Bash", "", "Exit code 1")) is None
    assert signature(Failure("Edit", "", "Exit code 1", "a.py")) is None  # only a shell command has one


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
numbers = st.integers(min_value=0, max_value=10**9)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
paths = st.lists(st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True), min_size=1, max_size=4).map("/".join)


@given(st.lists(words, min_size=3, max_size=8), numbers, numbers, st.uuids(), st.uuids())
def test_numbers_ids_and_temporary_paths_do_not_change_a_template(parts, first, second, one, other):
    line = " ".join(parts)

    def failure(number: int, uuid: object, folder: str) -> Failure:
        return Failure("Bash", "make build", f"{line} {number} at /tmp/{folder}{number}/out.log id {uuid}")

    assert key(failure(first, one, "a")) is not None
    assert signature(failure(first, one, "a")) == signature(failure(second, other, "bb"))


@given(st.lists(words, min_size=3, max_size=6), names, names, paths, paths, st.sampled_from(["'", '"', "`"]))
def test_quoted_names_and_paths_are_masked_and_kept_as_values(parts, name, other_name, path, other_path, quote):
    """The template of an error does not depend on the names and paths it names; its values do."""
    line = " ".join(parts)

    def masked(name: str, path: str) -> tuple[str, tuple[str, ...]]:
        return template(f"{line} {quote}{name}{quote} in {path}/main.go:12:5")

    one, values = masked(name, path)
    assert one == masked(other_name, other_path)[0] == f"{line} <q> in <path>"
    assert values == (blanked(name), blanked(f"{path}/main.go"))  # numbers in a name differ from run to run


@given(st.text(max_size=200))
def test_a_template_never_holds_a_digit_or_a_quoted_name(line):
    masked, _ = template(line)
    assert not re.search(r"\d", masked)
    assert not re.search(r"(?<![\w'])'[^'\n]+'(?![\w])", masked)


@settings(deadline=None)  # a loaded machine is no failure of the parser
@given(
    st.sampled_from(["Edit", "Read", "mcp__github__create_issue", "Bash"]),
    st.lists(words, min_size=3, max_size=12),
    numbers,
)
def test_an_error_event_read_back_gives_the_key_it_was_written_from(tool, parts, number):
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
    assert key(read) == key(Failure(tool, command, line, target))
    assert key(read) != key(Failure(tool, command, line, "src/b.py")) or tool not in ("Edit", "Read")


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
            "shell|git|fatal: Unable to create <q>: File exists.",
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
            "shell|mix|<path>: <path> is undefined",
            "Ran `mix test --seed 0`: tests passed; it passed after editing lib/a.ex.",
        )
    ]


def test_a_one_line_command_of_megabytes_is_read_for_its_program_up_to_a_bound():
    """A 10 MB one-line command once took the failure hook 9 s: a command is read up to COMMAND_CHARS,
    so the hook's work does not grow with it."""
    from brain.memory.episodes import signature as module

    command = "FOO=1 pytest " + "x" * 10_000_000 + " && make " + "y" * 10_000_000
    assert sum(len(text) for _, text in module.stages(command)) <= module.COMMAND_CHARS
    assert module.program(command) == "pytest"
    failure = module.Failure("Bash", command, "boom: the build failed for a reason")
    found = module.key(failure)
    assert found is not None and found.program == "pytest"
