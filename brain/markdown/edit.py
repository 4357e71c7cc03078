"""Surgical edits on note text: change only the frontmatter keys and sections asked for.

Everything else (user prose, unknown sections, unknown keys, their order, comments in the
YAML, trailing spaces, line endings) stays byte for byte, because edits splice whole lines
(`brain.markdown.lines`, the one definition of a line) rather than re-render the note. Text an
edit inserts takes the note's own line-ending style.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from brain.errors import InvalidInput, Remedy, UsageError
from brain.markdown import frontmatter_yaml
from brain.markdown.lines import has_ending, line_ending, require_one_line, split_lines, strip_ending, with_ending
from brain.markdown.parse import parse_note

EditOperation = Literal["append", "prepend", "replace_section", "find_replace", "set_frontmatter"]
EDIT_OPERATIONS: tuple[EditOperation, ...] = get_args(EditOperation)
_TOP_LEVEL_KEY = re.compile(r"^([^\s#:][^:]*?|\"[^\"]*\"|'[^']*'):(?:[ \t]|$)")


def _inserted(text: str, eol: str) -> str:
    """Text brain inserts, as whole lines in the note's line-ending style."""
    return with_ending(text.rstrip("\r\n") + "\n", eol)


def set_frontmatter(text: str, updates: dict[str, Any], remove: tuple[str, ...] = ()) -> str:
    """Set or remove top-level frontmatter keys; other keys keep their exact text and order.

    A key that exists is replaced where it stands; a new key is appended at the end. A note
    without frontmatter gets a block with just these keys.
    """
    eol = line_ending(text)
    lines = split_lines(text)
    block = frontmatter_yaml.locate(lines)
    if block is None:
        added = {key: value for key, value in updates.items() if key not in remove}
        if not added:
            return text
        return "---" + eol + with_ending(frontmatter_yaml.dump(added), eol) + "---" + eol + text

    spans = _key_spans(lines, 1, block.end)
    head, yaml_lines, tail = lines[:1], lines[1 : block.end], lines[block.end :]
    replaced: dict[int, str] = {}  # start line (relative) -> new text; dropped spans map to ""
    skip: set[int] = set()
    for key, (start, end) in spans.items():
        if key in remove:
            replaced[start - 1] = ""
        elif key in updates:
            replaced[start - 1] = with_ending(frontmatter_yaml.dump_key(key, updates[key]), eol)
        else:
            continue
        skip.update(range(start, end - 1))
    out: list[str] = []
    for index, line in enumerate(yaml_lines):
        if index in replaced:
            out.append(replaced[index])
        elif index not in skip:
            out.append(line)
    if out and not has_ending(out[-1]):
        out[-1] += eol
    for key, value in updates.items():
        if key not in spans and key not in remove:
            out.append(with_ending(frontmatter_yaml.dump_key(key, value), eol))
    return "".join(head + out + tail)


def _key_spans(lines: list[str], start: int, end: int) -> dict[str, tuple[int, int]]:
    """Line span [from, to) of each top-level key: its line plus indented or list continuation lines."""
    spans: dict[str, tuple[int, int]] = {}
    current: str | None = None
    current_start = start
    for index in range(start, end):
        line = strip_ending(lines[index])
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
    eol = line_ending(text)
    note = parse_note(text)
    lines = split_lines(text)
    body = _inserted(content, eol) if content.strip() else ""
    section = note.section(heading, level)
    if section is not None:
        next_heading = section.end < len(lines)
        tail = eol if next_heading and body else ""
        new = [*lines[: section.start + 1], body + tail, *lines[section.end :]]
        if not has_ending(lines[section.start]):
            new[section.start] = lines[section.start] + eol
        return "".join(new)
    block = "#" * level + " " + heading + eol + body
    anchor = next((note.section(name, level) for name in after if note.section(name, level)), None)
    if anchor is not None:
        before, rest = lines[: anchor.end], "".join(lines[anchor.end :])
        return _end_with_blank_line(before, eol) + block + (eol + rest if rest else "")
    return _end_with_blank_line(lines, eol) + block


