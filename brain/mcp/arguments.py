"""An argument of the wrong type, missing or out of range, in one line in brain's words.

The SDK turns pydantic's `ValidationError` into a tool error holding pydantic's text: several
lines ending in a documentation URL, naming an internal model, worded as pydantic words things
("Input should be a valid integer, unable to parse string as an integer"). An agent needs the
argument and what is wrong with it, once, as the CLI says it for an option (brain/refusals.py
words both): `search: argument 'mode': 'bogus' is not one of: hybrid, text, vector`. What the value
should be comes from the tool's input schema (its choices and bounds), as the agent read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from brain.refusals import not_a, not_one_of, out_of_range, shown, too_long

KINDS = {  # pydantic's error type -> what the value is not
    "int_parsing": "a whole number",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "string_type": "text",
    "list_type": "a list",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "dict_type": "an object",
    "model_type": "an object",
}
BOUNDS = {"greater_than_equal", "less_than_equal", "greater_than", "less_than"}


def argument_errors(tool: str, error: ValidationError, schema: Mapping[str, Any]) -> str:
    """One line naming each wrong argument, e.g. `read_note: argument 'name': 5 is not text`."""
    parts = []
    for problem in error.errors(include_url=False):
        location = problem["loc"]
        where = ".".join(str(part) for part in location) or "arguments"
        if problem["type"] == "missing":
            parts.append(f"argument '{where}' is required")
            continue
        declared = _declared(schema, str(location[0])) if location else {}
        parts.append(f"argument '{where}': {_wrong(problem, declared)}")
    return f"{tool}: " + "; ".join(parts)


def _wrong(problem: Mapping[str, Any], declared: Mapping[str, Any]) -> str:
    kind, given, context = problem["type"], problem.get("input"), problem.get("ctx") or {}
    if kind in ("literal_error", "enum"):
        choices = declared.get("enum")
        if choices:
            return not_one_of(given, choices)
    if kind in BOUNDS:
        low = declared.get("minimum", context.get("ge", context.get("gt")))
        high = declared.get("maximum", context.get("le", context.get("lt")))
        return out_of_range(given, low, high)
    if kind == "string_too_long" and isinstance(given, str):
        return too_long(len(given), context.get("max_length", 0), "characters")
    if kind == "too_long" and isinstance(given, list | tuple | dict):
        return too_long(len(given), context.get("max_length", 0), "items")
    if kind in KINDS:
        return not_a(given, KINDS[kind])
    message = " ".join(str(problem.get("msg", "")).split()).removeprefix("Input ").removeprefix("Value error, ")
    return f"{shown(given)}: {message[:1].lower()}{message[1:]}"


def _declared(schema: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The argument's schema; for an optional one (`anyOf` with null), the schema of its value."""
    found: Mapping[str, Any] = schema.get("properties", {}).get(name, {})
    for option in found.get("anyOf", ()):
        if option.get("type") != "null":
            return {**option, **{key: value for key, value in found.items() if key != "anyOf"}}
    return found
