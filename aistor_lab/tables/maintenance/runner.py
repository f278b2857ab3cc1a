"""Maintenance of the catalog's tables: each table's configuration and health, runs on request (with a
dry run that changes nothing), the history of runs, and the background pass over every table.

A table's run state lives in the store's system bucket, one leased document per table uuid
(store/leased_documents.py): its history (the last ``HISTORY_RUNS`` runs, file lists shortened), the
marks of unreferenced files, and when the background pass last ran it. A run that changes the table
holds the lease, so several servers in front of one store never maintain the same table at once;
the background pass skips a table another server holds, and a restarted server finds when each
table was last run, so nothing runs twice as often as configured.

A warehouse's configuration is a document of its own (``maintenance/warehouses/NAME``); a table's
overrides are its table properties, committed like any property change.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.table import Table

from ...store import ObjectStore, PreconditionFailed
from ...store.documents import DocumentStore
from ...store.leased_documents import LeasedDocuments
from ..catalog import Catalog
from ..errors import BadRequestException, CommitFailedException, NoSuchTableException
from ..names import check_warehouse_name
from .health import table_health
from .settings import SETTINGS, MaintenanceSettings, check_settings, resolve

log = logging.getLogger(__name__)

HISTORY_RUNS = 30
HISTORY_FILES = 20  # files named per operation in the history (the counts cover them all)
LEASE_SECONDS = 3600  # longer than any run; a server that died mid-run holds its table this long
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_WAREHOUSE = re.compile(r"[a-z0-9][a-z0-9-]{1,61}[a-z0-9]")


class Maintenance:
    def __init__(self, catalog: Catalog, store: ObjectStore, *, clock: Callable[[], float] = time.time,
                 interval_seconds: float = 3600, pause_seconds: float = 1.0):
        self._catalog = catalog
        self._store = store
        self._clock = clock
        self.interval_seconds = interval_seconds  # how often the background pass maintains each table
        self._pause_seconds = pause_seconds  # between two tables of a pass: requests come first
        self._warehouse_configs = DocumentStore(store, "maintenance/warehouses/", _WAREHOUSE)
        self._states = LeasedDocuments(store, "maintenance/tables/", _UUID, clock=clock, lease_seconds=LEASE_SECONDS)

    # -- configuration -------------------------------------------------------------------
    def warehouse_settings(self, warehouse: str) -> dict:
        """The warehouse's configuration as stored, and what a table without overrides gets."""
        stored = self._stored_warehouse_settings(warehouse)
        return {"warehouse": warehouse, "settings": stored, "effective": resolve(stored, {}).to_properties()}

    def set_warehouse_settings(self, warehouse: str, changes: dict) -> dict:
        """Set (or with a null value, remove) settings of the warehouse's configuration."""
        removed, values = _split_changes(changes)
        self._stored_warehouse_settings(warehouse)  # the warehouse exists
        for _ in range(8):  # conditional writes: a concurrent change makes us read again
            found = self._warehouse_configs.read(warehouse)
            body, etag = found if found is not None else ({}, None)
            settings = {k: v for k, v in {**body.get("settings", {}), **values}.items() if k not in removed}
            try:
                if etag is None:
                    if self._warehouse_configs.create(warehouse, {"settings": settings}):
                        return self.warehouse_settings(warehouse)
                else:
                    self._warehouse_configs.replace(warehouse, {"settings": settings}, etag)
                    return self.warehouse_settings(warehouse)
            except PreconditionFailed:
                continue  # someone else changed it first
        raise CommitFailedException(f"The maintenance settings of {warehouse} kept changing meanwhile; retry")

    def _stored_warehouse_settings(self, warehouse: str) -> dict[str, str]:
        check_warehouse_name(warehouse)
        self._catalog.ctx.warehouse(warehouse)  # NoSuchWarehouseException
        found = self._warehouse_configs.read(warehouse)
        return dict(found[0].get("settings", {})) if found else {}

    def table_settings(self, warehouse: str, namespace: list[str], name: str) -> dict:
        """Each setting's value and where it comes from, the table's health and its last run."""
        table = self._load(warehouse, namespace, name)
        stored = self._stored_warehouse_settings(warehouse)
        settings = resolve(stored, table.properties)
        effective = settings.to_properties()
        state = self._states.read(str(table.metadata.table_uuid)) or {}
        runs = state.get("history", [])
        return {
            "table": ".".join([*namespace, name]),
            "settings": {s.name: {"value": effective[s.name], "source": _source(s.name, table.properties, stored),
                                  "help": s.help} for s in SETTINGS},
            "health": table_health(table, settings),
            "last-run": runs[-1] if runs else None,
        }

    def set_table_settings(self, warehouse: str, namespace: list[str], name: str, changes: dict) -> dict:
        """Set (or with a null value, remove) the table's overrides: table properties, committed."""
        removed, values = _split_changes(changes)
        table = self._load(warehouse, namespace, name)
        if values or removed:
            with table.transaction() as transaction:
                if values:
                    transaction.set_properties(values)
                if removed:
                    transaction.remove_properties(*sorted(removed))
        return self.table_settings(warehouse, namespace, name)

    # -- runs ----------------------------------------------------------------------------
    def run(self, warehouse: str, namespace: list[str], name: str, operations: list[str] | None = None, *,
            dry_run: bool = False, trigger: str = "manual") -> dict:
        """Run ``operations`` (default: the enabled ones) on a table, or preview them with ``dry_run``.
        A run that changes the table is recorded in its history."""
        from .operations import BY_NAME, OPERATIONS  # see operations.py: loaded when first needed

        for operation in operations or []:
            if operation not in BY_NAME:
                raise BadRequestException(f"Unknown maintenance operation {operation!r}; known: {', '.join(BY_NAME)}")
        table = self._load(warehouse, namespace, name)
        settings = resolve(self._stored_warehouse_settings(warehouse), table.properties)
        # In run order whatever order they were asked in, each once.
        chosen = [o for o in OPERATIONS if (o.name in operations if operations else o.enabled(settings))]
        table_uuid = str(table.metadata.table_uuid)
        if dry_run:
            return self._execute(warehouse, table, settings, chosen, dict(self._states.read(table_uuid) or {}), True, trigger)
        claimed = self._states.claim(table_uuid)
        if claimed is None:
            raise CommitFailedException("Maintenance of this table is running on another server; try again later")
        state, etag = claimed
        try:
            record = self._execute(warehouse, table, settings, chosen, state, False, trigger)
        except BaseException:
            self._states.release(table_uuid, state, etag)  # never leave the table held for a lease's length
            raise
        state["history"] = [*state.get("history", []), _shortened(record)][-HISTORY_RUNS:]
        if trigger == "schedule":
            state["last-scheduled-ms"] = record["started-ms"]
        if not self._states.release(table_uuid, state, etag):
            log.warning("maintenance of table %s: lost its lease during the run; its record is not kept", table_uuid)
        return record

    def _execute(self, warehouse: str, table: Table, settings: MaintenanceSettings, operations: list, state: dict,
                 dry_run: bool, trigger: str) -> dict:
        from .operations import Job, release_memory

        started = self._now_ms()
        reports, errors = [], []

        def others() -> list[str]:  # every table pointer of the warehouse: read only by the operation needing it
            return [location for location in self._catalog.tables.table_locations(warehouse)
                    if location.rstrip("/") != table.location().rstrip("/")]

        for operation in operations:
            job = Job(table, settings, dry_run, self._now_ms(), state, self._store, others)
            try:
                reports.append(operation.run(job).to_json())
            except Exception as exc:  # one operation failing must not stop the others; the record says why
                log.warning("maintenance %s of %s failed: %s", operation.name, table.name(), exc, exc_info=True)
                errors.append({"operation": operation.name, "message": f"{type(exc).__name__}: {exc}"})
                table.refresh()
        release_memory()
        return {
            "id": uuid.uuid4().hex,
            "table": ".".join(table.name()),
            "trigger": trigger,
            "dry-run": dry_run,
            "started-ms": started,
            "ended-ms": self._now_ms(),
            "operations": reports,
            "errors": errors,
        }

    def history(self, warehouse: str, namespace: list[str], name: str) -> dict:
        table = self._load(warehouse, namespace, name)
        state = self._states.read(str(table.metadata.table_uuid)) or {}
        return {"table": ".".join([*namespace, name]), "runs": list(reversed(state.get("history", [])))}

    # -- the background pass -------------------------------------------------------------
    def run_due(self, stopping: Callable[[], bool] = lambda: False) -> None:
        """Run the enabled operations of every table not run for ``interval_seconds``, one table at a
        time with a pause between tables (the service's thread pool calls this; requests come first)."""
        for warehouse in self._warehouses():
            for namespace, name, pointer in self._catalog.tables.table_entries(warehouse):
                if stopping():
                    return
                if not self._due(pointer.body.get("uuid")):
                    continue
                try:
                    self.run(warehouse, namespace, name, trigger="schedule")
                except CommitFailedException:
                    continue  # another server holds it
                except Exception:  # one table's failure must not stop the pass
                    log.exception("maintenance of %s.%s failed; the next pass tries again", ".".join(namespace), name)
                time.sleep(self._pause_seconds)

    def _due(self, table_uuid: str | None) -> bool:
        if not table_uuid:
            return False
        state = self._states.read(table_uuid) or {}
        return self._now_ms() - state.get("last-scheduled-ms", 0) >= self.interval_seconds * 1000

    def _warehouses(self) -> list[str]:
        names, token = [], None
        while True:
            page = self._catalog.warehouses.list(page_token=token)
            names += page["warehouses"]
            token = page.get("next-page-token")
            if not token:
                return names

    # -- helpers -------------------------------------------------------------------------
    def _load(self, warehouse: str, namespace: list[str], name: str) -> Table:
        from .service_catalog import ServiceCatalog  # PyIceberg's pyarrow I/O: see operations.py

        try:
            return ServiceCatalog(self._catalog.tables, self._store, warehouse).load_table((*namespace, name))
        except NoSuchTableError as exc:  # back to the catalog's own error, which the API answers as 404
            raise NoSuchTableException(str(exc)) from None

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)


def _split_changes(changes: object) -> tuple[set[str], dict[str, str]]:
    """(names to remove, name -> checked value to set) from {name: value or null}."""
    if not isinstance(changes, dict):
        raise BadRequestException("Maintenance settings must be an object of setting name to value (null removes)")
    removed = {name for name, value in changes.items() if value is None}
    unknown = sorted(removed - {s.name for s in SETTINGS})
    if unknown:
        raise BadRequestException(f"Unknown maintenance setting {unknown[0]!r}")
    return removed, check_settings({name: value for name, value in changes.items() if value is not None})


def _source(name: str, table_properties: dict, warehouse: dict) -> str:
    return "table" if name in table_properties else "warehouse" if name in warehouse else "default"


def _shortened(record: dict) -> dict:
    """A run record for the history: each file list cut to ``HISTORY_FILES`` (counts and bytes stay)."""
    operations = []
    for report in record["operations"]:
        report = dict(report)
        for key in ("removed-files", "added-files", "marked-files"):
            report[key] = {**report[key], "files": report[key]["files"][:HISTORY_FILES]}
        operations.append(report)
    return {**record, "operations": operations}