def _end_with_blank_line(lines: list[str], eol: str) -> str:
    """`lines` joined, followed by a line break and a blank line unless they end that way (nothing if empty)."""
    if not lines:
        return ""
    text = "".join(lines)
    if not has_ending(lines[-1]):
        return text + eol + eol
    return text + eol if lines[-1].strip() else text


def append_to_section(text: str, heading: str, addition: str, *, level: int = 2, after: tuple[str, ...] = ()) -> str:
    """Add lines after the last non-blank line of a section, creating the section when missing."""
    note = parse_note(text)
    section = note.section(heading, level)
    if section is None or not section.content.strip():
        return replace_section(text, heading, addition.strip("\r\n"), level=level, after=after)
    lines = split_lines(text)
    last = section.end - 1
    while last > section.start and not lines[last].strip():
        last -= 1
    before = lines[: last + 1]
    eol = line_ending(text)
    if not has_ending(before[-1]):
        before[-1] += eol
    return "".join(before) + _inserted(addition.strip("\r\n"), eol) + "".join(lines[last + 1 :])


def append(text: str, addition: str) -> str:
    """Add a paragraph at the end of the note; what is there stays as it is."""
    if not text.strip():
        return text + _inserted(addition.strip("\r\n"), line_ending(text))
    eol = line_ending(text)
    return _end_with_blank_line(split_lines(text), eol) + _inserted(addition.strip("\r\n"), eol)


def prepend(text: str, addition: str) -> str:
    """Add a paragraph at the start of the body, after the frontmatter."""
    eol = line_ending(text)
    lines = split_lines(text)
    start = parse_note(text).body_start
    head, rest = "".join(lines[:start]), "".join(lines[start:])
    if head and not has_ending(lines[start - 1]):
        head += eol
    return head + _inserted(addition, eol) + ((eol + rest) if rest.strip() else rest)


_CLOSING_HASHES = re.compile(r"(^|[ \t])(#+)[ \t]*$")


def section_heading(name: str) -> str:
    """A section name as the heading text brain writes and looks up: one line, like every name.

    A line break would let the name add structure of its own (`Notes\n## Decisions\n### d009`
    adds a decision), so it is refused. The one heading markup a line can still hold, a closing
    run of `#` that markdown drops from a heading, is escaped so the name reads back as given.
    """
    require_one_line(name, "section")
    name = name.strip()
    if not name:
        raise InvalidInput("the section name is empty; give the heading text, e.g. 'Notes'")
    return _CLOSING_HASHES.sub(lambda found: found.group(1) + "\\" + found.group(2), name)


def apply_edit(
    text: str,
    operation: str,
    *,
    content: str = "",
    section: str | None = None,
    find: str | None = None,
    expected_count: int | None = None,
    frontmatter: dict[str, Any] | None = None,
    where: str = "the note",
    replace_all: bool = False,
) -> str:
    """One edit operation on a note's text (see `EDIT_OPERATIONS`)."""
    if section is not None:
        section = section_heading(section)
    if operation == "append":
        return append_to_section(text, section, content) if section else append(text, content)
    if operation == "prepend":
        return prepend(text, content)
    if operation == "replace_section":
        if not section:
            raise UsageError("give the heading of the section to replace (", Remedy("section"), ")")
        return replace_section(text, section, content)
    if operation == "find_replace":
        if not find:
            raise UsageError("give the text to find (", Remedy("find"), ")")
        count = text.count(find)
        if count == 0:
            raise InvalidInput(f"'{find}' does not occur in {where}; nothing was changed")
        if expected_count is not None and count != expected_count:
            raise InvalidInput(f"'{find}' occurs {count} times in {where}, not {expected_count}; nothing was changed")
        if count > 1 and expected_count is None and not replace_all:
            raise InvalidInput(
                f"'{find}' occurs {count} times in {where}; nothing was changed. Say how many to replace (",
                Remedy("count", count=str(count)),
                ", or ",
                Remedy("replace_all"),
                "), or find a longer text that occurs once",
            )
        return text.replace(find, with_ending(content, line_ending(text)))
    if operation == "set_frontmatter":
        if not frontmatter:
            raise UsageError("set_frontmatter needs at least one key to set")
        return set_frontmatter(text, frontmatter)
    raise UsageError(f"unknown edit operation '{operation}'; use one of {', '.join(EDIT_OPERATIONS)}")
