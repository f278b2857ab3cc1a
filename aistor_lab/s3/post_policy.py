"""The policy document of a browser-upload form (POST Object): what it allows, checked against the
form's fields.

The document is base64 JSON: ``{"expiration": "2030-01-01T00:00:00Z", "conditions": [...]}``, its
own keys case-sensitive. A condition is ``{"field": "value"}`` (an exact match), ``["eq", "$field",
"value"]``, ``["starts-with", "$field", "prefix"]`` or ``["content-length-range", min, max]``; field
names are case-insensitive, and a field the form lacks has the value "". Every field of the form
(the request's bucket counts as one) must be named by a condition, except the signature fields,
``policy``, ``file``, ``x-ignore-*`` and the ``x-amz-checksum-*`` values, which the body is checked
against anyway. A malformed document is 400 InvalidPolicyDocument; a form it does not allow, 403.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from ..auth import SIGNATURE_FIELDS
from .errors import S3Error

_EXPIRATION_FORMATS = ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ")
_UNCHECKED_FIELDS = frozenset({"policy", "file"})
_UNCHECKED_PREFIXES = ("x-ignore-", "x-amz-checksum-")


@dataclass(frozen=True)
class Condition:
    operator: str  # "eq" | "starts-with"
    field: str  # lower case, without the "$"
    value: str

    def holds(self, fields: Mapping[str, str]) -> bool:
        given = fields.get(self.field, "")
        return given == self.value if self.operator == "eq" else given.startswith(self.value)

    def __str__(self) -> str:
        return json.dumps([self.operator, "$" + self.field, self.value])


@dataclass(frozen=True)
class PostPolicy:
    expiration: float  # epoch seconds
    conditions: tuple[Condition, ...]
    length_range: tuple[int, int] | None  # content-length-range: the file's least and greatest size

    @classmethod
    def parse(cls, encoded: str) -> PostPolicy:
        try:
            document = json.loads(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            raise _invalid("Invalid JSON.") from None
        if not isinstance(document, dict):
            raise _invalid("Invalid JSON.")
        if "expiration" not in document:
            raise _invalid("Policy missing expiration.")
        if not isinstance(document.get("conditions"), list):
            raise _invalid("Policy missing conditions.")
        conditions: list[Condition] = []
        length_range = None
        for entry in document["conditions"]:
            if isinstance(entry, list) and entry and str(entry[0]).lower() == "content-length-range":
                length_range = _narrowed(length_range, _length_range(entry))
            else:
                conditions.extend(_conditions_of(entry))
        return cls(_expiration(document["expiration"]), tuple(conditions), length_range)

    def check(self, fields: Mapping[str, str], now: float) -> None:
        """AccessDenied unless the form's ``fields`` (lower-case names) are allowed at ``now``."""
        if now > self.expiration:
            raise S3Error("AccessDenied", "Invalid according to Policy: Policy expired.")
        for condition in self.conditions:
            if not condition.holds(fields):
                raise S3Error("AccessDenied", f"Invalid according to Policy: Policy Condition failed: {condition}")
        named = {condition.field for condition in self.conditions}
        extra = sorted(name for name in fields if name not in named and not _unchecked(name))
        if extra:
            raise S3Error("AccessDenied", "Invalid according to Policy: Extra input fields: " + ", ".join(extra))

    def check_size(self, size: int, *, complete: bool) -> None:
        """EntityTooLarge as soon as the file passes the greatest size; EntityTooSmall once it is
        ``complete`` short of the least."""
        if self.length_range is None:
            return
        least, greatest = self.length_range
        if size > greatest:
            raise S3Error("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.")
        if complete and size < least:
            raise S3Error("EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size.")


def _unchecked(name: str) -> bool:
    return name in SIGNATURE_FIELDS or name in _UNCHECKED_FIELDS or name.startswith(_UNCHECKED_PREFIXES)


def _invalid(reason: str) -> S3Error:
    return S3Error("InvalidPolicyDocument", "Invalid Policy: " + reason)


def _expiration(value: object) -> float:
    for pattern in _EXPIRATION_FORMATS:
        try:
            return datetime.strptime(str(value), pattern).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    raise _invalid(f"Invalid 'expiration' value: '{value}'")


def _conditions_of(entry: object) -> list[Condition]:
    """``{"field": "value", ...}`` or ``[operator, "$field", "value"]``."""
    if isinstance(entry, dict) and entry:
        if not all(isinstance(value, str) for value in entry.values()):
            raise _invalid("Invalid Simple-Condition: value must be a string.")
        return [Condition("eq", name.lower(), value) for name, value in entry.items()]
    if isinstance(entry, list) and len(entry) == 3:
        operator, field, value = entry
        operator = str(operator).lower()
        if operator not in ("eq", "starts-with"):
            raise _invalid(f"Invalid Condition: unknown operation '{entry[0]}'.")
        if not isinstance(field, str) or not field.startswith("$") or not isinstance(value, str):
            raise _invalid(f"Invalid Condition: {json.dumps(entry)}: a '$field' and a string value.")
        return [Condition(operator, field[1:].lower(), value)]
    raise _invalid(f"Invalid Condition: {json.dumps(entry)}")


def _length_range(entry: list) -> tuple[int, int]:
    bounds = entry[1:]
    if len(bounds) != 2 or not all(_is_count(bound) for bound in bounds):
        raise _invalid("Invalid content-length-range: two numbers of bytes, least and greatest.")
    least, greatest = (int(bound) for bound in bounds)
    if least > greatest:
        raise _invalid("Invalid content-length-range: the least size is greater than the greatest.")
    return least, greatest


def _is_count(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return (isinstance(value, int) and value >= 0) or (isinstance(value, str) and value.isdigit())


def _narrowed(current: tuple[int, int] | None, new: tuple[int, int]) -> tuple[int, int]:
    """Several ranges all apply: the sizes they have in common."""
    if current is None:
        return new
    return max(current[0], new[0]), min(current[1], new[1])
