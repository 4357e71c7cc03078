"""JSON-ready values from library objects: the one conversion both front ends use."""

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
