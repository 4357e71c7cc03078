"""Any session record -> episodes in the vault: agent transcripts (Claude Code, Codex) and ai-agents logs.

Every file is read and made into an episode before anything is written, so a bad file leaves the
vault as it was; then every episode is redacted (see `redact`) and stored. Storing the same session
again (a transcript that grew) updates the same episode note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput
from brain.memory.sessions.extract import Extracted
from brain.memory.sessions.redact import Redactor, redactor_for
from brain.memory.sessions.transcripts import FORMATS, ReadStats, detect_format, transcript_files


@dataclass(frozen=True)
class TranscriptExtracted(Extracted):
    """An episode from a transcript, with what reading it met."""

    lines: int = 0
    skipped_lines: int = 0
    records: dict[str, int] = field(default_factory=dict)
    unknown_records: dict[str, int] = field(default_factory=dict)
    subagent_files: int = 0
    patterns_named: tuple[str, ...] = ()
    redacted: int = 0


def extract_transcript(path: str | Path, format: str | None = None) -> Extracted:
    """One file's episode: a transcript by its format (detected unless given), or an ai-agents log."""
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(f"'{path}' does not exist or is not a file; give a transcript or a session log")
    if format is not None and format not in FORMATS:
        raise InvalidInput(f"format '{format}' is not one of: {', '.join(FORMATS)}")
    kind = format or detect_format(file)
    if kind == "ai-agents":
        from brain.memory.sessions.extract import extract_file

        return extract_file(file)
    from brain.memory.sessions.transcript_episode import Builder

    stats = ReadStats()
    if kind == "claude-code":
        from brain.memory.sessions import claude_code as reader
    else:
        from brain.memory.sessions import codex as reader  # type: ignore[no-redef]
    acts = reader.read(file, stats)
    builder = Builder(session_id="")
    first = next(acts, None)  # the reader learns the session id as it goes; the builder needs it only at the end
    if first is not None:
        builder.feed([first])
    builder.feed(acts)
    if not stats.records:
        raise InvalidInput(f"{file.name} holds no {kind} records ({stats.skipped_lines} lines that are not JSON)")
    builder.session_id = stats.session_id or file.stem
    builder.cwd = stats.cwd
    warnings = []
    if stats.skipped_lines:
        warnings.append(f"{file.name}: skipped {stats.skipped_lines} lines that are not JSON")
    if stats.unknown:
        shown = ", ".join(f"{name} ({count})" for name, count in sorted(stats.unknown.items()))
        warnings.append(f"{file.name}: skipped records of types brain does not know: {shown}")
    if builder.omitted_events:
        warnings.append(
            f"{file.name}: the timeline keeps the first {len(builder.events)} events; "
            f"{builder.omitted_events} more left out"
        )
    episode = builder.episode()
    label = "Claude Code" if kind == "claude-code" else "Codex CLI"
    subagents = stats.files - 1
    context = f"{label} session `{builder.session_id}`" + (f" in `{stats.cwd}`" if stats.cwd else "")
    context += f", extracted by rules from `{file.name}`" + (
        f" and {subagents} subagent transcripts" if subagents else ""
    )
    return TranscriptExtracted(
        episode=replace(episode, context=context + "."),
        source=file.name,
        format=kind,
        warnings=tuple(warnings),
        lines=stats.lines,
        skipped_lines=stats.skipped_lines,
        records=dict(stats.records),
        unknown_records=dict(stats.unknown),
        subagent_files=stats.files - 1,
        patterns_named=tuple(sorted(stats.patterns_named)),
    )


def extract_paths(paths: Sequence[str | Path], format: str | None = None) -> list[Extracted]:
    """Episodes from files and folders. A folder skips files that are neither transcripts nor logs
    (with a warning); a file named on its own that is not one is an error."""
    files = transcript_files(list(paths))
    named = {Path(p) for p in paths if Path(p).is_file()}
    results: list[Extracted] = []
    skipped: list[str] = []
    for file in files:
        try:
            results.append(extract_transcript(file, format))
        except InvalidInput as error:
            if file in named:
                raise
            skipped.append(f"skipped {file.name}: {error}")
    if not results:
        raise InvalidInput(
            f"{', '.join(str(p) for p in paths)}: no transcripts or session logs ({len(skipped)} files skipped)"
        )
    if skipped:
        results[0] = replace(results[0], warnings=results[0].warnings + tuple(skipped))
    return results


def redacted(item: Extracted, redactor: Redactor) -> Extracted:
    """The extract with every value of its episode redacted, and how many values were."""
    before = redactor.count
    episode = redactor.value(item.episode)
    count = redactor.count - before
    if isinstance(item, TranscriptExtracted):
        return replace(item, episode=episode, redacted=count)
    return replace(
        item,
        episode=episode,
        warnings=item.warnings + ((f"redacted {count} values that look like secrets",) if count else ()),
    )


def store_extracted(
    vault, corpus, items: list[Extracted], *, dry_run: bool = False
) -> list[tuple[Extracted, str | None, str]]:
    """Redact and store each episode: (extract, note path, created|updated|unchanged|would write)."""
    from brain.memory.episodes.service import store_episode

    redactor = redactor_for(vault.brain_dir)
    results: list[tuple[Extracted, str | None, str]] = []
    for item in items:
        clean = redacted(item, redactor)
        if dry_run:
            results.append((clean, None, "would write"))
            continue
        stored = store_episode(vault, corpus, clean.episode, extra_frontmatter=source_frontmatter(clean))
        verb = "created" if stored.created else ("updated" if stored.changed else "unchanged")
        results.append((clean, stored.path, verb))
    return results


def source_frontmatter(item: Extracted) -> dict[str, Any]:
    values: dict[str, Any] = {"source_log": item.source}
    if isinstance(item, TranscriptExtracted):
        values["source_format"] = item.format
    return values


def extract_into_vault(vault, corpus, paths: Sequence[str | Path], *, format: str | None = None, dry_run: bool = False):
    return store_extracted(vault, corpus, extract_paths(paths, format), dry_run=dry_run)
