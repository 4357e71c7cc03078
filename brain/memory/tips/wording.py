"""Wording a tip from what a log recorded: logs say what was done ("Chose raise over warn ..."),
a tip says what to do ("Choose raise over warn ...").

Only the first word changes, and only when it is a past-tense verb this module knows: a short
table of irregular verbs, then the regular rules of English spelling (verified -> verify,
stopped -> stop, validated -> validate, declined -> decline, added -> add). A word it does not
recognise is left as it was, so the worst case is the log's own wording.

`generalize` takes the names of things out of a text (emails, URLs, paths, files, quoted code, commit
SHAs, ids, issue and document numbers become placeholders) and keeps its numbers: in advice the number
is usually the point (attempt 1, a 500-line limit, 20 to 40 minutes). A run's own counts ("(3 failed,
2 passed)") are dropped.
"""

from __future__ import annotations

import itertools
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


_NAMED_LABEL = re.compile(r"^[A-Z][\w-]*(?: [\w-]+)?:\s+([A-Z][a-z-]+)\b")  # "Fix: Added", "Verify fix: Ran"


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
    elif lower.startswith("re") and lower[2:] in _IRREGULAR:  # retyped, rewired, rescored
        plain = "re" + _IRREGULAR[lower[2:]]
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
    named = _NAMED_LABEL.match(stripped)
    if named and base_form(named.group(1)) is not None:  # "Verify fix: Added x": a label, then what was done
        stripped = stripped[named.start(1) :]
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


# ---------------------------------------------------------------- generalizing: names out, numbers kept

TOOL_KINDS = {  # what a command runs, by the tool that runs it
    "test suite": "pytest jest vitest mocha pester invoke-pester unittest tox nox",
    "linter": "ruff eslint flake8 pylint markdownlint markdownlint-cli2 actionlint shellcheck yamllint",
    "type checker": "mypy pyright tsc",
}
RUNNERS = "uv uvx python3 python npm npx pnpm yarn git gh make cargo go pwsh bash sh node dotnet".split()
_PROGRAMS = frozenset(
    [
        *RUNNERS,
        *" ".join(TOOL_KINDS.values()).split(),
        *"docker kubectl pip brain terraform helm curl jq bun deno".split(),
    ]
)
_RUNNER_PREFIX = re.compile(r"^(?:uv run|uvx|poetry run|pipenv run|npx|pnpm exec|bundle exec|python3? -m|py -m)\s+")
_TEST_COMMAND = re.compile(
    rf"^(?:{'|'.join(TOOL_KINDS['test suite'].split())}|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|"
    r"(?:go|cargo|dotnet|make|deno|mix)\s+test)\b",
    re.IGNORECASE,
)


def quoted_code(code: str) -> str:
    """What a quoted piece of code says once its names are gone: a test command is "the tests", another
    command keeps its program and subcommands (`npm run build`, `ruff check`), anything else is <code>."""
    tokens = code.split()
    while tokens and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", tokens[0]):  # "LSP_DOWN=true uv run pytest"
        tokens.pop(0)
    command = _RUNNER_PREFIX.sub("", " ".join(tokens))
    if _TEST_COMMAND.match(command):
        return "the tests"
    head = command.split()
    if not head or head[0] not in _PROGRAMS:
        return "<code>"
    sub = list(itertools.takewhile(lambda word: re.fullmatch(r"[a-z][a-z-]*", word) is not None, head[1:]))
    return "`" + " ".join([head[0], *sub[: 1 if head[0] == "git" else 2]]) + "`"  # `git push`, `npm run build`


