"""Delta checkpoints of shared Delta tables: a classic single-file Parquet checkpoint of the latest
version, and ``_last_checkpoint`` pointing at it (delta-io/delta PROTOCOL.md, "Checkpoints").

The checkpoint holds the snapshot delta_log.py reconstructs: the protocol and metaData, the latest
``txn`` of each application, the live ``domainMetadata``, every live ``add`` and the ``remove``
tombstones younger than ``delta.deletedFileRetentionDuration`` (a week by default), the file actions
as the log wrote them (relative paths, deletion vectors as stored). Its schema is the one delta-rs
writes, so every reader that reads delta-rs's checkpoints reads this one. Actions are written in
record batches of ``_BATCH_ROWS`` into a store staging, so a big table's checkpoint is never a
whole Parquet file in memory.

A checkpoint of a version never changes: it is written with If-None-Match, and asking again for a
version that has one writes nothing. ``_last_checkpoint`` only ever moves forward. Tables with the
``v2Checkpoint`` writer feature are refused: their checkpoints must be v2 checkpoints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from ..store.base import ObjectStore
from ..store.errors import NoSuchKey, PreconditionFailed
from ..store.staging_file import StagingFile
from ..store.types import WriteCondition
from .delta_log import DeltaLogSource, LogFileAction, Snapshot
from .errors import InternalError, UnsupportedOperation

_BATCH_ROWS = 10_000
_LAST_CHECKPOINT = "_last_checkpoint"
_RETENTION = "delta.deletedFileRetentionDuration"
_DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000
_INTERVAL = re.compile(r"\s*interval\s+(\d+)\s+([a-z]+?)s?\s*", re.IGNORECASE)
_UNIT_MS = {"nanosecond": 1e-6, "microsecond": 1e-3, "millisecond": 1, "second": 1000, "minute": 60_000,
            "hour": 3_600_000, "day": 86_400_000, "week": 604_800_000}


def _map(values_nullable: bool = True) -> pa.DataType:
    return pa.map_(pa.string(), pa.field("value", pa.string(), nullable=values_nullable))


_DELETION_VECTOR = pa.struct([
    pa.field("storageType", pa.string(), nullable=False), pa.field("pathOrInlineDv", pa.string(), nullable=False),
    pa.field("offset", pa.int32()), pa.field("sizeInBytes", pa.int32(), nullable=False),
    pa.field("cardinality", pa.int64(), nullable=False),
])
_FEATURES = pa.list_(pa.field("element", pa.string(), nullable=False))
SCHEMA = pa.schema([
    pa.field("add", pa.struct([
        pa.field("path", pa.string(), nullable=False), pa.field("partitionValues", _map(), nullable=False),
        pa.field("size", pa.int64(), nullable=False), pa.field("modificationTime", pa.int64(), nullable=False),
        pa.field("dataChange", pa.bool_(), nullable=False), pa.field("stats", pa.string()),
        pa.field("tags", _map()), pa.field("deletionVector", _DELETION_VECTOR),
        pa.field("baseRowId", pa.int64()), pa.field("defaultRowCommitVersion", pa.int64()),
        pa.field("clusteringProvider", pa.string()),
    ])),
    pa.field("remove", pa.struct([
        pa.field("path", pa.string(), nullable=False), pa.field("deletionTimestamp", pa.int64()),
        pa.field("dataChange", pa.bool_(), nullable=False), pa.field("extendedFileMetadata", pa.bool_()),
        pa.field("partitionValues", _map()), pa.field("size", pa.int64()), pa.field("stats", pa.string()),
        pa.field("tags", _map()), pa.field("deletionVector", _DELETION_VECTOR),
        pa.field("baseRowId", pa.int64()), pa.field("defaultRowCommitVersion", pa.int64()),
    ])),
    pa.field("metaData", pa.struct([
        pa.field("id", pa.string(), nullable=False), pa.field("name", pa.string()),
        pa.field("description", pa.string()),
        pa.field("format", pa.struct([pa.field("provider", pa.string(), nullable=False),
                                      pa.field("options", _map(values_nullable=False), nullable=False)]),
                 nullable=False),
        pa.field("schemaString", pa.string(), nullable=False),
        pa.field("partitionColumns", _FEATURES, nullable=False), pa.field("createdTime", pa.int64()),
        pa.field("configuration", _map(values_nullable=False), nullable=False),
    ])),
    pa.field("protocol", pa.struct([
        pa.field("minReaderVersion", pa.int32(), nullable=False),
        pa.field("minWriterVersion", pa.int32(), nullable=False),
        pa.field("readerFeatures", _FEATURES), pa.field("writerFeatures", _FEATURES),
    ])),
    pa.field("txn", pa.struct([pa.field("appId", pa.string(), nullable=False),
                               pa.field("version", pa.int64(), nullable=False),
                               pa.field("lastUpdated", pa.int64())])),
    pa.field("domainMetadata", pa.struct([pa.field("domain", pa.string(), nullable=False),
                                          pa.field("configuration", pa.string(), nullable=False),
                                          pa.field("removed", pa.bool_(), nullable=False)])),
])


@dataclass(frozen=True)
class CheckpointResult:
    version: int
    path: str  # s3://bucket/key of the checkpoint file
    written: bool  # False: the version had a checkpoint already
    add_files: int
    bytes: int  # the checkpoint file's size

    def info(self) -> dict:
        return {"version": self.version, "path": self.path, "written": self.written, "addFiles": self.add_files,
                "bytes": self.bytes}


def write_checkpoint(source: DeltaLogSource, now_ms: int) -> CheckpointResult:
    """Checkpoint the latest version of ``source``'s table (unless it has one), and point
    ``_last_checkpoint`` at it. ``now_ms`` decides which remove tombstones have expired."""
    snapshot, existing = source.snapshot()
    writers = set((snapshot.protocol or {}).get("writerFeatures") or ())
    if "v2Checkpoint" in writers:
        raise UnsupportedOperation(f"the Delta table at {source.location} uses v2 checkpoints "
                                   "(writer feature v2Checkpoint): this server writes classic checkpoints only")
    store, bucket = source.store, source.bucket
    if existing:  # classic, multi-part or v2, whoever wrote it
        return CheckpointResult(snapshot.version, f"s3://{bucket}/{existing[0].key}", False, len(snapshot.files),
                                sum(info.size for info in existing))
    key = f"{source.log_prefix}{snapshot.version:020d}.checkpoint.parquet"
    retention = _retention_ms((snapshot.metadata or {}).get("configuration") or {})
    rows, size = _write_parquet(store, bucket, key, _actions(snapshot, now_ms - retention))
    if size is None:  # another writer checkpointed the same version meanwhile
        return CheckpointResult(snapshot.version, f"s3://{bucket}/{key}", False, len(snapshot.files),
                                store.get_object_info(bucket, key).size)
    _advance_last_checkpoint(store, bucket, source.log_prefix + _LAST_CHECKPOINT,
                             {"version": snapshot.version, "size": rows, "sizeInBytes": size,
                              "numOfAddFiles": len(snapshot.files)})
    return CheckpointResult(snapshot.version, f"s3://{bucket}/{key}", True, len(snapshot.files), size)


def _actions(snapshot: Snapshot, tombstones_after_ms: int) -> Iterator[dict]:
    """The checkpoint's rows: one action each, in the order delta-rs writes them."""
    if snapshot.protocol is None or snapshot.metadata is None:
        raise InternalError(f"the Delta log has no protocol or metaData at version {snapshot.version}")
    yield {"protocol": snapshot.protocol}
    yield {"metaData": snapshot.metadata}
    yield from ({"txn": txn} for txn in snapshot.txns.values())
    yield from ({"domainMetadata": d} for d in snapshot.domains.values() if not d.get("removed"))
    yield from ({"add": _add(action)} for action in snapshot.files.values())
    yield from ({"remove": _remove(action)} for action in snapshot.tombstones.values()
                if (action.extra.get("deletionTimestamp") or 0) > tombstones_after_ms)


