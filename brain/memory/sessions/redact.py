"""Secrets never reach the vault: values that look like credentials are replaced before anything is written.

Built in (`KINDS`; docs/promises.md has the table of kinds and their shapes):
API keys of the common providers (Anthropic, OpenAI, AWS access keys, GitHub and GitLab tokens,
Slack, Stripe, Google, SendGrid, npm), private key blocks (PEM, OpenSSH, PGP), JWTs,
`Authorization` and `Bearer` headers, passwords in URLs, `password=` / `token=` / `secret=` /
`api_key:` style assignments, the secret word anywhere in the name (`SECRET_KEY_BASE=`,
`DB_PASSWORD_PROD=`, `"secretKey":`) unless the name's last word says what the value is instead
(`_PATH`, `_TYPE`, `_URL`, `_ID`, ...; a quoted value goes whole, spaces and `&` included), and the
credentials of everyday command lines (`--password X`, `--account-key X`, mysql `-pX`,
`curl -u user:pass`, `aws configure set aws_secret_access_key X`). Where a name says what the
value is, the name is kept and only the value is replaced. A vault adds its own under
`[redact] patterns = ["..."]` in `.brain/config.toml` (Python regular expressions; the whole
match is replaced). A replaced value reads `[REDACTED:<kind>]`, and a marker is never matched
again: redacting twice gives what redacting once gave.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput

MARKER = re.compile(r"\[REDACTED(?::[^\]\n]*)?\]")
# values that stand for a secret without being one: `<your token>`, `${TOKEN}`, `****`, `...`
_PLACEHOLDER = re.compile(
    r"^(?:<[^>]*>|\$\{?\w+\}?|\*+|x+|\.\.\.|REDACTED.*|\[REDACTED[^\]]*\]|null|none|true|false)$", re.IGNORECASE
)
_NUMBER = re.compile(r"^\d+$")  # `secret: 42` in an assignment is a count, not a secret
# the word after a flag in prose ("set --password to ..."): read as a word, not as the flag's value
_PROSE = frozenset("a an and as at by for from if in is it of on option flag argument or the then to when with".split())

# A value as a command line or an assignment writes it: "double quoted" (escapes included),
# 'single quoted', or one unquoted word; each in a group of its own.
_DQ, _SQ = r"\"((?:[^\"\\\n]|\\.)+)\"", r"'([^'\n]+)'"
_WORD = r"([^\s\"'`|;&<>()]*[^\s\"'`|;&<>().,:!?][^\s\"'`|;&<>()]*)"  # not punctuation alone: `mysql -p.`


@dataclass(frozen=True)
class Kind:
    """One kind of secret: its name (the marker's `<kind>`) and its pattern. `valued`: only the
    pattern's value group goes (the name or flag before it stays)."""

    name: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...] = ()  # a match holds one of these (casefolded): a text with none is not searched
    valued: bool = False
    numbers: bool = True  # False: a value of digits alone is not a secret of this kind


def _whole(name: str, needles: str, pattern: str) -> Kind:
    return Kind(name, re.compile(pattern), tuple(needles.split()))


def _valued(name: str, needles: str, pattern: str, *, numbers: bool = True) -> Kind:
    return Kind(name, re.compile(pattern), tuple(needles.split()), valued=True, numbers=numbers)


_SECRET_NAME = r"(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret)"
# The secret word ends a word of the name: the name ends, or `_` `.` `-` or a capital (camelCase) follow.
# `SECRET_KEY_BASE`, `DB_PASSWORD_PROD` and `secretKey` are secret names; `tokenizer` and `passwords` not.
_WORD_END = r"(?:(?=[_.-])|(?-i:(?<=[a-z])(?=[A-Z]))|(?![A-Za-z0-9]))"
# A name whose last word is one of these names what a secret is not: its kind, size, place, name or id.
_NOT_A_SECRET = frozenset(
    "type types kind count length len size limit min max url uri urls endpoint host path paths file files dir "
    "name names id ids arn ref env var field header prompt hint policy required enabled format version expiry "
    "expires expiration ttl at in store manager provider source label mode usage used".split()
)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_FLAG = (
    r"(?:password|passwd|secret|token|api-?key|access-key|secret-key|secret-access-key|account-key|"
    r"client-secret|auth-token|access-token|sas-token|storage-key)"
)

