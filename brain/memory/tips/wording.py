"""Wording a tip from what a log recorded: logs say what was done ("Chose raise over warn ..."),
a tip says what to do ("Choose raise over warn ...").

Only the first word changes, and only when it is a past-tense verb this module knows: a short
table of irregular verbs, then the regular rules of English spelling (verified -> verify,
stopped -> stop, validated -> validate, declined -> decline, added -> add). A word it does not
recognise is left as it was, so the worst case is the log's own wording.
"""

from __future__ import annotations

import re

_IRREGULAR = {
    "chose": "choose",
    "built": "build",
    "wrote": "write",
    "rewrote": "rewrite",
    "ran": "run",
    "reran": "rerun",
    "found": "find",
    "made": "make",
    "took": "take",
    "kept": "keep",
    "left": "leave",
    "brought": "bring",
    "caught": "catch",
    "fell": "fall",
    "held": "hold",
    "sent": "send",
    "spent": "spend",
    "led": "lead",
    "gave": "give",
    "got": "get",
    "did": "do",
    "redid": "redo",
    "undid": "undo",
    "began": "begin",
    "broke": "break",
    "drew": "draw",
    "knew": "know",
    "saw": "see",
    "told": "tell",
    "thought": "think",
    "understood": "understand",
    "withdrew": "withdraw",
    "created": "create",
    "recreated": "recreate",
    "routed": "route",
    "rerouted": "reroute",
    "embedded": "embed",
    "focused": "focus",
    "synced": "sync",
    "controlled": "control",
    "cancelled": "cancel",
    "labelled": "label",
    "modelled": "model",
    "signalled": "signal",
    "promoted": "promote",
    "quoted": "quote",
    "noted": "note",
    "voted": "vote",
    "invited": "invite",
    "united": "unite",
    "ignored": "ignore",
    "stored": "store",
    "scored": "score",
    "restored": "restore",
    "explored": "explore",
    "compared": "compare",
    "prepared": "prepare",
    "declared": "declare",
    "shared": "share",
    "scoped": "scope",
    "shaped": "shape",
    "reshaped": "reshape",
    "escaped": "escape",
    "typed": "type",
    "wiped": "wipe",
    "piped": "pipe",
    "agreed": "agree",
    "freed": "free",
    "guaranteed": "guarantee",
}
_PAST_ED = re.compile(r"^[a-z]+ed$")
_DOUBLED = re.compile(r"([bgmnprt])\1$")  # stopped, committed, planned: not added, called, passed
_LABEL = re.compile(
    r"^(?:[a-z][\w-]*|(?:Phase|Step|Stage|Part|Decision|Commit|Round)(?:\s+<?\w+>?\w*)?)\s*:\s+(?=\S)"
)  # "fix: ", "Phase <n>b: "


def _needs_e(stem: str) -> bool:
    """Whether a verb's stem takes back an 'e' (validat -> validate, declin -> decline, us -> use)."""
    if stem.endswith(("iz", "yz", "v", "u", "c", "dg")) or (stem.endswith("s") and not stem.endswith("ss")):
        return True
    if stem.endswith(("ur", "ir")):  # measure, require; not pour, repair
        return not stem.endswith(("our", "air", "oir", "eir"))
    if stem.endswith("g"):
        return not stem.endswith(("ing", "ong", "ung"))
    if re.search(r"[bcdfgkptz]l$", stem):  # enabl, handl, settl
        return True
    shape = re.search(r"([^aeiou])([aeiouy])([a-z])$", stem)  # a consonant, one vowel, a consonant
    if not shape:
        return False
    vowel, last = shape.group(2), shape.group(3)
    return (
        last in "dkbz"  # provide, invoke, describe
        or (last == "m" and vowel in "aiu")  # name, time, assume
        or (last == "t" and vowel in "au")  # validate, compute
        or (last == "l" and vowel in "iu")  # file, rule
        or (last == "n" and vowel == "i")  # decline, define
    )


def base_form(word: str) -> str | None:
    """The plain form of a past-tense verb ('Verified' -> 'Verify'), or None when `word` is not one."""
    if "-" in word:  # "Mutation-tested" -> "Mutation-test"
        head, _, last = word.rpartition("-")
        plain_last = base_form(last)
        return f"{head}-{plain_last}" if plain_last else None
    lower = word.lower()
    if lower in _IRREGULAR:
        plain = _IRREGULAR[lower]
    elif _PAST_ED.match(lower) and not lower.endswith("eed") and re.search(r"[aeiouy]", lower[:-2]):  # not need, shed
        stem = lower[:-2]
        if lower.endswith("ied"):
            plain = lower[:-3] + "y"
        elif _DOUBLED.search(stem):
            plain = stem[:-1]
        else:
            plain = stem + "e" if _needs_e(stem) else stem
    else:
        return None
    return plain.capitalize() if word[:1].isupper() else plain


def strip_label(text: str) -> str:
    """A log's step without its label ('fix: Added x' -> 'Added x'; 'Phase <n>: Verify' -> 'Verify')."""
    stripped = _LABEL.sub("", text.strip(), count=1)
    return stripped if len(stripped.split()) >= 2 else text.strip()


def imperative(text: str) -> str:
    """What was done, said as what to do: the first word in its plain form when it is a past-tense verb."""
    text = strip_label(text)
    head, _, rest = text.partition(" ")
    plain = base_form(head)
    if plain is None:
        return text
    return " ".join(part for part in (plain[:1].upper() + plain[1:], rest) if part)


def is_instruction(text: str) -> bool:
    """Whether a text already starts with a verb of action (a past one, or one of the common plain ones)."""
    head = strip_label(text).split(" ", 1)[0].lower()
    return base_form(head) is not None or head in _PLAIN_VERBS or head.endswith(("ise", "ize", "ify"))


_PLAIN_VERBS = frozenset(
    "add apply avoid build check choose confirm create decline drop fix keep make measure move pause pin put "
    "raise read record reduce remove replace reproduce require run scope set ship split start stop test "
    "use validate verify wait write".split()
)
