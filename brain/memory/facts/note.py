"""Facts: read a fact note's typed parts, render a new one, close one. Pure: text in, objects out.

A fact's value is any YAML value; `value_hash` (sha256 of its canonical JSON) is written with it,
so an edit made by hand is detectable. Times are ISO 8601 with a zone and stored in UTC (`...Z`).
Validity is half-open: a fact is valid from `valid_from` (included) until `valid_until`
(excluded), so a successor whose `valid_from` is its predecessor's `valid_until` takes over at
that very instant. `closed_at` records when the closing itself was written, which is what
"what did the vault know at T" needs.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, get_args

from brain.errors import InvalidInput
from brain.lazy import lazy_module
from brain.markdown.depth import TooDeep, load_json, too_deep_message
from brain.markdown.edit import append_to_section, set_frontmatter
from brain.markdown.model import Note
from brain.markdown.parse import WIKILINK, parse_wikilink

if TYPE_CHECKING:
    import yaml

    from brain.markdown import frontmatter_yaml
else:  # PyYAML loads when a fact is written or its value parsed: recall reads the catalog's copy
    yaml = lazy_module("yaml")
    frontmatter_yaml = lazy_module("brain.markdown.frontmatter_yaml")

Tier = Literal["long-term", "ephemeral"]
TIERS: tuple[Tier, ...] = get_args(Tier)
DEFAULT_TIER = "long-term"
COMPLIANCE_CLASSES = ("public", "internal", "confidential", "financial", "pii", "phi", "pci")
DEFAULT_COMPLIANCE_CLASS = "internal"
DEFAULT_AUTHORITY = 0.5
TIME_EXAMPLE = "2026-03-17T11:25:00Z or 2026-03-17T12:25:00+01:00"
# Keys brain manages on a fact; `created` is kept for every note type.
FACT_KEYS = (
    "kind",
    "subject",
    "value",
    "namespace",
    "tier",
    "source",
    "authority",
    "valid_from",
    "valid_until",
    "supersedes",
    "superseded_by",
    "compliance_class",
    "retention_days",
    "legal_delete_at",
    "recorded_at",
    "recorded_by",
    "value_hash",
)
# What only the fact commands change (and `type`): the note tools refuse to touch any of it, so no
# agent can lift a hold, move a legal delete date, reopen or retype a fact through them.
MANAGED_KEYS = ("type", *FACT_KEYS, "legal_hold", "closed_at", "closed_by", "closed_reason")
_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Fact:
    title: str
    path: str | None
    kind: str
    subject: str
    value: Any
    namespace: str
    tier: str
    source: str | None
    authority: float
    valid_from: datetime
    valid_until: datetime | None
    supersedes: str | None  # the title the link names
    superseded_by: str | None
    compliance_class: str
    retention_days: int | None
    legal_delete_at: datetime | None
    legal_hold: bool
    recorded_at: datetime
    recorded_by: str | None
    closed_at: datetime | None  # when valid_until was written (None: as recorded, or unknown)
    closed_reason: str | None
    closed_by: str | None
    value_hash: str | None  # as written in the note
    actual_hash: str  # of the value as it is now
    problems: tuple[str, ...] = ()

    @property
    def closed(self) -> bool:
        return self.valid_until is not None

    @property
    def tampered(self) -> bool:
        """The value no longer matches the hash written with it (edited by hand)."""
        return self.value_hash is not None and self.value_hash != self.actual_hash


# ---------------------------------------------------------------- values and times


def canonical_json(value: Any) -> str:
    """The one serialization a value is hashed by: sorted keys, no spaces, UTF-8 as is."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"a fact value must be plain data (text, numbers, lists, mappings): {error}") from None


