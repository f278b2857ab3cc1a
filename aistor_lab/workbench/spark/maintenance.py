"""Table maintenance through Iceberg's own Spark procedures, for tables too big for the service's
machine: ``rewrite_data_files`` (compact), ``rewrite_manifests``, ``expire_snapshots`` and
``remove_orphan_files`` (remove-unreferenced-files) run where the session runs (``local[N]`` or a
``spark://`` cluster), driven by the same settings as the service's maintenance (``table maintenance
show``: property name -> value), and answered as the service's run record, so one summary renders both.

What the procedures cannot do, the record says in each operation's ``note``: ``rewrite_data_files``
and ``expire_snapshots`` have no dry run (a dry run of compact plans from the ``files`` metadata
table; expiry is not previewed), and the procedures count deleted files without their sizes.
"""

from __future__ import annotations

import datetime
import math
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException

from ..commands.maintenance_actions import OPERATIONS
from ..service_config import spark_catalog_conf
from .sessions import CATALOG, service_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MAX_FILES_LISTED = 200  # as the service's reports: the counts always cover every file
# The setting that lets each operation run when none is named, as in the service (manifests are
# rewritten as part of compaction's upkeep).
ENABLED_BY = {
    "compact": "maintenance.compaction.enabled",
    "rewrite-manifests": "maintenance.compaction.enabled",
    "expire-snapshots": "maintenance.snapshot-expiry.enabled",
    "remove-unreferenced-files": "maintenance.unreferenced-files.enabled",
}
# Iceberg's bin-pack also rewrites files above this share of the target (max-file-size-bytes' default).
MAX_FILE_RATIO = 1.8


class _Table:
    """One table as the procedures and metadata tables name it in the session's catalog."""

    def __init__(self, spark: SparkSession, catalog: str, namespace: str | Sequence[str], name: str):
        levels = namespace.split(".") if isinstance(namespace, str) else list(namespace)
        self.spark = spark
        self.catalog = catalog
        self.argument = ".".join(f"`{part}`" for part in [*levels, name])  # the procedures' table argument
        self.sql_name = f"`{catalog}`.{self.argument}"

    def call(self, procedure: str, **arguments: str) -> list:
        named = ", ".join([f"table => '{self.argument}'", *(f"{key} => {value}" for key, value in arguments.items())])
        return self.spark.sql(f"CALL `{self.catalog}`.system.{procedure}({named})").collect()

    def metadata(self, name: str):
        self.spark.sql(f"REFRESH TABLE {self.sql_name}")
        return self.spark.table(f"{self.sql_name}.{name}")

    def current_snapshot(self) -> dict | None:
        rows = (self.metadata("history").where("is_current_ancestor").orderBy("made_current_at", ascending=False)
                .select("snapshot_id").limit(1).collect())
        if not rows:
            return None
        found = self.metadata("snapshots").where(f"snapshot_id = {rows[0].snapshot_id}").collect()
        return {"id": found[0].snapshot_id, "summary": dict(found[0].summary or {})}

    def committed_since(self, before: dict | None) -> dict | None:
        """The current snapshot if a procedure committed one since ``before``, else None."""
        after = self.current_snapshot()
        return after if after and (before is None or after["id"] != before["id"]) else None

    def snapshot_ids(self) -> set[int]:
        return {row.snapshot_id for row in self.metadata("snapshots").select("snapshot_id").collect()}

    def sort_order(self) -> str | None:
        properties = {row.key: row.value for row in self.spark.sql(f"SHOW TBLPROPERTIES {self.sql_name}").collect()}
        return properties.get("sort-order")


