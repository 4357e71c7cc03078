"""Per-note values kept on disk beside the catalog, by the sha256 of each note's file.

A value computed from a note (what the first-prompt hook compares a prompt with, for each
pattern) depends on the note's bytes alone, so it stays right for as long as the file's hash in
the catalog is the same: a later process computes it again only for the notes that changed. Each
set of values is one JSON file in `.brain/index/summaries/`, derived and disposable like the rest
of the index: a damaged or unreadable file is recomputed, never an error, and `brain reindex`
removes them all. The name of a set says what computes it (`bootstrap-pattern-candidates-1`): a
change of what the values mean takes a new name.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from brain.index.embedders.model_cache import write_json


def summary_path(index_dir: Path, name: str) -> Path:
    return index_dir / "summaries" / f"{name}.json"


def load(path: Path) -> dict[str, list[Any]]:
    """path of a note -> [its file's sha256, the value]; empty when the file is missing or damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: item for key, item in data.items() if isinstance(item, list) and len(item) == 2}


def save(path: Path, values: dict[str, list[Any]]) -> None:
    """Replace the file at once; a disk that refuses the write (or values JSON cannot hold) only
    costs the next process the same work again."""
    write_json(path, values, indent=None)


def forget(index_dir: Path) -> None:
    """Remove every set of values (`brain reindex`: they are made again, by this brain's code)."""
    shutil.rmtree(index_dir / "summaries", ignore_errors=True)
