"""Text in, `Note` out. Never raises: what cannot be read becomes a `problem`.

Headings and code blocks are found with markdown-it-py (so a `## x` inside a fence is not a
section); the line grammar of observations, relations and causal relations is matched per
line outside code.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from brain.lazy import lazy_module
from brain.markdown.lines import split_lines, strip_ending
from brain.markdown.model import (
    CAUSAL_TYPES,
    CausalRelation,
    Note,
    Observation,
    Relation,
    Section,
    WikiLink,
)
from brain.markdown.spans import blank_spans

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from brain.markdown import frontmatter_yaml
else:  # PyYAML loads at the first note parsed: a read the catalog answers never pays for it
    frontmatter_yaml = lazy_module("brain.markdown.frontmatter_yaml")

WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_LIST_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+(.*)$")
# `[category]` or `[category:ref]`; a checkbox, a timestamp or a link is not a category.
_OBSERVATION = re.compile(r"^\[([A-Za-z][\w -]*?)(?::([^\]\s]+))?\][ \t]+(.*)$")
_TRAILING_TAGS = re.compile(r"(?:[ \t]+#[\w/-]+)+[ \t]*$")
_TAG = re.compile(r"(?<![\w&])#([A-Za-z_][\w/-]*)")
# A tag in the body as Obsidian reads one: `#` at the start of a line or after a space (so not a URL's
# `#fragment`, `[[Note#Heading]]`, `&#39;` or `\#`), then letters, digits, `_`, `-` and `/`, with at
# least one that is not a digit (`#42` is an issue, not a tag). A heading's `# ` is followed by a space.
_BODY_TAG = re.compile(r"(?<!\S)#([\w/-]*[^\W\d][\w/-]*)")
_TRAILING_PAREN = re.compile(r"[ \t]*\(([^()]*)\)[ \t]*$")
_RELATION = re.compile(r"^([A-Za-z_][\w-]*)[ \t]+\[\[([^\[\]\n]+?)\]\](.*)$")
_NUMBER_KEY = re.compile(r"^(weight|evidence)\s*[:=]\s*([-+]?\d*\.?\d+)$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt  # imported at the first parse: a read the catalog answers never pays for it

    # Only block structure matters here; inline parsing would cost most of the time (the
    # "inline" core rule would tokenize every paragraph; a heading's text is read without it).
    return MarkdownIt("zero").enable(["heading", "lheading", "fence", "code"]).disable("inline")


def parse_wikilink(inner: str) -> WikiLink:
    """`Title#Heading|alias` -> WikiLink(target='Title', heading='Heading', alias='alias'); in a
    table the pipe is escaped (`Title\\|alias`), and the backslash is not part of the target."""
    target, pipe, alias = inner.partition("|")
    if pipe and target.endswith("\\"):
        target = target[:-1]
    target, _, heading = target.partition("#")
    return WikiLink(target.strip(), heading.strip() or None, alias.strip() or None)


def find_wikilinks(text: str) -> list[WikiLink]:
    return [link for link in (parse_wikilink(m.group(1)) for m in WIKILINK.finditer(text)) if link.target]


def parse_note(text: str, path: str | None = None) -> Note:
    """Parse markdown with optional YAML frontmatter into a `Note`."""
    problems: list[str] = []
    if not isinstance(text, str):
        text = str(text)
    if "\x00" in text:
        problems.append("file contains NUL bytes (binary?); read as text as far as possible")
    lines = split_lines(text)

    frontmatter: dict[str, Any] = {}
    body_start = 0
    block = frontmatter_yaml.locate(lines)
    if block is not None:
        frontmatter, problem = frontmatter_yaml.load(block.yaml_text)
        if problem:
            problems.append(problem)
        body_start = block.end + 1
    elif lines and strip_ending(lines[0]).lstrip("\ufeff") == "---":
        problems.append("frontmatter starts with '---' but is never closed; read as plain markdown")

    body = "".join(lines[body_start:])
    sections, code_lines = _sections(lines, body_start, body, problems)

    observations: list[Observation] = []
    relations: list[Relation] = []
    causal: list[CausalRelation] = []
    section_at = _section_lookup(sections, len(lines))
    for index in range(body_start, len(lines)):
        if index in code_lines:
            continue
        item = _LIST_ITEM.match(strip_ending(lines[index]))
        if not item:
            continue
        content = item.group(1)
        heading = section_at[index]
        if heading == "relations":
            relation = _relation(content, index)
            if relation:
                relations.append(relation)
                continue
        if heading == "causal relationships":
            causal_relation = _causal(content, index, problems)
            if causal_relation:
                causal.append(causal_relation)
                continue
        observation = _observation(content, index)
        if observation:
            observations.append(observation)

    prose = "".join(line for i, line in enumerate(lines) if i >= body_start and i not in code_lines)
    links = find_wikilinks(blank_spans(prose) if "[[" in prose else prose)
    body_tags = _body_tags(prose)
    links += _frontmatter_links(frontmatter)

    note_type = frontmatter.get("type")
    note_type = (
        str(note_type).strip().lower()
        if isinstance(note_type, (str, int, float)) and str(note_type).strip()
        else "note"
    )
    return Note(
        text=text,
        path=path,
        frontmatter=frontmatter,
        body=body,
        body_start=body_start,
        title=_title(frontmatter, sections, path),
        type=note_type,
        sections=tuple(sections),
        observations=tuple(observations),
        relations=tuple(relations),
        causal_relations=tuple(causal),
        links=tuple(links),
        problems=tuple(problems),
        has_frontmatter=block is not None,
        body_tags=body_tags,
    )


def _body_tags(prose: str) -> tuple[str, ...]:
    """The `#tags` of the body's text outside code blocks (already left out of `prose`), inline code,
    comments and math, each once, in order."""
    if "#" not in prose:
        return ()
    found = (match.group(1).rstrip("/") for match in _BODY_TAG.finditer(blank_spans(prose)))
    return tuple(dict.fromkeys(tag for tag in found if tag))


def _sections(lines: list[str], body_start: int, body: str, problems: list[str]) -> tuple[list[Section], set[int]]:
    try:
        tokens = _markdown().parse(body)
    except Exception as error:
        problems.append(f"markdown structure could not be read: {type(error).__name__}")
        return [], set()
    headings: list[tuple[int, int, str]] = []
    code_lines: set[int] = set()
    for position, token in enumerate(tokens):
        if token.map is None:
            continue
        start, end = token.map[0] + body_start, token.map[1] + body_start
        if token.type in ("fence", "code_block"):
            code_lines.update(range(start, end))
        elif token.type == "heading_open":
            inline = tokens[position + 1] if position + 1 < len(tokens) else None
            title = inline.content.strip() if inline is not None and inline.type == "inline" else ""
            headings.append((start, int(token.tag[1:]), title))
    sections = []
    for number, (start, level, title) in enumerate(headings):
        end = len(lines)
        for later_start, later_level, _ in headings[number + 1 :]:
            if later_level <= level:
                end = later_start
                break
        sections.append(Section(title, level, start, end, "".join(lines[start + 1 : end])))
    return sections, code_lines


def _section_lookup(sections: list[Section], line_count: int) -> list[str | None]:
    """For each line, the lower-cased title of the level-2 section it lies in."""
    owner: list[str | None] = [None] * line_count
    for section in sections:
        if section.level == 2:
            title = section.heading.lower()
            for index in range(section.start + 1, min(section.end, line_count)):
                owner[index] = title
    return owner


def _split_context(content: str) -> tuple[str, str | None]:
    match = _TRAILING_PAREN.search(content)
    if not match:
        return content.strip(), None
    return content[: match.start()].strip(), match.group(1).strip()


def _observation(content: str, line: int) -> Observation | None:
    match = _OBSERVATION.match(content)
    if not match:
        return None
    category, ref, rest = match.group(1).strip(), match.group(2), match.group(3)
    if category.lower() == "x":  # a checked checkbox
        return None
    tags = tuple(dict.fromkeys(_TAG.findall(rest)))
    text, context = _split_context(rest)
    text = _TRAILING_TAGS.sub("", text).strip()
    return Observation(category=category, text=text, ref=ref, tags=tags, context=context, line=line)


def _relation(content: str, line: int) -> Relation | None:
    match = _RELATION.match(content)
    if not match:
        return None
    context = match.group(3).strip()
    if context.startswith("(") and context.endswith(")"):
        context = context[1:-1].strip()
    link = parse_wikilink(match.group(2))
    return Relation(type=match.group(1), target=link.target, context=context or None, line=line)


def _causal(content: str, line: int, problems: list[str]) -> CausalRelation | None:
    match = _RELATION.match(content)
    if not match:
        return None
    kind = match.group(1).lower()
    if kind not in CAUSAL_TYPES:
        problems.append(
            f"line {line + 1}: '{match.group(1)}' is not a causal relation type ({', '.join(CAUSAL_TYPES)})"
        )
        return None
    weight: float | None = None
    evidence: int | None = None
    leftover: list[str] = []
    rest = match.group(3).strip()
    if rest.startswith("(") and rest.endswith(")"):
        for part in rest[1:-1].split(","):
            number = _NUMBER_KEY.match(part.strip())
            if number and number.group(1).lower() == "weight":
                weight = float(number.group(2))
            elif number:
                evidence = int(float(number.group(2)))
            elif part.strip():
                leftover.append(part.strip())
    elif rest:
        leftover.append(rest)
    link = parse_wikilink(match.group(2))
    return CausalRelation(kind, link.target, weight, evidence, ", ".join(leftover) or None, line)


def _frontmatter_links(value: object) -> list[WikiLink]:
    if isinstance(value, str):
        return find_wikilinks(value)
    if isinstance(value, dict):
        return [link for item in value.values() for link in _frontmatter_links(item)]
    if isinstance(value, list):
        return [link for item in value for link in _frontmatter_links(item)]
    return []


def _title(frontmatter: dict[str, Any], sections: list[Section], path: str | None) -> str:
    title = frontmatter.get("title")
    if isinstance(title, (str, int, float)) and not isinstance(title, bool) and str(title).strip():
        return str(title).strip()
    for section in sections:
        if section.level == 1 and section.heading:
            return section.heading
    return PurePosixPath(path).stem if path else ""


def link_targets(value: object) -> list[str]:
    """Targets of the wikilinks in a frontmatter value (`"[[A]]"`, a list of them, or a bare name)."""
    if isinstance(value, str):
        found = [link.target for link in find_wikilinks(value)]
        return found or ([value.strip()] if value.strip() else [])
    if isinstance(value, list):
        return [target for item in value for target in link_targets(item)]
    return []
