"""What a run record must look like: the checks on a snapshot, identity, labels and TTL.

Every check runs before anything is written, and fails with one `InvalidInput` line that names
what is wrong.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from brain.errors import InvalidInput, Remedy, UsageError
from brain.markdown.depth import deeper_than, too_deep_message
from brain.memory.runs.note import PREVIEW_LIMIT, PROJECTIONS, Run, RunLabels, TruncatedPreview
from brain.memory.timeutil import parse_instant

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_TTL = re.compile(r"^(\d+)\s*([mhdw])$")
_TTL_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def tenant_is_safe(tenant: str) -> bool:
    return bool(_TENANT.match(tenant)) and ".." not in tenant


def check_tenant(tenant: Any) -> str:
    """A tenant names a folder under runs/, so it may hold only characters that cannot escape it."""
    if not isinstance(tenant, str) or not tenant.strip():
        raise UsageError("a tenant is required (", Remedy("tenant"), "); runs are kept and recalled per tenant")
    if not tenant_is_safe(tenant):
        raise UsageError(
            f"tenant {tenant!r} may hold only letters, digits, '.', '_' and '-' (at most 64, no '..'); it names a folder under runs/"
        )
    return tenant


def check_projection(projection: str) -> str:
    if projection not in PROJECTIONS:
        raise UsageError(f"projection '{projection}' is not one of {', '.join(PROJECTIONS)}")
    return projection


def _reject_constant(name: str) -> Any:
    raise InvalidInput(f"the snapshot holds {name}, which is not JSON; give finite numbers")


def parse_json(text: str, source: str) -> Any:
    """Strict JSON (NaN and Infinity refused), with a one-line error naming the source."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise InvalidInput(f"{source}: {too_deep_message('the snapshot')}") from None
    except json.JSONDecodeError as error:
        raise InvalidInput(
            f"{source} is not JSON ({error.msg} at line {error.lineno}); give a SnapshotEntry object"
        ) from None
    return value


def snapshot_from_data(data: Any) -> tuple[dict[str, Any], tuple[TruncatedPreview, ...]]:
    """The seed's SnapshotEntry checked, with resultPreviews cut to PREVIEW_LIMIT characters.

    Every key is kept as given (unknown ones too). Required: `query` (text) and `finalContent`
    (text, or null for a run still in flight).
    """
    if not isinstance(data, dict):
        raise InvalidInput(f"a snapshot must be a JSON object, got {type(data).__name__}")
    if deeper_than(data):  # it could be written but never read back (see notes/depth.py)
        raise InvalidInput(too_deep_message("the snapshot"))
    _check_values(data, "snapshot")
    if not isinstance(data.get("query"), str) or not data["query"].strip():
        raise InvalidInput("the snapshot has no 'query' (the text the agent was asked); it is required")
    if "finalContent" not in data:
        raise InvalidInput("the snapshot has no 'finalContent' (the agent's answer; null for a run still in flight)")
    if data["finalContent"] is not None and not isinstance(data["finalContent"], str):
        raise InvalidInput(f"'finalContent' must be text or null, got {type(data['finalContent']).__name__}")
    for key in ("decisions", "toolCalls"):
        if key in data and not isinstance(data[key], list):
            raise InvalidInput(f"'{key}' must be a list, got {type(data[key]).__name__}")
    for number, decision in enumerate(data.get("decisions") or []):
        if not isinstance(decision, dict):
            raise InvalidInput(f"decisions[{number}] must be an object with stageId, chosen, rule, evidence")
        if not isinstance(decision.get("stageId"), str) or not decision["stageId"]:
            raise InvalidInput(f"decisions[{number}] has no 'stageId'")
        evidence = decision.get("evidence")
        if evidence is not None and not isinstance(evidence, dict):
            raise InvalidInput(
                f"decisions[{number}].evidence must be a JSON object of the values the rule used "
                f'(e.g. {{"creditScore": 580}}), got {type(evidence).__name__}'
            )
    snapshot = json.loads(json.dumps(data))  # a private copy
    truncated = []
    for number, call in enumerate(snapshot.get("toolCalls") or []):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise InvalidInput(f"toolCalls[{number}] must be an object with a 'name'")
        preview = call.get("resultPreview")
        if isinstance(preview, str) and len(preview) > PREVIEW_LIMIT:
            call["resultPreview"] = preview[:PREVIEW_LIMIT]
            truncated.append(TruncatedPreview(number, len(preview)))
    return snapshot, tuple(truncated)


