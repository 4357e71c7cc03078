"""The parsed form of a note. Frozen dataclasses; no IO, no parsing here.

A `Note` keeps its exact source text, so rendering an unchanged note is the identity;
edits are made on the text by `notes.edit`, which touches only what it manages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

CAUSAL_TYPES = ("causes", "enables", "prevents", "correlates")
# What a saved context records (`action_type` of a context note).
ActionType = Literal["conversation", "decision", "file_edit", "tool_use", "research"]
ACTION_TYPES: tuple[ActionType, ...] = get_args(ActionType)
Outcome = Literal["success", "partial", "failure"]  # the choice the CLI and MCP offer
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)


@dataclass(frozen=True)
class WikiLink:
    """`[[target#heading|alias]]`; `target` is what resolution looks up."""

    target: str
    heading: str | None = None
    alias: str | None = None


@dataclass(frozen=True)
class Section:
    """A markdown heading and the lines under it, up to the next heading of the same or higher level.

    `start` is the 0-based line of the heading in the whole text, `end` the line after the section.
    """

    heading: str
    level: int
    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Observation:
    """`- [category:ref] text #tag (context)`."""

    category: str
    text: str
    ref: str | None = None
    tags: tuple[str, ...] = ()
    context: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Relation:
    """`- relation_type [[Target]] (context)` under `## Relations`."""

    type: str
    target: str
    context: str | None = None
    line: int = 0


@dataclass(frozen=True)
class CausalRelation:
    """`- causes|enables|prevents|correlates [[Target]] (weight: 0.8, evidence: 3)`."""

    type: str
    target: str
    weight: float | None = None
    evidence: int | None = None
    context: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Note:
    """One markdown file, parsed. `problems` lists what could not be read, never raised."""

    text: str
    path: str | None
    frontmatter: dict[str, Any]
    body: str
    body_start: int  # 0-based line where the body begins
    title: str
    type: str
    sections: tuple[Section, ...] = ()
    observations: tuple[Observation, ...] = ()
    relations: tuple[Relation, ...] = ()
    causal_relations: tuple[CausalRelation, ...] = ()
    links: tuple[WikiLink, ...] = ()
    problems: tuple[str, ...] = ()
    has_frontmatter: bool = False
    body_tags: tuple[str, ...] = ()  # `#tag` in the body's text, as Obsidian reads them (not in code)

    def section(self, heading: str, level: int = 2) -> Section | None:
        wanted = heading.strip().lower()
        for section in self.sections:
            if section.level == level and section.heading.strip().lower() == wanted:
                return section
        return None

    def section_text(self, heading: str, level: int = 2) -> str:
        found = self.section(heading, level)
        return found.content if found else ""

    @property
    def tags(self) -> tuple[str, ...]:
        raw = self.frontmatter.get("tags")
        if isinstance(raw, str):
            raw = [part.strip() for part in raw.replace(",", " ").split()]
        if not isinstance(raw, list):
            return ()
        return tuple(str(tag).lstrip("#") for tag in raw if tag is not None and str(tag).strip())

    @property
    def all_tags(self) -> tuple[str, ...]:
        """Every tag the note has, as Obsidian counts them: the frontmatter's `tags`, then the `#tags`
        of its body (observations' included), each once (the first spelling of it, case aside)."""
        seen: dict[str, str] = {}
        for tag in (*self.tags, *self.body_tags, *(tag for item in self.observations for tag in item.tags)):
            seen.setdefault(tag.casefold(), tag)
        return tuple(seen.values())

    @property
    def permalink(self) -> str | None:
        value = self.frontmatter.get("permalink")
        return str(value) if isinstance(value, (str, int, float)) and str(value) else None

    @property
    def header(self) -> NoteHeader:
        return NoteHeader(self.path or "", self.title, self.frontmatter)


@dataclass(frozen=True)
class NoteHeader:
    """What the catalog holds of a note without decoding it (path, title, frontmatter): enough to
    choose the notes worth parsing (`Corpus.select`)."""

    path: str
    title: str
    frontmatter: dict[str, Any]


@dataclass(frozen=True)
class Decision:
    """A `### d001: Title` block of an episode. `None` means the field is absent."""

    id: str
    title: str = ""
    timestamp: str | None = None
    type: str | None = None
    context: str | None = None
    options: tuple[str, ...] | None = None
    chosen: str | None = None
    rationale: str | None = None
    outcome: str | None = None
    effects: tuple[str, ...] | None = None
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Event:
    """One line of an episode's `## Events Timeline`."""

    text: str
    timestamp: str | None = None
    id: str | None = None
    type: str | None = None
    caused_by: tuple[str, ...] = ()
    leads_to: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Episode:
    title: str
    outcome: str | None = None
    task: str | None = None
    session: str | None = None
    date: str | None = None
    episode_id: str | None = None
    duration_minutes: float | int | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    context: str = ""
    observations: tuple[Observation, ...] = ()
    decisions: tuple[Decision, ...] = ()
    events: tuple[Event, ...] = ()
    lessons: tuple[str, ...] = ()
    relations: tuple[Relation, ...] = ()
    tags: tuple[str, ...] = ()
    path: str | None = None
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvidenceEpisode:
    """`- [[EPISODE-x]] - success (note)` under a pattern's `## Evidence Episodes`."""

    target: str
    outcome: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Pattern:
    title: str
    trigger: str | None = None
    success_rate: float | None = None
    occurrences: int | None = None
    last_validated: str | None = None
    context: str = ""
    trigger_text: str = ""
    action: str = ""
    observations: tuple[Observation, ...] = ()
    causal_relations: tuple[CausalRelation, ...] = ()
    evidence: tuple[EvidenceEpisode, ...] = ()
    antipattern_warning: str = ""
    relations: tuple[Relation, ...] = ()
    tags: tuple[str, ...] = ()
    path: str | None = None
    problems: tuple[str, ...] = ()
