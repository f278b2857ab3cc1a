"""The Delta table source: reads a table's ``_delta_log`` from the object store.

It understands JSON commits, classic and multi-part Parquet checkpoints, and v2 checkpoints (JSON
or Parquet, with sidecar files), as the Delta protocol (delta-io/delta PROTOCOL.md) defines them.
A snapshot is the newest complete checkpoint at or before the version plus the commits after it;
the file set is keyed by (path, deletion vector), as the protocol's reconciliation rules say. Besides
the live files, a snapshot keeps what a checkpoint of it must hold (delta_checkpoint.py writes them):
remove tombstones, the latest ``txn`` of each application and the live ``domainMetadata``.

``_last_checkpoint`` saves listing a long log: the listing starts at the checkpoint it names, and the
older commits are listed only when a version before it is asked for (time travel, change data feed,
the earliest version) or a timestamp (which may name one). When it is missing, unreadable or names
a checkpoint that is not there whole, the whole log is listed, as the protocol says readers must.

Commit timestamps are the commit files' modification times, made strictly increasing as Delta
does (a commit never looks older than its parent). Paths become absolute ``s3://bucket/key`` (keys
percent-decoded); a path outside the table's directory (absolute, or relative with ``..``), in a
file action, a deletion vector or a checkpoint sidecar, fails the query (source.inside), so a
crafted log can neither hand out nor make the server read objects of other tables or buckets.

Log files never change once written (writers create them with If-None-Match), so parsed commits,
checkpoints and snapshots are cached in memory, keyed by the object's ETag as well in case a table
is dropped and created again at the same place.
"""

from __future__ import annotations

import bisect
import datetime
import json
import re
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq

from ..store.base import ObjectStore
from ..store.encryption import EncryptionParametersInvalid
from ..store.errors import NoSuchBucket, NoSuchKey
from ..store.locations import OutsideScope, Scope, table_scope
from ..store.types import ObjectInfo
from .errors import InternalError, InvalidParameter, NotFound, UnsupportedOperation
from .source import FileAction, TableSource, TableVersion, VersionChanges, inside

_COMMIT = re.compile(r"(\d{20})\.json")
_CLASSIC = re.compile(r"(\d{20})\.checkpoint\.parquet")
_MULTI_PART = re.compile(r"(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet")
_V2 = re.compile(r"(\d{20})\.checkpoint\.[0-9a-fA-F-]{36}\.(?:json|parquet)")
_LAST_CHECKPOINT = "_last_checkpoint"
_FILE_KINDS = ("add", "remove", "cdc")
# Fields of add/remove/cdc actions passed through to delta-format answers besides the ones
# FileAction names.
_EXTRA_FIELDS = ("tags", "baseRowId", "defaultRowCommitVersion", "clusteringProvider",
                 "deletionTimestamp", "extendedFileMetadata")
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_Z85_VALUE = {c: i for i, c in enumerate(_Z85)}
_CACHED_COMMITS = 512
_CACHED_STATES = 4


@dataclass(frozen=True)
class LogFileAction(FileAction):
    """A file action of this log, with the action as the log wrote it (relative path, deletion vector
    as stored), which a checkpoint must copy rather than the absolute form served to recipients."""

    written: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Commit:
    """The actions of one commit file (or of one checkpoint), in log order."""

    files: list[LogFileAction]
    protocol: dict | None
    metadata: dict | None
    txns: list[dict] = field(default_factory=list)
    domains: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class _Listing:
    commits: dict[int, ObjectInfo]
    checkpoints: dict[int, list[ObjectInfo]]  # complete checkpoints only
    versions: list[int]  # readable versions, ascending
    timestamps: list[int]  # their commit times in ms, strictly increasing
    whole: bool  # the whole log was listed (not only from _last_checkpoint's version on)


@dataclass(frozen=True)
class Snapshot:
    """The table's state at a version, as the log's reconciliation rules make it."""

    version: int
    protocol: dict | None
    metadata: dict | None
    files: dict[tuple[str, str | None], LogFileAction]  # live add actions
    tombstones: dict[tuple[str, str | None], LogFileAction]  # remove actions of files not added back
    txns: dict[str, dict]  # appId -> its latest txn action
    domains: dict[str, dict]  # domain -> its latest domainMetadata action


