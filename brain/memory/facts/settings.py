"""Fact settings from `.brain/config.toml`: namespaces, tiers, compliance classes and retention policies.

```toml
[facts]
default_namespace = "default"        # used when a command names none
compliance_classes = ["hr"]          # classes beyond the built-in ones
[facts.tiers]                        # namespace (or "prefix:*") -> long-term | ephemeral
"run:*" = "ephemeral"

[retention]
retention_days = 365                 # closed facts may go this long after valid_until
ephemeral_days = 30                  # ephemeral facts may go this long after recorded_at
legal_hold = ["org:ledger"]          # namespaces whose facts are never deleted
[retention.classes.pii]              # per compliance class
retention_days = 30
legal_hold = false
```

A bad value (an unknown class, a wrong type, an unknown key) is one error naming the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from brain.errors import InvalidInput
from brain.memory.facts.note import COMPLIANCE_CLASSES, DEFAULT_TIER, TIERS
from brain.vault.vault import Vault

DEFAULT_NAMESPACE = "default"
_CLASS_KEYS = ("retention_days", "legal_hold")
_RETENTION_KEYS = ("retention_days", "ephemeral_days", "legal_hold", "classes")
_FACTS_KEYS = ("default_namespace", "compliance_classes", "tiers")


@dataclass(frozen=True)
class ClassPolicy:
    retention_days: int | None = None
    legal_hold: bool = False


@dataclass(frozen=True)
class FactSettings:
    default_namespace: str = DEFAULT_NAMESPACE
    classes: tuple[str, ...] = COMPLIANCE_CLASSES
    tiers: dict[str, str] = field(default_factory=dict)
    retention_days: int | None = None
    ephemeral_days: int | None = None
    held_namespaces: tuple[str, ...] = ()
    class_policies: dict[str, ClassPolicy] = field(default_factory=dict)

    def tier_for(self, namespace: str) -> str:
        """The namespace's tier: an exact entry, else the longest matching `prefix*`, else long-term."""
        if namespace in self.tiers:
            return self.tiers[namespace]
        prefixes = [key for key in self.tiers if key.endswith("*") and namespace.startswith(key[:-1])]
        return self.tiers[max(prefixes, key=len)] if prefixes else DEFAULT_TIER

    def check_class(self, name: str) -> str:
        if name not in self.classes:
            raise InvalidInput(
                f"compliance class '{name}' is not known; use one of {', '.join(self.classes)} "
                "(or add it to compliance_classes under [facts] in .brain/config.toml)"
            )
        return name


def _table(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise InvalidInput(f".brain/config.toml: [{where}] must be a table")
    return value


def _unknown(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    extra = [key for key in table if key not in allowed]
    if extra:
        raise InvalidInput(
            f".brain/config.toml: unknown key(s) {', '.join(extra)} in [{where}]; known: {', '.join(allowed)}"
        )


def _days(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f".brain/config.toml: {where} must be a whole number of days >= 0, got {value!r}")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise InvalidInput(f".brain/config.toml: {where} must be a list of names, got {value!r}")
    return tuple(item.strip() for item in value)


def load_settings(vault: Vault) -> FactSettings:
    path = vault.brain_dir / "config.toml"
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{path} is not valid TOML ({error}); fix it or delete it to use the defaults") from None
    facts = _table(raw, "facts", "facts")
    retention = _table(raw, "retention", "retention")
    _unknown(facts, _FACTS_KEYS, "facts")
    _unknown(retention, _RETENTION_KEYS, "retention")
    namespace = facts.get("default_namespace", DEFAULT_NAMESPACE)
    if not isinstance(namespace, str) or not namespace.strip():
        raise InvalidInput(".brain/config.toml: default_namespace under [facts] must be a name")
    classes = COMPLIANCE_CLASSES + tuple(
        c
        for c in _strings(facts.get("compliance_classes", []), "facts.compliance_classes")
        if c not in COMPLIANCE_CLASSES
    )
    tiers = _table(facts, "tiers", "facts.tiers")
    for name, tier in tiers.items():
        if tier not in TIERS:
            raise InvalidInput(
                f".brain/config.toml: tier '{tier}' for namespace '{name}' is not one of {', '.join(TIERS)}"
            )
    policies: dict[str, ClassPolicy] = {}
    for name, table in _table(retention, "classes", "retention.classes").items():
        if name not in classes:
            raise InvalidInput(
                f".brain/config.toml: [retention.classes.{name}] names an unknown compliance class; "
                f"known: {', '.join(classes)} (declare new ones in compliance_classes under [facts])"
            )
        if not isinstance(table, dict):
            raise InvalidInput(f".brain/config.toml: [retention.classes.{name}] must be a table")
        _unknown(table, _CLASS_KEYS, f"retention.classes.{name}")
        hold = table.get("legal_hold", False)
        if not isinstance(hold, bool):
            raise InvalidInput(f".brain/config.toml: legal_hold in [retention.classes.{name}] must be true or false")
        policies[name] = ClassPolicy(
            _days(table.get("retention_days"), f"retention.classes.{name}.retention_days"), hold
        )
    return FactSettings(
        default_namespace=namespace.strip(),
        classes=classes,
        tiers=dict(tiers),
        retention_days=_days(retention.get("retention_days"), "retention.retention_days"),
        ephemeral_days=_days(retention.get("ephemeral_days"), "retention.ephemeral_days"),
        held_namespaces=_strings(retention.get("legal_hold", []), "retention.legal_hold"),
        class_policies=policies,
    )