# Earlier kinds win: a span one kind replaced is not looked at again by a later one.
KINDS: tuple[Kind, ...] = (
    _whole(
        "private-key",
        "private",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)",
    ),
    _whole("anthropic-key", "sk-ant-", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    _whole("openai-key", "sk-", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    _whole("aws-access-key", "akia asia abia acca", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    _whole(
        "github-token",
        "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    _whole("gitlab-token", "glpat-", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    _whole(
        "slack-token",
        "xox hooks.slack.com",
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/]+",
    ),
    _whole("stripe-key", "_live_ _test_", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _whole("google-key", "aiza", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _whole("sendgrid-key", "sg.", r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
    _whole("npm-token", "npm_", r"\bnpm_[A-Za-z0-9]{36,}"),
    _whole("jwt", "eyj", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _valued(
        "bearer",
        "bearer token",
        r"\b[Bb]earer[ \t]+([A-Za-z0-9._\-+/=]{16,})|(?<!--)\b[Tt]oken[ \t]+(?=[A-Za-z0-9._\-+/=]*\d)([A-Za-z0-9][A-Za-z0-9._\-+/=]{15,})",
    ),
    _valued(
        "authorization",
        "authorization",
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|token)\s+([A-Za-z0-9._~+/=\-]{3,})",
    ),
    _valued("url-password", "://", r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s@/]+)@", numbers=False),
    _valued(
        "aws-secret",
        "aws",
        r"\baws\s+configure\s+set\s+(?:[\w-]+\.)?[\w.-]*(?:secret|token|password)[\w.-]*\s+"
        + f"(?:{_DQ}|{_SQ}|{_WORD})",
        numbers=False,
    ),
    _valued(
        "option-secret",
        "--",
        r"(?i)(?<![\w-])--" + _FLAG + r"(?:=|\s+)" + f"(?:{_DQ}|{_SQ}|(?!-){_WORD})",
        numbers=False,
    ),
    _valued(
        "mysql-password",
        "mysql mariadb",
        r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p"
        + f"(?:{_DQ}|{_SQ}|{_WORD})",
        numbers=False,
    ),
    _valued(
        "curl-user",
        "curl",
        r"\bcurl\b[^\n|;&]*?\s(?:-u\s*|--user[\s=]+)[\"']?[^\s:\"']*:([^\s\"']+)",
        numbers=False,
    ),
    _valued(
        "assignment",
        "pass pwd secret token key",
        # the whole name, taken at once (`++`: no backtracking into it), when a secret word ends a word of it
        r"(?i)(?<![\w.-])(?=[\w.-]*?" + _SECRET_NAME + _WORD_END + r")(?P<name>[\w.-]++)[\"']?\s*(?:=|:)\s*"
        r"(?:\"((?:[^\"\\\n]|\\.){3,})\"|'([^'\n]{3,})'|[\"']?([^\s\"',;&)}\]<>${][^\s\"',;&)}\]]{3,}))",
    ),
)


@dataclass(frozen=True)
class Span:
    """Where a secret is in a text (`start`, `end`) and its kind; never the secret itself."""

    start: int
    end: int
    kind: str


@dataclass
class Redactor:
    """Replaces secrets in text and counts what it replaced (`count`), by kind (`kinds`)."""

    extra: tuple[re.Pattern[str], ...] = ()
    count: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        custom = [Kind("custom", pattern) for pattern in self.extra]
        self._kinds = [kind for kind in KINDS if not kind.valued] + custom + [kind for kind in KINDS if kind.valued]

    def spans(self, text: str) -> list[Span]:
        """Every secret in `text`, in order, none overlapping another or a `[REDACTED...]` marker."""
        taken = [(match.start(), match.end()) for match in MARKER.finditer(text)]  # sorted, never overlapping
        found: list[Span] = []
        folded = text.casefold()  # as (?i) compares: the long s and the Kelvin sign too
        for kind in self._kinds:
            if kind.needles and not any(needle in folded for needle in kind.needles):
                continue
            for match in kind.pattern.finditer(text):
                start, end = _secret(match, kind)
                if end > start and _free(taken, start, end):
                    bisect.insort(taken, (start, end))
                    found.append(Span(start, end, kind.name))
        return sorted(found, key=lambda span: span.start)

    def text(self, value: str) -> str:
        if not value:
            return value
        parts: list[str] = []
        last = 0
        for span in self.spans(value):
            parts += [value[last : span.start], self._mark(span.kind)]
            last = span.end
        return "".join(parts) + value[last:] if parts else value

    def _mark(self, kind: str) -> str:
        self.count += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return f"[REDACTED:{kind}]"

    def value(self, value: Any) -> Any:
        """Any value of an episode: strings redacted; tuples, lists, dicts and dataclasses walked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, tuple):
            return tuple(self.value(item) for item in value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {self.value(key): self.value(item) for key, item in value.items()}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {f.name: self.value(getattr(value, f.name)) for f in dataclasses.fields(value)}
            return dataclasses.replace(value, **changes)
        return value


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps none of the sorted, disjoint spans `taken`."""
    after = bisect.bisect_left(taken, (start, start))
    return (after == 0 or taken[after - 1][1] <= start) and (after == len(taken) or taken[after][0] >= end)


def _secret(match: re.Match[str], kind: Kind) -> tuple[int, int]:
    """The span of `match` that is the secret: all of it, or its value group; (0, 0) for none."""
    if not kind.valued:
        return match.span()
    named = match.re.groupindex.get("name")
    group = next(
        (number for number in range(1, len(match.groups()) + 1) if number != named and match.group(number) is not None),
        None,
    )
    if group is None:
        return 0, 0
    secret = match.group(group)
    if _PLACEHOLDER.match(secret) or (kind.numbers and _NUMBER.match(secret)):
        return 0, 0
    if named is not None and _names_no_secret(match.group(named)):
        return 0, 0
    if kind.name == "option-secret" and secret.lower() in _PROSE:
        return 0, 0
    return match.span(group)


def _names_no_secret(name: str) -> bool:
    """Whether a name's last word says its value is no secret (`SECRET_KEY_PATH`, `tokenType`)."""
    words = _NAME_WORDS.findall(name)
    return bool(words) and words[-1].lower() in _NOT_A_SECRET


def markers(value: Any) -> int:
    """How many values are redacted in `value` (its `[REDACTED:<kind>]` markers), walked as `Redactor.value` walks."""
    if isinstance(value, str):
        return value.count("[REDACTED:")
    if isinstance(value, (tuple, list)):
        return sum(markers(item) for item in value)
    if isinstance(value, dict):
        return sum(markers(key) + markers(item) for key, item in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(markers(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 0


def vault_patterns(brain_dir: Path) -> tuple[re.Pattern[str], ...]:
    """The vault's own patterns, `[redact] patterns` in `.brain/config.toml`; a bad one is a one-line error."""
    path = brain_dir / "config.toml"
    if not path.is_file():
        return ()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{path} is not valid TOML ({error}); fix it or delete it to use the defaults") from None
    section = data.get("redact", {})
    patterns = section.get("patterns", []) if isinstance(section, dict) else []
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise InvalidInput(f"{path}: [redact] patterns must be a list of regular expressions (strings)")
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as error:
            raise InvalidInput(
                f"{path}: [redact] pattern {pattern!r} is not a valid regular expression ({error})"
            ) from None
    return tuple(compiled)


def redactor_for(brain_dir: Path | None) -> Redactor:
    return Redactor(extra=vault_patterns(brain_dir) if brain_dir is not None else ())