def _add(action: LogFileAction) -> dict:
    written = action.written
    return {"path": written["path"], "partitionValues": action.partition_values, "size": action.size,
            "modificationTime": action.modification_time, "dataChange": action.data_change,
            "stats": action.stats, "tags": action.extra.get("tags"), "deletionVector": _dv(written),
            **{name: action.extra.get(name) for name in ("baseRowId", "defaultRowCommitVersion", "clusteringProvider")}}


def _remove(action: LogFileAction) -> dict:
    written = action.written
    return {"path": written["path"], "dataChange": action.data_change,
            "partitionValues": action.partition_values if written.get("partitionValues") is not None else None,
            "size": written.get("size"), "stats": action.stats, "tags": action.extra.get("tags"),
            "deletionVector": _dv(written),
            **{name: action.extra.get(name) for name in ("deletionTimestamp", "extendedFileMetadata", "baseRowId",
                                                         "defaultRowCommitVersion")}}


def _dv(written: dict) -> dict | None:
    dv = written.get("deletionVector")
    return {k: v for k, v in dv.items() if v is not None} if dv else None


def _retention_ms(configuration: dict) -> int:
    """``delta.deletedFileRetentionDuration`` in ms; a value not understood keeps every tombstone."""
    value = configuration.get(_RETENTION)
    if value is None:
        return _DEFAULT_RETENTION_MS
    match = _INTERVAL.fullmatch(value)
    if not match or match.group(2).lower() not in _UNIT_MS:
        return 2 ** 62
    return int(int(match.group(1)) * _UNIT_MS[match.group(2).lower()])


