"""What a line is, defined once for every module that counts, splits or splices lines.

CommonMark's definition: a line ends at LF, CRLF or a lone CR. Python's `str.splitlines` also
breaks at U+2028, U+0085, form feed, vertical tab and a few more characters that markdown-it
and editors treat as ordinary text; mixing the two made section line numbers from the parser
point at the wrong lines in the editor. Nothing in brain calls `splitlines` on note text.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_ENDING = re.compile(r"\r\n|\r|\n")
# What Python, YAML or some editor breaks a line at: never allowed inside a one-line field.
_ANY_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each keeping its ending; `"".join(split_lines(t)) == t`."""
    return _LINE.findall(text)


def line_texts(text: str) -> list[str]:
    """The lines of `text` without their endings."""
    return [strip_ending(line) for line in split_lines(text)]


def strip_ending(line: str) -> str:
    """`line` without its line ending (and only that: other trailing characters stay)."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def has_ending(line: str) -> bool:
    return line.endswith(("\n", "\r"))


def line_ending(text: str) -> str:
    """The file's line-ending style: that of its first LF (CRLF or LF); CR only in a file without LF.

    A lone CR is the style only when the file has no LF at all: a CR written in front of a line
    that starts with LF would fuse with it into one CRLF line ending.
    """
    first_lf = text.find("\n")
    if first_lf >= 0:
        return "\r\n" if first_lf > 0 and text[first_lf - 1] == "\r" else "\n"
    return "\r" if "\r" in text else "\n"


def with_ending(text: str, eol: str) -> str:
    """`text` with every line ending written as `eol` (for text brain inserts into a note)."""
    return _ENDING.sub(eol, text) if eol != "\n" or "\r" in text else text


def has_line_break(value: str) -> bool:
    """True when `value` holds anything a reader may take as a line break (U+2028 and NEL included)."""
    return _ANY_BREAK.search(value) is not None
