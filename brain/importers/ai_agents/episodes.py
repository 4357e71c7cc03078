"""ai-agents episode JSON <-> episode notes. Pure: dicts and text in, dicts and text out.

Import reads the JSON with `episode_from_data` and renders it with `render_episode`, then reads
the rendered markdown back exactly as export will (`episode_json`). Whatever does not come back
equal is written to the note's `ai_agents` frontmatter mapping, so export loses nothing:

    ai_agents:
      fields: {causal_order_version: 2}   top-level fields verbatim (unknown ones, or values markdown cannot hold)
      nulls: [decisions, lessons]         were null, not lists; exported as null while the section stays empty
      missing: [metrics]                  were absent; left out while the note has nothing for them
      decisions: {d001: {plain: true}}    per decision id: was a plain string (its Chosen text)
      events: {e004: {fields: {...}, missing: [caused_by]}}   per event id: fields kept verbatim / absent

Everything else is read from the markdown itself, so a person who edits a decision, an event or
a lesson in the note sees the edit in the next export.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from brain.importers.ai_agents.checks import check_episode
from brain.importers.ai_agents.common import META_KEY, same
from brain.markdown import frontmatter_yaml
from brain.markdown.model import OUTCOMES, Decision, Episode, Event, Note
from brain.markdown.parse import parse_note
from brain.memory.episodes.note import episode_from_note, episode_frontmatter, managed_frontmatter, render_episode_body
from brain.memory.episodes.service import episode_from_data

KNOWN_KEYS = ("id", "session", "timestamp", "outcome", "task", "decisions", "events", "metrics", "lessons")
CONTAINER_KEYS = ("decisions", "events", "lessons", "metrics")
DECISION_KEYS = ("id", "timestamp", "type", "context", "options", "chosen", "rationale", "outcome", "effects")
EVENT_KEYS = ("id", "timestamp", "type", "content", "caused_by", "leads_to")
_EXTRA_NAME = re.compile(r"^[A-Za-z_][\w-]*$")


@dataclass(frozen=True)
class EpisodeImport:
    episode: Episode
    meta: dict[str, Any]  # the `ai_agents` mapping; empty when the markdown says everything
    text: str  # the note for a vault that does not have it yet
    warnings: tuple[str, ...]


def is_episode(data: Any) -> bool:
    """An ai-agents episode: an object with an id or session and some episode content."""
    return (
        isinstance(data, dict)
        and ("id" in data or "session" in data)
        and any(key in data for key in ("outcome", "task", "decisions", "events", "lessons"))
    )


def episode_import(raw: dict[str, Any]) -> EpisodeImport:
    """The note for one episode, with every deviation from the schema as a warning (field first)."""
    warnings = check_episode(raw)
    clean = _readable(raw, warnings)
    episode, read_warnings = episode_from_data(clean)
    warnings += read_warnings
    outcome = raw.get("outcome")
    episode = replace(episode, outcome=outcome if isinstance(outcome, str) else None)
    # render_episode escapes any value line markdown would read as structure (`escape_block`).
    episode = replace(episode, decisions=_with_extras(episode.decisions, clean.get("decisions")))
    # The layout is render_episode's; its frontmatter is written by the fast exact dumper.
    body_text = render_episode_body(episode)
    body = parse_note(body_text)
    frontmatter = managed_frontmatter(episode)
    meta = _meta(raw, episode_json(frontmatter, body), warnings)
    extra = {META_KEY: meta} if meta else None
    text = f"---\n{frontmatter_yaml.dump(episode_frontmatter(episode, extra))}---\n\n{body_text}"
    if meta and not same(raw, episode_json({**frontmatter, META_KEY: meta}, body)):
        warnings.append("the note does not give back this episode exactly; export will differ (please report)")
    return EpisodeImport(episode, meta, text, tuple(warnings))


def _readable(raw: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """A copy `episode_from_data` accepts. What it would refuse is left out here and kept verbatim later."""
    clean = dict(raw)
    if raw.get("outcome") not in OUTCOMES:
        clean["outcome"] = "partial"  # a placeholder for the reader; the note keeps what the file said
        warnings.append(f"outcome: {raw.get('outcome')!r} is not success, partial or failure; kept as written")
    for key, kinds in (("task", str), ("timestamp", str), ("metrics", dict)):
        if raw.get(key) is not None and not isinstance(raw[key], kinds):
            del clean[key]
            warnings.append(f"{key}: {type(raw[key]).__name__}, not {kinds.__name__}; kept verbatim")
    for key in ("decisions", "events", "lessons"):
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            del clean[key]
            warnings.append(f"{key}: {type(value).__name__}, not a list; kept verbatim")
        elif key != "lessons" and any(not isinstance(item, (dict, str)) for item in value):
            del clean[key]
            warnings.append(f"{key}: holds items that are neither objects nor strings; kept verbatim")
    if not isinstance(raw.get("id"), (str, type(None))):
        clean["id"] = str(raw["id"])
    return clean


def _with_extras(decisions: tuple[Decision, ...], raw: Any) -> tuple[Decision, ...]:
    """Unknown string fields of a decision as `- **name**: value` bullets, readable in the note."""
    if not isinstance(raw, list) or len(raw) != len(decisions):
        return decisions
    known = {key.lower() for key in DECISION_KEYS} | {"title"}
    out = []
    for decision, item in zip(decisions, raw, strict=False):
        if isinstance(item, dict):
            extra = tuple(
                (key, value)
                for key, value in item.items()
                if key.lower() not in known and _EXTRA_NAME.match(key) and isinstance(value, str) and "\n" not in value
            )
            decision = replace(decision, extra=decision.extra + extra)
        out.append(decision)
    return tuple(out)


# ---------------------------------------------------------------- note -> JSON


def episode_json(frontmatter: dict[str, Any], note: Note) -> dict[str, Any]:
    """The ai-agents episode a note stands for: its markdown, corrected by its `ai_agents` mapping."""
    meta = frontmatter.get(META_KEY)
    meta = meta if isinstance(meta, dict) else {}
    parsed = episode_from_note(note)
    out: dict[str, Any] = {}
    defaults: set[str] = set()
    if frontmatter.get("episode_id") is not None:
        out["id"] = frontmatter["episode_id"]
    else:
        out["id"] = derived_id(note.title)
        defaults.add("id")
    for key, fm_key in (("session", "session"), ("timestamp", "date"), ("outcome", "outcome"), ("task", "task")):
        if frontmatter.get(fm_key) is not None:
            out[key] = frontmatter[fm_key]
    out["decisions"] = _apply_items([_decision_json(d) for d in parsed.decisions], meta.get("decisions"), plain=True)
    out["events"] = _apply_items([_event_json(e) for e in parsed.events], meta.get("events"), plain=False)
    metrics = dict(frontmatter["metrics"]) if isinstance(frontmatter.get("metrics"), dict) else {}
    duration = frontmatter.get("duration_minutes")
    # The top-level duration_minutes is the one a person sees and edits; it wins over the copy in metrics.
    number = isinstance(duration, (int, float)) and not isinstance(duration, bool)
    if number and "duration_minutes" in metrics and not same(duration, metrics["duration_minutes"]):
        metrics["duration_minutes"] = duration
    out["metrics"] = metrics
    out["lessons"] = list(parsed.lessons)
    defaults.update(key for key in CONTAINER_KEYS if not out[key])
    for key in _names(meta.get("nulls")):
        if key in defaults:
            out[key] = None
    for key in _names(meta.get("missing")):
        if key in defaults:
            out.pop(key, None)
    if isinstance(meta.get("fields"), dict):
        out.update(meta["fields"])
    return out


def derived_id(title: str) -> str:
    """The ai-agents id of an episode note that has no `episode_id`: EPISODE-x -> episode-x."""
    return "episode-" + title[len("EPISODE-") :] if title.upper().startswith("EPISODE-") else title


def _names(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _decision_json(decision: Decision) -> dict[str, Any]:
    out: dict[str, Any] = {"id": decision.id}
    for key in ("timestamp", "type", "context"):
        if getattr(decision, key) is not None:
            out[key] = getattr(decision, key)
    if decision.options is not None:
        out["options"] = list(decision.options)
    for key in ("chosen", "rationale", "outcome"):
        if getattr(decision, key) is not None:
            out[key] = getattr(decision, key)
    if decision.effects is not None:
        out["effects"] = list(decision.effects)
    out.update(decision.extra)
    return out


def _event_json(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("id", "timestamp", "type"):
        if getattr(event, key) is not None:
            out[key] = getattr(event, key)
    out["content"] = event.text
    out["caused_by"] = list(event.caused_by)
    out["leads_to"] = list(event.leads_to)
    out.update(event.extra)
    return out


def item_keys(items: list[Any]) -> list[str]:
    """How `ai_agents.decisions/events` name an item: its id when unique, else `#position`."""
    ids = [item.get("id") if isinstance(item, dict) else None for item in items]
    counts = Counter(value for value in ids if isinstance(value, str) and value)
    return [
        value if isinstance(value, str) and value and counts[value] == 1 else f"#{n}" for n, value in enumerate(ids, 1)
    ]


def _apply_items(items: list[dict[str, Any]], meta: Any, *, plain: bool) -> list[Any]:
    if not isinstance(meta, dict):
        return items
    out: list[Any] = []
    for key, item in zip(item_keys(items), items, strict=True):
        entry = meta.get(key)
        if isinstance(entry, dict):
            if plain and entry.get("plain") is True and "chosen" in item:
                out.append(item["chosen"])
                continue
            item = dict(item)
            for name in _names(entry.get("missing")):
                item.pop(name, None)
            if isinstance(entry.get("fields"), dict):
                item.update(entry["fields"])
        out.append(item)
    return out


# ---------------------------------------------------------------- what the markdown cannot say


def _meta(raw: dict[str, Any], exported: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    nulls: list[str] = []
    meta: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in exported:
            fields[key] = value
            continue
        got = exported[key]
        if same(value, got):
            continue
        if value is None and key in CONTAINER_KEYS and got in ([], {}):
            nulls.append(key)
            continue
        if key in ("decisions", "events") and isinstance(value, list) and len(value) == len(got):
            items = _item_meta(value, got, key, warnings)
            if items is not None:
                meta[key] = items
                continue
        fields[key] = value
        if key in KNOWN_KEYS:
            warnings.append(
                f"{key}: the note cannot show this value exactly; kept verbatim in '{META_KEY}', "
                "so edits to it in the note will not reach an export"
            )
    missing = [key for key in exported if key not in raw]
    ordered = {"fields": fields, "nulls": nulls, "missing": missing}
    return {key: value for key, value in ordered.items() if value} | meta


def _item_meta(raw: list[Any], got: list[Any], where: str, warnings: list[str]) -> dict[str, Any] | None:
    """Per-item corrections, or None when the items cannot be matched one to one."""
    known = DECISION_KEYS if where == "decisions" else EVENT_KEYS
    out: dict[str, Any] = {}
    for index, (key, value, item) in enumerate(zip(item_keys(got), raw, got, strict=False)):
        if same(value, item):
            continue
        if isinstance(value, str):
            if (
                where == "decisions"
                and isinstance(item, dict)
                and item.get("chosen") == value
                and set(item) <= {"id", "chosen"}
            ):
                out[key] = {"plain": True}
                continue
            return None
        if not isinstance(value, dict) or not isinstance(item, dict):
            return None
        entry: dict[str, Any] = {}
        fields = {name: field for name, field in value.items() if name not in item or not same(field, item[name])}
        missing = [name for name in item if name not in value]
        if fields:
            entry["fields"] = fields
            for name in fields:
                if name in known and name in item:
                    warnings.append(
                        f"{where}[{index}].{name}: the note cannot show this value exactly; kept verbatim in '{META_KEY}'"
                    )
        if missing:
            entry["missing"] = missing
        out[key] = entry
    return out