def _check_values(value: Any, where: str) -> None:
    """Only what JSON and a UTF-8 file can hold: finite numbers, text without lone surrogates."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"{where} is {value}, which is not JSON; give a finite number")
    if isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(str(key), where)
            _check_values(item, f"{where}.{key}")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _check_values(item, f"{where}[{number}]")


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            f"{where} holds an unpaired UTF-16 surrogate, which is not text; fix the JSON's \\u escapes"
        ) from None


def expiry(ttl: str | None, now: datetime) -> str | None:
    """`30d`, `12h`, `90m`, `2w` from now, or an ISO date/time; None for no expiry."""
    if ttl is None or not str(ttl).strip():
        return None
    found = _TTL.match(str(ttl).strip())
    try:
        if found:
            when = now + timedelta(**{_TTL_UNITS[found.group(2)]: int(found.group(1))})
        else:
            try:
                when = parse_instant(str(ttl), "ttl")
            except InvalidInput:
                raise UsageError(f"ttl '{ttl}' is not a duration (30d, 12h, 90m, 2w) or an ISO date") from None
        return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OverflowError:
        raise UsageError(
            f"ttl '{ttl}' ends after the year 9999 (UTC); give a shorter one, or none to keep the run"
        ) from None


def expired(run: Run, now: datetime | None = None) -> bool:
    if not run.expires:
        return False
    try:
        return parse_instant(run.expires, "expires") <= (now or datetime.now(UTC))
    except InvalidInput:
        return False


@dataclass(frozen=True)
class Recording:
    """What a snapshot file gives: the snapshot, and (in the wrapped form) identity, labels, ttl and id."""

    snapshot: Any
    tenant: str | None = None
    principal: str | None = None
    conversation: str | None = None
    labels: RunLabels = RunLabels()
    ttl: str | None = None
    run_id: str | None = None


def recording_from_data(data: Any) -> Recording:
    """A bare SnapshotEntry, or `{"snapshot": {...}, "identity": {tenant, principal, conversationId},
    "outcome": {accepted, overridden, escalated, score}, "ttl": "30d", "id": "..."}`."""
    if not isinstance(data, dict):
        raise InvalidInput(f"a snapshot must be a JSON object, got {type(data).__name__}")
    if "snapshot" not in data:
        return Recording(data)
    identity = data.get("identity") or {}
    outcome = data.get("outcome") or {}
    if not isinstance(identity, dict) or not isinstance(outcome, dict):
        raise InvalidInput("'identity' and 'outcome' must be JSON objects")
    return Recording(
        data["snapshot"],
        tenant=identity.get("tenant"),
        principal=optional_text(identity.get("principal"), "identity.principal"),
        conversation=optional_text(identity.get("conversationId"), "identity.conversationId"),
        labels=labels_from(
            outcome.get("accepted"), outcome.get("overridden"), outcome.get("escalated"), outcome.get("score")
        ),
        ttl=optional_text(data.get("ttl"), "ttl"),
        run_id=optional_text(data.get("id"), "id"),
    )


def optional_text(value: Any, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"'{name}' must be text, got {type(value).__name__}")
    if value is not None:
        _check_text(value, name)
    return value


def labels_from(accepted: Any = None, overridden: Any = None, escalated: Any = None, score: Any = None) -> RunLabels:
    for name, value in (("accepted", accepted), ("overridden", overridden), ("escalated", escalated)):
        if value is not None and not isinstance(value, bool):
            raise InvalidInput(f"outcome label '{name}' must be true or false, got {value!r}")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0
    ):
        raise InvalidInput(f"eval score must be a number between 0 and 1, got {score!r}")
    return RunLabels(accepted, overridden, escalated, None if score is None else float(score))
