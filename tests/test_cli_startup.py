"""The CLI's entry point: a registry whose commands are imported only when they run, --version, completion."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import typer
from conftest import REPO, run_brain
from typer.testing import CliRunner

from brain.cli import COMMANDS, app

# Runs `brain` as `python -m brain` does, then prints every module the process had imported as it exits.
PROBE = (
    "import atexit, runpy, sys; atexit.register(lambda: print(*sorted(sys.modules), sep='\\n', file=sys.stderr)); "
    "sys.argv[0] = 'brain'; runpy.run_module('brain', run_name='__main__', alter_sys=True)"
)


def imported_modules(*args: str) -> set[str]:
    """Every module a new `brain ARGS` process imported, after it exited 0."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(done.stderr.split())


def test_each_registry_summary_is_the_first_paragraph_of_its_commands_help():
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    for name, entry in COMMANDS.items():
        command = root.get_command(ctx, name)
        first_paragraph = " ".join((command.help or "").split("\n\n")[0].split())
        assert entry.summary == first_paragraph, f"COMMANDS[{name!r}].summary should be {first_paragraph!r}"


def test_help_lists_every_command_from_the_registry_without_importing_one():
    modules = imported_modules("--help")
    assert sorted(m for m in modules if m.startswith("brain.")) == ["brain.cli", "brain.cli.group", "brain.errors"]
    help_text = run_brain("--help").output
    assert list(COMMANDS) == [
        line.split()[0] for line in help_text.split("Commands:\n")[1].splitlines() if line.startswith("  ")
    ]
    assert "  note     Read and write any note.\n" in help_text
    assert "  init     Create a vault, or add the folders, templates and config an...\n" in help_text


def test_a_command_imports_its_own_module_only():
    modules = imported_modules("note", "--help")
    assert sorted(m for m in modules if m.startswith("brain.cli.")) == [
        "brain.cli.common",
        "brain.cli.group",
        "brain.cli.notes",
    ]


def test_a_mistyped_command_is_a_usage_error_naming_the_closest():
    result = run_brain("serch", "x")
    assert result.exit_code == 2
    assert "Error: No such command 'serch'. Did you mean 'search'?" in result.output
    result = run_brain("nosuch")
    assert result.exit_code == 2 and "Error: No such command 'nosuch'.\n" in result.output


def test_version_comes_from_the_package_metadata():
    result = run_brain("--version")
    assert result.exit_code == 0
    assert result.output == f"brain {importlib.metadata.version('brain-vault-memory')}\n"


def complete(words: str, shell: str = "bash") -> str:
    env = {"_BRAIN_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env |= {"COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    else:
        env |= {"_TYPER_COMPLETE_ARGS": words}
    result = CliRunner().invoke(app, [], prog_name="brain", env=env)
    assert result.exit_code == 0
    return result.output


def test_shell_completion_names_commands_subcommands_and_options():
    assert complete("brain se") == "search\nsession\n"
    assert complete("brain note r") == "read\nrestore\n"
    assert complete("brain --ver") == "--version\n"
    assert complete("brain se", "zsh") == (
        '_arguments \'*: :(("search":"Find notes by meaning and by words; each..."\n'
        '"session":"The session protocol\\\\: what to do when a..."))\'\n'
    )


def test_install_completion_is_offered():
    help_text = run_brain("--help").output
    assert "  --install-completion  Install completion for the current shell.\n" in help_text
    assert "  --version             Show the version and exit.\n" in help_text
