"""Naming a tip whose step is told by the command line it ran.

A log often says a step by its command ("Run full repo pytest", "Ran LSP_DOWN=true uv run pytest
tests/...", "Run ruff check --fix"). A title made from those words names a tool, its flags and its
paths, not what the step was for. Such a step is named instead by what it does and what the session
was about:

- its label, when the log gave one ("Reproduce: Ran uv run pytest ..." -> "Reproduce: <subject>");
- else what the command runs, when it is a test runner, a linter or a type checker, with the words
  that qualified it ("Run full repo pytest" -> "Run the full repo test suite: <subject>");
- else "Check: <subject>".

The subject is the session's task, its first clause; a first clause that is only a heading ("PR
#1979 round 18: resolve ...") gives way to the clause after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brain.memory.tips.wording import (
    FUNCTION_WORDS,
    RUNNERS,
    TOOL_KINDS,
    first_clause,
    generalize,
    imperative,
    lower_first,
    words,
)

_KIND_OF = {tool: kind for kind, tools in TOOL_KINDS.items() for tool in tools.split()}
_TOOL = "|".join(re.escape(tool) for tool in sorted([*_KIND_OF, *RUNNERS], key=len, reverse=True))
_COMMAND = re.compile(
    r"^(?:(?P<label>[A-Z][\w-]*(?: [\w-]+){0,3}):\s+)?"  # "Reproduce: "
    r"(?:(?P<verb>ran|run|executed?|invoked?)\s+(?P<qualifiers>(?:[a-z][\w-]*\s+){0,3}?))?"  # "Run full repo "
    rf"(?P<command>`|<code>|[A-Z_][A-Z0-9_]*=|(?:{_TOOL})(?=\s+(?:<\w+>|[\w./-]*[a-z])|\s*$|\s*[,;:.(]))",
    re.IGNORECASE,
)
_HEADING_WORDS = 3  # a first clause naming fewer words than this is a heading ("<issue> round 18")


@dataclass(frozen=True)
class CommandStep:
    """A step told by its command line: its label, the words that qualified the command, what it runs."""

    label: str | None
    qualifiers: str
    kind: str | None


def command_step(text: str) -> CommandStep | None:
    """The command a step is told by, or None when the step is told in words.

    A runner starts a command line anywhere ("uv run ...", "git push ..."). A test runner, linter or
    type checker starts one after "Run" or a label ("Run ruff check --fix", "Validate: ruff passed"):
    at the start of a step it is often a noun ("mypy type-arg fix in ..."). Words between "Run" and
    such a tool qualify it ("full repo") only when none of them is a stop word: "Run the tests with
    pytest" is told in words already."""
    found = _COMMAND.match(text.strip())
    if found is None:
        return None
    qualifiers = " ".join((found.group("qualifiers") or "").split())
    tool = found.group("command").lower()
    if qualifiers and (any(not words(word) for word in qualifiers.split()) or tool not in _KIND_OF):
        return None
    if tool in _KIND_OF and not (found.group("verb") or found.group("label")):  # "mypy type-arg fix in ...": prose
        return None
    rest = text.strip()[found.start("command") :]
    kind = next((_KIND_OF[w] for w in re.findall(r"[\w-]+", rest.lower()) if w in _KIND_OF), None)
    return CommandStep(found.group("label"), qualifiers.lower(), kind)


def command_name(step: CommandStep, task: str) -> str:
    """A name for a step told by its command line: what it does, then the subject of the session."""
    if step.label:
        doing = imperative(step.label)
        doing = doing[:1].upper() + doing[1:]
    elif step.kind:
        doing = f"Run the {step.qualifiers} {step.kind}".replace("  ", " ")
    else:
        doing = "Check"
    return generalize(f"{doing}: {lower_first(subject(task))}", 90)


def subject(task: str, limit: int = 70) -> str:
    """What a session was about in a few words: the task's first clause, or the clause after it when
    the first one is a heading ("PR #1979 round 18: resolve ..."), or its first sentence."""
    first = first_clause(task, limit)
    if named_words(first) >= _HEADING_WORDS:
        return first
    heading = re.match(r"[^.!?;:(]+:\s+(?=\S)", task.strip())  # the first clause ends at its colon
    if heading and named_words(first_clause(task.strip()[heading.end() :], limit)) >= _HEADING_WORDS:
        return first_clause(task.strip()[heading.end() :], limit)
    # "Author <doc> for <issue> (metacognitive confidence-elicitation)": the sentence, without brackets
    return generalize(re.sub(r"[()]", "", re.split(r"(?<=[.!?])\s", task.strip())[0]), limit).rstrip(".")


_LABEL_WORDS = frozenset("fix round step phase part stage decision commit finding nit todo next n".split())


def contentless(name: str) -> bool:
    """Whether a name says nothing once its labels, numbers and placeholders are set aside ("Fix",
    "Round 10", "Step 3: <file>"): fewer than two words of content."""
    found = [w for w in re.findall(r"[a-z][a-z'-]*", re.sub(r"<\w+>", " ", name.lower())) if w not in _LABEL_WORDS]
    return len([w for w in found if w not in FUNCTION_WORDS]) < 2


def slug(text: str, most: int = 8) -> str:
    """A tip's name from a text: its first `most` words, placeholders out, never ending on a function
    word ("...-that-an") nor on a word the text was cut in ("...-correlatio" of "correlatio...")."""
    text = re.sub(r"<\w+>", " ", text.lower())
    cut = re.search(r"\w(?:\.\.\.|…)\s*$", text)
    found = re.findall(r"[a-z0-9]+", text)
    if cut and len(found) <= most:
        found = found[:-1]
    found = found[:most]
    while found and found[-1] in FUNCTION_WORDS:
        found.pop()
    return "-".join(found)


def titles(base: str, subtask: str, advice: str) -> list[str]:
    """The names a tip may take, in order: `base` (its subtask's first 8 words), more of the subtask
    (12, then 16 words: two errors of one program differ further on), then `base-<what to do>` (one
    failure fixed two ways). Never a `-2` copy while one of these is free."""
    longer = [f"TIP-{slug(subtask, most)}" for most in (12, 16) if slug(subtask, most)]
    return list(dict.fromkeys([base, *longer, *([f"{base}-{slug(advice, 4)}"] if slug(advice, 4) else [])]))


def narrated(name: str) -> bool:
    """Whether a name tells what happened rather than what was done ("My own control caught ...",
    "Round 10 (Sol) found ..."): it opens with a pronoun or a determiner, or says nothing by itself."""
    first = name.split(" ", 1)[0].lower()
    return first in ("my", "our", "i", "we", "the", "that", "this", "it") or contentless(name)


def whole(title: str, full: str) -> str:
    """A title a log cut short ("Rebuilt x from the input-based correlatio...") as the full text it
    was cut from, when that is at hand; else without its cut word."""
    cut = re.match(r"(.*?)\s*(?:\.\.\.|…)$", title.strip())
    if cut is None:
        return title
    if full.startswith(cut.group(1)):
        return full
    return cut.group(1).rsplit(" ", 1)[0] if " " in cut.group(1) else cut.group(1)


def named_words(text: str) -> int:
    """How many words of a text are not placeholders."""
    return sum(1 for word in text.split() if not re.fullmatch(r"\W*<\w+>\W*", word))
