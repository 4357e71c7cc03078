"""Saying a generalized tip in words: what a placeholder stood for, and no sentence it emptied.

`generalize` takes the names out of a text and leaves placeholders (`<file>`, `<issue>`, `<sha>`)
that the rules use to tell a name from a word. A reader should not meet them: "Ran <code>: tests
failed" says nothing. So, once a tip is drafted:

- a sentence that is only placeholders and stop words once its names are out ("Edited <file>.",
  "See <url>") is dropped, and a tip whose advice is left empty is no tip;
- a bracket of only placeholders ("(<issue>)", "(<sha>)") is dropped;
- every other placeholder becomes the kind of thing it stood for: "the file", "the issue", "the
  commit", "the ADR" ("<file> and <file>" is "the files"; "a <file>" is "a file").

A quoted command was already said by `generalize` (a test command is "the tests", another keeps its
program: `npm run build`), and a `[REDACTED:...]` sentence was dropped there.
"""

from __future__ import annotations

import re
from dataclasses import replace

from brain.memory.tips.draft import Draft
from brain.memory.tips.wording import words

_NOUNS = {
    "code": ("code", "code"),
    "path": ("path", "paths"),
    "file": ("file", "files"),
    "issue": ("issue", "issues"),
    "pr": ("PR", "PRs"),
    "sha": ("commit", "commits"),
    "url": ("link", "links"),
    "email": ("address", "addresses"),
    "id": ("id", "ids"),
    "ref": ("reference", "references"),
    "adr": ("ADR", "ADRs"),
    "rfc": ("RFC", "RFCs"),
    "cve": ("CVE", "CVEs"),
    "jira": ("ticket", "tickets"),
    "secret": ("secret", "secrets"),
}
_KIND = "|".join(_NOUNS)
PLACEHOLDER = re.compile(rf"<(?:{_KIND})>")
_BRACKET = re.compile(rf"\s*\((?:\s*<(?:{_KIND})>\s*(?:[,;/]|and)?)+\s*\)")
_SEVERAL = re.compile(rf"<({_KIND})>(?:(?:\s*,\s*|\s+and\s+|\s*/\s*|\s+or\s+)<\1>)+")
_DETERMINED = re.compile(
    rf"\b(a|an|the|this|that|each|every|its|their|our|my|your|one|same|any|no|another|which)\s+<({_KIND})(s?)>",
    re.IGNORECASE,
)
_ANY = re.compile(rf"<({_KIND})(s?)>")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _noun(kind: str, plural: str) -> str:
    single, many = _NOUNS[kind]
    return many if plural else single


def spoken(text: str) -> str:
    """Placeholders said as what they stood for (rules in the module doc)."""
    out = _BRACKET.sub("", text)
    out = _SEVERAL.sub(lambda found: f"<{found.group(1)}s>", out)

    def determined(found: re.Match[str]) -> str:
        word, noun = found.group(1), _noun(found.group(2), found.group(3))
        if word.lower() in ("a", "an"):  # "a <issue>" -> "an issue"
            article = "an" if noun[:1].lower() in "aeiou" else "a"
            word = article.capitalize() if word[:1].isupper() else article
        return f"{word} {noun}"

    out = _DETERMINED.sub(determined, out)

    def bare(found: re.Match[str]) -> str:
        start = found.start() == 0 or bool(re.search(r"[.!?:]\s+$", out[: found.start()]))
        return ("The " if start else "the ") + _noun(found.group(1), found.group(2))

    out = _ANY.sub(bare, out)
    return re.sub(r"\s+([,.;:])", r"\1", out).strip()


def contentful(text: str) -> str:
    """The text without its sentences that its placeholders emptied (fewer than two words of content)."""
    kept = [
        sentence
        for sentence in _SENTENCES.split(text.strip())
        if not PLACEHOLDER.search(sentence) or len(words(PLACEHOLDER.sub(" ", sentence))) >= 2
    ]
    return " ".join(kept)


def say(text: str) -> str:
    """A generalized text as a reader gets it: sentences with content, placeholders in words."""
    return spoken(contentful(text))


def said(draft: Draft) -> Draft | None:
    """A draft's every text said in words; None when its advice says nothing once that is done."""
    tip = say(draft.tip)
    if len(words(tip)) < 2:
        return None
    steps = tuple(step for step in (say(step) for step in draft.steps) if step)
    return replace(
        draft,
        subtask=say(draft.subtask) or spoken(draft.subtask),
        name=draft.name or draft.subtask,  # named as before it was said: "Resolve <issue> threads", not "the issue"
        trigger=say(draft.trigger) or spoken(draft.trigger),
        tip=tip,
        steps=steps,
        avoid="; ".join(part for part in (say(part) for part in draft.avoid.split("; ")) if part),
        purpose=say(draft.purpose),
        applies_when=say(draft.applies_when) or spoken(draft.applies_when),
    )
