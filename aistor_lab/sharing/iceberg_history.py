"""An Iceberg table's history as Delta versions.

The versions are the snapshots of the main branch's lineage (the current snapshot and its ancestors),
numbered by their **sequence number**. Iceberg gives every snapshot of a v2/v3 table the next sequence
number of the table when it commits (1 for the first) and never reuses one, so the numbers grow with
every commit, are written into the metadata (stable across restarts and across servers), and do not
move when old snapshots are expired. A table written only on main gets 1, 2, 3, ... like Delta.

**Version 0** is the table as created, before its first snapshot: no files, the schema it was created
with. It is what an empty table is, and it remains while the lineage reaches back to a snapshot with
no parent. Once the oldest snapshots are expired the lineage starts at a snapshot whose parent is gone,
and the earliest version is that snapshot's number, as Delta's earliest version moves up after its
log is cleaned.

Numbers that are no snapshot of the lineage (commits to other branches, snapshots abandoned by a
rollback) are not versions of their own: the table *as of* such a number is the lineage snapshot
before it, which is what main held at that point. A rollback is the one thing this numbering cannot
show as a new version: main moves back to an older snapshot, so the latest version goes down with it.

v1 tables have no sequence numbers; their versions are the snapshots' positions in the lineage
(1 for the oldest), which stay stable until snapshots are expired.

A version may also be named by its snapshot's id (``of_snapshot``), as AIStor's time travel does.

Timestamps are the commit times of the snapshots, as the snapshot log records them, made
non-decreasing (writers' clocks may differ), so ``version_at(timestamp)`` is well defined. Version 0
is the table's creation: the time of its first metadata file.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from .errors import InvalidParameter


@dataclass(frozen=True)
class Version:
    number: int
    timestamp: int  # epoch ms
    snapshot: dict | None  # None for version 0: the table before its first snapshot


def _main_lineage(metadata: dict) -> list[dict]:
    """The current snapshot and its retained ancestors, oldest first."""
    by_id = {s["snapshot-id"]: s for s in metadata["snapshots"]}
    lineage: list[dict] = []
    snapshot_id = metadata.get("current-snapshot-id")
    while snapshot_id in by_id:
        lineage.append(by_id[snapshot_id])
        snapshot_id = by_id[snapshot_id].get("parent-snapshot-id")
    lineage.reverse()
    return lineage


def _created_ms(metadata: dict, lineage: list[dict]) -> int:
    log = metadata["metadata-log"]
    created = log[0]["timestamp-ms"] if log else metadata["last-updated-ms"]
    return min(created, lineage[0]["timestamp-ms"]) if lineage else created


class History:
    """The versions of one table metadata, oldest first."""

    def __init__(self, metadata: dict):
        lineage = _main_lineage(metadata)
        by_sequence = all((s.get("sequence-number") or 0) > 0 for s in lineage)
        self.created_ms = _created_ms(metadata, lineage)
        self.first_snapshot = lineage[0] if lineage else None
        versions: list[Version] = []
        if not lineage or lineage[0].get("parent-snapshot-id") is None:
            versions.append(Version(0, self.created_ms, None))
        latest_ms = self.created_ms
        for position, snapshot in enumerate(lineage, start=1):
            latest_ms = max(latest_ms, snapshot["timestamp-ms"])
            number = snapshot["sequence-number"] if by_sequence else position
            versions.append(Version(number, latest_ms, snapshot))
        self.versions = versions
        self._numbers = [v.number for v in versions]
        self._timestamps = [v.timestamp for v in versions]

    @property
    def latest(self) -> Version:
        return self.versions[-1]

    @property
    def earliest(self) -> Version:
        return self.versions[0]

    def check(self, number: int) -> None:
        if not self.earliest.number <= number <= self.latest.number:
            raise InvalidParameter(
                f"Version {number} is not available: the table has versions "
                f"{self.earliest.number} to {self.latest.number}"
            )

    def as_of(self, number: int) -> Version:
        """The table as of a version number: the lineage version at or before it."""
        self.check(number)
        return self.versions[bisect.bisect_right(self._numbers, number) - 1]

    def of_snapshot(self, snapshot_id: int) -> Version | None:
        """The version that is snapshot ``snapshot_id`` of the main lineage; None for any other id (a
        snapshot of another branch, abandoned by a rollback, or expired has no version)."""
        return next((v for v in self.versions if v.snapshot and v.snapshot["snapshot-id"] == snapshot_id), None)

    def at_timestamp(self, timestamp_ms: int) -> Version:
        """The latest version committed at or before a time."""
        index = bisect.bisect_right(self._timestamps, timestamp_ms) - 1
        if index < 0:
            raise InvalidParameter(
                f"The timestamp {timestamp_ms} is before the earliest available version "
                f"{self.earliest.number} (committed at {self.earliest.timestamp})"
            )
        return self.versions[index]

    def between(self, start: int, end: int) -> list[tuple[Version | None, Version]]:
        """The versions from ``start`` to ``end`` (inclusive), each with the version before it (None
        for the first retained one)."""
        self.check(start)
        self.check(end)
        if start > end:
            raise InvalidParameter(f"The starting version {start} is after the ending version {end}")
        first = bisect.bisect_left(self._numbers, start)
        last = bisect.bisect_right(self._numbers, end)
        return [(self.versions[i - 1] if i > 0 else None, self.versions[i]) for i in range(first, last)]
