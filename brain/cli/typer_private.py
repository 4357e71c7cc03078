"""The names brain takes from typer's private modules, all in one place.

typer 0.29 carries its own copy of click (`typer._click`) and no longer depends on the click package
(a click installed beside it, for other packages, is another copy: typer's commands, contexts and
errors are not its classes). typer publishes none of the click names brain's command group needs,
so they come from that copy:

- `Command`, `Context`, `HelpFormatter`, `Parameter`: the types of what typer builds and passes
  (`typer.Context` is a subclass, and not the class of the contexts typer makes);
- `UsageError` and its kinds (`BadParameter`, `MissingParameter`, `NoSuchOption`, `BadOptionUsage`,
  `NoArgsIsHelpError`): what a wrong command line raises, worded on one line by `usage_line` in brain/cli/group.py
  (and an unknown command's, caught to suggest names that are not imported yet);
- `CompletionItem`, `make_default_short_help`: completion and `brain --help` from the registry's
  summaries, without importing a command module to ask it;
- `BashComplete`, `add_completion_class`: typer's bash completion, and the way to put brain's in its
  place (candidates escaped as bash reads a word: a note's title holds spaces).

Start-up time needs the rest (brain/cli/coerce.py): typer converts every value with pydantic, and
brain converts plain values itself, exactly as typer would, through typer's converter contract
(`RuntimeParam`), its own converter for anything else (`build_runtime_param`), and its rules for
choices and paths (`coerce_cli_choice`, `coerce_cli_path`).

pyproject.toml pins typer to 0.29.x for these names; tests/cli/test_startup.py checks that brain's
conversion agrees with typer's on every parameter.
"""

from typer._click import Command, Context, HelpFormatter, Parameter
from typer._click.exceptions import (
    BadOptionUsage,
    BadParameter,
    MissingParameter,
    NoArgsIsHelpError,
    NoSuchOption,
    UsageError,
)
from typer._click.shell_completion import CompletionItem, add_completion_class
from typer._click.utils import make_default_short_help
from typer._coercion import RuntimeParam, build_runtime_param
from typer._completion_classes import BashComplete
from typer._param_types import coerce_cli_choice, coerce_cli_path

__all__ = [
    "BadOptionUsage",
    "BadParameter",
    "BashComplete",
    "Command",
    "CompletionItem",
    "Context",
    "HelpFormatter",
    "MissingParameter",
    "NoArgsIsHelpError",
    "NoSuchOption",
    "Parameter",
    "RuntimeParam",
    "UsageError",
    "add_completion_class",
    "build_runtime_param",
    "coerce_cli_choice",
    "coerce_cli_path",
    "make_default_short_help",
]
