"""Rewrite the links of a note's text that point at a renamed note, the way Obsidian does.

Only the target part of a link changes: `[[Old#Heading|alias]]` becomes `[[New#Heading|alias]]`
(and `[[Old\\|alias]]`, a link in a table, keeps its escaped pipe), an embed `![[Old]]` stays an
embed, a markdown link `[text](Old%20Name.md#part)` gets its new path (encoded as the old one was),
and every other byte of the text (line endings included) is kept. A link that is only text is
left as it is: in fenced or indented code, inline code, an HTML or Obsidian comment, `$$` math
(`spans`). Links in the frontmatter (`caused_by: "[[Old]]"`) are rewritten too. Pure: text in,
text out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

from brain.markdown.lines import split_lines
from brain.markdown.parse import WIKILINK, _markdown, parse_note
from brain.markdown.spans import outside, protected_spans

# `[text](destination)` or `![text](destination)`: the destination bare (no spaces) or in <...>.
MARKDOWN_LINK = re.compile(r"\[[^\]\n]*\]\((<[^>\n]+>|[^)\s]+)\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
Renamer = Callable[[str], str | None]
_ENCODED = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "%": "%25"})


def code_lines(text: str) -> set[int]:
    """0-based numbers of the lines that are code (fenced or indented), where a `[[x]]` is no link."""
    note = parse_note(text)
    lines = split_lines(text)
    body = "".join(lines[note.body_start :])
    found: set[int] = set()
    try:
        tokens = _markdown().parse(body)
    except Exception:  # the parser never fails a note; without structure every line counts as text
        return found
    for token in tokens:
        if token.map is not None and token.type in ("fence", "code_block"):
            found.update(range(token.map[0] + note.body_start, token.map[1] + note.body_start))
    return found


def _prose(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (start, end) ranges of `text` outside code blocks, and the protected spans within them."""
    skip = code_lines(text)
    ranges: list[tuple[int, int]] = []
    position = 0
    for number, line in enumerate(split_lines(text)):
        if number not in skip:
            if ranges and ranges[-1][1] == position:
                ranges[-1] = (ranges[-1][0], position + len(line))
            else:
                ranges.append((position, position + len(line)))
        position += len(line)
    spans = [(begin + start, begin + end) for begin, stop in ranges for start, end in protected_spans(text[begin:stop])]
    return ranges, spans


def markdown_target(destination: str) -> str | None:
    """The vault path a markdown link's destination names (decoded, without `#part`), or None
    when it is no link to a note (a URL, a file that is not .md)."""
    bare = destination[1:-1] if destination.startswith("<") else destination
    path = unquote(bare.partition("#")[0])
    if not path or _SCHEME.match(path) or not path.lower().endswith(".md"):
        return None
    return path


def markdown_links(text: str) -> list[str]:
    """The note paths (as written, decoded) of the markdown links in `text` that are links."""
    ranges, spans = _prose(text)
    found = []
    for begin, stop in ranges:
        for match in MARKDOWN_LINK.finditer(text, begin, stop):
            target = markdown_target(match.group(1))
            if target is not None and outside(spans, match.start()):
                found.append(target)
    return found


def rewrite_links(text: str, new_target: Renamer, new_path: Renamer | None = None) -> tuple[str, int]:
    """`text` with each wikilink whose target `new_target(target)` renames (None: leave it), and
    each markdown link whose decoded path `new_path(path)` renames, rewritten; and how many
    links changed."""
    ranges, spans = _prose(text)
    edits: list[tuple[int, int, str]] = []
    for begin, stop in ranges:
        for match in WIKILINK.finditer(text, begin, stop):
            if outside(spans, match.start()):
                edit = _wikilink_edit(match, new_target)
                if edit is not None:
                    edits.append(edit)
        if new_path is not None:
            for match in MARKDOWN_LINK.finditer(text, begin, stop):
                if outside(spans, match.start()):
                    edit = _markdown_edit(match, new_path)
                    if edit is not None:
                        edits.append(edit)
    pieces: list[str] = []
    position = 0
    for start, end, replacement in sorted(edits):
        pieces.append(text[position:start] + replacement)
        position = end
    pieces.append(text[position:])
    return "".join(pieces), len(edits)


def _wikilink_edit(match: re.Match[str], new_target: Renamer) -> tuple[int, int, str] | None:
    inner = match.group(1)
    cut = min((index for index in (inner.find("|"), inner.find("#")) if index >= 0), default=len(inner))
    if cut < len(inner) and inner[cut] == "|" and inner[:cut].endswith("\\"):
        cut -= 1  # `[[Old\|alias]]` in a table: the backslash escapes the pipe
    raw = inner[:cut]
    target = raw.strip()
    renamed = new_target(target) if target else None
    if renamed is None or renamed == target:
        return None
    lead = raw[: len(raw) - len(raw.lstrip())]
    trail = raw[len(raw.rstrip()) :]
    start = match.start(1)
    return start, start + cut, lead + renamed + trail


def _markdown_edit(match: re.Match[str], new_path: Renamer) -> tuple[int, int, str] | None:
    destination = match.group(1)
    target = markdown_target(destination)
    renamed = new_path(target) if target is not None else None
    if renamed is None or renamed == target:
        return None
    angled = destination.startswith("<")
    bare = destination[1:-1] if angled else destination
    _, hash_, part = bare.partition("#")
    # A bare destination cannot hold a space or a parenthesis: they are encoded, as Obsidian does.
    new = renamed if angled else renamed.translate(_ENCODED)
    new += hash_ + part
    start, end = match.span(1)
    return start, end, f"<{new}>" if angled else new