_GENERALIZE = (
    (re.compile(r"[^\s@<>()\[\]]+@[^\s@<>()\[\]]+\.[^\s@<>()\[\]]+"), "<email>"),
    (re.compile(r"https?://\S+"), "<url>"),
    (re.compile(r"`[^`\n]+`"), lambda found: quoted_code(found.group(0)[1:-1])),
    (  # a path to a file is a file ("src/http.py" -> <file>), else a path ("origin/main")
        re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]*\w"),  # not a full stop after it
        lambda found: "<file>" if re.search(r"\.[a-z]{1,5}$", found.group(0)) else "<path>",
    ),
    (re.compile(r"\b[\w-]+\.(?:py|ps1|psm1|md|json|ya?ml|toml|ts|js|sh|txt)\b"), "<file>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"), "<sha>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<id>"),
    (  # "PR #12" is a PR, "#12" and "issue #12" an issue
        re.compile(r"(?:\b(?:PR|issue|pull)\s*)?#\d+", re.IGNORECASE),
        lambda found: "<pr>" if found.group(0)[:1] in "Pp" else "<issue>",
    ),
    (re.compile(r"\b(ADR|RFC|CVE|JIRA)-\d+\b"), lambda found: f"<{found.group(1).lower()}>"),
    (re.compile(r"\b[a-z]\d{3}\b"), "<ref>"),
)
_REDACTED_SENTENCE = re.compile(r"[^.!?\n]*\[REDACTED[^\]]*\][^.!?\n]*(?:[.!?]\s*|$)")
_THEY = re.compile(r"\b(the tests)(:\s+)tests\s+(failed|passed)\b", re.IGNORECASE)
_RUN_COUNTS = re.compile(  # "(3 failed, 2 passed)", "(5 passed in 0.05s)": what one run counted, not advice
    r"\s*\((?:\d+\s+(?:passed|failed|skipped|errors?|warnings?|tests?|deselected|xfailed|xpassed)"
    r"(?:\s+in\s+[\d.]+\s*m?s)?,?\s*)+\)",
    re.IGNORECASE,
)
_STOP = set(
    "the a an and or of to in on for with by from at as is was were be been it its this that these those into".split()
)

# Words that cannot end a name: a name cut after one reads as half a phrase ("...-that-an", "...-from-the")
FUNCTION_WORDS = frozenset(
    (
        "a an the and or but nor so yet if then than because since as while when where whether which who whom "
        "whose what that this these those of to in on for with by from at into onto over under about after before "
        "between through during without within via per against across is was were be been being are am has have "
        "had do does did will would can could should may might must shall it its it's they them their we our us "
        "i my me you your he she his her not no also just only very"
    ).split()
)


def generalize(text: str, limit: int = 160) -> str:
    """Text with entity names replaced by placeholders, one line, at most `limit` characters."""
    out = " ".join(text.split())
    out = re.sub(r"\*\*([^*\n]+)\*\*", r"\1", out)  # a log's markdown bold: the words, not the stars
    without = _REDACTED_SENTENCE.sub("", out).strip()  # a sentence about a secret says nothing to reuse
    out = without or re.sub(r"\[REDACTED[^\]]*\]", "<secret>", out)
    for pattern, placeholder in _GENERALIZE:
        out = pattern.sub(placeholder, out)
    out = _THEY.sub(r"\1\2they \3", out)  # "Ran the tests: tests failed" -> "Ran the tests: they failed"
    out = re.sub(r"(^|[.!?]\s+)the tests\b", r"\1The tests", out)  # "`pytest` failed" -> "The tests failed"
    out = _RUN_COUNTS.sub("", out)
    out = re.sub(r"(<\w+>)(?:[\s,/]+\1)+", r"\1", out)  # "<n>, <n>, <n>" -> "<n>"
    if len(out) > limit:
        cut = out[:limit].rsplit(" ", 1)[0]
        out = cut.rstrip(",;:") + "..."
    return out


def first_clause(text: str, limit: int = 90) -> str:
    """The first sentence or clause, for a short subtask description."""
    head = re.split(r"(?<=[.!?;:])\s|\s[-–]\s|\(", text.strip(), maxsplit=1)[0].rstrip(".;:, ")
    return generalize(head, limit)


def lower_first(text: str) -> str:
    """First letter in lower case, unless the first word is an acronym or a name in capitals (TTL, PR)."""
    if len(text) > 1 and text[1].isupper():
        return text
    return text[:1].lower() + text[1:]


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9]+", text.lower()) if w not in _STOP}


def same(a: str, b: str) -> bool:
    """One text is the other, or starts like it (a cut-down title of the same step)."""
    a, b = " ".join(re.findall(r"\w+", a.lower())), " ".join(re.findall(r"\w+", b.lower()))
    short = min(len(a), len(b), 60)
    return a[:short] == b[:short]
