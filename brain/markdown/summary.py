"""What any note says about itself in a line: its time, its causes, a one-line summary. Pure."""

from __future__ import annotations

import re

from brain.markdown.model import Note
from brain.markdown.parse import link_targets, parse_wikilink

SUMMARY_CHARS = 160
# Frontmatter keys that date a note, most telling first, for notes of any type.
TIME_KEYS = ("created", "date", "timestamp", "recorded_at", "valid_from")
# The frontmatter key that says in one line what a note of each type is about.
_SUMMARY_KEYS = {"episode": "task", "run": "query", "tip": "trigger", "pattern": "trigger"}


def text_field(note: Note, key: str) -> str | None:
    value = note.frontmatter.get(key)
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    text = str(value).strip()
    return text or None


def note_time(note: Note) -> str | None:
    return next((value for key in TIME_KEYS if (value := text_field(note, key))), None)


def causes_named(note: Note) -> tuple[str, ...]:
    """The names in a note's `caused_by`, as written (one link, a list, or a bare name)."""
    value = note.frontmatter.get("caused_by")
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        plain = _single_link(item)
        names += [plain] if plain is not None else link_targets(item)
    return tuple(names)


def _single_link(value: object) -> str | None:
    """The target of a value that is exactly one `[[link]]`: the common case, without the link scanner."""
    if (
        isinstance(value, str)
        and value.startswith("[[")
        and value.endswith("]]")
        and value.count("[[") == 1
        and value[2:-2].strip()
    ):
        return parse_wikilink(value[2:-2]).target
    return None


def note_summary(note: Note, limit: int = SUMMARY_CHARS) -> str:
    """One line saying what a note is about, taken from the note (never made up)."""
    key = _SUMMARY_KEYS.get(note.type)
    text = text_field(note, key) if key else None
    if note.type == "fact" and text_field(note, "subject"):
        value = note.frontmatter.get("value")
        text = f"{text_field(note, 'subject')} = {value}"
    if not text:
        text = first_line(note.body) or note.title
    return _first_sentence(" ".join(text.split()), limit)


def first_line(body: str) -> str:
    """The first paragraph of prose (headings, code fences, tables and rules skipped), lines joined."""
    lines: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "```", "---", "|")):
            if lines:
                break
            continue
        lines.append(re.sub(r"^([-*+]|\d+\.)\s+", "", stripped) if not lines else stripped)
        if re.match(r"^([-*+]|\d+\.)\s+", stripped):
            break  # a list item is a line of its own
    return " ".join(lines)


def _first_sentence(text: str, limit: int) -> str:
    """The first sentence when it fits, else the text cut at a word."""
    end = re.search(r"[.!?](\s|$)", text)
    if end and 20 <= end.end() <= limit:
        return text[: end.end()].strip()
    return cut(text, limit)


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 3].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "..."