class DeltaLogSource(TableSource):
    def __init__(self, store: ObjectStore, bucket: str, path: str):
        self._store = store
        self._bucket = bucket
        self._root = path.strip("/")
        try:
            self._scope = table_scope(store, f"s3://{bucket}/{self._root}")
        except OutsideScope as exc:
            raise UnsupportedOperation(f"this Delta table cannot be shared: {exc}") from None
        self._log_prefix = f"{self._root}/_delta_log/"
        self._lock = threading.Lock()
        self._commits: OrderedDict[tuple[str, str], Commit] = OrderedDict()
        self._states: OrderedDict[tuple[int, str], Snapshot] = OrderedDict()
        self._earliest: tuple[int, ObjectInfo] | None = None

    @property
    def location(self) -> str:
        return f"s3://{self._bucket}/{self._root}"

    @property
    def store(self) -> ObjectStore:
        return self._store

    @property
    def bucket(self) -> str:
        return self._bucket

    @property
    def log_prefix(self) -> str:
        """The key prefix of the table's ``_delta_log/``."""
        return self._log_prefix

    @property
    def scope(self) -> Scope:
        return self._scope

    # -- TableSource -------------------------------------------------------------------------
    def latest_version(self) -> int:
        return self._listing().versions[-1]

    def earliest_version(self) -> int:
        listing = self._listing()
        if listing.whole:
            return listing.versions[0]
        # The earliest version found by the last whole listing, while its file is there: log cleanup
        # deletes the oldest files first, so the versions after it are there too. It saves listing
        # the whole log for every range check of a query for a version after the checkpoint.
        with self._lock:
            known = self._earliest
        if known is not None and known[0] < listing.versions[0] and self._unchanged(known[1]):
            return known[0]
        whole = self._listing(whole=True)
        first = whole.versions[0]
        with self._lock:
            self._earliest = (first, whole.commits.get(first) or whole.checkpoints[first][0])
        return first

    def version_timestamp(self, version: int) -> int:
        listing = self._listing_from(version)
        return listing.timestamps[self._index(listing, version)]

    def version_at(self, timestamp_ms: int) -> int:
        # The whole history, as Delta's own timestamp lookups list it: a commit time raised to stay
        # after its parent's may be raised by commits before the checkpoint.
        listing = self._listing(whole=True)
        index = bisect.bisect_right(listing.timestamps, timestamp_ms) - 1
        if index < 0:
            raise InvalidParameter(
                f"the timestamp is before the first available version of the table "
                f"(version {listing.versions[0]}, committed at {_iso_ms(listing.timestamps[0])})"
            )
        return listing.versions[index]

    def table_version(self, version: int | None = None) -> TableVersion:
        listing = self._listing() if version is None else self._listing_from(version)
        version = listing.versions[-1] if version is None else version
        index = self._index(listing, version)
        state = self._state(listing, version)
        if state.protocol is None or state.metadata is None:
            raise InternalError(f"the Delta log of {self.location} has no protocol or metaData at version {version}")
        return TableVersion(version, listing.timestamps[index], state.protocol, state.metadata,
                            list(state.files.values()))

    def changes(self, starting_version: int, ending_version: int | None = None) -> Iterator[VersionChanges]:
        listing = self._listing_from(starting_version)
        ending_version = listing.versions[-1] if ending_version is None else ending_version
        self._index(listing, ending_version)
        if starting_version > ending_version:
            raise InvalidParameter(f"the starting version {starting_version} is after the ending version "
                                   f"{ending_version}")
        for version in range(starting_version, ending_version + 1):
            info = listing.commits.get(version)
            if info is None:
                raise InvalidParameter(f"version {version} of the table is no longer in its Delta log")
            commit = self._commit(info)
            yield VersionChanges(version, listing.timestamps[self._index(listing, version)], commit.files,
                                 commit.metadata, commit.protocol)

    def snapshot(self) -> tuple[Snapshot, list[ObjectInfo]]:
        """The latest version's snapshot, and the files of its checkpoint if the log has one."""
        listing = self._listing()
        version = listing.versions[-1]
        return self._state(listing, version), listing.checkpoints.get(version, [])

    # -- the log -----------------------------------------------------------------------------
    def _index(self, listing: _Listing, version: int) -> int:
        index = bisect.bisect_left(listing.versions, version)
        if index == len(listing.versions) or listing.versions[index] != version:
            raise InvalidParameter(
                f"version {version} is not available: the table has versions {listing.versions[0]} "
                f"to {listing.versions[-1]}"
            )
        return index

    def _listing_from(self, version: int) -> _Listing:
        """A listing that reaches back to ``version`` if the log does."""
        listing = self._listing()
        return listing if listing.whole or version >= listing.versions[0] else self._listing(whole=True)

    def _listing(self, whole: bool = False) -> _Listing:
        hint = None if whole else self._last_checkpoint()
        if hint is not None:
            commits, checkpoints = self._log_files(f"{self._log_prefix}{hint:020d}")
            if hint in checkpoints:
                return self._readable(commits, checkpoints, whole=False)
        return self._readable(*self._log_files(""), whole=True)

    def _unchanged(self, info: ObjectInfo) -> bool:
        try:
            return self._store.get_object_info(self._bucket, info.key).etag == info.etag
        except (NoSuchKey, NoSuchBucket):
            return False

    def _last_checkpoint(self) -> int | None:
        """The version ``_last_checkpoint`` names, or None when it is missing or unreadable."""
        try:
            data = self._store.get_bytes(self._bucket, self._log_prefix + _LAST_CHECKPOINT)[1]
            version = json.loads(data)["version"]
        except (NoSuchKey, NoSuchBucket, EncryptionParametersInvalid, ValueError, TypeError, KeyError):
            return None
        return version if isinstance(version, int) and version >= 0 else None

    def _log_files(self, start_after: str) -> tuple[dict[int, ObjectInfo], dict[int, list[ObjectInfo]]]:
        """The commits and complete checkpoints listed after ``start_after``, by version."""
        commits: dict[int, ObjectInfo] = {}
        classic: dict[int, ObjectInfo] = {}
        parts: dict[tuple[int, int], dict[int, ObjectInfo]] = {}
        v2: dict[int, ObjectInfo] = {}
        for info in self._list_log(start_after):
            name = info.key[len(self._log_prefix):]
            if match := _COMMIT.fullmatch(name):
                commits[int(match.group(1))] = info
            elif match := _CLASSIC.fullmatch(name):
                classic[int(match.group(1))] = info
            elif match := _MULTI_PART.fullmatch(name):
                version, part, count = (int(g) for g in match.groups())
                parts.setdefault((version, count), {})[part] = info
            elif match := _V2.fullmatch(name):
                v2.setdefault(int(match.group(1)), info)
        checkpoints = {v: [info] for v, info in v2.items()}
        for (version, count), found in parts.items():
            if len(found) == count and set(found) == set(range(1, count + 1)):
                checkpoints[version] = [found[i] for i in range(1, count + 1)]
        checkpoints.update({v: [info] for v, info in classic.items()})
        return commits, checkpoints

    def _readable(self, commits: dict[int, ObjectInfo], checkpoints: dict[int, list[ObjectInfo]],
                  whole: bool) -> _Listing:
        if not commits and not checkpoints:
            raise NotFound(f"there is no Delta table at {self.location}")
        latest = max([*commits, *checkpoints])
        # Readable versions: from the first point a snapshot can be built from (commit 0 or a
        # checkpoint) with every commit after it present, up to the latest.
        last_missing = max((v for v in range(latest + 1) if v not in commits), default=None)
        first = 0
        if last_missing is not None:
            starts = [v for v in checkpoints if v >= last_missing]
            if not starts:
                raise InternalError(f"the Delta log of {self.location} misses commit {last_missing} and has "
                                    "no checkpoint after it")
            first = min(starts)
        versions = list(range(first, latest + 1))
        timestamps, previous = [], -1
        for version in versions:
            info = commits.get(version) or checkpoints[version][0]
            previous = max(int(info.last_modified * 1000), previous + 1)
            timestamps.append(previous)
        return _Listing(commits, checkpoints, versions, timestamps, whole)

    def _list_log(self, start_after: str) -> Iterator[ObjectInfo]:
        marker = start_after
        while True:
            try:
                page = self._store.list_objects(self._bucket, prefix=self._log_prefix, delimiter="/",
                                                start_after=marker)
            except NoSuchBucket:
                raise NotFound(f"there is no Delta table at {self.location}: no such bucket") from None
            yield from page.objects
            if not page.is_truncated or not page.next_marker:
                return
            marker = page.next_marker

    def _state(self, listing: _Listing, version: int) -> Snapshot:
        def etag(v: int) -> str:
            info = listing.commits.get(v) or listing.checkpoints[v][0]
            return info.etag

        with self._lock:
            cached = self._states.get((version, etag(version)))
            if cached is not None:
                self._states.move_to_end((version, etag(version)))
                return cached
            checkpoint = max((v for v in listing.checkpoints if listing.versions[0] <= v <= version), default=-1)
            bases = [s for (v, tag), s in self._states.items()
                     if checkpoint <= v < version and v >= listing.versions[0] and tag == etag(v)]
        base = max(bases, key=lambda s: s.version, default=None)
        if base is None:
            base = Snapshot(-1, None, None, {}, {}, {}, {})
            if checkpoint >= 0:
                base = _replayed(base, [(checkpoint, self._checkpoint(listing.checkpoints[checkpoint]))])
        state = _replayed(base, ((v, self._commit(listing.commits[v])) for v in range(base.version + 1, version + 1)))
        with self._lock:
            self._states[(version, etag(version))] = state
            while len(self._states) > _CACHED_STATES:
                self._states.popitem(last=False)
        return state

    def _commit(self, info: ObjectInfo) -> Commit:
        key = (info.key, info.etag)
        with self._lock:
            cached = self._commits.get(key)
            if cached is not None:
                self._commits.move_to_end(key)
                return cached
        commit = self._parse_actions(_json_lines(self._read(info.key)))
        with self._lock:
            self._commits[key] = commit
            while len(self._commits) > _CACHED_COMMITS:
                self._commits.popitem(last=False)
        return commit

    def _checkpoint(self, infos: list[ObjectInfo]) -> Commit:
        """All actions of a (possibly multi-part or v2) checkpoint, with its sidecars."""
        actions: list[dict] = []
        for info in infos:
            data = self._read(info.key)
            actions += _json_lines(data) if info.key.endswith(".json") else _parquet_actions(data)
        sidecars = [a["sidecar"] for a in actions if a.get("sidecar")]
        for sidecar in sidecars:
            location = self._absolute(sidecar.get("path"), f"{self._log_prefix}_sidecars")
            actions += _parquet_actions(self._read(location.removeprefix(f"s3://{self._bucket}/")))
        return self._parse_actions(actions)

    def _read(self, key: str) -> bytes:
        try:
            return self._store.get_bytes(self._bucket, key)[1]
        except (NoSuchKey, NoSuchBucket):
            raise InternalError(f"a file of the Delta log of {self.location} disappeared: {key}") from None
        except EncryptionParametersInvalid:
            # An SSE-C file written before the table was shared: only its customer's key opens it.
            raise UnsupportedOperation(f"a file of the Delta log of {self.location} is encrypted with a "
                                       f"customer's key (SSE-C), which sharing does not hold: {key}") from None

    # -- actions -----------------------------------------------------------------------------
    def _parse_actions(self, actions: list[dict]) -> Commit:
        files, protocol, metadata, txns, domains = [], None, None, [], []
        for action in actions:
            for kind in _FILE_KINDS:
                if action.get(kind):
                    files.append(self._file_action(kind, action[kind]))
            if action.get("protocol"):
                protocol = {k: v for k, v in action["protocol"].items() if v is not None}
            if action.get("metaData"):
                metadata = _normalize_metadata(action["metaData"])
            if action.get("txn"):
                txns.append(action["txn"])
            if action.get("domainMetadata"):
                domains.append(action["domainMetadata"])
        return Commit(files, protocol, metadata, txns, domains)

    def _file_action(self, kind: str, action: dict) -> LogFileAction:
        stats = action.get("stats")
        if stats is None and action.get("stats_parsed") is not None:
            stats = json.dumps(action["stats_parsed"], default=_json_value, separators=(",", ":"))
        return LogFileAction(
            kind=kind,
            path=self._absolute(action.get("path")),
            size=int(action.get("size") or 0),
            partition_values=_as_dict(action.get("partitionValues")),
            stats=stats,
            modification_time=int(action.get("modificationTime") or action.get("deletionTimestamp") or 0),
            data_change=bool(action.get("dataChange", kind != "cdc")),
            deletion_vector=self._deletion_vector(action.get("deletionVector")),
            extra={name: _as_dict(action[name]) if name == "tags" else action[name]
                   for name in _EXTRA_FIELDS if action.get(name) is not None},
            written=action,
        )

    def _absolute(self, path: object, folder: str | None = None) -> str:
        """``s3://bucket/key`` of a path of the log (a URI: absolute, or relative to ``folder``, by
        default the table's root), which must lie inside the table's directory."""
        if not isinstance(path, str) or not path:
            raise InternalError(f"the Delta log of {self.location} has a file action without a path")
        if "://" not in path:
            if path.startswith("/"):  # absolute but without a scheme: not a file of this table
                return inside(self._scope, path)
            path = f"s3://{self._bucket}/{folder or self._root}/{path}"
        return inside(self._scope, unquote(path))

    def _deletion_vector(self, dv: dict | None) -> dict | None:
        """The descriptor with an on-disk vector made absolute (storageType ``p``, s3:// path)."""
        if not dv:
            return None
        dv = {k: v for k, v in dv.items() if v is not None}
        storage = dv.get("storageType")
        if storage == "u":
            encoded = dv["pathOrInlineDv"]
            prefix, file_id = encoded[:-20], _z85_uuid(encoded[-20:])
            folder = f"{self._root}/{prefix}" if prefix else self._root  # the prefix is not URI-encoded
            location = inside(self._scope, f"s3://{self._bucket}/{folder}/deletion_vector_{file_id}.bin")
            dv.update(storageType="p", pathOrInlineDv=location)
        elif storage == "p":
            dv["pathOrInlineDv"] = self._absolute(dv.get("pathOrInlineDv"))
        return dv


