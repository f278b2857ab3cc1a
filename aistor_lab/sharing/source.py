"""What the sharing server needs of a shared table, whatever its format.

A source answers in Delta terms (versions, protocol and metaData actions, add/remove/cdc file
actions), because Delta Sharing speaks them; the Delta source reads a ``_delta_log``, the Iceberg
("uniform") source converts the catalog's snapshots. The protocol layer turns these values into
responses in parquet or delta format, presigns the file paths, prunes and pages.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..store.locations import OutsideScope, Scope
from .errors import UnsupportedOperation


@dataclass(frozen=True)
class FileAction:
    """One data file as a Delta ``add``, ``remove`` or ``cdc`` action describes it."""

    kind: str  # "add" | "remove" | "cdc"
    path: str  # absolute location in the store: s3://bucket/key, the key as stored (not %-encoded)
    size: int
    partition_values: dict[str, str | None] = field(default_factory=dict)
    stats: str | None = None  # Delta per-file statistics JSON (numRecords, minValues, maxValues, nullCount)
    modification_time: int = 0  # epoch ms
    data_change: bool = True
    deletion_vector: dict | None = None  # a Delta DeletionVectorDescriptor, paths absolute
    # Other fields of the Delta action passed through in delta response format (baseRowId, tags, ...).
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TableVersion:
    """The table as of one version: the live ``add`` files with the protocol and metadata then."""

    version: int
    timestamp: int  # epoch ms of the commit
    protocol: dict  # Delta protocol action: minReaderVersion, minWriterVersion, readerFeatures, writerFeatures
    metadata: dict  # Delta metaData action: id, name, description, format, schemaString, partitionColumns,
    #                 configuration, createdTime
    files: list[FileAction]


@dataclass(frozen=True)
class VersionChanges:
    """What one commit changed: its file actions, and new metadata/protocol when it set them."""

    version: int
    timestamp: int
    actions: list[FileAction]
    metadata: dict | None = None
    protocol: dict | None = None


def inside(scope: Scope, location: str) -> str:
    """``location`` as ``s3://bucket/key`` if it lies inside the shared table's scope. A table naming a
    file elsewhere (another table, bucket or warehouse) cannot be served: skipping the file would
    answer wrong data, and serving it would hand out what the share does not cover. The reference
    server refuses absolute paths with a server error; this is a client error instead, because the
    released clients retry server errors for minutes and this one is permanent."""
    try:
        return scope.check(location)
    except OutsideScope as exc:
        raise UnsupportedOperation(f"the table refers to a file outside its location, so it cannot be shared: "
                                   f"{exc}") from None


class TableSource(ABC):
    """One shared table. Methods raise sharing errors (errors.py) for versions out of range, and for
    files outside ``scope`` (see ``inside``)."""

    @property
    @abstractmethod
    def scope(self) -> Scope:
        """The table's own location: every file it serves or the server reads for it lies inside."""

    @abstractmethod
    def latest_version(self) -> int: ...

    def earliest_version(self) -> int:
        """The first version still readable: 0 unless old history is gone (log cleanup, expiry)."""
        return 0

    @abstractmethod
    def version_at(self, timestamp_ms: int) -> int:
        """The latest version committed at or before the timestamp; an error before the first."""

    @abstractmethod
    def version_timestamp(self, version: int) -> int: ...

    def version_of_snapshot(self, snapshot_id: int) -> int | None:
        """The version whose table is snapshot ``snapshot_id`` (Iceberg tables); None when there is none."""
        return None

    @abstractmethod
    def table_version(self, version: int | None = None) -> TableVersion:
        """The table at a version (None: the latest)."""

    @abstractmethod
    def changes(self, starting_version: int, ending_version: int | None = None) -> Iterator[VersionChanges]:
        """The commits from ``starting_version`` to ``ending_version`` (inclusive; None: the latest)."""
