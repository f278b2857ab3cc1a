"""The scan's files, chosen on the server with PyIceberg's own planning (``ManifestGroupPlanner``:
manifests pruned by their partition summaries, entries by partition and column stats, delete files
matched to data files by ``DeleteFileIndex``, each file's residual filter), over manifests parsed
once and kept (manifest_cache.py) instead of read again for every plan."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from pyiceberg.io import FileIO
from pyiceberg.manifest import ManifestContent, ManifestEntry, ManifestEntryStatus, ManifestFile
from pyiceberg.table import FileScanTask, ManifestGroupPlanner, _min_sequence_number
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.snapshots import Operation, ancestors_between_ids

from ..manifest_reader import read_manifests
from .manifest_cache import ManifestCache
from .request import ScanRequest


class _CachedManifestPlanner(ManifestGroupPlanner):
    """PyIceberg's planner whose manifest entries come from the cache (its own method reads every
    manifest again); the pruning is the same steps with the same evaluators."""

    def __init__(self, metadata: TableMetadata, io: FileIO, scan: ScanRequest, cache: ManifestCache,
                 check_location: Callable[[str], object]):
        super().__init__(metadata, io, row_filter=scan.row_filter, case_sensitive=scan.case_sensitive)
        self._cache = cache
        self._check_location = check_location

    def plan_manifest_entries(self, manifests: Iterable[ManifestFile]) -> Iterator[list[ManifestEntry]]:
        manifest_evaluators = {}
        partition_evaluators = {}
        kept = []
        for manifest in manifests:
            spec_id = manifest.partition_spec_id
            if spec_id not in manifest_evaluators:
                manifest_evaluators[spec_id] = self._build_manifest_evaluator(spec_id)
            if manifest_evaluators[spec_id](manifest):
                kept.append(manifest)
        metrics_evaluator = self._build_metrics_evaluator()
        min_sequence_number = _min_sequence_number(kept)
        for manifest in kept:
            if not self._check_sequence_number(min_sequence_number, manifest):
                continue
            spec_id = manifest.partition_spec_id
            if spec_id not in partition_evaluators:
                partition_evaluators[spec_id] = self._build_partition_evaluator(spec_id)
            partition_filter = partition_evaluators[spec_id]
            yield [
                entry for entry in self._cache.entries(manifest, self._check_location)
                if partition_filter(entry.data_file) and metrics_evaluator(entry.data_file)
            ]


def plan_files(metadata: TableMetadata, io: FileIO, scan: ScanRequest, cache: ManifestCache,
               check_location: Callable[[str], object]) -> list[FileScanTask]:
    """The FileScanTasks of a point-in-time or incremental append scan."""
    if scan.snapshot is None:
        return []
    # The metadata as the planner must see it: with the schema the scan binds its filter to.
    if scan.schema.schema_id != metadata.current_schema_id:
        metadata = metadata.model_copy(update={"current_schema_id": scan.schema.schema_id})
    planner = _CachedManifestPlanner(metadata, io, scan, cache, check_location)
    check_location(scan.snapshot.manifest_list)
    if not scan.incremental:  # the list read with v3's fields: data files inherit their first row ids
        return list(planner.plan_files(read_manifests(io, scan.snapshot)))
    # An incremental scan is the data files that append snapshots after the start added (as
    # PyIceberg's IncrementalAppendScan plans them): no delete files apply to them.
    appends = [
        snapshot for snapshot in ancestors_between_ids(scan.start_snapshot_id, scan.snapshot.snapshot_id, metadata)
        if snapshot.summary is not None and snapshot.summary.operation == Operation.APPEND
    ]
    append_ids = {snapshot.snapshot_id for snapshot in appends}
    manifests = {}
    for snapshot in appends:
        check_location(snapshot.manifest_list)
        for manifest in snapshot.manifests(io):
            if manifest.content == ManifestContent.DATA and manifest.added_snapshot_id in append_ids:
                manifests[manifest.manifest_path] = manifest
    return list(planner.plan_files(
        manifests.values(),
        manifest_entry_filter=lambda entry: entry.snapshot_id in append_ids and entry.status == ManifestEntryStatus.ADDED,
    ))
