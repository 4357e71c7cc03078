"""Episodic memory: store episodes from ai-agents-shaped data, list them, read their decisions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from brain.errors import InvalidInput, Remedy, UsageError
from brain.markdown.edit import replace_section, set_frontmatter
from brain.markdown.lines import escape_block, require_one_line, unescape_block
from brain.markdown.model import OUTCOMES, Decision, Episode, Event, Note, NoteHeader
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.episodes.merge import given_parts, merge_episode_text
from brain.memory.episodes.note import (
    decision_title,
    episode_from_note,
    episode_header,
    is_minutes,
    managed_frontmatter,
    managed_sections,
    render_episode,
)
from brain.memory.projects.note import in_scope
from brain.memory.timeutil import parse_instant
from brain.vault.vault import TYPE_FOLDERS

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class StoredEpisode:
    path: str
    title: str
    created: bool
    changed: bool
    warnings: tuple[str, ...] = ()


def episode_title(episode_id: str | None, session: str | None, timestamp: str | None) -> str:
    """`EPISODE-<date>-<session>`, taken from the ai-agents id when it has one."""
    if episode_id and episode_id.lower().startswith("episode-"):
        return "EPISODE-" + episode_id[len("episode-") :]
    if session:
        if _DATED.match(session):
            return f"EPISODE-{session}"
        date = (timestamp or "")[:10] if _DATED.match(timestamp or "") else datetime.now(UTC).date().isoformat()
        return f"EPISODE-{date}-{session}"
    raise InvalidInput("an episode needs an 'id' or a 'session' to name its note")


def episode_from_data(data: Any) -> tuple[Episode, list[str]]:
    """An `Episode` from an ai-agents episode dict. Deviations become warnings, not failures."""
    if not isinstance(data, dict):
        raise InvalidInput(f"an episode must be a JSON object, got {type(data).__name__}")
    warnings: list[str] = []
    outcome = data.get("outcome")
    if outcome is None:
        raise InvalidInput(f"an episode needs an outcome: one of {', '.join(OUTCOMES)}")
    if outcome not in OUTCOMES:
        raise InvalidInput(f"outcome '{outcome}' is not one of {', '.join(OUTCOMES)}")
    for key in ("task", "timestamp"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise InvalidInput(f"'{key}' must be a string, got {type(data[key]).__name__}")
    for key in ("id", "session", "timestamp"):
        require_one_line(_string(data.get(key)), key)
    if data.get("timestamp"):
        parse_instant(data["timestamp"], "timestamp")  # refuses 2026-13-45
    title = episode_title(_string(data.get("id")), _string(data.get("session")), _string(data.get("timestamp")))
    metrics = data.get("metrics")
    if metrics is None:
        metrics = {}
    if not isinstance(metrics, dict):
        raise InvalidInput(f"'metrics' must be an object, got {type(metrics).__name__}")
    decisions = [_decision(item, number, warnings) for number, item in enumerate(_list(data, "decisions", warnings), 1)]
    events = [_event(item, number, warnings) for number, item in enumerate(_list(data, "events", warnings), 1)]
    lessons = []
    for lesson in _list(data, "lessons", warnings):
        if not isinstance(lesson, str):
            warnings.append(f"lessons: {lesson!r} is not a string; kept as text")
        lessons.append(str(lesson))
    duration = data.get("duration_minutes", metrics.get("duration_minutes"))
    if duration is not None and not is_minutes(duration):
        raise InvalidInput(f"'duration_minutes' must be a number of minutes, 0 or more, got {duration!r}")
    episode = Episode(
        title=title,
        outcome=outcome,
        task=_string(data.get("task")),
        session=_string(data.get("session")),
        date=_string(data.get("timestamp")),
        episode_id=_string(data.get("id")),
        duration_minutes=duration if isinstance(duration, (int, float)) and not isinstance(duration, bool) else None,
        metrics=dict(metrics),
        decisions=tuple(decisions),
        events=tuple(events),
        lessons=tuple(lessons),
        tags=("episodic",),
    )
    return episode, warnings


def with_default_date(data: dict[str, Any], today: date | None = None) -> dict[str, Any]:
    """An episode stored without a date is dated by the date in its session name
    (`2026-03-02-session-01`), else today (UTC)."""
    if data.get("timestamp"):
        return data
    found = _SESSION_DATE.search(str(data.get("session") or ""))
    day = None
    if found:
        try:
            day = date.fromisoformat(found.group(0))
        except ValueError:
            day = None
    return {**data, "timestamp": (day or today or datetime.now(UTC).date()).isoformat()}


_SESSION_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def with_stored_date(corpus: Corpus, data: dict[str, Any]) -> dict[str, Any]:
    """Dated for storing: a session stored again without a date keeps the date it was stored with
    (the note's name holds it, so another day must not make a second note); else `with_default_date`."""
    session = _string(data.get("session"))
    if data.get("timestamp") or data.get("id") or not session or _DATED.match(session):
        return with_default_date(data)
    stored = [
        episode.date
        for episode in map(
            episode_from_note, corpus.select("episode", lambda h: h.frontmatter.get("session") is not None)
        )
        if episode.session == session and episode.date
    ]
    return {**data, "timestamp": max(stored)} if stored else with_default_date(data)


def _string(value: Any) -> str | None:
    return None if value is None else str(value)


def _list(data: dict[str, Any], key: str, warnings: list[str]) -> list[Any]:
    value = data.get(key)
    if value is None:
        if key in data:
            warnings.append(f"{key}: null where a list is expected; read as empty")
        return []
    if not isinstance(value, list):
        raise InvalidInput(f"'{key}' must be a list, got {type(value).__name__}")
    return value


def _decision(item: Any, number: int, warnings: list[str]) -> Decision:
    if isinstance(item, str):
        warnings.append(f"decisions[{number - 1}]: a plain string, not an object; read as the chosen option")
        return Decision(id=f"d{number:03d}", title=decision_title(item, ""), chosen=item)
    if not isinstance(item, dict):
        raise InvalidInput(f"decisions[{number - 1}] must be an object or a string, got {type(item).__name__}")
    options = item.get("options")
    effects = item.get("effects")
    decision_id = _string(item.get("id")) or f"d{number:03d}"
    for key in ("id", "timestamp", "type"):
        require_one_line(_string(item.get(key)), f"decisions[{number - 1}].{key}")
    return Decision(
        id=decision_id,
        title=decision_title(_string(item.get("chosen")), _string(item.get("context")) or decision_id),
        timestamp=_string(item.get("timestamp")),
        type=_string(item.get("type")),
        context=_string(item.get("context")),
        options=tuple(str(option) for option in options) if isinstance(options, list) else None,
        chosen=_string(item.get("chosen")),
        rationale=_string(item.get("rationale")),
        outcome=_string(item.get("outcome")),
        effects=tuple(str(effect) for effect in effects) if isinstance(effects, list) else None,
    )


def _event(item: Any, number: int, warnings: list[str]) -> Event:
    if isinstance(item, str):
        warnings.append(f"events[{number - 1}]: a plain string, not an object; read as the event text")
        return Event(text=item)
    if not isinstance(item, dict):
        raise InvalidInput(f"events[{number - 1}] must be an object or a string, got {type(item).__name__}")
    for key in ("id", "timestamp", "type"):
        require_one_line(_string(item.get(key)), f"events[{number - 1}].{key}")
    extra = tuple(
        (key, str(value)) for key, value in item.items() if key.startswith("_") and isinstance(value, (str, int, float))
    )
    return Event(
        text=_string(item.get("content")) or "",
        timestamp=_string(item.get("timestamp")),
        id=_string(item.get("id")),
        type=_string(item.get("type")),
        caused_by=tuple(str(ref) for ref in item.get("caused_by") or ()),
        leads_to=tuple(str(ref) for ref in item.get("leads_to") or ()),
        extra=extra,
    )


def store_episode_data(corpus: Corpus, data: dict[str, Any]) -> tuple[StoredEpisode, list[str]]:
    """What `brain episode store` and MCP `store_episode` store: ai-agents episode data, dated as it
    was stored before, read leniently (the warnings say where), merged by the parts given."""
    episode, warnings = episode_from_data(with_stored_date(corpus, data))
    return store_episode(corpus, episode, given=given_parts(data)), warnings


def store_episode(
    corpus: Corpus,
    episode: Episode,
    *,
    extra_frontmatter: dict[str, Any] | None = None,
    given: frozenset[str] | None = None,
    own_context: re.Pattern[str] | None = None,
) -> StoredEpisode:
    """Write an episode note; an existing one gets its managed keys and sections replaced, prose kept.

    `given` (the parts of the data a caller passed, see `merge.given_parts`) stores again as an
    update: only those parts change, merged by identity (`brain/memory/episodes/merge.py`); the
    rest of the stored episode stays. Without it the whole episode is the new truth. `own_context`
    matches the Context text brain writes: a stored Context that still matches (nobody edited it) is
    replaced by the episode's; any other is a person's and stays.
    """
    vault = corpus.vault
    path = f"{TYPE_FOLDERS['episode']}/{vault.filename_for(episode.title)}"
    existing = corpus.resolver().try_resolve(episode.title)
    if existing is None and vault.safe_path(path).exists():
        existing = path
    if existing is None:
        # written as an update would write it, so storing the same episode again changes nothing
        text = update_episode_text(render_episode(episode, extra_frontmatter), episode, extra_frontmatter)
        vault.write(path, text, create=True)
        return StoredEpisode(path, episode.title, created=True, changed=True)
    if given is not None:
        done = vault.update(existing, lambda note: merge_episode_text(note.text, episode, given, extra_frontmatter))
    else:
        done = vault.update(
            existing, lambda note: update_episode_text(note.text, episode, extra_frontmatter, own_context=own_context)
        )
    return StoredEpisode(existing, episode.title, created=False, changed=done.written)


def update_episode_text(
    text: str,
    episode: Episode,
    extra_frontmatter: dict[str, Any] | None = None,
    *,
    own_context: re.Pattern[str] | None = None,
) -> str:
    """Splice an episode's managed parts into an existing note's text (and its Context, see `store_episode`)."""
    values = managed_frontmatter(episode)
    updates = {key: value for key, value in values.items() if value is not None}
    updates.update(extra_frontmatter or {})
    text = set_frontmatter(text, updates, remove=tuple(key for key, value in values.items() if value is None))
    anchors = {
        "Decisions": ("Observations", "Context"),
        "Events Timeline": ("Decisions",),
        "Lessons Learned": ("Events Timeline",),
    }
    for heading, content in managed_sections(episode).items():
        text = replace_section(text, heading, content, after=anchors[heading])
    if own_context is not None and episode.context:
        stored = unescape_block(parse_note(text).section_text("Context").strip("\n"))
        if own_context.fullmatch(stored):
            text = replace_section(text, "Context", escape_block(episode.context.strip("\n")) + "\n")
    return text


def list_episodes(
    corpus: Corpus,
    *,
    outcome: str | None = None,
    task: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = DEFAULT_LIMIT,
    project: str | None = None,
) -> list[Episode]:
    """Episodes matching the filters, newest first; with `project`, only that project's
    (`brain.memory.projects.note`: an episode without one is of no project)."""
    if outcome is not None and outcome not in OUTCOMES:
        raise UsageError(f"outcome '{outcome}' is not one of {', '.join(OUTCOMES)}")
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    start = parse_instant(since, Remedy("since")) if since else None
    end = parse_instant(until, Remedy("until"), end_of_day=True) if until else None
    needle = task.lower() if task else None

    def wanted(header: NoteHeader) -> bool:  # decided before the note is parsed: most are not wanted
        if not in_scope("episode", header.frontmatter, project):
            return False
        its_outcome, its_task, its_date = episode_header(header)
        if outcome and its_outcome != outcome:
            return False
        if needle and needle not in (its_task or "").lower() and needle not in header.title.lower():
            return False
        when = _when(its_date, header.title)
        if (start or end) and when is None:
            return False
        return when is None or not ((start and when < start) or (end and when > end))

    filtered = outcome or needle or start or end or project
    equal = ("outcome", outcome) if outcome else None  # `wanted` keeps no other outcome
    chosen = corpus.select("episode", wanted, equal=equal) if filtered else corpus.of_type("episode")
    return [episode_from_note(note) for note in newest_first(chosen)[:limit]]


def newest_first(notes: list[Note]) -> list[Note]:
    """Episode notes newest first by their date (else the date their title holds), then by title
    (descending); undated ones last. Read from their headers: only the ones shown need parsing."""
    oldest = datetime.min.replace(tzinfo=UTC)
    return sorted(
        notes, key=lambda note: (_when(episode_header(note.header)[2], note.title) or oldest, note.title), reverse=True
    )


def _when(date: str | None, title: str) -> datetime | None:
    for value in (date, title.removeprefix("EPISODE-")[:10]):
        if value:
            try:
                return parse_instant(value, "date")
            except InvalidInput:
                continue
    return None


def get_episode(corpus: Corpus, name: str) -> Episode:
    note = corpus.get(name)
    if note.type != "episode":
        raise InvalidInput(f"'{name}' is a {note.type} note, not an episode")
    return episode_from_note(note)


def decision_sequence(corpus: Corpus, name: str) -> list[Decision]:
    """An episode's decisions in time order (decisions without a timestamp keep their place at the end)."""
    decisions = get_episode(corpus, name).decisions

    def key(pair: tuple[int, Decision]) -> tuple[bool, datetime, int]:
        position, decision = pair
        try:
            instant = parse_instant(decision.timestamp, "timestamp") if decision.timestamp else None
        except InvalidInput:
            instant = None
        return (instant is None, instant or datetime.min.replace(tzinfo=UTC), position)

    return [decision for _, decision in sorted(enumerate(decisions), key=key)]
