"""The maintenance operations the runner knows, in run order, and what each is given (a Job).

Kept apart from runner.py, which imports it only when a table is maintained: PyIceberg's pyarrow
I/O (and with it pandas) loads then, not when the service starts.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa
from pyiceberg.table import Table

from ...store import ObjectStore
from .compaction import compact
from .expiry import expire_snapshots
from .manifest_rewrite import rewrite_manifests
from .report import OperationReport
from .settings import MaintenanceSettings
from .unreferenced import remove_unreferenced


@dataclass(frozen=True)
class Job:
    """One operation's inputs: the table (PyIceberg, on the service's own catalog) and how to run."""

    table: Table
    settings: MaintenanceSettings
    dry_run: bool
    now_ms: int
    state: dict  # the table's run state (marks of unreferenced files), updated by the operation
    store: ObjectStore
    other_locations: Callable[[], list[str]]  # of the warehouse's other tables (read when asked)


@dataclass(frozen=True)
class Operation:
    name: str
    enabled: Callable[[MaintenanceSettings], bool]  # run by the background pass, and by default on request
    run: Callable[[Job], OperationReport]


# In run order: compaction makes the snapshot that expiry may then leave as the only one, and
# unreferenced-file removal comes last, when the others have settled what is referenced.
def _remove_unreferenced(job: Job) -> OperationReport:
    report, job.state["marks"] = remove_unreferenced(
        job.table, job.store, job.settings, job.state.get("marks", {}), dry_run=job.dry_run, now_ms=job.now_ms,
        other_locations=job.other_locations())
    return report


OPERATIONS = (
    Operation("compact", lambda s: s.compaction_enabled,
              lambda job: compact(job.table, job.settings, dry_run=job.dry_run)),
    # Part of compaction's upkeep, as S3 Tables and R2 do it: enabled with it.
    Operation("rewrite-manifests", lambda s: s.compaction_enabled,
              lambda job: rewrite_manifests(job.table, job.settings, dry_run=job.dry_run)),
    Operation("expire-snapshots", lambda s: s.snapshot_expiry_enabled,
              lambda job: expire_snapshots(job.table, job.settings, dry_run=job.dry_run, now_ms=job.now_ms)),
    Operation("remove-unreferenced-files", lambda s: s.unreferenced_enabled, _remove_unreferenced),
)
BY_NAME = {operation.name: operation for operation in OPERATIONS}


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


_LIBC = _libc()


def release_memory() -> None:
    """Hand back what a run's Arrow buffers held: pyarrow's pool and glibc's heap keep freed memory for
    reuse, which would leave the server's resident size at the run's peak (a compaction of 300 small
    files: +50 MiB kept, none after this)."""
    pa.default_memory_pool().release_unused()
    if _LIBC is not None and hasattr(_LIBC, "malloc_trim"):  # glibc's; other C libraries have none
        _LIBC.malloc_trim(0)
