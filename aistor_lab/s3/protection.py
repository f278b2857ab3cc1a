"""Table-aware protection: in a warehouse bucket, the S3 API refuses to overwrite files under a
table's location or to delete files a table's current metadata depends on. Engines still write new
files freely, and files no longer referenced (expired snapshots, orphans) can still be removed.

The S3 API does not import the catalog: the app hands it one as ``ProtectedTables``.
"""

from __future__ import annotations

from typing import Protocol

from ..store import NULL_VERSION, NoSuchKey, ObjectStore
from ..store.cache import SHARED_STATE_SECONDS, Cache
from .errors import S3Error

# Whether a bucket is a warehouse changes rarely; remember the answer briefly per bucket.
WAREHOUSE_CACHE_SECONDS = SHARED_STATE_SECONDS
WAREHOUSES_CACHED = 1024


class ProtectedTables(Protocol):
    """What the protection asks of the catalog (``tables.Catalog`` answers it)."""

    def is_warehouse(self, bucket: str) -> bool: ...

    def table_locations(self, warehouse: str) -> list[str]: ...

    def is_referenced(self, bucket: str, key: str) -> bool: ...


class SharedLocations(Protocol):
    """What the protection asks of Delta Sharing (``sharing.SharingService`` answers it)."""

    def delta_table_locations(self) -> list[str]: ...


class TableGuard:
    def __init__(self, tables: ProtectedTables, store: ObjectStore, shared: SharedLocations | None = None):
        self.tables = tables
        self.store = store
        self.shared = shared
        self._warehouses: Cache[bool] = Cache(WAREHOUSES_CACHED, WAREHOUSE_CACHE_SECONDS)

    def is_warehouse(self, bucket: str) -> bool:
        return self._warehouses.get_or_load(bucket, lambda: self.tables.is_warehouse(bucket))

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
        for location in self.tables.table_locations(bucket):
            if path.startswith(location.rstrip("/") + "/"):
                raise S3Error("AccessDenied", f"{key} belongs to an Iceberg table and cannot be overwritten.")

    def check_customer_key_write(self, bucket: str, key: str) -> None:
        """Refuse an SSE-C object where the catalog or Delta Sharing must read it: they never have the
        customer's key. A warehouse's files may all become a table's; shared Delta tables are refused
        SSE-C as AIStor refuses it on shared paths."""
        if self.is_warehouse(bucket):
            raise S3Error("InvalidRequest", "SSE-C objects cannot be written to a warehouse: the catalog cannot read them.")
        path = f"s3://{bucket}/{key}"
        for location in self.shared.delta_table_locations() if self.shared is not None else []:
            if path.startswith(location.rstrip("/") + "/"):
                raise S3Error("InvalidRequest", f"SSE-C objects cannot be written under a shared table ({location}).")

    def check_delete(self, bucket: str, key: str, version_id: str | None = None) -> None:
        """Refuse to delete a metadata file, manifest list or manifest a table currently uses.

        A delete without ``version_id`` would hide the file behind a delete marker (or remove it), so it
        is refused. Removing a version is refused only when it is the key's current one: a table reads
        a file's latest version, so its noncurrent versions (content since replaced, older delete
        markers) are nothing it depends on and may go.
        """
        if not (self.is_warehouse(bucket) and self.tables.is_referenced(bucket, key)):
            return
        if version_id is not None and not self._is_current(bucket, key, version_id):
            return
        raise S3Error(
            "AccessDenied", f"{key} is referenced by an Iceberg table's current metadata and cannot be deleted."
        )

    def _is_current(self, bucket: str, key: str, version_id: str) -> bool:
        try:
            current = self.store.get_object_info(bucket, key)
        except NoSuchKey:
            return False
        # A bucket never versioned holds one version of each object: its null version.
        return (current.version_id or NULL_VERSION) == version_id
