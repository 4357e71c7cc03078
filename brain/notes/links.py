"""Rewrite the wikilinks of a note's text that point at a renamed note, the way Obsidian does.

Only the target part of a link changes: `[[Old#Heading|alias]]` becomes `[[New#Heading|alias]]`,
an embed `![[Old]]` stays an embed, every other byte of the text (line endings included) is
kept. Links inside fenced or indented code are not links and stay as they are; links in the
frontmatter (`caused_by: "[[Old]]"`) are rewritten too. Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Callable

from brain.notes.lines import split_lines
from brain.notes.parse import WIKILINK, _markdown, parse_note


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


def rewrite_links(text: str, new_target: Callable[[str], str | None]) -> tuple[str, int]:
    """`text` with each link whose target `new_target(target)` renames (None: leave it) rewritten,
    and how many links changed."""
    skip = code_lines(text)
    changed = 0
    out: list[str] = []
    for number, line in enumerate(split_lines(text)):
        if number in skip or "[[" not in line:
            out.append(line)
            continue
        pieces: list[str] = []
        position = 0
        for match in WIKILINK.finditer(line):
            inner = match.group(1)
            cut = min((index for index in (inner.find("|"), inner.find("#")) if index >= 0), default=len(inner))
            raw = inner[:cut]
            target = raw.strip()
            renamed = new_target(target) if target else None
            if renamed is None or renamed == target:
                continue
            lead = raw[: len(raw) - len(raw.lstrip())]
            trail = raw[len(raw.rstrip()) :]
            start = match.start(1)
            pieces.append(line[position:start] + lead + renamed + trail)
            position = start + cut
            changed += 1
        pieces.append(line[position:])
        out.append("".join(pieces))
    return "".join(out), changed
