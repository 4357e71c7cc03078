"""Secrets never reach the vault: values that look like credentials are replaced before anything is written.

Built in: API keys of the common providers (Anthropic, OpenAI, AWS access keys, GitHub and GitLab
tokens, Slack, Stripe, Google), private key blocks, JWTs, `Bearer` headers, passwords in URLs, and
`password=` / `token=` / `secret=` / `api_key:` style assignments (the name is kept, the value is
replaced). A vault adds its own under `[redact] patterns = ["..."]` in `.brain/config.toml` (Python
regular expressions; the whole match is replaced). A replaced value reads `[REDACTED:<kind>]`.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput

_PLACEHOLDER = re.compile(
    r"^(?:<[^>]*>|\$\{?\w+\}?|\*+|x+|\.\.\.|REDACTED.*|\[REDACTED[^\]]*\]|null|none|true|false|\d+)$", re.IGNORECASE
)

BUILTIN: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/]+"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("google-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
# `Bearer <value>`, `scheme://user:<value>@host`, `password=<value>`: only the value group is replaced
_VALUED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bearer", re.compile(r"\b(?:[Bb]earer|[Tt]oken)\s+([A-Za-z0-9._\-+/=]{16,})")),
    ("url-password", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]{3,})@")),
    (
        "assignment",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])[\w.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret)"
            r"[\"']?\s*(?:=|:)\s*[\"']?([^\s\"',;&)}\]<>${][^\s\"',;&)}\]]{3,})"
        ),
    ),
)


@dataclass
class Redactor:
    """Replaces secrets in text and counts what it replaced (`count`), by kind (`kinds`)."""

    extra: tuple[re.Pattern[str], ...] = ()
    count: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._whole = [(kind, re.compile(pattern)) for kind, pattern in BUILTIN]
        self._whole += [("custom", pattern) for pattern in self.extra]

    def text(self, value: str) -> str:
        if not value:
            return value
        for kind, pattern in self._whole:
            value = pattern.sub(self._marker(kind), value)
        for kind, pattern in _VALUED:
            value = pattern.sub(self._valuer(kind), value)
        return value

    def _marker(self, kind: str) -> Callable[[re.Match[str]], str]:
        return lambda match: self._mark(kind)

    def _valuer(self, kind: str) -> Callable[[re.Match[str]], str]:
        return lambda match: self._value(match, kind)

    def _mark(self, kind: str) -> str:
        self.count += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return f"[REDACTED:{kind}]"

    def _value(self, match: re.Match[str], kind: str) -> str:
        secret = match.group(1)
        if _PLACEHOLDER.match(secret) or "REDACTED" in secret:
            return match.group(0)
        start, end = match.span(1)
        offset = match.start(0)
        whole = match.group(0)
        return whole[: start - offset] + self._mark(kind) + whole[end - offset :]

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
