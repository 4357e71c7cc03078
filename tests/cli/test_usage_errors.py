"""Every command of the registry, every option: a value the command line gets wrong is a usage error.

The sweep walks the typer app (every command and subcommand) and gives each parameter a bad value
by its declared type: a choice gets 'bogus'; a number gets 'x', and a value just outside its
declared bounds; a path gets one that names nothing; a required argument or option is left out.
Each must exit with 2, print nothing on stdout and exactly one `error: ` line on stderr naming the
option as typed (`--limit`; an argument by its name or the value given), in brain's words (no
traceback, no validation library's phrases), and leave every file of the vault as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from brain.cli import app
from brain.vault.init import init_vault
from tests.conftest import DATA, run_brain

LOAN = str(DATA / "runs" / "loan-42.json")

# What a command needs before the value under test is looked at: its required arguments and options,
# and what its body checks before it opens the vault, as (arguments, options). Left out: "x" for
# each required argument, the defaults for the rest.
VALID: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "context save": ((), ("--project", "p", "--action-type", "decision")),
    "episode store": ((), ("--session", "s", "--task", "t", "--outcome", "success")),
    "fact record": (("preference", "theme"), ()),
    "fact release": (("FACT-x",), ("--reason", "r")),
    "note edit": (("x",), ("--append", "y")),
    "pattern evidence": (("x",), ("--outcome", "success")),
    "run record": ((), ("--file", LOAN, "--tenant", "t")),
    "run list": ((), ("--tenant", "t")),
    "run recall": (("q",), ("--tenant", "t")),
    "tip feedback": (("x",), ("--helped",)),
    "run export": (("out.jsonl",), ("--format", "sft")),
    "hooks install": (("claude-code",), ()),
    "hooks uninstall": (("claude-code",), ()),
}
# Parameters typed `str` that name a file to read (a typed `Path` is swept without being listed).
FILES = {"--file", "paths", "session_log"}
# Paths where one that names nothing is fine: what the command creates.
CREATED = {("init", "path"), ("export ai-agents", "out")}
# Not swept: `brain hooks run` answers an agent and never fails it (exit 0 whatever its arguments,
# tests/agents/test_hooks.py), and the eager flags answer before anything is checked.
SKIPPED_COMMANDS = {"hooks run"}
LIBRARY_WORDS = ("Traceback", "Value error", "Input should be", "pydantic", "Usage:", "Try '")


def commands() -> Iterator[tuple[str, Any]]:
    """(`note edit`, its click command) for every command that runs, in the registry's order."""
    root = typer.main.get_command(app)

    def walk(command: Any, ctx: Any, path: str) -> Iterator[tuple[str, Any]]:
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                yield from walk(sub, typer.Context(sub, parent=ctx, info_name=name), f"{path} {name}".strip())
        elif path not in SKIPPED_COMMANDS:
            yield path, command

    yield from walk(root, typer.Context(root, info_name="brain"), "")


def named(param: Any) -> str:
    """How the command line names a parameter: `--limit` for an option, `paths` for an argument."""
    if param.param_type_name == "option":
        return next(opt for opt in param.opts if opt.startswith("--"))
    return param.name


def bad_values(path: str, param: Any) -> list[str]:
    """What is wrong for this parameter, from its declaration (its choices, bounds and type)."""
    descriptor = param.type_descriptor
    annotation, info = descriptor.annotation, descriptor.parameter_info
    item = annotation.__args__[0] if getattr(annotation, "__origin__", None) is list else annotation
    if descriptor.choices is not None:
        return ["bogus"]
    if item in (int, float):
        values = ["x"]
        step = 1 if item is int else 0.5
        if info.min is not None:
            values.append(str(info.min - step))
        if info.max is not None:
            values.append(str(info.max + step))
        return values
    if (item is Path and (path, param.name) not in CREATED) or named(param) in FILES:
        return ["{missing}"]
    return []


def cases() -> Iterator[Any]:
    for path, command in commands():
        for param in command.params:
            if getattr(param, "type_descriptor", None) is None or named(param) == "--help":
                continue
            for value in bad_values(path, param):
                yield pytest.param(path, named(param), value, id=f"{path} {named(param)} {value}")


def command_line(path: str, command: Any, option: str, value: str, vault: Path) -> list[str]:
    """The command with valid arguments and options, `value` in place of the one under test."""
    given, options = VALID.get(path, ((), ()))
    arguments = [param for param in command.params if param.param_type_name == "argument"]
    values = [*given, *["x"] * (sum(param.required for param in arguments) - len(given))]
    chosen = list(options)
    tested = next(param for param in command.params if getattr(param, "opts", None) and named(param) == option)
    if tested.param_type_name == "argument":
        position = arguments.index(tested)
        values += ["x"] * (position + 1 - len(values))
        values[position] = value
    elif option in chosen:
        chosen[chosen.index(option) + 1] = value
    else:
        chosen += [option, value]
    if option != "--vault" and any(named(param) == "--vault" for param in command.params):
        chosen += ["--vault", str(vault)]
    return [*path.split(), *values, *chosen]


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    created, _ = init_vault(tmp_path_factory.mktemp("usage") / "vault")
    (created.root / "notes").mkdir(exist_ok=True)
    (created.root / "notes" / "x.md").write_text("# x\n\nA note.\n", encoding="utf-8")
    return created.root


@pytest.fixture(autouse=True)
def _no_vault_from_the_environment(monkeypatch):
    monkeypatch.delenv("BRAIN_VAULT", raising=False)


