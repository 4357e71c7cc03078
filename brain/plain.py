"""JSON-ready values from library objects, and counts in words: the conversions both front ends use."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any


def plain(value: Any) -> Any:
    """Dataclasses, tuples, paths and anything else as JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 note`, `2 notes` (`plural` when adding an s is not the plural)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
