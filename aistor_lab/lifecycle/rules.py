"""A bucket's lifecycle configuration as values: rules, their filters and actions, and when an action
falls due. Parsing and writing the XML is xml_config.py's; deciding what to do is evaluation.py's.

Filters keep the shape the client sent (legacy top-level ``Prefix``, ``Filter`` with ``Prefix``,
``Tag``, sizes or ``And``) so that GET returns the rules as they were put, as S3 does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

ENABLED, DISABLED = "Enabled", "Disabled"
REAL_DAY_SECONDS = 86400


@dataclass(frozen=True)
class Predicates:
    """What a ``Filter`` or its ``And`` holds; a rule matches an object when all hold."""

    prefix: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    size_greater_than: int | None = None
    size_less_than: int | None = None

    def matches(self, key: str, size: int | None, tags: Mapping[str, str] | None = None) -> bool:
        """``size`` None: a delete marker, which size predicates do not concern (as in MinIO).
        ``tags``: the version's; a tag predicate holds when the version has that tag with that value
        (a delete marker or an upload has none, so no tag filter matches them)."""
        if self.prefix and not key.startswith(self.prefix):
            return False
        if any((tags or {}).get(name) != value for name, value in self.tags):
            return False
        if size is not None:
            if self.size_greater_than is not None and not size > self.size_greater_than:
                return False
            if self.size_less_than is not None and not size < self.size_less_than:
                return False
        return True


@dataclass(frozen=True)
class Filter:
    """``<Filter>``: its own predicates (``Prefix``, ``Tag``, ``ObjectSize...``) and an optional
    ``<And>``. S3 allows one of them; Ceph RGW, and this server, accept several and require all."""

    own: Predicates = field(default_factory=Predicates)
    conjunction: Predicates | None = None  # <And>

    def matches(self, key: str, size: int | None, tags: Mapping[str, str] | None = None) -> bool:
        return self.own.matches(key, size, tags) and (
            self.conjunction is None or self.conjunction.matches(key, size, tags)
        )

    @property
    def has_tags(self) -> bool:
        return bool(self.own.tags or (self.conjunction and self.conjunction.tags))


@dataclass(frozen=True)
class Expiration:
    days: int | None = None
    date: float | None = None  # epoch seconds, midnight UTC
    expired_object_delete_marker: bool | None = None


@dataclass(frozen=True)
class NoncurrentExpiration:
    noncurrent_days: int | None = None
    newer_noncurrent_versions: int | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    status: str
    legacy_prefix: str | None = None  # <Rule><Prefix>, the older API's form
    filter: Filter | None = None
    expiration: Expiration | None = None
    noncurrent_expiration: NoncurrentExpiration | None = None
    abort_after_days: int | None = None  # AbortIncompleteMultipartUpload/DaysAfterInitiation

    @property
    def enabled(self) -> bool:
        return self.status == ENABLED

    def matches(self, key: str, size: int | None, tags: Mapping[str, str] | None = None) -> bool:
        if self.legacy_prefix and not key.startswith(self.legacy_prefix):
            return False
        return self.filter is None or self.filter.matches(key, size, tags)

    @property
    def has_tags(self) -> bool:
        return self.filter is not None and self.filter.has_tags


@dataclass(frozen=True)
class Configuration:
    rules: tuple[Rule, ...]

    def enabled_rules(self) -> list[Rule]:
        return [rule for rule in self.rules if rule.enabled]


def due_after_days(start: float, days: int, day_seconds: float) -> float:
    """When something ``days`` days after ``start`` falls due. With real days, as S3 and MinIO count
    them: the midnight UTC after ``start`` plus ``days`` days. With a shortened test day (Ceph RGW's
    ``rgw_lc_debug_interval``), exactly ``days`` such days after ``start``."""
    if days <= 0:
        return start
    if day_seconds != REAL_DAY_SECONDS:
        return start + days * day_seconds
    return math.floor(start / REAL_DAY_SECONDS + days + 1) * REAL_DAY_SECONDS
