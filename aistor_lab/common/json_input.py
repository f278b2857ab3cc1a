"""Decoding the JSON that clients send (request bodies of the catalog, admin and sharing APIs, and
the JSON strings inside them), strictly enough that nothing hostile reaches code that walks it:

- UTF-8 only (RFC 8259), and no lone surrogate escapes (``"\\ud800"``), which no UTF-8 text can hold;
- no duplicate keys: parsers disagree on which one wins, so a policy or a commit could mean two things;
- no NaN or Infinity, no number that overflows a double (``1e999``), no integer outside 64 bits
  (every integer of these APIs is a Java ``long`` at most);
- no nesting deeper than ``MAX_DEPTH``, so the recursive code that validates and serializes a value
  never runs out of stack.

Each API maps ``JSONInputError`` to its own error format.
"""

from __future__ import annotations

import json
import math
import re

MAX_DEPTH = 128
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT64_DIGITS = 19
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONInputError(ValueError):
    """The input is not JSON this server accepts; ``message`` says why, without echoing it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def parse(data: bytes | str) -> object:
    """Any JSON value; raises JSONInputError."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONInputError(f"the JSON is not valid UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_int=_int64,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise JSONInputError(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
    # A lone surrogate can only come from a \u escape, so only then is every string looked at.
    _check_tree(value, strings=_SURROGATE_ESCAPE.search(raw) is not None)
    return value


def parse_object(data: bytes | str, *, allow_empty: bool = False) -> dict:
    """The JSON object of a request body; an empty body is ``{}`` when ``allow_empty``."""
    if not data and allow_empty:
        return {}
    if not data:
        raise JSONInputError("the request body is empty: a JSON object is expected")
    value = parse(data)
    if not isinstance(value, dict):
        raise JSONInputError(f"the request body must be a JSON object, not {json_type(value)}")
    return value


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JSONInputError(f"duplicate key {key[:64]!r} in a JSON object")
            seen.add(key)
    return result


def _int64(text: str) -> int:
    # The length test comes first: int() of a huge digit string is slow, or refused past 4300 digits.
    if len(text.lstrip("-")) > _INT64_DIGITS or not _INT64_MIN <= (number := int(text)) <= _INT64_MAX:
        raise JSONInputError(f"the integer {text[:24]}{'...' if len(text) > 24 else ''} is out of the 64-bit range")
    return number


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise JSONInputError(f"the number {text[:24]} is out of range")
    return number


def _no_constant(name: str) -> object:
    raise JSONInputError(f"{name} is not a JSON number")


def _check_tree(value: object, *, strings: bool) -> None:
    """Depth of the whole value (iteratively: the value may be deep), and lone surrogates when asked."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: list = list(node.values())
            if strings:
                children.extend(node.keys())
        elif isinstance(node, list):
            children = node
        else:
            if strings and isinstance(node, str) and _SURROGATE.search(node):
                raise JSONInputError("the JSON holds a lone surrogate escape, which is not a character")
            continue
        if depth > MAX_DEPTH:
            raise JSONInputError(f"the JSON is nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)