def value_hash(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def parse_value(text: str) -> Any:
    """A value given as YAML or JSON (JSON is YAML); dates stay the text they were written as."""
    if text is None or not str(text).strip():
        raise InvalidInput("the fact value is empty; give YAML or JSON such as '{seconds: 900}' or '\"dark\"'")
    try:
        value = load_json(
            text, "the fact value"
        )  # JSON first: YAML reads an escaped surrogate pair as two broken characters
    except TooDeep as error:
        raise InvalidInput(str(error)) from None
    except ValueError:
        value = _yaml_value(text)
    value = frontmatter_yaml._plain(value)
    canonical_json(value)  # refuses NaN, infinities and other non-data
    return value


def _yaml_value(text: str) -> Any:
    try:
        return frontmatter_yaml._load(text, "the fact value")[0]  # refuses a value nested past depth.MAX_DEPTH
    except TooDeep as error:
        raise InvalidInput(str(error)) from None
    except RecursionError:
        raise InvalidInput(too_deep_message("the fact value")) from None
    except yaml.YAMLError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "parse error"
        raise InvalidInput(
            f"the fact value is not valid YAML or JSON ({first}); quote plain text, e.g. '\"dark\"'"
        ) from None


def parse_time(value: Any, what: str) -> datetime:
    """An aware datetime from ISO 8601 text with a zone; anything else is refused with an example."""
    text = str(value).strip() if value is not None else ""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{what} '{value}' is not an ISO 8601 time; write e.g. {TIME_EXAMPLE}") from None
    if parsed.tzinfo is None or len(text) <= 10:
        raise InvalidInput(f"{what} '{value}' has no time zone; write e.g. {TIME_EXAMPLE}")
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 is before year 1 in UTC
        raise InvalidInput(f"{what} '{value}' is outside the dates brain can hold (years 1 to 9999 in UTC)") from None


def format_time(instant: datetime) -> str:
    """UTC, `Z`, whole seconds unless the instant has a fraction."""
    text = instant.astimezone(UTC).isoformat()
    return text.replace("+00:00", "Z")


def fact_title(subject: str, kind: str, namespace: str, recorded_at: datetime, hashed: str) -> str:
    """`FACT-<subject>-<8 hex>`: readable, and unique per subject, namespace, time and value."""
    slug = _SLUG.sub("-", subject.lower()).strip("-")[:60].strip("-") or "fact"
    digest = hashlib.sha256(
        f"{namespace}\x00{kind}\x00{subject}\x00{format_time(recorded_at)}\x00{hashed}".encode()
    ).hexdigest()
    return f"FACT-{slug}-{digest[:8]}"


# ---------------------------------------------------------------- reading


def _link_target(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    match = WIKILINK.search(value)
    return parse_wikilink(match.group(1)).target if match else value.strip()


def _optional_time(fm: dict[str, Any], key: str, problems: list[str]) -> datetime | None:
    raw = fm.get(key)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        return parse_time(raw, key)
    except InvalidInput as error:
        problems.append(str(error))
        return None


def _text(value: Any) -> str | None:
    return str(value).strip() if isinstance(value, (str, int, float)) and str(value).strip() else None


def nfc(text: str) -> str:
    """Subjects, kinds and namespaces compare in one Unicode form (`café` typed as NFC or NFD is one subject)."""
    return unicodedata.normalize("NFC", text)


def fact_from_note(note: Note) -> Fact:
    """The typed fact of a `type: fact` note. What is missing or malformed becomes a problem, never an error."""
    fm = note.frontmatter
    problems = list(note.problems)
    for key in ("kind", "subject"):
        if not _text(fm.get(key)):
            problems.append(f"fact has no '{key}'")
    if "value" not in fm:
        problems.append("fact has no 'value'")
    value = fm.get("value")
    try:
        actual = value_hash(value)
    except InvalidInput as error:
        problems.append(str(error))
        actual = "sha256:" + hashlib.sha256(repr(value).encode()).hexdigest()
    recorded = _optional_time(fm, "recorded_at", problems) or _optional_time(fm, "created", [])
    if not _text(fm.get("valid_from")):
        problems.append("fact has no 'valid_from'")
    valid_from = _optional_time(fm, "valid_from", problems)
    valid_from = valid_from or recorded or datetime.min.replace(tzinfo=UTC)
    recorded = recorded or valid_from
    authority = fm.get("authority")
    try:
        authority = DEFAULT_AUTHORITY if authority in (None, "") else float(authority)
        if not 0.0 <= authority <= 1.0:
            raise ValueError
    except (TypeError, ValueError):
        problems.append(f"authority '{fm.get('authority')}' is not a number between 0 and 1")
        authority = DEFAULT_AUTHORITY
    retention = fm.get("retention_days")
    if retention in (None, ""):
        retention = None
    elif isinstance(retention, bool) or not isinstance(retention, int) or retention < 0:
        problems.append(f"retention_days '{retention}' is not a whole number of days")
        retention = None
    tier = _text(fm.get("tier")) or DEFAULT_TIER
    if tier not in TIERS:
        problems.append(f"tier '{tier}' is not one of {', '.join(TIERS)}")
    hashed = _text(fm.get("value_hash"))
    return Fact(
        title=note.title,
        path=note.path,
        kind=nfc(_text(fm.get("kind")) or ""),
        subject=nfc(_text(fm.get("subject")) or ""),
        value=value,
        namespace=nfc(_text(fm.get("namespace")) or "default"),
        tier=tier,
        source=_link_target(fm.get("source")),
        authority=authority,
        valid_from=valid_from,
        valid_until=_optional_time(fm, "valid_until", problems),
        supersedes=_link_target(fm.get("supersedes")),
        superseded_by=_link_target(fm.get("superseded_by")),
        compliance_class=_text(fm.get("compliance_class")) or DEFAULT_COMPLIANCE_CLASS,
        retention_days=retention,
        legal_delete_at=_optional_time(fm, "legal_delete_at", problems),
        legal_hold=fm.get("legal_hold") is True,
        recorded_at=recorded,
        recorded_by=_text(fm.get("recorded_by")),
        closed_at=_optional_time(fm, "closed_at", problems),
        closed_reason=_text(fm.get("closed_reason")),
        closed_by=_text(fm.get("closed_by")),
        value_hash=hashed,
        actual_hash=actual,
        problems=tuple(problems),
    )


# ---------------------------------------------------------------- writing


@dataclass(frozen=True)
class NewFact:
    """Everything a new fact note is made of (the service fills in defaults and checks)."""

    title: str
    kind: str
    subject: str
    value: Any
    namespace: str
    tier: str
    source: str | None
    authority: float
    valid_from: datetime
    compliance_class: str
    retention_days: int | None
    legal_delete_at: datetime | None
    legal_hold: bool
    recorded_at: datetime
    recorded_by: str
    supersedes: str | None = None


def _wikilink(title: str | None) -> str:
    return f"[[{title}]]" if title else ""


def render_fact(fact: NewFact, folder: str = "facts") -> str:
    fm: dict[str, Any] = {
        "title": fact.title,
        "type": "fact",
        "tags": ["fact", _SLUG.sub("-", fact.kind.lower()).strip("-") or "fact"],
        "permalink": f"{folder}/{fact.title.lower()}",
        "created": format_time(fact.recorded_at),
        "kind": fact.kind,
        "subject": fact.subject,
        "value": fact.value,
        "namespace": fact.namespace,
        "tier": fact.tier,
        "source": _wikilink(fact.source),
        "authority": fact.authority,
        "valid_from": format_time(fact.valid_from),
        "valid_until": "",
        "supersedes": _wikilink(fact.supersedes),
        "superseded_by": "",
        "compliance_class": fact.compliance_class,
        "retention_days": fact.retention_days if fact.retention_days is not None else "",
        "legal_delete_at": format_time(fact.legal_delete_at) if fact.legal_delete_at else "",
        **({"legal_hold": True} if fact.legal_hold else {}),
        "recorded_at": format_time(fact.recorded_at),
        "recorded_by": fact.recorded_by,
        "value_hash": value_hash(fact.value),
    }
    lines = [
        f"A {fact.kind} fact about {fact.subject} in namespace {fact.namespace}, valid from {format_time(fact.valid_from)}."
    ]
    lines.append("Recorded by brain; never edited in place: a new value supersedes it (`brain fact supersede`).")
    relations = [f"- supersedes [[{fact.supersedes}]]"] if fact.supersedes else []
    if fact.source:
        relations.append(f"- derived_from [[{fact.source}]]")
    body = f"# {fact.title}\n\n" + " ".join(lines) + "\n"
    if relations:
        body += "\n## Relations\n" + "\n".join(relations) + "\n"
    return f"---\n{frontmatter_yaml.dump(fm)}---\n\n{body}"


def close_fact(
    text: str,
    *,
    valid_until: datetime,
    closed_at: datetime,
    closed_by: str,
    reason: str | None,
    superseded_by: str | None,
) -> str:
    """Close a fact note: only validity keys are set (and a relation line added); the value is untouched."""
    updates: dict[str, Any] = {
        "valid_until": format_time(valid_until),
        "superseded_by": _wikilink(superseded_by),
        "closed_at": format_time(closed_at),
        "closed_by": closed_by,
    }
    if reason:
        updates["closed_reason"] = " ".join(reason.split())
    text = set_frontmatter(text, updates)
    if superseded_by:
        text = append_to_section(text, "Relations", f"- superseded_by [[{superseded_by}]]")
    return text


def changed_managed_keys(before: Note, after: Note) -> list[str]:
    """Keys only the fact commands may change (`MANAGED_KEYS`, `type` too) that an edit of a fact would
    change, add or remove."""
    if before.type != "fact":
        return []
    old, new = before.frontmatter, after.frontmatter
    changed = [key for key in MANAGED_KEYS if canonical_or_none(old.get(key)) != canonical_or_none(new.get(key))]
    if after.type != "fact" and "type" not in changed:
        changed.insert(0, "type")
    return changed


def canonical_or_none(value: Any) -> str | None:
    try:
        return canonical_json(value)
    except InvalidInput:
        return repr(value)
