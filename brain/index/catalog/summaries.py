"""Per-note values kept on disk beside the catalog, by the sha256 of each note's file.

A value computed from a note (what the first-prompt hook compares a prompt with, for each
pattern) depends on the note's bytes alone, so it stays right for as long as the file's hash in
the catalog is the same: a later process computes it again only for the notes that changed. Each
set of values is one JSON file in `.brain/index/summaries/`, derived and disposable like the rest
of the index: a damaged or unreadable file is recomputed, never an error, and `brain reindex`
removes them all. Every value read is checked against the shape its set declares (`has_shape`): a
value of another shape under the right hash (a file edited by hand, written by another version of
brain) is computed again, like a missing one. The name of a set says what computes it (`bootstrap-pattern-candidates-2`): a
change of what the values mean takes a new name.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Any, get_args

from brain.index.embedders.model_cache import remember_json


def summary_path(index_dir: Path, name: str) -> Path:
    return index_dir / "summaries" / f"{name}.json"


@dataclass(frozen=True)
class ListOf:
    """A list of exactly `count` items of one kind."""

    kind: Kind
    count: int


Kind = type | UnionType | ListOf  # a JSON type (float: any number), a union of them (`int | None`), or a list


def has_shape(value: Any, shape: tuple[Kind, ...], *, or_none: bool = False) -> bool:
    """Whether `value` is a list of exactly these kinds, in order (or None, when `or_none`)."""
    if value is None:
        return or_none
    return isinstance(value, list) and len(value) == len(shape) and all(map(_is, value, shape))


def _is(item: Any, kind: Kind) -> bool:
    if isinstance(kind, ListOf):
        return isinstance(item, list) and len(item) == kind.count and all(_is(part, kind.kind) for part in item)
    kinds = get_args(kind) or (kind,)
    if isinstance(item, bool):  # JSON's true is no number
        return bool in kinds
    if float in kinds and isinstance(item, int):
        return True
    return isinstance(item, kinds)


def load(path: Path, fits: Callable[[Any], bool]) -> dict[str, list[Any]]:
    """path of a note -> [its file's sha256, the value], for the values `fits` accepts; empty when the
    file is missing or damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        key: item
        for key, item in data.items()
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and fits(item[1])
    }


def save(path: Path, values: dict[str, list[Any]]) -> None:
    """Replace the file at once; a disk that refuses the write (or values JSON cannot hold) only
    costs the next process the same work again."""
    remember_json(path, values, indent=None)


def forget(index_dir: Path) -> None:
    """Remove every set of values (`brain reindex`: they are made again, by this brain's code)."""
    shutil.rmtree(index_dir / "summaries", ignore_errors=True)
