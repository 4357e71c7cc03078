"""A command line read as its steps (`brain.memory.sessions.shell_steps`): any text is read without
an error, words quoted as a shell quotes them come back as they were, operators and `cd`s are kept."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from brain.memory.sessions.shell_steps import resolve, steps

# a word as a person or an agent writes it: any text, a here-document's marker aside (its body is
# cut from the line before the words are read, quoted or not)
WORD = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12).filter(
    lambda word: "<<" not in word
)
PLAIN = st.from_regex(r"[a-z][a-z0-9_.-]{0,8}", fullmatch=True)
OPERATOR = st.sampled_from(["&&", "||", ";", "|", "\n"])


@given(st.text(max_size=200))
def test_any_text_is_read(line):
    for step in steps(line):
        assert all(isinstance(word, str) for word in step.words)
        assert step.program == "" or step.words


@given(st.lists(st.tuples(PLAIN, st.lists(WORD, max_size=4)), min_size=1, max_size=4), st.data())
def test_quoted_words_come_back_as_written(commands, data):
    """Each command's words, quoted with shlex.quote and joined by operators, are its step's words."""
    operators = [data.draw(OPERATOR) for _ in commands[1:]]
    said = [" ".join(shlex.quote(word) for word in (program, *args)) for program, args in commands]
    line = said[0] + "".join(f" {operator} {command}" for operator, command in zip(operators, said[1:], strict=True))
    read = steps(line)
    assert [step.words for step in read] == [(program, *args) for program, args in commands]
    assert [step.after for step in read] == ["", *operators]


@given(PLAIN, st.lists(WORD, max_size=3), PLAIN)
def test_a_redirection_is_a_file_written_not_a_word(program, args, target):
    (step,) = steps(" ".join(shlex.quote(word) for word in (program, *args)) + f" 2>&1 > {target}.log")
    assert (step.words, step.writes) == ((program, *args), (f"{target}.log",))


@given(PLAIN, PLAIN, PLAIN)
def test_a_cd_moves_the_steps_after_it(folder, inner, program):
    first, second, third = steps(f"cd {folder} && cd {inner} && {program} x")
    assert (first.folder, second.folder, third.folder) == ("", folder, resolve("", folder, inner))


def test_runners_assignments_and_python_m_are_not_the_program():
    (step,) = steps("FOO=1 uv run python3 -m pytest -q tests/a.py")
    assert (step.program, step.args, step.env, step.family) == ("pytest", ("-q", "tests/a.py"), ("FOO=1",), "pytest")
    (script,) = steps("sudo -E python3.12 app.py serve")
    assert (script.program, script.family, script.key) == ("python3.12", "python", "app.py serve")
    (inline,) = steps("python3 -c 'print(1)'")
    assert inline.key == "python -c"
    (task,) = steps("npm run build -- --mode production")
    assert task.key == "npm build"


def test_a_here_document_is_no_step():
    line = "cat > notes.md <<'EOF'\nrm -rf / && echo x\nEOF\ngit add notes.md"
    assert [(step.words, step.writes) for step in steps(line)] == [
        (("cat",), ("notes.md",)),
        (("git", "add", "notes.md"), ()),
    ]


def test_a_folder_flag_is_where_the_program_runs_and_a_remote_command_is_what_runs():
    (git,) = steps("git -C /work/app push origin main")
    assert (git.program, git.args, git.folder, git.key) == ("git", ("push", "origin", "main"), "/work/app", "git push")
    (grep,) = steps("grep -C 3 TODO notes.md")  # grep's -C is the lines of context, no folder
    assert (grep.args, grep.folder) == (("-C", "3", "TODO", "notes.md"), "")
    (psql,) = steps("sudo -u postgres psql safecast -c 'select 1'")
    assert (psql.program, psql.key) == ("psql", "psql safecast")
    listing, ports = (
        steps("ssh root@db.example.org 'ls -la /etc/nginx'")[0],
        steps("ssh root@db.example.org 'ss -tlnp'")[0],
    )
    assert (listing.key, ports.key) == ("ssh ls /etc/nginx", "ssh ss")  # two commands on one host: two targets
    (shell,) = steps("bash -c 'cd web && npm test'")
    assert shell.key == "bash npm test"
