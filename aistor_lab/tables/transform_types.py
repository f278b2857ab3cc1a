"""Which source column types each partition or sort transform applies to (the Iceberg spec's table of
transforms; Java's ``Transform.canTransform``), so that a spec like ``day(id)`` on a long is refused
when it is given rather than when data is written."""

from __future__ import annotations

import re

_TIMESTAMPS = frozenset({"timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"})
_TRUNCATABLE = frozenset({"int", "long", "decimal", "string", "binary"})
# None: any primitive type.
_FITTING: dict[str, frozenset[str] | None] = {
    "identity": None,
    "void": None,
    "bucket": _TRUNCATABLE | _TIMESTAMPS | {"date", "time", "uuid", "fixed"},
    "truncate": _TRUNCATABLE,
    "year": _TIMESTAMPS | {"date"},
    "month": _TIMESTAMPS | {"date"},
    "day": _TIMESTAMPS | {"date"},
    "hour": _TIMESTAMPS,
}
_NEVER_IDENTITY = frozenset({"variant", "geometry", "geography"})


def base_type(type_name: str) -> str:
    """``decimal(10, 2)`` -> ``decimal``, ``fixed[16]`` -> ``fixed``."""
    return re.match(r"[a-z_0-9]*", type_name.strip().lower()).group(0)


def transform_family(transform: str) -> str:
    """``bucket[16]`` -> ``bucket``."""
    return transform.split("[", 1)[0]


def unfit_reason(transform: str, type_name: str) -> str | None:
    """Why ``transform`` (normalized, e.g. ``bucket[16]``) cannot apply to a column of ``type_name``, or
    None when it can; transforms this table does not know are let through, as Java's unknown ones are."""
    family = transform_family(transform)
    if family not in _FITTING:
        return None
    fitting = _FITTING[family]
    base = base_type(type_name)
    if fitting is None:
        if family == "identity" and base in _NEVER_IDENTITY:
            return f"{family} does not apply to {base} columns"
        return None
    if base in fitting:
        return None
    return f"{family} applies to {', '.join(sorted(fitting))} columns"
