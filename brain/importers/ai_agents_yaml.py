"""A small, exact YAML writer for the frontmatter of generated notes.

An import writes thousands of notes; PyYAML's pure-Python emitter costs milliseconds per key,
which alone would blow the import budget. The values here are JSON values, so a writer for
just those is short: strings that read back as themselves are written plain, everything else
double-quoted with YAML escapes; nested containers deeper than one level are written in flow
style. `brain.notes.frontmatter_yaml.load` reads the result back to exactly the input (tested).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

# Conservative: what may stand unquoted. The resolver check below rules out true/null/1.5/dates.
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ .,/()+=@~-]*$")
_ESCAPED = re.compile(r'[\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]')
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}
_RESOLVER = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"


def dump(mapping: dict[str, Any]) -> str:
    """YAML text for a frontmatter mapping, one top-level key after another, ending in a newline."""
    return "".join(dump_key(key, value) for key, value in mapping.items())


def dump_key(key: str, value: Any) -> str:
    return _block(key, value, "")


def _block(key: Any, value: Any, indent: str) -> str:
    head = f"{indent}{_scalar(key, flow=False)}:"
    if isinstance(value, dict) and value:
        return head + "\n" + "".join(_block(k, v, indent + "  ") for k, v in value.items())
    if isinstance(value, list) and value:
        items = "".join(f"{indent}- {_item(item)}\n" for item in value)
        return head + "\n" + items
    return f"{head} {_item(value)}\n"


def _item(value: Any) -> str:
    return _flow(value) if isinstance(value, (dict, list, tuple)) else _scalar(value, flow=False)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k, flow=True)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _scalar(value, flow=True)


def _scalar(value: Any, *, flow: bool) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    if not flow and _plain_ok(text):
        return text
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def _plain_ok(text: str) -> bool:
    if not _PLAIN.match(text) or text != text.strip() or "  " in text:
        return False
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG


def _escape(match: re.Match) -> str:
    char = match.group(0)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    # YAML 1.1 reads a float only with a dot, and an exponent only with a sign.
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if exponent and exponent[0] not in "+-":
        exponent = "+" + exponent
    return mantissa + ("e" + exponent if exponent else "")
