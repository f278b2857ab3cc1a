"""What one maintenance operation did, or in a dry run would do: the same record either way, so a
preview and the run it previews read alike (the widget, the panel, the history and the CLI show it)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Files named one by one in a report; the counts and byte totals always cover them all.
MAX_FILES_LISTED = 200


@dataclass(frozen=True)
class FileEntry:
    path: str  # s3://bucket/key
    size: int  # bytes


@dataclass
class OperationReport:
    operation: str  # expire-snapshots, remove-unreferenced-files, compact, rewrite-manifests
    dry_run: bool
    removed_files: list[FileEntry] = field(default_factory=list)  # deleted, or rewritten away (``deletes``)
    added_files: list[FileEntry] = field(default_factory=list)  # written (compaction's new files)
    removed_snapshots: list[int] = field(default_factory=list)
    marked_files: list[FileEntry] = field(default_factory=list)  # unreferenced, deleted after the delay
    snapshot_id: int | None = None  # the snapshot committed, if any
    skipped: str | None = None  # why nothing was done (disabled, nothing due), for people to read
    details: dict = field(default_factory=dict)  # operation-specific figures (histograms, partitions)
    # False for a rewrite (compaction, manifests): the files it replaces stay for the older snapshots
    # until expiry deletes them, so it frees nothing itself.
    deletes: bool = True

    @property
    def bytes_freed(self) -> int:
        """What the operation deletes from the store (or would, in a dry run)."""
        return sum(f.size for f in self.removed_files) if self.deletes else 0

    def to_json(self) -> dict:
        def files(entries: list[FileEntry]) -> dict:
            return {
                "count": len(entries),
                "bytes": sum(e.size for e in entries),
                "files": [{"path": e.path, "size": e.size} for e in entries[:MAX_FILES_LISTED]],
            }

        return {
            "operation": self.operation,
            "dry-run": self.dry_run,
            "removed-files": files(self.removed_files),
            "added-files": files(self.added_files),
            "marked-files": files(self.marked_files),
            "removed-snapshots": [str(s) for s in self.removed_snapshots],  # ids exceed JS numbers
            "snapshot-id": None if self.snapshot_id is None else str(self.snapshot_id),
            "bytes-freed": self.bytes_freed,
            "skipped": self.skipped,
            "details": self.details,
        }
