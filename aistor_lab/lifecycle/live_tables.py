"""Table awareness: lifecycle rules never delete, nor hide behind a delete marker, a file of a live table.

Conservative by design: every key under the location of an Iceberg table of the catalog (data files,
metadata files, manifest lists, manifests, statistics, and also orphans and files of expired
snapshots) and under the root of a Delta table some share holds (its data files and ``_delta_log``,
and also files its current version no longer references) is left alone. Telling the referenced files
from the rest would mean reading every snapshot's manifests and the whole Delta log on each run;
Iceberg's own ``expire_snapshots`` / ``remove_orphan_files`` and Delta's ``VACUUM`` clean those.

The lifecycle package does not import the catalog or sharing: the service hands them in, as
``IcebergTables`` (``tables.Catalog`` answers it) and ``SharedTables`` (``sharing.SharingService``).
"""

from __future__ import annotations

from typing import Protocol

from ..store.locations import OutsideScope, split_location


class IcebergTables(Protocol):
    def is_warehouse(self, bucket: str) -> bool: ...

    def table_locations(self, warehouse: str) -> list[str]: ...


class SharedTables(Protocol):
    def delta_table_locations(self) -> list[str]: ...


class LiveTables:
    def __init__(self, iceberg: IcebergTables | None, shared: SharedTables | None):
        self.iceberg = iceberg
        self.shared = shared

    def protected_prefixes(self, bucket: str) -> list[tuple[str, str]]:
        """(key prefix, why) for every live table whose files are in ``bucket``."""
        found = []
        if self.iceberg is not None and self.iceberg.is_warehouse(bucket):
            found += _in_bucket(bucket, self.iceberg.table_locations(bucket), "an Iceberg table of the catalog")
        if self.shared is not None:
            found += _in_bucket(bucket, self.shared.delta_table_locations(), "a Delta table in a share")
        return found


def _in_bucket(bucket: str, locations: list[str], kind: str) -> list[tuple[str, str]]:
    found = []
    for location in locations:
        try:
            location_bucket, key = split_location(location)
        except OutsideScope:
            continue  # not an S3 location: no file of this store to protect
        if location_bucket == bucket:
            folder = key.rstrip("/")
            # A table at a bucket's root protects the whole bucket.
            found.append((folder + "/" if folder else "", f"under the location of {kind} ({location})"))
    return found


def protection(prefixes: list[tuple[str, str]], key: str) -> str | None:
    """Why ``key`` must be left alone, or None."""
    for prefix, why in prefixes:
        if key.startswith(prefix):
            return why
    return None
