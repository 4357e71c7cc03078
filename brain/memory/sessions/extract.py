"""Session log -> episode: tell a log's format apart, and read what it records.

Two ai-agents log formats exist on disk: JSON logs (`session`, `protocolCompliance`, `workLog`,
...) read by `json_logs`, and the older markdown logs (`# Session ...`, `**Date**:`, `## Work
Log`) read by `markdown_logs`. Both become the same `Episode` by the rules in `rules`. Nothing here
writes: `ingest` redacts the episodes and stores them (the one path from a log to the vault).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from brain.errors import InvalidInput
from brain.markdown.model import Episode
from brain.memory.sessions.json_logs import from_json
from brain.memory.sessions.markdown_logs import from_markdown


@dataclass(frozen=True)
class Extracted:
    """An episode made from one log, where it came from, and what was read leniently."""

    episode: Episode
    source: str
    format: str  # "json" | "markdown"
    warnings: tuple[str, ...] = ()


def extract_file(path: str | Path) -> Extracted:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{file.name} is not UTF-8 text, so not a session log") from None
    except OSError as error:
        raise InvalidInput(f"cannot read {file}: {error.strerror}") from None
    return extract_text(text, file.name)


def extract_text(text: str, name: str) -> Extracted:
    """An episode from a log's text; `name` is its file name (the session id comes from it)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"{name} is not valid JSON ({error.msg} at line {error.lineno})") from None
        if not (isinstance(data, dict) and isinstance(data.get("session"), dict)):
            raise InvalidInput(f"{name} is JSON but not a session log (no 'session' object)")
        episode, warnings = from_json(data, Path(name).stem)
        return Extracted(episode, name, "json", tuple(warnings))
    episode, warnings = from_markdown(text, Path(name).stem)
    return Extracted(episode, name, "markdown", tuple(warnings))
