"""Manifest rewriting, as Spark's ``rewrite_manifests``: many small data manifests (one per append,
typically) merged into few, so planning a scan reads few files. No data changes: one ``replace``
snapshot whose data files are exactly the previous snapshot's.

The rule: the data manifests of a partition spec are rewritten when at least MIN_SMALL_MANIFESTS of
them are small (under half of ``commit.manifest.target-size-bytes``, Iceberg's manifest size, 8 MiB
by default); the small ones are packed by size into manifests near the target by PyIceberg's own
merge (the one ``merge_append`` uses). Delete manifests are left as they are, as Iceberg's action does.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from pyiceberg.exceptions import CommitFailedException, ValidationException
from pyiceberg.manifest import ManifestContent, ManifestEntry, ManifestFile
from pyiceberg.table import Table, TableProperties
from pyiceberg.table.snapshots import Operation
from pyiceberg.table.update.snapshot import _ManifestMergeManager, _SnapshotProducer
from pyiceberg.utils.properties import property_as_int

from .compaction import ReplaceSummary
from .format_v3 import V3Commits
from .report import FileEntry, OperationReport
from .settings import MaintenanceSettings

MIN_SMALL_MANIFESTS = 10
NEW_MANIFEST = "(new manifest)"


@dataclass
class ManifestRewritePlan:
    target_size: int  # bytes of a manifest
    by_spec: dict[int, list[ManifestFile]]  # the manifests to rewrite
    nothing_to_do: str | None = None

    @property
    def manifests(self) -> list[ManifestFile]:
        return [m for manifests in self.by_spec.values() for m in manifests]


def plan_manifest_rewrite(table: Table) -> ManifestRewritePlan:
    default = TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT
    target = property_as_int(table.properties, TableProperties.MANIFEST_TARGET_SIZE_BYTES, default) or default
    snapshot = table.metadata.snapshot_by_name("main")
    if snapshot is None:
        return ManifestRewritePlan(target, {}, nothing_to_do="the table has no snapshot yet")
    small: dict[int, list[ManifestFile]] = defaultdict(list)
    for manifest in snapshot.manifests(table.io):
        if manifest.content == ManifestContent.DATA and manifest.manifest_length < target // 2:
            small[manifest.partition_spec_id].append(manifest)
    chosen = {spec: manifests for spec, manifests in small.items() if len(manifests) >= MIN_SMALL_MANIFESTS}
    if not chosen:
        return ManifestRewritePlan(target, {}, nothing_to_do=(
            f"no partition spec has {MIN_SMALL_MANIFESTS} data manifests under {target // 2} bytes"))
    return ManifestRewritePlan(target, chosen)


def rewrite_manifests(table: Table, settings: MaintenanceSettings, *, dry_run: bool) -> OperationReport:
    """``settings`` is taken for the runner's sake: the manifest size is the table's own property."""
    report = OperationReport("rewrite-manifests", dry_run, deletes=False)
    plan = plan_manifest_rewrite(table)
    if plan.nothing_to_do:
        report.skipped = plan.nothing_to_do
        return report
    report.removed_files = [_entry(m) for m in plan.manifests]
    if dry_run:
        report.added_files = [e for manifests in plan.by_spec.values() for e in _estimate(manifests, plan)]
        report.details = _details(plan, report.added_files)
        return report
    return run_manifest_rewrite(table, plan, report)


def run_manifest_rewrite(table: Table, plan: ManifestRewritePlan, report: OperationReport) -> OperationReport:
    """Commit the plan. ``table`` may have moved on: the commit re-bases onto concurrent appends, and
    fails cleanly if a manifest of the plan is gone (a concurrent rewrite or delete replaced it)."""
    transaction = table.transaction()
    rewrite = _RewriteManifests(Operation.REPLACE, transaction, table.io, plan)
    try:
        rewrite.commit()
        transaction.commit_transaction()
    except (CommitFailedException, ValidationException) as exc:
        report.removed_files = []
        report.skipped = f"a concurrent commit conflicts with the rewrite, nothing was changed: {exc}"
        return report
    report.snapshot_id = rewrite.snapshot_id
    report.added_files = [_entry(m) for m in rewrite.created]
    report.details = _details(plan, report.added_files)
    return report


class _RewriteManifests(V3Commits, ReplaceSummary, _SnapshotProducer["_RewriteManifests"]):
    """A snapshot of the parent's files in fewer manifests: the plan's manifests merged, the rest kept."""

    def __init__(self, operation: Operation, transaction, io, plan: ManifestRewritePlan) -> None:
        super().__init__(operation, transaction, io)
        self._plan = plan
        self.created: list[ManifestFile] = []

    def _deleted_entries(self) -> list[ManifestEntry]:
        return []

    def _validate_concurrency(self) -> None:
        """Concurrent appends are no conflict; the loss of a manifest to rewrite is, checked as they merge."""

    def _existing_manifests(self) -> list[ManifestFile]:
        parent = self._transaction.table_metadata.snapshot_by_name(self._target_branch)
        return parent.manifests(self._io) if parent else []

    def _process_manifests(self, manifests: list[ManifestFile]) -> list[ManifestFile]:
        rewritten = {m.manifest_path for m in self._plan.manifests}
        if gone := rewritten - {m.manifest_path for m in manifests}:
            raise ValidationException(f"Manifests to rewrite were replaced concurrently: {sorted(gone)}")
        kept = [m for m in manifests if m.manifest_path not in rewritten]
        # Manifests of deleted entries only name no live file: they are dropped, not merged.
        live = [
            m for m in manifests
            if m.manifest_path in rewritten and (m.has_added_files() or m.has_existing_files())
        ]
        merger = _ManifestMergeManager(self._plan.target_size, 1, True, self)
        merged = [
            manifest
            for spec_id in self._plan.by_spec
            for manifest in merger.merge_manifests([m for m in live if m.partition_spec_id == spec_id])
        ]
        self.created = [m for m in merged if m.manifest_path not in rewritten]
        return merged + kept


def _entry(manifest: ManifestFile) -> FileEntry:
    return FileEntry(manifest.manifest_path, manifest.manifest_length)


def _estimate(manifests: list[ManifestFile], plan: ManifestRewritePlan) -> list[FileEntry]:
    total = sum(m.manifest_length for m in manifests)
    count = max(1, math.ceil(total / plan.target_size))
    return [FileEntry(NEW_MANIFEST, total // count)] * count


def _details(plan: ManifestRewritePlan, added: list[FileEntry]) -> dict:
    return {
        "target-size-bytes": plan.target_size,
        "specs": [
            {"spec-id": spec_id, "manifests-rewritten": len(manifests),
             "bytes-rewritten": sum(m.manifest_length for m in manifests),
             "files": sum((m.added_files_count or 0) + (m.existing_files_count or 0) for m in manifests)}
            for spec_id, manifests in sorted(plan.by_spec.items())
        ],
        "manifests-written": len(added),
    }
