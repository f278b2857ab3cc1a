"""``jsonPredicateHints``: which files may hold rows matching the predicate tree.

Each file is judged from what the log knows of it: the exact value of its partition columns and
the min/max/nullCount/numRecords of its other columns in ``stats``. Logic is three-valued: a
comparison is False only when no row of the file can satisfy it, True only when every row does,
Unknown otherwise; NOT keeps Unknown, AND/OR follow Kleene's rules. A file is skipped only when the
whole tree is False, so pruning never loses a matching row. A node that cannot be judged (missing
stats, a value of the wrong type, an unknown op) is Unknown, as in the reference server's
evaluator; a hint that is not a valid predicate tree at all is ignored, as the protocol says.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable
from dataclasses import dataclass

from ..common import json_input
from .source import FileAction

TRUE, FALSE, UNKNOWN = True, False, None
_COMPARISONS = {"equal", "lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual"}
_MIRRORED = {"equal": "equal", "lessThan": "greaterThan", "lessThanOrEqual": "greaterThanOrEqual",
             "greaterThan": "lessThan", "greaterThanOrEqual": "lessThanOrEqual"}
_LEAVES = {"column", "literal"}
_UNJUDGED = object()  # no verdict yet (UNKNOWN is one)


class _Unjudgeable(Exception):
    """This node cannot be judged for this file."""


def _to_bool(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise _Unjudgeable


def _to_int(value) -> int:
    if isinstance(value, bool):
        raise _Unjudgeable
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return int(value)


def _to_float(value) -> float:
    if isinstance(value, bool):
        raise _Unjudgeable
    result = float(value)
    if math.isnan(result):
        raise _Unjudgeable  # NaN has no place in an order
    return result


def _to_date(value) -> datetime.date:
    return datetime.date.fromisoformat(str(value)[:10])


def _to_timestamp(value) -> datetime.datetime:
    """ISO 8601 (stats, the protocol's format) or ``yyyy-mm-dd hh:mm:ss[.f]`` (partition values);
    no zone means UTC."""
    parsed = datetime.datetime.fromisoformat(str(value).strip())
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed


_CONVERTERS: dict[str, Callable] = {
    "bool": _to_bool, "int": _to_int, "long": _to_int, "string": str, "date": _to_date,
    "float": _to_float, "double": _to_float, "timestamp": _to_timestamp,
}


@dataclass(frozen=True)
class _Range:
    """What is known of one column in one file: bounds, and how many of its rows are null."""

    low: object
    high: object
    nulls: int | None  # None: unknown
    rows: int | None

    @property
    def all_null(self) -> bool:
        return self.nulls is not None and self.rows is not None and self.nulls >= self.rows > 0

    @property
    def no_null(self) -> bool:
        return self.nulls == 0


class FileView:
    """One file as the evaluator sees it: partition values and parsed stats."""

    def __init__(self, action: FileAction, partition_columns: set[str], physical: dict[str, str]):
        self.partition_values = action.partition_values
        self.partition_columns = partition_columns
        self.physical = physical
        self._stats_text = action.stats
        self._stats: dict | None = None

    @property
    def partition_key(self) -> tuple:
        return partition_key(self.partition_values)

    @property
    def stats(self) -> dict:
        if self._stats is None:
            try:
                parsed = json.loads(self._stats_text) if self._stats_text else {}
            except ValueError:
                parsed = {}
            self._stats = parsed if isinstance(parsed, dict) else {}
        return self._stats

    def column(self, name: str, convert: Callable) -> _Range:
        physical = self.physical.get(name.lower(), name)
        if name.lower() in self.partition_columns:
            raw = next((v for k, v in self.partition_values.items() if k.lower() in (name.lower(), physical.lower())),
                       None)
            if raw is None or raw == "":
                return _Range(None, None, 1, 1)
            value = convert(raw)
            return _Range(value, value, 0, 1)
        stats = self.stats
        low, high = _lookup(stats.get("minValues"), physical), _lookup(stats.get("maxValues"), physical)
        nulls, rows = _lookup(stats.get("nullCount"), physical), stats.get("numRecords")
        nulls = nulls if isinstance(nulls, int) else None
        rows = rows if isinstance(rows, int) else None
        if low is None or high is None:
            if nulls is not None and rows is not None and nulls >= rows > 0:
                return _Range(None, None, nulls, rows)
            raise _Unjudgeable
        return _Range(convert(low), convert(high), nulls, rows)


def partition_key(values: dict) -> tuple:
    """What identifies a file's partition, to judge it once. Not sorted: the files of one writer list
    their values in one order, and two orders of the same values only cost a second judgement."""
    return tuple(values.items())


def _lookup(values, name: str):
    """A value of a stats struct by column name; dotted names reach into nested structs."""
    if not isinstance(values, dict):
        return None
    if name in values:
        return values[name]
    head, dot, rest = name.partition(".")
    return _lookup(values.get(head), rest) if dot else None


def parse(hint: object) -> dict | None:
    """The predicate tree of a ``jsonPredicateHints`` value, or None when it is not a valid one."""
    if not isinstance(hint, str):
        return None
    try:
        tree = json_input.parse(hint)
    except json_input.JSONInputError:
        return None
    return tree if _well_formed(tree) else None


def _well_formed(node) -> bool:
    if not isinstance(node, dict) or not isinstance(node.get("op"), str):
        return False
    op, children = node["op"], node.get("children") or []
    if op in _LEAVES:
        return isinstance(node.get("valueType"), str) and (op == "literal" or isinstance(node.get("name"), str))
    if not isinstance(children, list) or not all(_well_formed(c) for c in children):
        return False
    arity = {"not": 1, "isNull": 1}.get(op, 2 if op in _COMPARISONS else None)
    if op in ("and", "or"):
        return len(children) >= 1
    return arity is not None and len(children) == arity


class Evaluator:
    """Judges files against one predicate tree."""

    def __init__(self, tree: dict, partition_columns: list[str], physical_names: dict[str, str]):
        self._tree = tree
        self._partitions = {c.lower() for c in partition_columns}
        self._physical = {k.lower(): v for k, v in physical_names.items()}
        # A subtree on partition columns only judges all files of a partition alike: judge it once per
        # partition (partition pruning then costs a lookup per file, not an evaluation).
        self._partition_nodes = {id(n) for n in _nodes(tree) if _columns(n) and _columns(n) <= self._partitions}
        self._verdicts: dict[tuple[int, tuple], bool | None] = {}
        # The tree, or the conjuncts of its top "and", that read partition columns only: once judged
        # for a partition, they settle its other files by a lookup, without building their views.
        top = (tree.get("children") or []) if tree["op"] == "and" else [tree]
        self._by_partition = [node for node in top if id(node) in self._partition_nodes]

    def may_match(self, action: FileAction) -> bool:
        key = partition_key(action.partition_values)
        for node in self._by_partition:
            verdict = self._verdicts.get((id(node), key), _UNJUDGED)
            if verdict is FALSE:  # the tree, or one of its conjuncts: false for the whole partition
                return False
            if node is self._tree and verdict is not _UNJUDGED:
                return True
        return self._eval(self._tree, FileView(action, self._partitions, self._physical)) is not FALSE

    def _eval(self, node: dict, file: FileView) -> bool | None:
        if id(node) not in self._partition_nodes:
            return self._judge(node, file)
        key = (id(node), file.partition_key)
        if key not in self._verdicts:
            self._verdicts[key] = self._judge(node, file)
        return self._verdicts[key]

    def _judge(self, node: dict, file: FileView) -> bool | None:
        op, children = node["op"], node.get("children") or []
        try:
            if op in ("and", "or"):
                # Kleene logic, stopping at the first child that decides (FALSE for and, TRUE for or).
                decisive = FALSE if op == "and" else TRUE
                result = not decisive
                for child in children:
                    value = self._eval(child, file)
                    if value is decisive:
                        return decisive
                    if value is UNKNOWN:
                        result = UNKNOWN
                return result
            if op == "not":
                result = self._eval(children[0], file)
                return UNKNOWN if result is UNKNOWN else not result
            if op == "isNull":
                return self._is_null(children[0], file)
            if op in _COMPARISONS:
                return self._compare(op, children, file)
            if op == "column" and node.get("valueType") == "bool":
                return self._compare("equal", [node, {"op": "literal", "value": "true", "valueType": "bool"}], file)
            if op == "literal" and node.get("valueType") == "bool":
                return _to_bool(node.get("value"))
        except (_Unjudgeable, ValueError, TypeError, KeyError, OverflowError):
            return UNKNOWN
        return UNKNOWN

    def _is_null(self, child: dict, file: FileView) -> bool | None:
        if child["op"] != "column":
            return FALSE
        converter = _CONVERTERS.get(child["valueType"], str)
        column = file.column(child["name"], converter)
        if column.all_null:
            return TRUE
        return FALSE if column.no_null else UNKNOWN

    def _compare(self, op: str, children: list[dict], file: FileView) -> bool | None:
        left, right = children
        if left["op"] == "literal" and right["op"] == "column":
            op, left, right = _MIRRORED[op], right, left
        if left["op"] != "column" or right["op"] != "literal":
            return UNKNOWN
        converter = _CONVERTERS.get(left["valueType"])
        if converter is None or right.get("value") is None:
            return UNKNOWN
        literal = converter(right["value"])
        column = file.column(left["name"], converter)
        if column.all_null:
            return FALSE  # a comparison with null is never true
        exact = left["valueType"] != "timestamp"
        # Delta truncates timestamp stats to milliseconds: the true maximum may be up to 1 ms higher.
        high = column.high if exact else column.high + datetime.timedelta(milliseconds=1)
        some, every = _range_compare(op, column.low, high, literal)
        if not some:
            return FALSE
        return TRUE if every and exact and column.no_null else UNKNOWN


def _nodes(node: dict) -> list[dict]:
    return [node, *(n for child in node.get("children") or [] for n in _nodes(child))]


def _columns(node: dict) -> set[str]:
    """The (lower-case) names of the columns a tree refers to."""
    names = {node["name"].lower()} if node["op"] == "column" else set()
    for child in node.get("children") or []:
        names |= _columns(child)
    return names


def _range_compare(op: str, low, high, literal) -> tuple[bool, bool]:
    """(can some value in [low, high] satisfy ``value op literal``, does every value?)"""
    if op == "equal":
        return low <= literal <= high, low == high == literal
    if op == "lessThan":
        return low < literal, high < literal
    if op == "lessThanOrEqual":
        return low <= literal, high <= literal
    if op == "greaterThan":
        return high > literal, low > literal
    return high >= literal, low >= literal  # greaterThanOrEqual
