"""Any session record -> episodes in the vault: agent transcripts (Claude Code, Codex) and ai-agents logs.

Every file is read and made into an episode before anything is written, so a bad file leaves the
vault as it was; then every episode is redacted (see `redact`) and stored. A text cut while the
episode is made (a long task, command or output) is redacted before it is cut. Storing the same
session again (a transcript that grew) updates the same episode note; another session whose id
begins alike gets a note of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.errors import BrainError, InvalidInput, UsageError
from brain.markdown.depth import MAX_DEPTH
from brain.memory.projects.service import ProjectRef, locate
from brain.memory.sessions.extract import Extracted
from brain.memory.sessions.redact import Redactor, markers, redactor_for
from brain.memory.sessions.transcripts.files import (
    AI_AGENTS,
    Act,
    ReadStats,
    TranscriptReader,
    detect_format,
    formats,
    transcript_files,
)
from brain.memory.sessions.transcripts.readers import READERS
from brain.vault.vault import TYPE_FOLDERS

if TYPE_CHECKING:
    from brain.memory.corpus import Corpus
    from brain.memory.episodes.service import StoredEpisode
    from brain.memory.sessions.transcript_episode import Builder

# The Context line an extraction writes; a stored one that still reads so is brain's, refreshed when stored again.
EXTRACTED_CONTEXT = re.compile(
    r"[A-Z][\w .-]* session `[^`\n]*`(?: in `[^`\n]*`)?, extracted by rules from `[^`\n]*`"
    r"(?: and \d+ subagent transcripts)?\."
)


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
    names: tuple[
        str, ...
    ] = ()  # the note names it may take, shortest first, all of the id last (see `named_for_session`)
    project: ProjectRef | None = None  # where the session ran (see `brain.memory.projects.service`)


def extract_transcript(
    path: str | Path,
    format: str | None = None,
    redactor: Redactor | None = None,
    *,
    readers: Sequence[TranscriptReader] = READERS,
) -> Extracted:
    """One file's episode: a transcript read by the reader of its format (detected unless given), or an
    ai-agents log. `redactor` (the vault's, else the built-in patterns) redacts each text before it is cut.
    `readers` are every agent's; a backfill, which reads one agent's store, narrows them to that agent's."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"'{path}' does not exist or is not a file; give a transcript or a session log")
    if format is not None and format not in formats(readers):
        raise UsageError(f"format '{format}' is not one of: {', '.join(formats(readers))}")
    kind = format or detect_format(file, readers)
    if kind == AI_AGENTS:
        from brain.memory.sessions.extract import extract_file

        return extract_file(file)
    from brain.memory.sessions.transcript_episode import Builder

    stats = ReadStats()
    reader = next(reader for reader in readers if reader.format == kind)
    builder = Builder(session_id="", redact=(redactor or Redactor()).text)
    builder.feed(_knowing_the_folder(reader.read(file, stats), builder, stats))
    if not stats.records:
        raise InvalidInput(f"{file.name} holds no {kind} records ({stats.skipped_lines} lines that are not JSON)")
    if stats.records == stats.unknown:  # not one record of the format: the wrong format, not a later version
        raise InvalidInput(_wrong_format(file, kind, readers))
    builder.session_id = stats.session_id or file.stem
    builder.cwd = stats.cwd
    warnings = []
    if stats.skipped_lines > stats.too_deep:
        warnings.append(f"{file.name}: skipped {stats.skipped_lines - stats.too_deep} lines that are not JSON")
    if stats.too_deep:
        warnings.append(f"{file.name}: skipped {stats.too_deep} lines nested too deep to read")
    if stats.pruned:
        warnings.append(
            f"{file.name}: read {stats.pruned} records without their values nested more than {MAX_DEPTH} levels deep"
        )
    if stats.unread:
        shown = ", ".join(f"{name} ({count})" for name, count in sorted(stats.unread.items()))
        warnings.append(f"{file.name}: skipped records of types brain does not know: {shown}")
    if builder.omitted_events:
        warnings.append(
            f"{file.name}: the timeline keeps the first {len(builder.events)} events; "
            f"{builder.omitted_events} more left out"
        )
    episode = builder.episode()
    label = reader.label
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
        names=tuple(builder.names()),
        project=locate(stats.cwd, branch=stats.git_branch, remote=stats.git_remote),
    )


def _knowing_the_folder(acts: Iterator[Act], builder: Builder, stats: ReadStats) -> Iterator[Act]:
    """The acts, the builder told the working folder as soon as the reader learns it: commands are
    said relative to it before they are cut short."""
    for act in acts:
        builder.cwd = builder.cwd or stats.cwd
        yield act


