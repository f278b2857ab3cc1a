"""How healthy a table is, from its current snapshot's manifests: how many data files, how many of
them small (below compaction's threshold), their size histogram, snapshots and manifests: what the
side panel shows, and what tells whether maintenance is due."""

from __future__ import annotations

import bisect

from pyiceberg.manifest import DataFileContent
from pyiceberg.table import Table

from .settings import MaintenanceSettings

KiB, MiB = 1024, 1024 * 1024
# Upper bounds of the file-size histogram's bins (the last bin is open): log-scale, so a table of
# thousands of tiny files and one of a few 512 MiB files both read at a glance.
SIZE_BOUNDS = (KiB, 16 * KiB, 256 * KiB, 4 * MiB, 64 * MiB, 512 * MiB)


def size_histogram(sizes: list[int]) -> dict:
    """{"bounds": upper bounds in bytes (the last bin has none), "counts": files per bin}."""
    counts = [0] * (len(SIZE_BOUNDS) + 1)
    for size in sizes:
        counts[bisect.bisect_left(SIZE_BOUNDS, size)] += 1
    return {"bounds": list(SIZE_BOUNDS), "counts": counts}


def table_health(table: Table, settings: MaintenanceSettings) -> dict:
    snapshot = table.current_snapshot()
    sizes: list[int] = []
    delete_files = manifests = 0
    if snapshot is not None:
        for manifest in snapshot.manifests(table.io):
            manifests += 1
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
                if entry.data_file.content == DataFileContent.DATA:
                    sizes.append(entry.data_file.file_size_in_bytes)
                else:
                    delete_files += 1
    small = sum(1 for size in sizes if size < settings.small_file_bytes)
    return {
        "snapshots": len(table.metadata.snapshots),
        "data-files": len(sizes),
        "delete-files": delete_files,
        "manifests": manifests,
        "bytes": sum(sizes),
        "small-files": small,
        "small-file-ratio": round(small / len(sizes), 3) if sizes else 0.0,
        "small-file-bytes": settings.small_file_bytes,
        "histogram": size_histogram(sizes),
    }
