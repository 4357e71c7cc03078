"""The CLI's entry point: a registry whose commands are imported only when they run, --version, completion."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import typer
from typer.testing import CliRunner

from brain.cli import COMMANDS, app
from tests.conftest import run_brain, write
from tests.helpers.cli_probe import REPO, heavy, imported_modules, probe


def test_each_registry_summary_is_the_first_paragraph_of_its_commands_help():
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    for name, entry in COMMANDS.items():
        command = root.get_command(ctx, name)
        first_paragraph = " ".join((command.help or "").split("\n\n")[0].split())
        assert entry.summary == first_paragraph, f"COMMANDS[{name!r}].summary should be {first_paragraph!r}"


def test_help_lists_every_command_from_the_registry_without_importing_one():
    modules = imported_modules("--help")
    assert sorted(m for m in modules if m.startswith("brain.")) == [
        "brain.cli",
        "brain.cli.coerce",
        "brain.cli.group",
        "brain.cli.registry",
        "brain.cli.typer_private",
        "brain.errors",
    ]
    help_text = run_brain("--help").output
    assert list(COMMANDS) == [
        line.split()[0] for line in help_text.split("Commands:\n")[1].splitlines() if line.startswith("  ")
    ]
    assert "  note     Read and write any note.\n" in help_text
    assert "  init     Create a vault, or add what an existing folder lacks (to an...\n" in help_text


def test_mcp_help_names_every_tool_group(brain) -> None:
    from brain.mcp.server import GROUPS

    shown = brain("mcp", "--help").output
    assert (
        "core, episodic, runs, causal, learning, facts, maintenance, or all (default: every group but maintenance, "
        "whose reindex rebuilds the index)"
    ) in " ".join(shown.split())
    from brain.mcp.cli import TOOL_GROUPS

    assert set(TOOL_GROUPS) == set(GROUPS)


def test_a_command_imports_its_own_module_only():
    modules = imported_modules("note", "--help")
    commands = {m for m in modules if m.startswith("brain.cli.") or (m != "brain.cli" and m.endswith("cli"))}
    assert sorted(commands) == [
        "brain.cli.coerce",
        "brain.cli.common",
        "brain.cli.group",
        "brain.cli.registry",
        "brain.cli.typer_private",
        "brain.memory.notes.cli",
    ]


def test_help_a_note_read_and_a_text_search_import_no_heavy_module(vault):
    """numpy, onnxruntime, chromadb, networkx, markdown-it, pydantic: none is needed to list commands, read a note
    or search by words in a current index."""
    write(vault, "notes/Idempotency keys.md", "# Idempotency keys\n\nRetries need a key per write.\n")
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    assert heavy(imported_modules("--help")) == []
    assert heavy(imported_modules("note", "read", "Idempotency keys", "--vault", str(vault.root))) == []
    assert heavy(imported_modules("search", "retries", "--mode", "text", "--vault", str(vault.root))) == []


def test_paths_and_chains_through_the_causal_graph_import_no_networkx(vault):
    """networkx (~0.27 s to import) is for cycles and GraphML; a path or a why is found without it."""
    write(
        vault,
        "patterns/Retry.md",
        "---\ntype: pattern\n---\n# Retry\n\n## Causal Relationships\n- causes [[Duplicate writes]]\n",
    )
    write(vault, "notes/Duplicate writes.md", "# Duplicate writes\n\ncaused by retries\n")
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    out, modules = probe("pattern", "path", "Retry", "Duplicate writes", "--vault", str(vault.root))
    assert out == "Retry\n  --causes--> Duplicate writes\n1 hops, reliability 0.50\n"
    assert heavy(modules) == []
    assert heavy(imported_modules("causal", "why", "Duplicate writes", "--vault", str(vault.root))) == []


def test_status_names_the_embedder_without_loading_it(vault):
    """The model's id, source and dimension are known without loading it (the dimension is remembered
    per model file once asked): `brain status` imports neither onnxruntime nor numpy."""
    write(vault, "notes/Idempotency keys.md", "# Idempotency keys\n\nRetries need a key per write.\n")
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0  # embeds with the real model
    out, modules = probe("status", "--vault", str(vault.root))
    assert "embedder  all-MiniLM-L6-v2:int8-rows-onnx\n" in out
    assert "vectors   1 chunk in " in out
    assert heavy(modules) == []


def test_numpy_gets_one_blas_thread_unless_the_user_chose(monkeypatch):
    code = (
        "import atexit, os, runpy, sys; atexit.register(lambda: print(os.environ.get('OPENBLAS_NUM_THREADS'))); "
        "sys.argv = ['brain', '--version']; runpy.run_module('brain', run_name='__main__')"
    )
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    run = lambda extra: subprocess.run(  # noqa: E731
        [sys.executable, "-c", code], capture_output=True, text=True, env={**env, **extra}, cwd=REPO
    )
    assert run({}).stdout.splitlines()[-1] == "1"
    assert run({"OPENBLAS_NUM_THREADS": "4"}).stdout.splitlines()[-1] == "4"


def test_a_hook_is_answered_without_typer(vault):
    """`brain hooks run` runs before an agent can answer: it is parsed without typer (agents/runner.py)."""
    out, modules = probe("hooks", "run", "session-start", "--vault", str(vault.root))
    assert out == ""  # an empty vault has nothing to say
    assert not any(m == "typer" or m.startswith("typer.") for m in modules)
    assert "brain.cli.registry" not in modules


def test_the_hook_runner_takes_exactly_the_options_of_the_typer_command():
    from brain.agents.runner import parser

    root = typer.main.get_command(app)
    hooks = root.get_command(typer.Context(root), "hooks")
    command = hooks.get_command(typer.Context(hooks), "run")
    typer_names = {param.name: param.default for param in command.params}
    argparse_names = {action.dest: action.default for action in parser()._actions}
    assert typer_names == argparse_names
    assert argparse_names["budget"] is None  # the vault's [hooks] budget applies


def test_a_mistyped_command_is_a_usage_error_naming_the_closest():
    result = run_brain("serch", "x")
    assert result.exit_code == 2
    assert result.stderr == "error: no such command 'serch'; did you mean 'search'?\n"
    result = run_brain("nosuch")
    assert result.exit_code == 2 and result.stderr.startswith("error: no such command 'nosuch'; see `")


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


def every_command(command, ctx):
    yield command, ctx
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            yield from every_command(sub, typer.Context(sub, parent=ctx, info_name=name))


SAMPLES = {
    "str": ["x", "", "  spaced  ", "ünïcode", "-"],
    "int": ["5", "+5", "-3", "007", "0", "1", "100", "101", "65535", "65536", 5, 0, "1.5", "x", "", " 5", "1_000"],
    "float": ["0.5", "1", "1e3", ".5", "5.", "-0.1", 1, 0.5, "inf", "nan", "x", "", "86401", "0.05"],
    "path": ["a/b", ".", "~", "", "note.md"],
}


def outcome(runtime, value, param, ctx):
    try:
        converted = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as error:  # a BadParameter, worded by typer
        return (
            "error",
            type(error).__name__,
            error.format_message() if hasattr(error, "format_message") else str(error),
        )
    return ("ok", type(converted).__name__, repr(converted))


def test_direct_conversion_agrees_with_typers_adapter_on_every_parameter():
    """brain/cli/coerce.py converts plain values without pydantic: same value, same type, same error as typer's."""
    from brain.cli.coerce import DirectParam
    from brain.cli.typer_private import build_runtime_param

    root = typer.main.get_command(app)
    checked = 0
    for command, ctx in every_command(root, typer.Context(root, info_name="brain")):
        for param in command.params:
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is None:
                continue
            annotation = descriptor.annotation
            choices = descriptor.choices
            if choices is not None:
                values = [getattr(c, "value", c) for c in choices] + [
                    "nope",
                    str(getattr(choices[0], "value", choices[0])).upper(),
                ]
            elif annotation is int or annotation is float:
                values = SAMPLES["int"] + SAMPLES["float"]
            elif annotation is str:
                values = SAMPLES["str"]
            elif getattr(annotation, "__origin__", None) is list:
                values = [("a", "b"), [], ("",)]
            elif annotation is bool:
                values = ["true", "no"]
            else:
                values = SAMPLES["path"]
            direct = DirectParam(parameter_info=descriptor.parameter_info, annotation=annotation)
            typers = build_runtime_param(descriptor)
            for value in values:
                assert outcome(direct, value, param, ctx) == outcome(typers, value, param, ctx), (
                    command.name,
                    param.name,
                    value,
                )
                checked += 1
    assert checked > 500
