"""The Condition element of policy statements: operators over request context keys.

Supported operators (names case-insensitive): StringEquals, StringNotEquals, StringEqualsIgnoreCase,
StringNotEqualsIgnoreCase, StringLike, StringNotLike, Bool, IpAddress, NotIpAddress (CIDR blocks,
for ``aws:SourceIp``), NumericEquals, NumericNotEquals, NumericLessThan[Equals],
NumericGreaterThan[Equals] (for ``s3:max-keys``), each also as ``...IfExists``, and Null.
Context keys (``s3:prefix``, ``aws:username``...) are case-insensitive, values case-sensitive.

As in AWS: a positive operator is false when the key is absent from the request, a negated one
(``...Not...``) is true; ``IfExists`` makes an absent key true for both.
"""

from __future__ import annotations

import ipaddress
import operator as op
from collections.abc import Callable, Mapping

from .errors import MalformedPolicy
from .patterns import Context, PatternSet

# Operator name (lower case) -> (wildcards, ignore_case, negated).
_STRING_OPERATORS = {
    "stringequals": (False, False, False),
    "stringnotequals": (False, False, True),
    "stringequalsignorecase": (False, True, False),
    "stringnotequalsignorecase": (False, True, True),
    "stringlike": (True, False, False),
    "stringnotlike": (True, False, True),
    "bool": (False, True, False),
}
# Operator name (lower case) -> (comparison of the request's number with the policy's, negated).
_NUMERIC_OPERATORS: dict[str, tuple[Callable[[float, float], bool], bool]] = {
    "numericequals": (op.eq, False),
    "numericnotequals": (op.eq, True),
    "numericlessthan": (op.lt, False),
    "numericlessthanequals": (op.le, False),
    "numericgreaterthan": (op.gt, False),
    "numericgreaterthanequals": (op.ge, False),
}
_IP_OPERATORS = {"ipaddress": False, "notipaddress": True}
_IF_EXISTS = "ifexists"
SUPPORTED_OPERATORS = (
    "StringEquals, StringNotEquals, StringEqualsIgnoreCase, StringNotEqualsIgnoreCase, StringLike, "
    "StringNotLike, Bool, IpAddress, NotIpAddress, NumericEquals, NumericNotEquals, NumericLessThan, "
    "NumericLessThanEquals, NumericGreaterThan, NumericGreaterThanEquals (each also with the IfExists "
    "suffix), Null"
)


class _KeyCondition:
    """A condition on one context key: it holds when any of the request's values matches (negated
    operators: when none does); an absent key is as the module docstring says."""

    __slots__ = ("_if_exists", "_negated", "key")

    def __init__(self, key: str, *, negated: bool, if_exists: bool):
        self.key = key
        self._negated = negated
        self._if_exists = if_exists

    def holds(self, context: Context) -> bool:
        actual = context.get(self.key)
        if not actual:
            return self._if_exists or self._negated
        found = any(self._matches(value, context) for value in actual)
        return found != self._negated

    def _matches(self, value: str, context: Context) -> bool:
        raise NotImplementedError


class StringCondition(_KeyCondition):
    __slots__ = ("_values",)

    def __init__(self, key: str, values: list[str], *, wildcards: bool, ignore_case: bool,
                 negated: bool, if_exists: bool):
        super().__init__(key, negated=negated, if_exists=if_exists)
        self._values = PatternSet(values, wildcards=wildcards, ignore_case=ignore_case)

    def _matches(self, value: str, context: Context) -> bool:
        return self._values.matches(value, context)


class _ComparingCondition(_KeyCondition):
    """Compares the request's value with each policy value (``_compare``)."""

    __slots__ = ("_values",)

    def __init__(self, key: str, values: list, *, negated: bool, if_exists: bool):
        super().__init__(key, negated=negated, if_exists=if_exists)
        self._values = values

    def _matches(self, value: str, context: Context) -> bool:
        return any(self._compare(value, wanted) for wanted in self._values)

    def _compare(self, value: str, wanted) -> bool:
        raise NotImplementedError


