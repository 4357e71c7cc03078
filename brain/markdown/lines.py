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


def require_one_line(value: str | None, field: str) -> None:
    """Refuse a value for a one-line field (a title, an id, a trigger) that holds a line break."""
    if value is not None and has_line_break(str(value)):
        from brain.errors import InvalidInput

        raise InvalidInput(
            f"'{field}' must be one line, but {str(value)[:40]!r} holds a line break; nothing was written"
        )


# A line of agent text that markdown would read as structure: a heading, a setext underline, a
# thematic break, a code fence; and a line already starting with a backslash, so that escaping
# stays reversible.
_STRUCTURE = re.compile(r"^([ \t]*)(#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$|(?:[-*_][ \t]*){3,}$|```|~~~|\\)")
_ESCAPED = re.compile(r"^([ \t]*)\\(?=#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$|(?:[-*_][ \t]*){3,}$|```|~~~|\\)")


def escape_block(text: str) -> str:
    """Text brain writes into a section or a multi-line field, with structure-like lines escaped.

    A backslash before the first character keeps `## x`, `---` or a fence as the text it was
    (markdown shows it without the backslash), so agent input cannot add a section, turn a line
    into a heading or open a code block over the rest of the note. `unescape_block` reverses it.
    """
    return "".join(_STRUCTURE.sub(r"\1\\\2", line) for line in split_lines(text))


def unescape_block(text: str) -> str:
    return "".join(_ESCAPED.sub(r"\1", line) for line in split_lines(text))