def _wrong_format(file: Path, kind: str, readers: Sequence[TranscriptReader]) -> str:
    try:
        looks = detect_format(file, readers)
    except InvalidInput:
        looks = None
    if looks is None or looks == kind:
        labels = " or ".join(reader.agent for reader in readers)
        return f"{file.name} has no {kind} records; give a {labels} transcript or an ai-agents log"
    return f"{file.name} has no {kind} records (its records look like {looks}); drop --format or pass --format {looks}"


def extract_paths(
    paths: Sequence[str | Path],
    format: str | None = None,
    redactor: Redactor | None = None,
) -> list[Extracted]:
    """Episodes from files and folders. A folder skips files that are neither transcripts nor logs
    (with a warning); a file named on its own that is not one is an error."""
    files = transcript_files(list(paths))
    named = {Path(p) for p in paths if Path(p).is_file()}
    results: list[Extracted] = []
    skipped: list[str] = []
    for file in files:
        try:
            results.append(extract_transcript(file, format, redactor))
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
    if isinstance(item, TranscriptExtracted):  # some values were redacted as they were cut: count them all
        return replace(item, episode=episode, redacted=markers(episode))
    return replace(
        item,
        episode=episode,
        warnings=item.warnings + ((f"redacted {count} values that look like secrets",) if count else ()),
    )


def store_extracted(
    corpus: Corpus, items: list[Extracted], *, dry_run: bool = False
) -> list[tuple[Extracted, str | None, str]]:
    """Redact and store each episode: (extract, note path, created|updated|unchanged|would write)."""
    vault = corpus.vault
    redactor = redactor_for(vault.brain_dir)
    results: list[tuple[Extracted, str | None, str]] = []
    for item in items:
        if dry_run:
            results.append((named_for_session(corpus, redacted(item, redactor)), None, "would write"))
            continue
        clean, stored = store_named(corpus, redacted(item, redactor))
        verb = "created" if stored.created else ("updated" if stored.changed else "unchanged")
        results.append((clean, stored.path, verb))
    return results


def store_named(corpus: Corpus, item: Extracted) -> tuple[Extracted, StoredEpisode]:
    """Name a redacted extract (`named_for_session`) and store it, both under the vault's write lock:
    two sessions whose ids begin alike, extracted at once, never take one name. The index hears of
    the note once the lock is let go."""
    vault = corpus.vault
    with vault.batched_changes(), vault.locked():
        named = named_for_session(corpus, item)
        return named, store_extract(corpus, named)


def named_for_session(corpus: Corpus, item: Extracted) -> Extracted:
    """A transcript's episode under the first of its names whose note holds the same session (a note an
    older brain named by the id's start keeps its name), else the longest name no note has: all of the
    session id, so that notes written on two machines never take one file name. Another session's
    note is never updated with this one. The episodes folder is looked at too: a note another
    process wrote a moment ago may not be indexed yet."""
    if not isinstance(item, TranscriptExtracted) or not item.names:
        return item
    names = item.names
    held = {
        note.title: note.frontmatter.get("session") for note in corpus.select("episode", lambda h: h.title in names)
    }
    for name in names:
        relative = f"{TYPE_FOLDERS['episode']}/{corpus.vault.filename_for(name)}"
        if name not in held and corpus.vault.safe_path(relative).is_file():
            held[name] = _session_of(corpus, relative)
    mine = [name for name in names if name in held and str(held[name]) == item.episode.session]
    free = [name for name in names if name not in held]
    if not mine and not free:
        raise InvalidInput(
            f"{names[-1]} is the note of another session; move it to extract session {item.episode.session}"
        )
    title = mine[0] if mine else free[-1]
    return replace(
        item, episode=replace(item.episode, title=title, episode_id="episode-" + title.removeprefix("EPISODE-"))
    )


def _session_of(corpus: Corpus, relative: str) -> Any:
    try:
        return corpus.vault.read(relative).note.frontmatter.get("session")
    except BrainError:  # a file brain cannot read as a note: taken all the same
        return None


def store_extract(corpus: Corpus, item: Extracted) -> StoredEpisode:
    """Store a redacted, named extract; a transcript's Context line is refreshed while it is brain's own."""
    from brain.memory.episodes.service import store_episode

    own = EXTRACTED_CONTEXT if isinstance(item, TranscriptExtracted) else None
    return store_episode(corpus, item.episode, extra_frontmatter=source_frontmatter(item), own_context=own)


def source_frontmatter(item: Extracted) -> dict[str, Any]:
    values: dict[str, Any] = {"source_log": item.source}
    if isinstance(item, TranscriptExtracted):
        values["source_format"] = item.format
        if item.project is not None:
            values.update(item.project.frontmatter())
    return values


def extract_into_vault(
    corpus: Corpus,
    paths: Sequence[str | Path],
    *,
    format: str | None = None,
    dry_run: bool = False,
) -> list[tuple[Extracted, str | None, str]]:
    vault = corpus.vault
    items = extract_paths(paths, format, redactor_for(vault.brain_dir))
    return store_extracted(corpus, items, dry_run=dry_run)
