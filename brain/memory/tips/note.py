"""Tips: read a tip note, and render a new one. Pure: strings in, objects out.

A tip (`type: tip`) is procedural guidance learned from episodes: frontmatter `category`
(strategy | recovery | optimization), `trigger`, `subtask`, `task_category`, `priority`,
`support`, `evidence` (success | failure | both), `source_episodes` (`"[[EPISODE-x]] (e002-e005)"`,
the span being the steps it came from), `helped` / `hurt`, and for a merged tip `replaces`
(the tips it merged; each of those carries `merged_into`). Sections `## Tip`, `## Purpose`,
`## Steps` (numbered), `## Avoid`, `## Applies When`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

from brain.markdown import frontmatter_yaml
from brain.markdown.model import Note, NoteHeader
from brain.markdown.parse import find_wikilinks

Category = Literal["strategy", "recovery", "optimization"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
Evidence = Literal["success", "failure", "both"]  # what kind of work a tip was learned from
EVIDENCE: tuple[Evidence, ...] = get_args(Evidence)
SECTIONS = ("Tip", "Purpose", "Steps", "Avoid", "Applies When")
_STEP = re.compile(r"^\s*(?:\d+[.)]|[-*])\s+(.*)$")
_SPAN = re.compile(r"\(([^()]*)\)\s*$")


@dataclass(frozen=True)
class SourceRef:
    """An episode a tip came from, and the step span inside it (e.g. 'e002-e005')."""

    episode: str
    span: str | None = None

    def render(self) -> str:
        return f"[[{self.episode}]]" + (f" ({self.span})" if self.span else "")


@dataclass(frozen=True)
class Tip:
    title: str
    category: str
    tip: str
    trigger: str = ""
    subtask: str = ""
    task_category: str = ""
    priority: str = "medium"
    support: int = 1
    evidence: str = "success"
    source_episodes: tuple[SourceRef, ...] = ()
    helped: int = 0
    hurt: int = 0
    purpose: str = ""
    steps: tuple[str, ...] = ()
    avoid: str = ""
    applies_when: str = ""
    replaces: tuple[str, ...] = ()
    merged_into: str | None = None
    tags: tuple[str, ...] = ()
    created: str | None = None
    path: str | None = None
    problems: tuple[str, ...] = ()


def combine_evidence(values: list[str]) -> str:
    kinds = set(values)
    if "both" in kinds or {"success", "failure"} <= kinds:
        return "both"
    return "failure" if kinds == {"failure"} else "success"


def parse_source(text: str) -> SourceRef:
    links = find_wikilinks(text)
    target = links[0].target if links else text.strip().strip("[]")
    span = _SPAN.search(text)
    return SourceRef(target, span.group(1).strip() if span else None)


MAX_COUNT = 1_000_000_000  # no tip is handed out, or supported, more often than this


def _int(value: Any, problems: list[str], key: str) -> int:
    """A count: a whole number from 0 to MAX_COUNT. Anything else a hand edit left (-1, .inf,
    1e400, 'many') is reported and read as the nearest count, never fatal: one tip's count must
    not divide by zero or overflow in every tip command."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        problems.append(f"{key} '{value}' is not a number; read as 0")
        return 0
    try:
        number = float(value) if not isinstance(value, int) else value
    except ValueError:
        problems.append(f"{key} '{value}' is not a number; read as 0")
        return 0
    if number != number:  # NaN
        problems.append(f"{key} '{value}' is not a number; read as 0")
        return 0
    if number < 0:
        problems.append(f"{key} '{value}' is below 0; a count is read as 0")
        return 0
    if number > MAX_COUNT:
        problems.append(f"{key} '{value}' is over {MAX_COUNT:,}; read as {MAX_COUNT:,}")
        return MAX_COUNT
    if number != int(number):
        problems.append(f"{key} '{value}' is not a whole number; read as {int(number)}")
    return int(number)


def _links(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return tuple(parse_source(str(item)).episode for item in items if str(item).strip())


def tip_header(header: NoteHeader) -> tuple[str, int, str, bool]:
    """(category, support, evidence, merged) as `tip_from_note` reads them, from the note's header
    alone: for choosing the tips worth parsing."""
    fm = header.frontmatter
    support = max(_int(fm.get("support", 1), [], "support"), 0)
    return (
        str(fm.get("category") or ""),
        support,
        str(fm.get("evidence") or "success"),
        bool(_links(fm.get("merged_into"))),
    )


def tip_from_note(note: Note) -> Tip:
    fm = note.frontmatter
    problems = list(note.problems)
    category = str(fm.get("category") or "")
    if category not in CATEGORIES:
        problems.append(f"category '{category}' is not one of {', '.join(CATEGORIES)}")
    raw_sources = fm.get("source_episodes")
    sources = raw_sources if isinstance(raw_sources, list) else [raw_sources] if isinstance(raw_sources, str) else []
    steps = tuple(m.group(1).strip() for m in map(_STEP.match, note.section_text("Steps").splitlines()) if m)
    merged = _links(fm.get("merged_into"))
    return Tip(
        title=note.title,
        category=category,
        tip=note.section_text("Tip").strip(),
        trigger=str(fm.get("trigger") or ""),
        subtask=str(fm.get("subtask") or ""),
        task_category=str(fm.get("task_category") or ""),
        priority=str(fm.get("priority") or "medium"),
        support=max(_int(fm.get("support", 1), problems, "support"), 0),
        evidence=str(fm.get("evidence") or "success"),
        source_episodes=tuple(parse_source(str(item)) for item in sources if str(item).strip()),
        helped=_int(fm.get("helped"), problems, "helped"),
        hurt=_int(fm.get("hurt"), problems, "hurt"),
        purpose=note.section_text("Purpose").strip(),
        steps=steps,
        avoid=note.section_text("Avoid").strip(),
        applies_when=note.section_text("Applies When").strip(),
        replaces=_links(fm.get("replaces")),
        merged_into=merged[0] if merged else None,
        tags=note.tags,
        created=str(fm["created"]) if fm.get("created") else None,
        path=note.path,
        problems=tuple(problems),
    )


def tip_frontmatter(tip: Tip) -> dict[str, Any]:
    fm: dict[str, Any] = {
        "title": tip.title,
        "type": "tip",
        "tags": list(tip.tags) or ["tip"],
        "permalink": f"tips/{tip.title.lower()}",
    }
    if tip.created:
        fm["created"] = tip.created
    fm.update(
        {
            "category": tip.category,
            "trigger": tip.trigger,
            "subtask": tip.subtask,
            "task_category": tip.task_category,
            "priority": tip.priority,
            "support": tip.support,
            "evidence": tip.evidence,
            "source_episodes": [source.render() for source in tip.source_episodes],
            "helped": tip.helped,
            "hurt": tip.hurt,
        }
    )
    if tip.replaces:
        fm["replaces"] = [f"[[{title}]]" for title in tip.replaces]
    return fm


def render_tip(tip: Tip) -> str:
    """Markdown for a new tip note."""
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(tip.steps, 1))
    body = [f"# {tip.title}\n"]
    for heading, content in zip(SECTIONS, (tip.tip, tip.purpose, steps, tip.avoid, tip.applies_when), strict=True):
        body.append(f"## {heading}\n" + (content.strip() + "\n" if content.strip() else ""))
    if tip.replaces:
        body.append("## Relations\n" + "".join(f"- replaces [[{title}]]\n" for title in tip.replaces))
    return f"---\n{frontmatter_yaml.dump(tip_frontmatter(tip))}---\n\n" + "\n".join(body)