def every_byte(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def assert_usage_error(result: Any, *names: str) -> str:
    """Exit 2, nothing on stdout, one `error: ` line naming one of `names`, in brain's words."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == "", result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert any(name in result.stderr for name in names), (names, result.stderr)
    assert not [words for words in LIBRARY_WORDS if words in result.stderr], result.stderr
    return result.stderr.rstrip("\n")


@pytest.mark.parametrize(("path", "option", "value"), list(cases()))
def test_a_bad_value_is_a_usage_error_naming_the_option(vault, tmp_path, path, option, value) -> None:
    command = dict(commands())[path]
    given = str(tmp_path / "missing" / "nothing") if value == "{missing}" else value
    before = every_byte(vault)
    result = run_brain(*command_line(path, command, option, given, vault), input="")
    if option.startswith("--"):
        assert_usage_error(result, option)
    else:  # an argument: by its name, or by the value it was given
        assert_usage_error(result, f"'{option}'", given)
    assert every_byte(vault) == before


def test_the_sweep_reaches_every_command_and_kind_of_value() -> None:
    swept = [case.values for case in cases()]
    assert {path for path, _, _ in swept} == {path for path, _ in commands()} - {"init"}  # init creates its path
    assert {"bogus", "x", "{missing}", "0", "-1"} <= {value for _, _, value in swept}
    assert {("search", "--limit", "0"), ("search", "--mode", "bogus"), ("note write", "--vault", "{missing}")} <= set(
        swept
    )


@pytest.mark.parametrize("path", [path for path, command in commands() if any(p.required for p in command.params)])
def test_a_required_argument_or_option_left_out_is_a_usage_error(vault, path) -> None:
    command = dict(commands())[path]
    missing = next(param for param in command.params if param.required)
    before = every_byte(vault)
    line = [*path.split(), *(["--vault", str(vault)] if any(named(p) == "--vault" for p in command.params) else [])]
    if missing.param_type_name == "option":  # its arguments given: the option is what is missing
        line[len(path.split()) : len(path.split())] = ["x"] * sum(
            1 for p in command.params if p.param_type_name == "argument" and p.required
        )
    message = assert_usage_error(run_brain(*line), named(missing) if missing.param_type_name == "option" else "'")
    assert message.startswith(f"error: missing {missing.param_type_name} ")
    assert every_byte(vault) == before


def test_the_error_words_each_kind_of_mistake() -> None:
    """The lines a new user meets, exactly."""
    assert run_brain("search", "x", "--mode", "bogus").stderr == (
        "error: --mode: 'bogus' is not one of: hybrid, text, vector\n"
    )
    assert run_brain("search", "x", "--limit", "0").stderr == "error: --limit: 0 is out of range; give 1 to 1000\n"
    assert run_brain("search", "x", "--limit", "x").stderr == "error: --limit: 'x' is not a whole number\n"
    assert run_brain("pattern", "list", "--min-success-rate", "2").stderr == (
        "error: --min-success-rate: 2 is out of range; give 0 to 1\n"
    )
    assert run_brain("note", "history", "x", "--version", "0").stderr == (
        "error: --version: 0 is out of range; give 1 or more\n"
    )
    assert (
        run_brain("search", "x", "--limt", "3").stderr
        == "error: no such option: --limt; did you mean --limit or --vault?\n"
    )
    assert run_brain("search", "x", "--limit").stderr == "error: --limit needs a value\n"
    assert run_brain("pattern", "evidence", "x").stderr.startswith(
        "error: missing option --outcome (one of: success, partial, failure); see `"
    )
    assert run_brain("search").stderr.startswith("error: missing argument 'query'; see `")


def test_a_taken_title_names_the_flag_that_replaces_it(vault) -> None:
    taken = run_brain("note", "write", "x", "--vault", str(vault), input="")
    assert (taken.exit_code, taken.stderr) == (
        1,
        "error: 'notes/x.md' already exists; give --overwrite to replace its body, or edit it\n",
    )


def test_a_relative_brain_vault_read_from_another_folder_says_so(tmp_path, monkeypatch) -> None:
    """`export BRAIN_VAULT=vault-example` in the repository, then brain from any other folder."""
    monkeypatch.setenv("BRAIN_VAULT", "vault-example")
    monkeypatch.chdir(tmp_path)
    expected = (
        f"error: $BRAIN_VAULT is 'vault-example', which does not exist in '{tmp_path.resolve()}' (a relative path "
        "is read from the current folder); set $BRAIN_VAULT to an existing vault (an absolute path works from any "
        "folder) or unset it, or give --vault PATH\n"
    )
    for args in (("search", "payments"), ("mcp",)):
        result = run_brain(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected)
    monkeypatch.delenv("BRAIN_VAULT")
    nowhere = run_brain("status")
    assert (nowhere.exit_code, nowhere.stderr) == (
        1,
        f"error: no vault found in '{tmp_path.resolve()}' or above it; create one with `brain init PATH`, "
        "give --vault PATH, or set $BRAIN_VAULT\n",
    )


def test_the_mcp_server_started_with_a_brain_vault_that_names_nothing_says_so(tmp_path) -> None:
    """As a client starts it: `brain mcp` in its own folder, the vault from the environment."""
    done = subprocess.run(
        [sys.executable, "-m", "brain", "mcp"],
        cwd=tmp_path,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "BRAIN_VAULT": "notes"},
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: $BRAIN_VAULT is 'notes', which does not exist in '{tmp_path.resolve()}'")
