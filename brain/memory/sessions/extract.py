"""Session log -> episode: find the logs, tell their format apart, and read what they record.

Two ai-agents log formats exist on disk: JSON logs (`session`, `protocolCompliance`, `workLog`,
...) read by `json_logs`, and the older markdown logs (`# Session ...`, `**Date**:`, `## Work
Log`) read by `markdown_logs`. Both become the same `Episode` by the rules in `rules`. Nothing here
writes: `ingest` redacts the episodes and stores them (the one path from a log to the vault).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from brain.errors import InvalidInput
from brain.memory.sessions.json_logs import from_json
from brain.memory.sessions.markdown_logs import from_markdown
from brain.notes.model import Episode

LOG_SUFFIXES = (".json", ".md")


@dataclass(frozen=True)
class Extracted:
    """An episode made from one log, where it came from, and what was read leniently."""

    episode: Episode
    source: str
    format: str  # "json" | "markdown"
    warnings: tuple[str, ...] = ()


def session_logs(path: str | Path) -> list[Path]:
    """The log files a path names: the file itself, or every .json/.md file in a folder (sorted)."""
    target = Path(path)
    if target.is_dir():
        found = sorted(p for p in target.rglob("*") if p.is_file() and p.suffix.lower() in LOG_SUFFIXES)
        if not found:
            raise InvalidInput(f"{path} holds no .json or .md session logs")
        return found
    if not target.is_file():
        raise InvalidInput(f"session log '{path}' does not exist; give a session log file or a folder of them")
    return [target]


def extract_path(path: str | Path) -> list[Extracted]:
    """Episodes from a log file or a folder of logs. A folder skips files that are not session logs
    (with a warning on the first one kept); a single file that is not a session log is an error."""
    files = session_logs(path)
    results: list[Extracted] = []
    skipped: list[str] = []
    for file in files:
        try:
            results.append(extract_file(file))
        except InvalidInput as error:
            if len(files) == 1:
                raise
            skipped.append(f"skipped {file.name}: {error}")
    if not results:
        raise InvalidInput(f"{path} holds no session logs ({len(skipped)} files skipped)")
    if skipped:
        first = results[0]
        results[0] = replace(first, warnings=first.warnings + tuple(skipped))
    return results


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