def _replayed(state: Snapshot, commits: Iterable[tuple[int, Commit]]) -> Snapshot:
    """``state`` with the actions of ``commits`` (commit files in order, or one checkpoint over an empty
    state) applied."""
    version, protocol, metadata = state.version, state.protocol, state.metadata
    files, tombstones, txns, domains = dict(state.files), dict(state.tombstones), dict(state.txns), dict(state.domains)
    for version, commit in commits:
        protocol = commit.protocol or protocol
        metadata = commit.metadata or metadata
        for action in commit.files:
            key = _file_key(action)
            if action.kind == "add":
                files[key] = action
                tombstones.pop(key, None)
            elif action.kind == "remove":
                files.pop(key, None)
                tombstones[key] = action
        txns.update((txn.get("appId"), txn) for txn in commit.txns)
        domains.update((domain.get("domain"), domain) for domain in commit.domains)
    return Snapshot(version, protocol, metadata, files, tombstones, txns, domains)


def _file_key(action: FileAction) -> tuple[str, str | None]:
    """Delta's primary key of a file: its path and its deletion vector's unique id."""
    dv = action.deletion_vector
    if not dv:
        return action.path, None
    offset = dv.get("offset")
    return action.path, f"{dv.get('storageType')}{dv.get('pathOrInlineDv')}" + (f"@{offset}" if offset else "")