def maintain_with_spark(spark: SparkSession, warehouse: str, namespace: str | Sequence[str], table: str,
                        operations: Sequence[str], settings: Mapping[str, str], *, dry_run: bool = False,
                        now_ms: int | None = None) -> dict:
    """Run ``operations`` (default: those the settings enable) on the table with Iceberg's procedures in
    ``spark``; ``settings`` are the table's maintenance settings (name -> value, as ``table maintenance
    show`` gives them). Returns a run record shaped as the service's."""
    started = _now_ms()
    now_ms = now_ms or started
    target = _Table(spark, catalog_for(spark, warehouse), namespace, table)
    chosen = [o for o in OPERATIONS if o in operations] if operations else \
        [o for o in OPERATIONS if str(settings.get(ENABLED_BY[o], "true")).lower() == "true"]
    reports, errors = [], []
    for operation in chosen:
        try:
            reports.append(RUNS[operation](target, settings, dry_run, now_ms))
        except (PySparkException, Py4JError) as exc:  # one failing must not stop the others; the record says why
            errors.append({"operation": operation, "message": _error_text(exc)})
    return {
        "id": uuid.uuid4().hex,
        "table": ".".join([*([namespace] if isinstance(namespace, str) else namespace), table]),
        "trigger": "manual",
        "engine": "spark",
        "dry-run": dry_run,
        "started-ms": started,
        "ended-ms": _now_ms(),
        "operations": reports,
        "errors": errors,
    }


def catalog_for(spark: SparkSession, warehouse: str) -> str:
    """The session's Iceberg catalog on ``warehouse``: ``aistor`` when it is that warehouse's, else one
    added to the session now (Spark instantiates a catalog on first use, from the session's conf)."""
    if spark.conf.get(f"spark.sql.catalog.{CATALOG}.warehouse", None) == warehouse:
        return CATALOG
    name = f"{CATALOG}_{re.sub(r'[^a-z0-9]', '_', warehouse)}"
    if spark.conf.get(f"spark.sql.catalog.{name}", None) is None:
        for key, value in spark_catalog_conf(service_of(spark), warehouse, name).items():
            spark.conf.set(key, value)
    return name


# -- the operations -------------------------------------------------------------------------------


def _compact(target: _Table, settings: Mapping[str, str], dry_run: bool, now_ms: int) -> dict:
    target_bytes = int(settings["write.target-file-size-bytes"])
    min_input_files = int(settings["maintenance.compaction.min-input-files"])
    if dry_run:
        return _compaction_plan(target, target_bytes, min_input_files)
    sort_order = target.sort_order()
    options = {"target-file-size-bytes": target_bytes, "min-input-files": min_input_files}
    before = target.current_snapshot()
    [result] = target.call("rewrite_data_files", strategy=f"'{'sort' if sort_order else 'binpack'}'",
                           options="map(" + ", ".join(f"'{k}', '{v}'" for k, v in options.items()) + ")")
    committed = target.committed_since(before)
    added_bytes = int(committed["summary"].get("added-files-size", 0)) if committed else 0
    return _report("compact", False,
                   removed=(result.rewritten_data_files_count, result.rewritten_bytes_count),
                   added=(result.added_data_files_count, added_bytes),
                   snapshot_id=committed["id"] if committed else None,
                   skipped=None if result.rewritten_data_files_count else "no partition has enough small files",
                   details={"strategy": "sort" if sort_order else "binpack", "sort-order": sort_order,
                            "removed-delete-files": result.removed_delete_files_count,
                            "failed-data-files": result.failed_data_files_count})


def _compaction_plan(target: _Table, target_bytes: int, min_input_files: int) -> dict:
    """What bin-pack would pick (files outside [75%, 180%] of the target, in groups of at least
    ``min_input_files`` per partition), read from the ``files`` metadata table."""
    files = target.metadata("files").where("content = 0")
    keys = ["spec_id", "partition"] if "partition" in files.columns else ["spec_id"]
    small, large = target_bytes * 3 // 4, int(target_bytes * MAX_FILE_RATIO)
    groups = (files.where(f"file_size_in_bytes < {small} OR file_size_in_bytes > {large}").groupBy(*keys)
              .agg({"*": "count", "file_size_in_bytes": "sum"}).collect())
    chosen = [(row["count(1)"], row["sum(file_size_in_bytes)"]) for row in groups if row["count(1)"] >= min_input_files]
    count, size = sum(c for c, _ in chosen), sum(b for _, b in chosen)
    return _report("compact", True, removed=(count, size),
                   added=(sum(math.ceil(b / target_bytes) for _, b in chosen), size),
                   skipped=None if count else "no partition has enough small files",
                   note="a plan only: Spark's rewrite_data_files has no dry run (new files and bytes estimated)",
                   details={"partitions": len(chosen)})


