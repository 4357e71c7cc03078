"""Where a `[[link]]` is only text: inline code, HTML and Obsidian comments, `$$` math.

Obsidian shows a link written inside `` `code` ``, `<!-- a comment -->`, `%% a comment %%` or
`$$ math $$` as it is, never as a link; a move never rewrites it. (Code blocks, fenced or
indented, are found by the markdown parser, line by line: `parse._sections`.) Pure: text in,
character ranges out.
"""

from __future__ import annotations

import re

# The first of these to start wins, so a backtick inside a comment is part of the comment.
_PROTECTED = re.compile(
    r"<!--.*?-->"  # an HTML comment, over several lines too
    r"|%%.*?%%"  # an Obsidian comment
    r"|\$\$.*?\$\$"  # display math
    r"|(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)",  # inline code: a run of backticks closed by the same run
    re.DOTALL,
)


def protected_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) character ranges of `text` where a link is only text, in order."""
    if not any(mark in text for mark in ("`", "<!--", "%%", "$$")):
        return []
    return [match.span() for match in _PROTECTED.finditer(text)]


def outside(spans: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` is in none of `spans` (sorted, not overlapping)."""
    return not any(start <= position < end for start, end in spans)


def blank_spans(text: str) -> str:
    """`text` with its protected spans blanked (same length, line breaks kept): what is left to read links from."""
    spans = protected_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        pieces.append(re.sub(r"[^\r\n]", " ", text[start:end]))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
