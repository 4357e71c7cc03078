"""What is wrong with a value given to a command or a tool, worded once for both front ends.

The CLI names the option (`--mode: 'bogus' is not one of: hybrid, text, vector`), the MCP server
the argument (`search: argument 'mode': 'bogus' is not one of: hybrid, text, vector`); what follows
the name is worded here, from the option's or argument's declaration (its choices, its bounds, its
type), never by the validation library that refused the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SHOWN = 60  # characters of a refused value shown; a longer one is cut


def shown(value: Any) -> str:
    """The value as typed, quoted when it is text, cut short when long."""
    text = _number(value) if isinstance(value, int | float) and not isinstance(value, bool) else repr(value)
    return text if len(text) <= SHOWN else f"{text[: SHOWN - 2]}..."


def not_one_of(value: Any, choices: Sequence[Any]) -> str:
    return f"{shown(value)} is not one of: {', '.join(str(choice) for choice in choices)}"


def out_of_range(value: Any, low: float | None, high: float | None) -> str:
    """`0 is out of range; give 1 to 1000` (or `give 1 or more`, `give at most 10`)."""
    if low is not None and high is not None:
        wanted = f"{_number(low)} to {_number(high)}"
    elif low is not None:
        wanted = f"{_number(low)} or more"
    elif high is not None:
        wanted = f"at most {_number(high)}"
    else:
        return f"{shown(value)} is out of range"
    return f"{shown(value)} is out of range; give {wanted}"


def not_a(value: Any, kind: str) -> str:
    """`'x' is not a whole number`, `5 is not text`."""
    return f"{shown(value)} is not {kind}"


def too_long(length: int, most: int, unit: str) -> str:
    return f"is {length} {unit} long; give at most {most} {unit}"


def _number(value: float) -> str:
    """1 for 1.0, 0.5 for 0.5: a bound or a value as a person writes it."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
