"""What every part of the catalog shares: the store adapters, the clock, the location policy and
the in-process commit locks."""

from __future__ import annotations

import threading
import time
import uuid as uuidlib
import zlib
from collections.abc import Callable
from contextlib import contextmanager

from ..store import NoSuchBucket, NoSuchKey, ObjectStore
from ..store.locations import OutsideScope, Scope
from . import layout
from .containers import DELETING, Containers
from .errors import BadRequestException, NoSuchNamespaceException, NoSuchWarehouseException
from .idempotency import Idempotency
from .json_files import Doc, Documents, MetadataFiles, split_location
from .names import check_name, check_namespace
from .pointers import Pointers

_LOCK_STRIPES = 64


class CatalogContext:
    def __init__(
        self,
        store: ObjectStore,
        *,
        now: Callable[[], float] = time.time,
        idempotency_lifetime_s: float = 1800,
    ):
        self.store = store
        self.now = now
        self.docs = Documents(store)
        self.files = MetadataFiles(store)
        self.pointers = Pointers(self.docs, now=now)
        self.containers = Containers(self.docs, self.now_ms)
        self.idempotency = Idempotency(self.docs, lifetime_s=idempotency_lifetime_s, now=now)
        # Serialize commits to one table inside this process: fewer lost races. Correctness does not
        # depend on them (other processes share the store); the conditional puts decide.
        self._locks = [threading.Lock() for _ in range(_LOCK_STRIPES)]

    def now_ms(self) -> int:
        return int(self.now() * 1000)

    @contextmanager
    def commit_lock(self, key: str):
        with self._locks[zlib.crc32(key.encode()) % _LOCK_STRIPES]:
            yield

    # -- containers ----------------------------------------------------------------------
    # A container being dropped still exists for readers; only creation inside it is refused
    # (see containers.py).
    def warehouse(self, warehouse: str) -> Doc:
        doc = self.docs.get(layout.warehouse_key(warehouse))
        if doc is None or DELETING in doc.body:
            raise NoSuchWarehouseException(f"Warehouse does not exist: {warehouse}")
        return doc

    def confirm_warehouse(self, warehouse: str, undo: Callable[[], object]) -> None:
        """Called after writing something inside a warehouse: if a force delete marked it meanwhile,
        undo the write and fail. Either the delete's listing sees the write or the writer sees the
        mark, so nothing outlives the warehouse (the protocol of containers.py, one level up)."""
        try:
            self.warehouse(warehouse)
        except NoSuchWarehouseException:
            undo()
            raise

    def namespace(self, warehouse: str, namespace: list[str]) -> Doc:
        doc = self.docs.get(layout.namespace_key(warehouse, namespace))
        if doc is None:
            self.warehouse(warehouse)
            raise no_such_namespace(namespace)
        return doc

    # -- locations -----------------------------------------------------------------------
    @staticmethod
    def new_location(warehouse: str) -> tuple[str, str]:
        """(uuid, location) of a new table or view: a fresh folder of its own in the warehouse."""
        new_uuid = str(uuidlib.uuid4())
        return new_uuid, f"s3://{warehouse}/{new_uuid}"

    def location_checker(self, warehouse: str) -> Callable[[str], str]:
        """A function that accepts a location only inside the warehouse bucket (never its root, which
        a purge would empty, nor the system bucket, nor a key with ``.`` or ``..`` segments, which
        readers resolve differently: store.locations); it returns the location without a trailing slash."""
        scope = Scope(warehouse, "")

        def check(location: str) -> str:
            bucket, key = split_location(location)
            if bucket != warehouse or self.store.is_system_bucket(bucket):
                raise BadRequestException(f"Location {location} is outside warehouse {warehouse}")
            if not key.strip("/"):
                raise BadRequestException(f"Location {location} must be a folder inside the warehouse")
            try:
                scope.check_key(key)
            except OutsideScope as exc:
                raise BadRequestException(f"Invalid location: {exc}") from None
            return location.rstrip("/")

        return check


    def named_request(
        self, idempotency_key: str | None, operation: str, warehouse: str, namespace: list[str], request: object,
        what: str, run: Callable[[list[str], str], object],
    ):
        """A create or register request of a table or view: its namespace and ``name`` checked, then
        ``run(namespace, name)`` once per idempotency key."""
        namespace = check_namespace(namespace)
        if not isinstance(request, dict):
            raise BadRequestException("Invalid request: expected an object")
        name = check_name(request.get("name"), f"{what} name")
        return self.idempotency.run(
            idempotency_key, f"{operation} {warehouse} {namespace} {name}", lambda: run(namespace, name))

    def registered_file(self, warehouse: str, namespace: list[str], request: dict) -> tuple[str, bytes]:
        """The metadata file a register request names, inside the warehouse, and its bytes."""
        self.namespace(warehouse, namespace)
        metadata_location = self.location_checker(warehouse)(request.get("metadata-location"))  # type: ignore[arg-type]
        try:
            return metadata_location, self.files.read_bytes(metadata_location)
        except (NoSuchKey, NoSuchBucket) as exc:
            raise BadRequestException(f"Metadata file does not exist: {metadata_location}") from exc


def no_such_namespace(namespace: list[str]) -> NoSuchNamespaceException:
    return NoSuchNamespaceException(f"Namespace does not exist: {'.'.join(namespace)}")