class NumericCondition(_ComparingCondition):
    __slots__ = ("_operator",)

    def __init__(self, key: str, values: list[str], where: str, *, compare: Callable[[float, float], bool],
                 negated: bool, if_exists: bool):
        try:
            numbers = [float(value) for value in values]
        except ValueError:
            raise MalformedPolicy(f"{where}: numeric conditions take numbers") from None
        super().__init__(key, numbers, negated=negated, if_exists=if_exists)
        self._operator = compare

    def _compare(self, value: str, wanted: float) -> bool:
        try:
            return self._operator(float(value), wanted)
        except ValueError:
            return False  # a request value that is no number matches no numeric condition


class IpCondition(_ComparingCondition):
    __slots__ = ()

    def __init__(self, key: str, values: list[str], where: str, *, negated: bool, if_exists: bool):
        try:
            networks = [ipaddress.ip_network(value, strict=False) for value in values]
        except ValueError:
            raise MalformedPolicy(f"{where}: IpAddress conditions take CIDR blocks like 192.0.2.0/24") from None
        super().__init__(key, networks, negated=negated, if_exists=if_exists)

    def _compare(self, value: str, wanted) -> bool:
        try:
            return ipaddress.ip_address(value) in wanted
        except ValueError:
            return False


class NullCondition:
    """``Null: {key: "true"}`` holds when the key is absent, ``"false"`` when it is present."""

    __slots__ = ("_want_absent", "key")

    def __init__(self, key: str, want_absent: bool):
        self.key = key
        self._want_absent = want_absent

    def holds(self, context: Context) -> bool:
        return (not context.get(self.key)) == self._want_absent


Condition = StringCondition | NumericCondition | IpCondition | NullCondition


def _as_strings(value: object, where: str) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise MalformedPolicy(f"{where}: the list of values is empty")
    out = []
    for item in items:
        if isinstance(item, bool):  # before int: bool is an int subclass
            out.append("true" if item else "false")
        elif isinstance(item, str | int | float):
            out.append(str(item))
        else:
            raise MalformedPolicy(f"{where}: values must be strings, numbers or booleans")
    return out


def parse_conditions(block: object, where: str) -> list[Condition]:
    """Compile a statement's Condition element; raises MalformedPolicy with ``where`` in the message."""
    if not isinstance(block, Mapping):
        raise MalformedPolicy(f"{where}: Condition must be an object of operators")
    conditions: list[Condition] = []
    for operator, entries in block.items():
        here = f"{where}.Condition.{operator}"
        if not isinstance(entries, Mapping) or not entries:
            raise MalformedPolicy(f"{here}: must be a non-empty object of context keys and values")
        name = str(operator).lower()
        for key, raw in entries.items():
            values = _as_strings(raw, f"{here}.{key}")
            conditions.append(_condition(name, str(key).lower(), values, f"{here}.{key}", operator))
    return conditions


def _condition(name: str, key: str, values: list[str], where: str, operator: str) -> Condition:
    if name == "null":
        if len(values) != 1 or values[0].lower() not in ("true", "false"):
            raise MalformedPolicy(f"{where}: Null takes one value, \"true\" or \"false\"")
        return NullCondition(key, values[0].lower() == "true")
    if_exists = name.endswith(_IF_EXISTS)
    base = name.removesuffix(_IF_EXISTS) if if_exists else name
    if base in _NUMERIC_OPERATORS:
        compare, negated = _NUMERIC_OPERATORS[base]
        return NumericCondition(key, values, where, compare=compare, negated=negated, if_exists=if_exists)
    if base in _IP_OPERATORS:
        return IpCondition(key, values, where, negated=_IP_OPERATORS[base], if_exists=if_exists)
    if base not in _STRING_OPERATORS:
        raise MalformedPolicy(f"{where}: unsupported condition operator {operator!r}; supported: "
                              f"{SUPPORTED_OPERATORS}")
    wildcards, ignore_case, negated = _STRING_OPERATORS[base]
    return StringCondition(key, values, wildcards=wildcards, ignore_case=ignore_case, negated=negated,
                           if_exists=if_exists)
