"""Surgical edits on note text: change only the frontmatter keys and sections asked for.

Everything else (user prose, unknown sections, unknown keys, their order, comments in the
YAML, line endings) stays byte for byte, because edits splice text rather than re-render it.
"""

from __future__ import annotations

import re
from typing import Any

from brain.notes import frontmatter_yaml
from brain.notes.parse import parse_note

_TOP_LEVEL_KEY = re.compile(r"^([^\s#:][^:]*?|\"[^\"]*\"|'[^']*'):(?:[ \t]|$)")


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def set_frontmatter(text: str, updates: dict[str, Any], remove: tuple[str, ...] = ()) -> str:
    """Set or remove top-level frontmatter keys; other keys keep their exact text and order.

    A key that exists is replaced where it stands; a new key is appended at the end. A note
    without frontmatter gets a block with just these keys.
    """
    eol = _newline(text)
    lines = text.splitlines(keepends=True)
    block = frontmatter_yaml.locate(lines)
    if block is None:
        added = {key: value for key, value in updates.items() if key not in remove}
        if not added:
            return text
        return "---" + eol + _eol(frontmatter_yaml.dump(added), eol) + "---" + eol + text

    spans = _key_spans(lines, 1, block.end)
    head, yaml_lines, tail = lines[:1], lines[1 : block.end], lines[block.end :]
    replaced: dict[int, str] = {}  # start line (relative) -> new text; dropped spans map to ""
    skip: set[int] = set()
    for key, (start, end) in spans.items():
        if key in remove:
            replaced[start - 1] = ""
        elif key in updates:
            replaced[start - 1] = _eol(frontmatter_yaml.dump_key(key, updates[key]), eol)
        else:
            continue
        skip.update(range(start - 1 + 1, end - 1))
    out: list[str] = []
    for index, line in enumerate(yaml_lines):
        if index in replaced:
            out.append(replaced[index])
        elif index not in skip:
            out.append(line)
    if out and not out[-1].endswith("\n"):
        out[-1] += eol
    for key, value in updates.items():
        if key not in spans and key not in remove:
            out.append(_eol(frontmatter_yaml.dump_key(key, value), eol))
    return "".join(head + out + tail)


def _eol(yaml_text: str, eol: str) -> str:
    return yaml_text.replace("\n", eol) if eol != "\n" else yaml_text


def _key_spans(lines: list[str], start: int, end: int) -> dict[str, tuple[int, int]]:
    """Line span [from, to) of each top-level key: its line plus indented or list continuation lines."""
    spans: dict[str, tuple[int, int]] = {}
    current: str | None = None
    current_start = start
    for index in range(start, end):
        line = lines[index]
        match = _TOP_LEVEL_KEY.match(line)
        if match and not line.startswith((" ", "\t", "-")):
            if current is not None:
                spans[current] = (current_start, _trim_blank_tail(lines, current_start, index))
            current, current_start = match.group(1).strip("\"'"), index
    if current is not None:
        spans[current] = (current_start, _trim_blank_tail(lines, current_start, end))
    return spans


def _trim_blank_tail(lines: list[str], start: int, end: int) -> int:
    """Keep blank lines and comments between keys out of the span of the key above them."""
    while end - 1 > start and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def replace_section(text: str, heading: str, content: str, *, level: int = 2, after: tuple[str, ...] = ()) -> str:
    """Replace the content under `## heading` (the heading itself stays).

    A missing section is created after the first of `after` that exists, else at the end.
    `content` is the text under the heading (leading blank lines kept); a blank line is kept
    before the next heading.
    """
    eol = _newline(text)
    note = parse_note(text)
    lines = text.splitlines(keepends=True)
    body = _eol(content.rstrip("\n") + "\n", eol) if content.strip() else ""
    section = note.section(heading, level)
    if section is not None:
        next_heading = section.end < len(lines)
        tail = eol if next_heading and body else ""
        new = lines[: section.start + 1] + [body + tail] + lines[section.end :]
        if lines and not lines[section.start].endswith("\n"):
            new[section.start] = lines[section.start] + eol
        return "".join(new)
    block = "#" * level + " " + heading + eol + body
    anchor = next((note.section(name, level) for name in after if note.section(name, level)), None)
    if anchor is not None:
        insert_at = anchor.end
        prefix = "".join(lines[:insert_at])
        if prefix and not prefix.endswith("\n"):
            prefix += eol
        if not prefix.endswith(eol + eol):
            prefix += eol
        rest = "".join(lines[insert_at:])
        return prefix + block + (eol + rest if rest else "")
    stripped = text.rstrip("\r\n")
    return (stripped + eol + eol if stripped else "") + block


def append_to_section(text: str, heading: str, addition: str, *, level: int = 2, after: tuple[str, ...] = ()) -> str:
    """Add lines at the end of a section's content, creating the section when missing."""
    note = parse_note(text)
    section = note.section(heading, level)
    existing = section.content.rstrip("\r\n") if section is not None else ""
    combined = (existing + "\n" if existing.strip() else "") + addition.strip("\n")
    return replace_section(text, heading, combined, level=level, after=after)