def _write_parquet(store: ObjectStore, bucket: str, key: str, actions: Iterable[dict]) -> tuple[int, int | None]:
    """(rows, bytes) of the checkpoint written at ``key``; bytes is None when it existed already."""
    staging = store.stage_for(bucket, key)
    rows = 0
    try:
        with pq.ParquetWriter(StagingFile(staging), SCHEMA, compression="snappy") as writer:
            for batch in _batches(actions):
                writer.write_batch(batch)
                rows += batch.num_rows
        size = staging.size
        try:
            store.put_object(bucket, key, staging, content_type="application/octet-stream",
                             condition=WriteCondition(if_none_match="*"))
        except PreconditionFailed:
            return rows, None
        return rows, size
    finally:
        staging.discard()


def _batches(actions: Iterable[dict]) -> Iterator[pa.RecordBatch]:
    batch: list[dict] = []
    for action in actions:
        batch.append(action)
        if len(batch) == _BATCH_ROWS:
            yield pa.RecordBatch.from_pylist(batch, schema=SCHEMA)
            batch = []
    if batch:
        yield pa.RecordBatch.from_pylist(batch, schema=SCHEMA)


def _advance_last_checkpoint(store: ObjectStore, bucket: str, key: str, document: dict) -> None:
    """Point ``_last_checkpoint`` at ``document``'s version unless it names a newer one; a concurrent
    change wins (whoever made it checkpointed as recently)."""
    try:
        info, data = store.get_bytes(bucket, key)
        condition = WriteCondition(if_match=info.etag)
        if json.loads(data).get("version", -1) >= document["version"]:
            return
    except NoSuchKey:
        condition = WriteCondition(if_none_match="*")
    except (ValueError, AttributeError, TypeError):
        pass  # unreadable: replaced, under the condition read above
    try:
        store.put_bytes(bucket, key, json.dumps(document, separators=(",", ":")).encode(),
                        content_type="application/json", condition=condition)
    except PreconditionFailed:
        pass