def _z85_uuid(text: str) -> uuid.UUID:
    try:
        data = bytearray()
        for start in range(0, 20, 5):
            value = 0
            for char in text[start:start + 5]:
                value = value * 85 + _Z85_VALUE[char]
            data += value.to_bytes(4, "big")
        return uuid.UUID(bytes=bytes(data))
    except (KeyError, ValueError, OverflowError):
        raise InternalError(f"bad deletion vector id {text!r} in the Delta log") from None


def _json_lines(data: bytes) -> list[dict]:
    try:
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError as exc:
        raise InternalError(f"a Delta log file is not valid JSON: {exc}") from None


def _parquet_actions(data: bytes) -> list[dict]:
    """The rows of a Parquet checkpoint (or sidecar) that carry an action we use."""
    try:
        # ParquetFile, not read_table: that one goes through pyarrow.dataset, whose import brings
        # pandas into the server (some 80 MiB of resident memory for good).
        table = pq.ParquetFile(pa.BufferReader(data)).read()
    except (pa.ArrowException, OSError) as exc:
        raise InternalError(f"a Delta checkpoint is not readable Parquet: {exc}") from None
    actions: list[dict] = []
    for name in ("protocol", "metaData", "add", "remove", "txn", "domainMetadata", "sidecar"):
        if name in table.column_names:
            actions += [{name: row} for row in table.column(name).to_pylist() if row is not None]
    return actions


def _normalize_metadata(metadata: dict) -> dict:
    """A metaData action as JSON commits write it (checkpoint maps arrive as key/value lists)."""
    metadata = {k: v for k, v in metadata.items() if v is not None}
    metadata["configuration"] = _as_dict(metadata.get("configuration"))
    metadata["partitionColumns"] = list(metadata.get("partitionColumns") or [])
    fmt = dict(metadata.get("format") or {"provider": "parquet"})
    fmt["options"] = _as_dict(fmt.get("options"))
    metadata["format"] = fmt
    return metadata


def _as_dict(value) -> dict:
    if value is None:
        return {}
    return dict(value)  # a dict already, or Parquet's list of (key, value) pairs


def _json_value(value):
    if isinstance(value, datetime.datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def _iso_ms(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).isoformat().replace("+00:00", "Z")
