"""Command-line values converted without pydantic when they are plainly valid.

typer (0.29) converts every parameter's value with a pydantic TypeAdapter: importing pydantic and
building the adapters cost every `brain` command more CPU than the rest of a text search. brain's
parameters are plain types (str, int and float with bounds, Path, list[str], Literal and Enum
choices), whose valid values need no pydantic: such a value is converted here to
exactly what typer's adapter returns (tests/cli/test_startup.py checks both agree on every
parameter). Anything else, an invalid value above all, goes to typer's own adapter, so every error
message stays typer's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

from brain.cli.typer_private import (
    Command,
    Context,
    Parameter,
    RuntimeParam,
    build_runtime_param,
    coerce_cli_choice,
    coerce_cli_path,
)

_Converted = TypeVar("_Converted", Command, Parameter)

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class _Fallback(Exception):
    """The value is not plainly valid: typer's adapter decides (and words the error)."""


@dataclass(frozen=True)
class DirectParam(RuntimeParam):
    """typer's RuntimeParam contract (None and multiple values handled by it), plain values converted here."""

    def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
        try:
            return _convert(self.annotation, self.parameter_info, value, param, ctx)
        except _Fallback:
            return build_runtime_param(param.type_descriptor)._coerce_value(value, param=param, ctx=ctx)


def _convert(annotation: Any, info: Any, value: Any, param: Any, ctx: Context) -> Any:
    if info.parser is not None:
        raise _Fallback
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        if not isinstance(value, list | tuple):
            raise _Fallback
        return [_convert(item, info, one, param, ctx) for one in value]
    if get_origin(annotation) is Literal or (isinstance(annotation, type) and issubclass(annotation, Enum)):
        choices = get_args(annotation) if get_origin(annotation) is Literal else list(annotation)
        try:
            return coerce_cli_choice(value, choices=choices, case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError:
            raise _Fallback from None
    if annotation is str and isinstance(value, str):
        return value
    if annotation is int or annotation is float:
        return _number(annotation, info, value)
    if annotation is Path and isinstance(value, str | Path) and info.path_type is None and str(value):
        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
    raise _Fallback


def _number(kind: type[int] | type[float], info: Any, value: Any) -> int | float:
    if isinstance(value, bool):
        raise _Fallback
    if isinstance(value, str):
        if not (_INT if kind is int else _FLOAT).fullmatch(value):
            raise _Fallback
        number = kind(value)
    elif isinstance(value, int) or (kind is float and isinstance(value, float)):
        number = kind(value)
    else:
        raise _Fallback
    if number != number or number in (float("inf"), float("-inf")):
        raise _Fallback
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        raise _Fallback  # out of range: typer clamps or refuses, in its words
    return number


def convert_directly(item: _Converted) -> _Converted:
    """Give a typer parameter the direct conversion; for a command, each of its parameters and subcommands'."""
    if isinstance(item, Parameter):
        descriptor = getattr(item, "type_descriptor", None)
        if descriptor is not None and descriptor.file_annotation is None and hasattr(item, "_runtime_param"):
            item._runtime_param = DirectParam(
                parameter_info=descriptor.parameter_info, annotation=descriptor.annotation
            )
        return item
    for param in item.params:
        convert_directly(param)
    help_option = item.get_help_option(item.context_class(item, **item.context_settings))  # built once, then kept
    if help_option is not None:
        convert_directly(help_option)
    for sub in getattr(item, "commands", {}).values():
        convert_directly(sub)
    return item
