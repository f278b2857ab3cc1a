"""Table-aware protection: in a warehouse bucket, the S3 API refuses to overwrite files under a
table's location or to delete files a table's current metadata depends on. Engines still write new
files freely, and files no longer referenced (expired snapshots, orphans) can still be removed.
"""

from __future__ import annotations

import time

from ..store import NoSuchKey
from ..tables.errors import NoSuchWarehouseException
from .errors import S3Error

# Whether a bucket is a warehouse changes rarely; remember the answer briefly per bucket.
WAREHOUSE_CACHE_SECONDS = 2.0


class TableGuard:
    def __init__(self, catalog, store):
        self.catalog = catalog
        self.store = store
        self._warehouses: dict[str, tuple[float, bool]] = {}

    def is_warehouse(self, bucket: str) -> bool:
        now = time.monotonic()
        cached = self._warehouses.get(bucket)
        if cached and now - cached[0] < WAREHOUSE_CACHE_SECONDS:
            return cached[1]
        try:
            self.catalog.warehouses.get(bucket)
            found = True
        except NoSuchWarehouseException:
            found = False
        self._warehouses[bucket] = (now, found)
        return found

    def check_write(self, bucket: str, key: str, size: int | None = None) -> None:
        """Refuse to replace an existing object under a table's location (table files are immutable).

        ``size``: of the new content, when known. A zero-byte "directory marker" (a key ending in
        ``/``) may be written again over an empty one: pyarrow's S3 filesystem does so after deleting
        a directory's last file, and a marker holds nothing a table depends on.
        """
        if not self.is_warehouse(bucket):
            return
        try:
            existing = self.store.get_object_info(bucket, key)
        except NoSuchKey:
            return
        if key.endswith("/") and size == 0 and existing.size == 0:
            return
        path = f"s3://{bucket}/{key}"
        for location in self.catalog.tables.table_locations(bucket):
            if path.startswith(location.rstrip("/") + "/"):
                raise S3Error("AccessDenied", f"{key} belongs to an Iceberg table and cannot be overwritten.")

    def check_delete(self, bucket: str, key: str) -> None:
        """Refuse to delete a metadata file, manifest list or manifest a table currently uses."""
        if self.is_warehouse(bucket) and self.catalog.is_referenced(bucket, key):
            raise S3Error(
                "AccessDenied", f"{key} is referenced by an Iceberg table's current metadata and cannot be deleted."
            )
