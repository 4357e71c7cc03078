"""The `brain` group: commands imported only when they run, and library errors translated once.

A command that is not run costs nothing at start-up: `brain --help` lists every command from the
registry in brain/cli/registry.py (name, module, one-line help) without importing any command module,
and `brain note read` imports the note commands alone.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, MutableMapping
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from difflib import get_close_matches
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar

import typer
from typer.core import TyperGroup
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo

from brain.cli.coerce import convert_directly
from brain.cli.typer_private import (
    BadOptionUsage,
    BadParameter,
    BashComplete,
    Command,
    CompletionItem,
    Context,
    HelpFormatter,
    MissingParameter,
    NoArgsIsHelpError,
    NoSuchOption,
    Parameter,
    UsageError,
    add_completion_class,
    make_default_short_help,
)
from brain.errors import BrainError, one_line, storage_error
from brain.errors import UsageError as BrainUsageError


@dataclass(frozen=True)
class Lazy:
    """One command of the registry.

    `target` is a module whose `app` (a typer.Typer) is a command group, or `module:function` for one
    command. `summary` is the first paragraph of the command's help: what `brain --help` shows (trimmed
    to the terminal's width), so the module need not be imported to list it.
    """

    target: str
    summary: str


opened_vaults: list[
    Path
] = []  # the vaults this process opened (cli/common.open_vault): the disk a storage error is about


_command_scopes: list[ExitStack] = []  # one per command running (see `until_the_command_ends`)


def until_the_command_ends(manager: AbstractContextManager[Any]) -> None:
    """Enter `manager` and leave it when the running command ends (at once when no command runs:
    a library caller of cli code)."""
    if _command_scopes:
        _command_scopes[-1].enter_context(manager)


class BrainGroup(TyperGroup):
    """Translates library errors once, for every command below it, and names the command as the
    writer of the versions the note history keeps (`by: cli`, `command: note edit`).

    A BrainError becomes one line on stderr, its remedies in the CLI's words (cli/remedies.py), and
    exit code 1; a usage error (typer's, worded by `usage_line` below, or brain's `UsageError`) one line
    and exit code 2. A fault of the disk (full, read-only, failing; `errors.storage_error`) raised by
    a library brain uses is translated the same way; anything else is a bug and keeps its traceback.
    """

    def invoke(self, ctx: Any) -> Any:
        if ctx.parent is not None:  # a group below the root: the root checks, translates and names
            return super().invoke(ctx)
        from brain.vault.history import acting_as

        try:
            _require_utf8([*ctx._protected_args, *ctx.args])
            with acting_as("cli", self._command_name(ctx)), ExitStack() as scope, usage_in_one_line():
                _command_scopes.append(scope)
                try:
                    return super().invoke(ctx)
                finally:
                    _command_scopes.pop()
        except BrainError as error:
            _say(error)
            raise typer.Exit(2 if isinstance(error, BrainUsageError) else 1) from None
        except Exception as error:  # a full or read-only disk that got past the library: one line too
            translated = storage_error(error, disk=str(opened_vaults[-1]) if opened_vaults else None)
            if translated is None:
                raise
            _say(translated)
            raise typer.Exit(1) from None

    def _command_name(self, ctx: Any) -> str:
        """`note edit` for `brain note edit X --append Y`: the group and command words of the arguments."""
        leading = getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", None) or []
        words: list[str] = [word for word in [*leading, *ctx.args] if not word.startswith("-")]
        if not words:
            return ""
        try:
            command = self.get_command(ctx, words[0])
        except Exception:  # an unknown or broken command: click reports it; the name is only a label
            command = None
        if command is not None and hasattr(command, "get_command") and len(words) > 1:
            return f"{words[0]} {words[1]}"
        return words[0]


@contextmanager
def usage_in_one_line() -> Iterator[None]:
    """typer's usage errors (a bad option value, a missing argument, an unknown option) as one
    `error: ` line in brain's words (`usage_line`), exit code 2; a group called bare still shows its help."""
    try:
        yield
    except NoArgsIsHelpError:
        raise
    except UsageError as error:
        typer.echo(f"error: {one_line(usage_line(error))}", err=True)
        raise typer.Exit(2) from None