def _rewrite_manifests(target: _Table, settings: Mapping[str, str], dry_run: bool, now_ms: int) -> dict:
    if dry_run:
        return _report("rewrite-manifests", True, skipped="Spark's rewrite_manifests has no dry run")
    before = target.current_snapshot()
    [result] = target.call("rewrite_manifests")
    committed = target.committed_since(before)
    return _report("rewrite-manifests", False, snapshot_id=committed["id"] if committed else None,
                   skipped=None if result.rewritten_manifests_count else "no manifest to rewrite",
                   details={"rewritten-manifests": result.rewritten_manifests_count,
                            "added-manifests": result.added_manifests_count})


def _expire_snapshots(target: _Table, settings: Mapping[str, str], dry_run: bool, now_ms: int) -> dict:
    if dry_run:
        return _report("expire-snapshots", True,
                       skipped="Spark's expire_snapshots has no dry run: `--engine service --dry-run` previews it")
    older_than = now_ms - int(settings["history.expire.max-snapshot-age-ms"])
    before = target.snapshot_ids()
    [result] = target.call("expire_snapshots", older_than=_timestamp(older_than),
                           retain_last=str(int(settings["history.expire.min-snapshots-to-keep"])))
    removed = sorted(before - target.snapshot_ids())
    deleted = result.asDict()
    return _report("expire-snapshots", False, removed=(sum(deleted.values()), 0), removed_snapshots=removed,
                   skipped=None if removed else "no snapshot is due",
                   note="sizes not reported by Spark's expire_snapshots" if removed else None,
                   details={"deleted": deleted})


def _remove_orphans(target: _Table, settings: Mapping[str, str], dry_run: bool, now_ms: int) -> dict:
    # The grace period as Spark's older_than; the procedure deletes at once (no marking, no delay).
    older_than = now_ms - int(settings["maintenance.unreferenced-files.grace-period-ms"])
    rows = target.call("remove_orphan_files", older_than=_timestamp(older_than),
                       dry_run="true" if dry_run else "false")
    paths = [row.orphan_file_location for row in rows]
    return _report("remove-unreferenced-files", dry_run, removed=(len(paths), 0), removed_paths=paths,
                   skipped=None if paths else "no unreferenced file older than the grace period",
                   note="deleted at once, without the service's deletion delay; sizes not reported" if paths else None)


RUNS: dict[str, Callable[[_Table, Mapping[str, str], bool, int], dict]] = {
    "compact": _compact,
    "rewrite-manifests": _rewrite_manifests,
    "expire-snapshots": _expire_snapshots,
    "remove-unreferenced-files": _remove_orphans,
}


# -- helpers --------------------------------------------------------------------------------------


def _report(operation: str, dry_run: bool, *, removed: tuple[int, int] = (0, 0), added: tuple[int, int] = (0, 0),
            removed_paths: Sequence[str] = (), removed_snapshots: Sequence[int] = (), snapshot_id: int | None = None,
            skipped: str | None = None, note: str | None = None, details: dict | None = None) -> dict:
    """An operation's report as the service's OperationReport.to_json (files as counts and bytes: the
    procedures name no files but orphans)."""

    def files(count: int, size: int, paths: Sequence[str] = ()) -> dict:
        return {"count": count, "bytes": size, "files": [{"path": p, "size": 0} for p in paths[:MAX_FILES_LISTED]]}

    return {
        "operation": operation,
        "dry-run": dry_run,
        "removed-files": files(*removed, removed_paths),
        "added-files": files(*added),
        "marked-files": files(0, 0),
        "removed-snapshots": [str(s) for s in removed_snapshots],
        "snapshot-id": None if snapshot_id is None else str(snapshot_id),
        # As the service counts: a rewrite's old files stay until snapshot expiry deletes them.
        "bytes-freed": 0 if operation in ("compact", "rewrite-manifests") else removed[1],
        "skipped": skipped,
        "note": note,
        "details": details or {},
    }


def _timestamp(epoch_ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(epoch_ms / 1000, datetime.UTC)
    return f"TIMESTAMP '{moment.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} UTC'"


def _error_text(exc: Exception) -> str:
    # Spark's errors carry the JVM's stack trace after their first line; py4j's name the Java call site
    # first, the Java exception holds the message.
    java = getattr(exc, "java_exception", None)
    text = (java.toString() if java is not None else str(exc)).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def _now_ms() -> int:
    return int(time.time() * 1000)
