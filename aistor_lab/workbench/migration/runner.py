"""One migration: every table of a source into one warehouse of the service. Per table: when its files
are already in the warehouse (the same objects the target reads), its metadata file is registered as it
is; otherwise its files are copied into a folder of its own in the warehouse, its manifests, manifest
lists and metadata rewritten with the new paths, and that metadata registered. Each step finds what an
earlier run finished (by target path and size, or by content) and does not redo it; a table registered
with the same metadata is not registered again; one registered by an earlier run from an older version of
the source (and not committed to since) is moved on to the newer one; any other is left alone.
Parity (snapshots, files, records of source and target) is counted for every table migrated."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..client import AIStorClient, ServiceError
from ..progress import progress_bar
from ..service_config import catalog_properties
from . import metadata_file
from .objects import copy_file, read_bytes, stored_size, write_bytes
from .parity import Counts, counts
from .paths import PathMap, canonical
from .sources import MigrationError, Source, SourceTable

COPY_WORKERS = 4

# What happened to a table (``dry_run``: what would).
COPIED, IN_PLACE, ALREADY, UPDATED, CONFLICT, REFUSED, FAILED = (
    "copied and registered", "registered in place", "already registered", "updated to the source's newer metadata",
    "exists with other metadata", "refused", "failed")


@dataclass
class TableReport:
    table: str
    outcome: str = ""
    metadata_location: str = ""
    files_copied: int = 0
    files_present: int = 0
    bytes_copied: int = 0
    source: Counts | None = None
    target: Counts | None = None
    message: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def file_done(self, copied: bool, size: int) -> None:
        with self._lock:
            if copied:
                self.files_copied += 1
                self.bytes_copied += size
            else:
                self.files_present += 1

    @property
    def in_parity(self) -> bool | None:
        return None if self.source is None or self.target is None else self.source == self.target


class Migration:
    """Migrates tables into ``warehouse`` of the service ``client`` reaches; ``dry_run``: plan only;
    ``progress``: a bar per table where someone watches (progress.interactive)."""

    def __init__(self, client: AIStorClient, warehouse: str, *, dry_run: bool = False, progress: bool = False):
        from pyiceberg.io import load_file_io

        self.client, self.warehouse, self.dry_run, self.progress = client, warehouse, dry_run, progress
        self.target_io = load_file_io(catalog_properties(client.config, warehouse))
        self._namespaces: set[tuple[str, ...]] = set()

    def run(self, source: Source) -> list[TableReport]:
        if self.warehouse not in self.client.list_warehouses():
            raise MigrationError(f"no warehouse {self.warehouse!r} in the target (create it with: warehouse create)")
        return [self.table(table, source) for table in source.tables]

    def table(self, table: SourceTable, source: Source) -> TableReport:
        report = TableReport(table.dotted)
        if table.problem:
            report.outcome, report.message = FAILED, table.problem
            return report
        try:
            self._migrate(table, source, report)
        except MigrationError as exc:
            report.outcome, report.message = REFUSED, exc.message
        except Exception as exc:  # noqa: BLE001 - one table's failure is reported in its row; a re-run resumes it
            report.outcome, report.message = FAILED, f"{type(exc).__name__}: {exc}"
        return report

    def _migrate(self, table: SourceTable, source: Source, report: TableReport) -> None:
        from pyiceberg.table.metadata import TableMetadataUtil

        data = read_bytes(table.io, table.metadata_location)
        raw = metadata_file.parse(data, table.metadata_location)
        metadata_file.check_supported(raw, table.dotted)
        metadata = TableMetadataUtil.parse_obj(raw)
        report.source = counts(metadata, table.io)
        in_place = self._in_warehouse(table.metadata_location, len(data))
        paths = PathMap(raw["location"], self._target_location(table, raw))
        report.metadata_location = table.metadata_location if in_place else paths.metadata_file(table.metadata_location)
        registered = self._registered(table)
        # The metadata files of the source's earlier versions, where an earlier run put (or found) them.
        earlier = {entry["metadata-file"] if in_place else paths.metadata_file(entry["metadata-file"])
                   for entry in raw.get("metadata-log") or []}
        if registered is not None and registered != report.metadata_location and registered not in earlier:
            report.outcome = CONFLICT
            report.message = f"the target's table has {registered}; not overwritten"
            return
        current = registered == report.metadata_location
        report.outcome = (ALREADY if current else UPDATED) if registered else IN_PLACE if in_place else COPIED
        if not in_place:
            self._copy(table, raw, metadata, paths, report)
        if self.dry_run:
            return
        if not current:
            self._ensure_namespace(table.namespace, source)
            self.client.register_table(self.warehouse, list(table.namespace), table.name, report.metadata_location,
                                       overwrite=registered is not None)
        loaded = self.client.load_table(self.warehouse, list(table.namespace), table.name)
        report.target = counts(TableMetadataUtil.parse_obj(loaded["metadata"]), self.target_io)

    def _in_warehouse(self, metadata_location: str, size: int) -> bool:
        """The metadata file is an object of the warehouse, and the target reads the same file there."""
        return (canonical(metadata_location).startswith(f"s3://{self.warehouse}/")
                and stored_size(self.target_io, metadata_location) == size)

    def _target_location(self, table: SourceTable, raw: dict) -> str:
        """The table's folder in the warehouse: the same for every run, so a re-run finds its copies."""
        table_uuid = raw.get("table-uuid") or str(uuid.uuid5(uuid.NAMESPACE_URL, canonical(raw["location"])))
        return f"s3://{self.warehouse}/{'/'.join(table.namespace)}/{table.name}-{table_uuid}"

    def _registered(self, table: SourceTable) -> str | None:
        """The metadata location of the target's table of that name (None: there is none)."""
        try:
            return self.client.load_table(self.warehouse, list(table.namespace), table.name)["metadata-location"]
        except ServiceError as exc:
            if exc.status == 404:
                return None
            raise

    def _ensure_namespace(self, namespace: tuple[str, ...], source: Source) -> None:
        for depth in range(1, len(namespace) + 1):
            level = namespace[:depth]
            if level in self._namespaces:
                continue
            try:
                self.client.create_namespace(self.warehouse, list(level), source.namespace_properties.get(level, {}))
            except ServiceError as exc:
                if exc.status != 409:  # an existing namespace is the one to fill
                    raise
            self._namespaces.add(level)

    def _copy(self, table: SourceTable, raw: dict, metadata: Any, paths: PathMap, report: TableReport) -> None:
        """Copy the table's files and write its rewritten manifests, manifest lists and metadata (in that
        order, so nothing written names a file that is not there yet); in a dry run, count what is missing."""
        from .manifests import ManifestRewriter, manifests_of  # PyIceberg's avro: loaded by a migration only

        lists = {snapshot.snapshot_id: manifests_of(table.io, snapshot.manifest_list) for snapshot in metadata.snapshots}
        unique = {m.manifest_path: m for manifests in lists.values() for m in manifests}
        if self.dry_run:
            self._count_missing(table, unique.values(), paths, report)
            return
        total = sum((m.added_files_count or 0) + (m.existing_files_count or 0) for m in unique.values())
        with progress_bar(None if self.progress else False, total=total, desc=table.dotted, unit="file") as bar, \
                ThreadPoolExecutor(COPY_WORKERS) as pool:
            def done(copied: bool | None, size: int) -> None:
                if copied is not None:
                    report.file_done(copied, size)
                bar.update(1)

            rewriter = ManifestRewriter(metadata, table.io, self.target_io, paths, done, pool)
            for manifest in unique.values():
                rewriter.manifest(manifest)
            for snapshot in metadata.snapshots:
                rewriter.manifest_list(snapshot, lists[snapshot.snapshot_id])
        for statistics in [*(raw.get("statistics") or []), *(raw.get("partition-statistics") or [])]:
            path = statistics["statistics-path"]
            report.file_done(copy_file(table.io, path, self.target_io, paths(path), statistics.get("file-size-in-bytes")),
                             statistics.get("file-size-in-bytes") or 0)
        write_bytes(self.target_io, report.metadata_location, metadata_file.encoded(metadata_file.rewritten(raw, paths)))

    def _count_missing(self, table: SourceTable, manifests: Any, paths: PathMap, report: TableReport) -> None:
        from pyiceberg.manifest import ManifestEntryStatus

        seen: set[str] = set()
        for manifest in manifests:
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
                target = paths(entry.data_file.file_path)
                if entry.status == ManifestEntryStatus.DELETED or target in seen:
                    continue
                seen.add(target)
                size = entry.data_file.file_size_in_bytes
                report.file_done(stored_size(self.target_io, target) is None, size)