def _say(error: BrainError) -> None:
    """`error: <message>` on stderr, one line, its remedies in the CLI's words."""
    from brain.cli.remedies import CLI_WORDINGS  # only when an error is shown: start-up imports stay few

    typer.echo(f"error: {one_line(error.worded(CLI_WORDINGS))}", err=True)


def _require_utf8(arguments: list[str]) -> None:
    """Refuse an argument that is not UTF-8 (a 0xFF byte reaches Python as a lone surrogate,
    which no note, journal or index can hold): one line naming it, before anything runs."""
    for argument in arguments:
        if any("\udc80" <= char <= "\udcff" for char in argument):
            raw = argument.encode("utf-8", "surrogateescape")
            shown = repr(raw[:60])[2:-1] + ("..." if len(raw) > 60 else "")
            raise BrainUsageError(f"the argument '{shown}' is not UTF-8 text; give it in UTF-8")


class LazyGroup(BrainGroup):
    """A group whose commands come from `registry` and are imported at their first use."""

    registry: ClassVar[dict[str, Lazy]] = {}

    def list_commands(self, ctx: Context) -> list[str]:
        return [*self.registry, *(name for name in self.commands if name not in self.registry)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name not in self.commands and cmd_name in self.registry:
            self.commands[cmd_name] = self.load(cmd_name)
        return self.commands.get(cmd_name)

    def load(self, name: str) -> Command:
        """Import the module of command `name` and build its click command, as `add_typer` would."""
        module_name, _, function = self.registry[name].target.partition(":")
        module = importlib.import_module(module_name)
        if function:
            command: Command = get_command_from_info(
                CommandInfo(name=name, callback=getattr(module, function)),
                pretty_exceptions_short=True,
                rich_markup_mode=self.rich_markup_mode,
            )
        else:
            command = get_group_from_info(
                TyperInfo(module.app, name=name),
                pretty_exceptions_short=True,
                rich_markup_mode=self.rich_markup_mode,
                suggest_commands=self.suggest_commands,
            )
        return convert_directly(command)  # valid values without importing pydantic (brain/cli/coerce.py)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        convert_directly(self)  # its own options (--version, completion, --help): typer adds them after __init__
        with usage_in_one_line():  # `brain --bogus`: the commands' own are read inside `invoke`
            return super().parse_args(ctx, args)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """The command list of `brain --help`, from the registry's summaries: nothing is imported."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, make_default_short_help(self._summary(ctx, name), limit).strip()) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _main_shell_completion(
        self, ctx_args: MutableMapping[str, Any], prog_name: str, complete_var: str | None = None
    ) -> None:
        """typer's shell completion, answering when the shell asks ($_BRAIN_COMPLETE), bash's candidates escaped."""
        add_completion_class(EscapedBashComplete, "bash")
        super()._main_shell_completion(ctx_args, prog_name, complete_var)

    def shell_complete(self, ctx: Context, incomplete: str) -> list[CompletionItem]:
        """Command names for shell completion, from the registry (options too, as click completes them)."""
        names = [name for name in self.list_commands(ctx) if name.startswith(incomplete)]
        items = [CompletionItem(name, help=make_default_short_help(self._summary(ctx, name))) for name in names]
        return items + Command.shell_complete(self, ctx, incomplete)

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        """As typer's, with "Did you mean" drawn from every registered name, not only those imported."""
        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            matches = get_close_matches(args[0], self.list_commands(ctx)) if args and self.suggest_commands else []
            if matches and "Did you mean" not in error.message:
                suggestions = ", ".join(f"{match!r}" for match in matches)
                error.message = f"{error.message.rstrip('.')}. Did you mean {suggestions}?"
            raise

    def _summary(self, ctx: Context, name: str) -> str:
        if name in self.registry:
            return self.registry[name].summary
        command = self.get_command(ctx, name)
        return (command.help or "") if command is not None else ""


class EscapedBashComplete(BashComplete):
    """typer's bash completion, each candidate escaped as bash reads a word (as `printf %q` would):
    bash puts a candidate on the line as it is, so a note's title with spaces would become several
    arguments. zsh and fish quote what they insert themselves."""

    def format_completion(self, item: CompletionItem) -> str:
        return _SHELL_SPECIAL.sub(r"\\\g<0>", item.value)


_SHELL_SPECIAL = re.compile(r"[^\w@%+=:,./-]")  # shlex's safe characters stay as they are


# ---------------------------------------------------------------- usage errors in brain's words
#
# typer reports a usage error itself, in several lines (the usage, a hint, then the error), and
# words a bad value with pydantic's text ("Value error, 'bogus' is not one of ...", "Input should
# be greater than or equal to 1"). `usage_line` words each kind as brain's other errors are worded:
# what is wrong, naming the option with its dashes, and what to give instead ("--mode: 'bogus' is
# not one of: hybrid, text, vector"). A bad value is worded from the option's declaration (its
# choices, its bounds, its type) by brain/refusals.py, as the MCP server words a bad
# argument, never from the validation library's message.


def usage_line(error: UsageError) -> str:
    """The error as one line (without `error: `): the option or argument named as typed, and the fix."""
    if isinstance(error, MissingParameter) and error.param is not None:
        return f"missing {error.param.param_type_name} {_named(error.param)}{_choices_hint(error.param)}{_help(error)}"
    if isinstance(error, BadParameter) and error.param is not None:
        return f"{_named(error.param)}: {_bad_value(error, error.param)}"
    if isinstance(error, NoSuchOption):
        guesses = sorted(error.possibilities or ())
        guess = f"; did you mean {' or '.join(guesses)}?" if guesses else ""
        return f"no such option: {error.option_name}{guess}{_help(error) if not guess else ''}"
    if isinstance(error, BadOptionUsage) and "requires" in error.message:
        return f"{error.option_name} needs a value{_help(error)}"
    message = " ".join(error.format_message().split()).rstrip(".").removeprefix("Got ")
    guessed = ". Did you mean" in message  # an unknown command, and the names close to it
    message = message.replace(". Did you mean", "; did you mean")
    return f"{message[:1].lower()}{message[1:]}{'' if guessed else _help(error)}"


def _named(param: Parameter) -> str:
    """`--mode` for an option (its long name), `'query'` for an argument."""
    if param.param_type_name == "option":
        long = [opt for opt in param.opts if opt.startswith("--")]
        return (long or param.opts)[0]
    return f"'{param.name}'"


def _help(error: UsageError) -> str:
    return f"; see `{error.ctx.command_path} --help`" if error.ctx is not None else ""


def _choices(param: Parameter) -> list[str] | None:
    descriptor = getattr(param, "type_descriptor", None)
    choices = getattr(descriptor, "choices", None)
    if not choices:
        return None
    return [str(choice.value if isinstance(choice, Enum) else choice) for choice in choices]


def _choices_hint(param: Parameter) -> str:
    choices = _choices(param)
    return f" (one of: {', '.join(choices)})" if choices else ""


def _bad_value(error: BadParameter, param: Parameter) -> str:
    """What is wrong with the value, from the option's declaration (views/refusals.py words it)."""
    from brain.refusals import not_a, not_one_of, out_of_range

    value = _given(error)
    if value is None:
        return _without_library_words(error.message)
    choices = _choices(param)
    if choices is not None:
        return not_one_of(value, choices)
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    info = getattr(descriptor, "parameter_info", None)
    if annotation in (int, float):
        number = _number(annotation, value)
        if number is None:
            return not_a(value, "a whole number" if annotation is int else "a number")
        low, high = getattr(info, "min", None), getattr(info, "max", None)
        if low is not None or high is not None:
            return out_of_range(number, low, high)
    return f"{value!r} is {_without_library_words(error.message)}"


def _given(error: BadParameter) -> Any:
    """The value typed, as the validation library that refused it kept it (None when it did not)."""
    cause = error.__cause__
    problems = cause.errors() if cause is not None and hasattr(cause, "errors") else []
    return problems[0].get("input") if problems else None


def _number(kind: type, value: Any) -> int | float | None:
    try:
        return int(value) if kind is int else float(value)
    except (TypeError, ValueError, OverflowError):
        return None


_LIBRARY_WORDS = ("Value error, ", "Input should be ", "Input ")


def _without_library_words(message: str) -> str:
    """typer's message for a value brain does not declare (none today), its validation library's prefixes cut."""
    text = " ".join(message.split()).rstrip(".")
    for words in _LIBRARY_WORDS:
        text = text.replace(words, "")
    return f"not valid ({text})" if text else "not valid"
