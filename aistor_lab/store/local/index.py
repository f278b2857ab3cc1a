"""The SQLite index of the local store: buckets, objects, multipart uploads, parts, data files.

One connection per thread, WAL mode (readers never wait for the writer), ``synchronous=NORMAL``
(a commit is an append to the WAL, no fsync; a crash of the process loses nothing committed).
Writes run in ``BEGIN IMMEDIATE`` transactions, so a decision such as "the key does not exist yet"
holds until the commit, across threads and across processes sharing the data dir. Threads of one
process queue on a lock first, which hands over faster than SQLite's sleeping busy handler.

Keys are stored as UTF-8 BLOBs: SQLite compares BLOBs with memcmp, which is S3's byte order, and
``prefix + b"\\xff"`` bounds every key that starts with ``prefix`` (0xFF never occurs in UTF-8).

Data files are reference-counted in ``files`` (a copy shares its source's files, a completed
multipart object takes over its parts' files); the transaction that drops the last reference
lists the file in ``Txn.freed`` and the caller unlinks it after the commit.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import DeleteMarkerVersion, NoSuchBucket, NoSuchKey, NoSuchUpload, NoSuchVersion
from ..object_lock import ObjectLock, check_change, check_removal
from ..types import (
    NULL_VERSION,
    VERSIONING_ENABLED,
    BucketInfo,
    DeleteResult,
    ObjectInfo,
    ObjectVersion,
    PartInfo,
    UploadInfo,
)
from .files import Segment

INDEX_FILE = "index.sqlite3"
BUSY_TIMEOUT_SECONDS = 60.0

# The columns of an object version, the same in ``objects`` and ``versions``.
_VERSION_DDL = """
    bucket TEXT NOT NULL,
    key BLOB NOT NULL,
    size INTEGER NOT NULL,
    etag TEXT NOT NULL,
    last_modified REAL NOT NULL,
    content_type TEXT NOT NULL,
    metadata TEXT,
    headers TEXT,
    checksums TEXT,
    parts_count INTEGER,
    segments TEXT,
    inline BLOB,
    part_sizes TEXT,
    version_id TEXT,
    lock TEXT,
    part_checksums TEXT,
    tags TEXT
"""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (
    name TEXT PRIMARY KEY, created REAL NOT NULL, versioning TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS objects (id INTEGER PRIMARY KEY, {version}, upload_id TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS objects_by_key ON objects (bucket, key);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, {version}, delete_marker INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS versions_by_key ON versions (bucket, key, id DESC);
CREATE TABLE IF NOT EXISTS bucket_configs (
    bucket TEXT NOT NULL, name TEXT NOT NULL, document BLOB NOT NULL, PRIMARY KEY (bucket, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS uploads (
    upload_id TEXT PRIMARY KEY,
    bucket TEXT NOT NULL,
    key BLOB NOT NULL,
    initiated REAL NOT NULL,
    content_type TEXT NOT NULL,
    metadata TEXT,
    headers TEXT,
    checksum_algorithm TEXT,
    lock TEXT,
    checksum_type TEXT,
    tags TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS uploads_by_key ON uploads (bucket, key, upload_id);
CREATE TABLE IF NOT EXISTS parts (
    upload_id TEXT NOT NULL,
    part_number INTEGER NOT NULL,
    etag TEXT NOT NULL,
    size INTEGER NOT NULL,
    last_modified REAL NOT NULL,
    checksums TEXT,
    segments TEXT NOT NULL,
    PRIMARY KEY (upload_id, part_number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (name TEXT PRIMARY KEY, refs INTEGER NOT NULL) WITHOUT ROWID
""".replace("{version}", _VERSION_DDL.strip())
# ``inline`` comes after the columns listings read: they never touch its overflow pages.
# ``part_sizes`` (a JSON list, read by single-object reads only) and ``version_id`` came later: they
# are last so that older indexes gain them by ALTER TABLE when opened (see _UPGRADES).
#
# Versions: ``objects`` holds the latest version of each key unless that is a delete marker;
# ``versions`` holds every other version and the delete markers, a higher id being newer. A version
# id NULL is the null version. So reads of the latest version and ListObjects never look at
# ``versions``, and a bucket never versioned never writes to it.
#
# ``objects.upload_id`` names the multipart upload that made the latest object, so that a repeated
# CompleteMultipartUpload answers it as S3 does while that version is current; a version that
# moves to ``versions`` (or back) leaves it behind.

_OBJECT_COLUMNS = "key, size, etag, last_modified, content_type, metadata, headers, checksums, parts_count"
# Every column an object version has in both tables; moving a version between them copies these.
_VERSION_COLUMNS = (
    "bucket, key, size, etag, last_modified, content_type, metadata, headers, checksums, parts_count,"
    " segments, inline, part_sizes, version_id, lock, part_checksums, tags"
)
# Columns added after the first release: (table, column, type).
_UPGRADES = (
    ("objects", "part_sizes", "TEXT"),
    ("objects", "version_id", "TEXT"),
    ("buckets", "versioning", "TEXT"),
    ("objects", "lock", "TEXT"),
    ("uploads", "lock", "TEXT"),
    ("objects", "part_checksums", "TEXT"),
    ("objects", "upload_id", "TEXT"),
    ("uploads", "checksum_type", "TEXT"),
    ("objects", "tags", "TEXT"),
    ("versions", "tags", "TEXT"),
    ("uploads", "tags", "TEXT"),
)
_UPLOAD_COLUMNS = (
    "key, upload_id, initiated, content_type, metadata, headers, checksum_algorithm, lock, checksum_type, tags"
)
_PART_COLUMNS = "part_number, etag, size, last_modified, checksums, segments"


def _dump(values: dict[str, str] | None) -> str | None:
    return json.dumps(values, separators=(",", ":")) if values else None


def _load(text: str | None) -> dict[str, str]:
    return json.loads(text) if text else {}


def _dump_segments(segments: list[Segment]) -> str:
    return json.dumps(segments, separators=(",", ":"))


def load_segments(text: str) -> list[Segment]:
    return [tuple(segment) for segment in json.loads(text)]


def _object_info(bucket: str, row: tuple) -> ObjectInfo:
    key, size, etag, modified, content_type, metadata, headers, checksums, parts_count = row[:9]
    return ObjectInfo(
        bucket, key.decode(), size, etag, modified, content_type,
        _load(metadata), _load(headers), _load(checksums), parts_count,
    )  # fmt: skip


def shown_version(versioning: str | None, version_id: str | None) -> str | None:
    """The version id clients see: none in a bucket never versioned, else the id or ``null``."""
    if versioning is None:
        return None
    return NULL_VERSION if version_id is None else version_id


def stored_version(version_id: str) -> str | None:
    """The column value of a version id clients name (NULL for ``null``)."""
    return None if version_id == NULL_VERSION else version_id


def _dump_lock(lock: ObjectLock) -> str | None:
    value = lock.to_json()
    return None if value is None else json.dumps(value, separators=(",", ":"))


def _load_lock(text: str | None) -> ObjectLock:
    return ObjectLock.from_json(json.loads(text) if text else None)


def _upload_info(bucket: str, row: tuple) -> UploadInfo:
    key, upload_id, initiated, content_type, metadata, headers, algorithm, lock, checksum_type, tags = row
    return UploadInfo(
        bucket, key.decode(), upload_id, initiated, content_type, _load(metadata), _load(headers), algorithm,
        _load_lock(lock), checksum_type, tags=_load(tags),
    )  # fmt: skip


@dataclass(frozen=True)
class StoredObject:
    info: ObjectInfo
    inline: bytes | None  # the content, for objects kept in their row
    segments: list[Segment] | None  # otherwise, where the content is


def _stored(bucket: str, row: tuple, version_id: str | None) -> StoredObject:
    """A StoredObject of a row of _OBJECT_COLUMNS, segments, inline, part_sizes, version_id, lock,
    (versioning or delete_marker), part_checksums, tags."""
    info = replace(
        _object_info(bucket, row), version_id=version_id, lock=_load_lock(row[13]), tags=_load(row[16])
    )
    if info.parts_count:
        # An object completed before part sizes were recorded claims no parts it cannot serve.
        sizes = tuple(json.loads(row[11])) if row[11] is not None else ()
        checksums = tuple(json.loads(row[15])) if row[15] is not None else ()
        info = replace(info, parts_count=len(sizes) or None, part_sizes=sizes, part_checksums=checksums)
    segments = load_segments(row[9]) if row[9] is not None else None
    return StoredObject(info, row[10], segments)


@dataclass(frozen=True)
class Latest:
    """What a write to a key must know first."""

    versioning: str | None  # the bucket's
    etag: str | None  # of the latest object; None when absent or a delete marker
    version_id: str | None  # its version id column (None: the null version)

    @property
    def exists(self) -> bool:
        return self.etag is not None


@dataclass(frozen=True)
class StoredPart:
    info: PartInfo
    segments: list[Segment]


def _stored_part(row: tuple) -> StoredPart:
    number, etag, size, modified, checksums, segments = row
    return StoredPart(PartInfo(number, etag, size, modified, _load(checksums)), load_segments(segments))


class Reader:
    """Queries over one connection, inside a transaction that gives them a consistent snapshot."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def bucket(self, name: str) -> BucketInfo:
        row = self.conn.execute(
            "SELECT name, created, versioning FROM buckets WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            raise NoSuchBucket(f"The specified bucket does not exist: {name}")
        return BucketInfo(*row)

    def buckets(self) -> list[BucketInfo]:
        rows = self.conn.execute("SELECT name, created, versioning FROM buckets ORDER BY name")
        return [BucketInfo(*row) for row in rows]

    def latest(self, bucket: str, key: str) -> Latest:
        """The bucket's versioning and the key's latest object, if it is not a delete marker; raises
        NoSuchBucket."""
        row = self.conn.execute(
            "SELECT versioning, etag, version_id FROM buckets LEFT JOIN objects ON bucket = name AND key = ?"
            " WHERE name = ?",
            (key.encode(), bucket),
        ).fetchone()
        if row is None:
            raise NoSuchBucket(f"The specified bucket does not exist: {bucket}")
        return Latest(*row)

    def object(
        self, bucket: str, key: str, *, content: bool = False, version_id: str | None = None
    ) -> StoredObject:
        """The latest version, or the version named. Raises NoSuchBucket, NoSuchKey, NoSuchVersion,
        DeleteMarkerVersion. ``content`` also reads the inline bytes or segments."""
        # One statement tells a missing bucket from a missing key (the two tables share no column name).
        version_clause = "" if version_id is None else " AND version_id IS ?"
        params = (
            (key.encode(), bucket)
            if version_id is None
            else (key.encode(), stored_version(version_id), bucket)
        )
        row = self.conn.execute(
            f"SELECT {_OBJECT_COLUMNS}, segments, {'inline' if content else 'NULL'}, part_sizes, version_id,"
            f" lock, versioning, part_checksums, tags FROM buckets LEFT JOIN objects ON bucket = name AND key = ?"
            f"{version_clause}"
            " WHERE name = ?",
            params,
        ).fetchone()
        if row is None:
            raise NoSuchBucket(f"The specified bucket does not exist: {bucket}")
        versioning = row[14]
        if row[0] is None:
            if version_id is None:
                marker = self.newest_version(bucket, key.encode())
                shown = shown_version(versioning, marker[2]) if marker and marker[1] else None
                raise NoSuchKey(f"The specified key does not exist: {key}", delete_marker=shown)
            return self._noncurrent(bucket, key, version_id, content, versioning)
        return _stored(bucket, row, shown_version(versioning, row[12]))

    def _noncurrent(
        self, bucket: str, key: str, version_id: str, content: bool, versioning: str | None
    ) -> StoredObject:
        row = self.conn.execute(
            f"SELECT {_OBJECT_COLUMNS}, segments, {'inline' if content else 'NULL'}, part_sizes, version_id,"
            " lock, delete_marker, part_checksums, tags FROM versions"
            " WHERE bucket = ? AND key = ? AND version_id IS ?",
            (bucket, key.encode(), stored_version(version_id)),
        ).fetchone()
        if row is None:
            raise NoSuchVersion(f"The specified version does not exist: {version_id}")
        if row[14]:
            raise DeleteMarkerVersion(version_id, row[3])
        return _stored(bucket, row, shown_version(versioning, row[12]))

    def newest_version(self, bucket: str, key: bytes) -> tuple[int, bool, str | None] | None:
        """(id, is a delete marker, version id column) of the newest row of ``versions`` for the key."""
        row = self.conn.execute(
            "SELECT id, delete_marker, version_id FROM versions WHERE bucket = ? AND key = ? ORDER BY id DESC LIMIT 1",
            (bucket, key),
        ).fetchone()
        return None if row is None else (row[0], bool(row[1]), row[2])

    def version_rows(
        self,
        bucket: str,
        after: bytes,
        inclusive: bool,
        below: bytes,
        limit: int,
        *,
        below_id: int | None = None,
    ) -> list[tuple[bytes, ObjectVersion]]:
        """Up to ``limit`` (key, ObjectVersion): keys bounded as in object_rows, each key's versions
        newest first (the latest first of all). With ``below_id``, only the versions of the key
        ``after`` older than the one of that id (0: all of its noncurrent versions)."""
        if below_id is not None:
            rows = self.conn.execute(
                f"SELECT {_OBJECT_COLUMNS}, version_id, delete_marker, tags FROM versions WHERE bucket = ?"
                " AND key = ? AND id < ? ORDER BY id DESC LIMIT ?",
                (bucket, after, below_id or 1 << 62, limit),
            )
        else:
            op = ">=" if inclusive else ">"
            # Both arms come in index order, so SQLite merges them and stops at the limit.
            rows = self.conn.execute(
                f"SELECT {_OBJECT_COLUMNS}, version_id, 0 AS marker, tags, 1 AS current, 0 AS vid FROM objects"
                f" WHERE bucket = ? AND key {op} ? AND key < ?"
                f" UNION ALL SELECT {_OBJECT_COLUMNS}, version_id, delete_marker, tags, 0, id FROM versions"
                f" WHERE bucket = ? AND key {op} ? AND key < ?"
                " ORDER BY key, current DESC, vid DESC LIMIT ?",
                (bucket, after, below, bucket, after, below, limit),
            )
        entries: list[tuple[bytes, ObjectVersion]] = []
        previous = after if below_id is not None else None
        for row in rows:
            # Listed, an object of a bucket never versioned is its null version.
            info = replace(_object_info(bucket, row), version_id=row[9] or NULL_VERSION, tags=_load(row[11]))
            entries.append((row[0], ObjectVersion(info, row[0] != previous, bool(row[10]))))
            previous = row[0]
        return entries

    def version_position(self, bucket: str, key: bytes, version_id: str) -> int | None:
        """Where listing resumes after a version: 0 when it is the key's latest object, the id of its
        row in ``versions``, None when the key has no such version."""
        stored = stored_version(version_id)
        current = self.conn.execute(
            "SELECT 1 FROM objects WHERE bucket = ? AND key = ? AND version_id IS ?", (bucket, key, stored)
        ).fetchone()
        if current is not None:
            return 0
        row = self.conn.execute(
            "SELECT id FROM versions WHERE bucket = ? AND key = ? AND version_id IS ?", (bucket, key, stored)
        ).fetchone()
        return None if row is None else row[0]

    def bucket_config(self, bucket: str, name: str) -> bytes | None:
        self.bucket(bucket)
        row = self.conn.execute(
            "SELECT document FROM bucket_configs WHERE bucket = ? AND name = ?", (bucket, name)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def object_rows(
        self, bucket: str, after: bytes, inclusive: bool, below: bytes, limit: int
    ) -> list[tuple]:
        """Up to ``limit`` (key, ObjectInfo) in key order, with ``after`` < (or <=) key < ``below``."""
        rows = self.conn.execute(
            f"SELECT {_OBJECT_COLUMNS} FROM objects WHERE bucket = ? AND key {'>=' if inclusive else '>'} ?"
            " AND key < ? ORDER BY key LIMIT ?",
            (bucket, after, below, limit),
        )
        return [(row[0], _object_info(bucket, row)) for row in rows]

    def upload(self, bucket: str, key: str, upload_id: str) -> UploadInfo:
        """Raises NoSuchUpload (or NoSuchBucket) unless the upload exists for this bucket and key."""
        row = self.conn.execute(
            f"SELECT {_UPLOAD_COLUMNS} FROM uploads WHERE upload_id = ? AND bucket = ? AND key = ?",
            (upload_id, bucket, key.encode()),
        ).fetchone()
        if row is None:
            self.bucket(bucket)
            raise NoSuchUpload(f"The specified multipart upload does not exist: {upload_id}")
        return _upload_info(bucket, row)

    def completed_upload(self, bucket: str, key: str, upload_id: str) -> ObjectInfo | None:
        """The key's latest object, if the multipart upload ``upload_id`` made it."""
        row = self.conn.execute(
            f"SELECT {_OBJECT_COLUMNS}, segments, NULL, part_sizes, version_id, lock, versioning, part_checksums,"
            " tags FROM objects JOIN buckets ON bucket = name WHERE bucket = ? AND key = ? AND upload_id = ?",
            (bucket, key.encode(), upload_id),
        ).fetchone()
        return None if row is None else _stored(bucket, row, shown_version(row[14], row[12])).info

    def upload_rows(
        self, bucket: str, after: bytes, inclusive: bool, below: bytes, limit: int
    ) -> list[tuple]:
        """Up to ``limit`` (key, UploadInfo) in (key, upload id) order, keys bounded as in object_rows."""
        rows = self.conn.execute(
            f"SELECT {_UPLOAD_COLUMNS} FROM uploads WHERE bucket = ? AND key {'>=' if inclusive else '>'} ?"
            " AND key < ? ORDER BY key, upload_id LIMIT ?",
            (bucket, after, below, limit),
        )
        return [(row[0], _upload_info(bucket, row)) for row in rows]

    def uploads_of_key(self, bucket: str, key: bytes, after_upload_id: str, limit: int) -> list[tuple]:
        rows = self.conn.execute(
            f"SELECT {_UPLOAD_COLUMNS} FROM uploads WHERE bucket = ? AND key = ? AND upload_id > ?"
            " ORDER BY upload_id LIMIT ?",
            (bucket, key, after_upload_id, limit),
        )
        return [(row[0], _upload_info(bucket, row)) for row in rows]

    def parts(self, upload_id: str, after: int = 0, limit: int = -1) -> list[StoredPart]:
        rows = self.conn.execute(
            f"SELECT {_PART_COLUMNS} FROM parts WHERE upload_id = ? AND part_number > ? ORDER BY part_number LIMIT ?",
            (upload_id, after, limit),
        )
        return [_stored_part(row) for row in rows]

    def has_objects(self, bucket: str) -> bool:
        """Whether the bucket holds an object, a version or a delete marker: its multipart uploads do
        not count, as in S3."""
        row = self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM objects WHERE bucket = ?) OR EXISTS (SELECT 1 FROM versions WHERE bucket = ?)",
            (bucket, bucket),
        ).fetchone()
        return bool(row[0])

    def referenced_files(self) -> set[str]:
        return {name for (name,) in self.conn.execute("SELECT name FROM files")}


class Txn(Reader):
    """A write transaction; ``freed`` collects data files whose last reference it dropped."""

    def __init__(self, conn: sqlite3.Connection):
        super().__init__(conn)
        self.freed: list[str] = []

    # -- data file references ------------------------------------------------------------
    def adopt(self, names: list[str]) -> None:
        """Count the first reference to newly published files."""
        self.conn.executemany("INSERT INTO files (name, refs) VALUES (?, 1)", [(name,) for name in names])

    def retain(self, segments: list[Segment]) -> None:
        """One more reference to each segment's file; each must be referenced already."""
        self.conn.executemany(
            "UPDATE files SET refs = refs + 1 WHERE name = ?", [(name,) for name, _, _ in segments]
        )

    def release(self, segments: list[Segment]) -> None:
        for name, _, _ in segments:
            (refs,) = self.conn.execute(
                "UPDATE files SET refs = refs - 1 WHERE name = ? RETURNING refs", (name,)
            ).fetchone()
            if refs == 0:
                self.conn.execute("DELETE FROM files WHERE name = ?", (name,))
                self.freed.append(name)

    # -- buckets -------------------------------------------------------------------------
    def create_bucket(self, name: str, created: float) -> bool:
        """False when the bucket exists already."""
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO buckets (name, created) VALUES (?, ?)", (name, created)
        )
        return cursor.rowcount == 1

    def delete_bucket(self, name: str) -> None:
        self.conn.execute("DELETE FROM bucket_configs WHERE bucket = ?", (name,))
        self.conn.execute("DELETE FROM buckets WHERE name = ?", (name,))

    def set_versioning(self, name: str, status: str) -> None:
        self.bucket(name)
        self.conn.execute("UPDATE buckets SET versioning = ? WHERE name = ?", (status, name))

    def put_bucket_config(self, bucket: str, name: str, document: bytes | None) -> None:
        self.bucket(bucket)
        if document is None:
            self.conn.execute("DELETE FROM bucket_configs WHERE bucket = ? AND name = ?", (bucket, name))
        else:
            self.conn.execute(
                "INSERT OR REPLACE INTO bucket_configs (bucket, name, document) VALUES (?, ?, ?)",
                (bucket, name, document),
            )

    # -- objects and their versions ------------------------------------------------------
    def _release_row(self, table: str, where: str, params: tuple) -> tuple | None:
        """Delete one row of ``objects`` or ``versions``, releasing its content; returns its
        (version id, delete marker) or None when no row matched."""
        marker = "delete_marker" if table == "versions" else "0"
        row = self.conn.execute(
            f"DELETE FROM {table} WHERE {where} RETURNING segments, version_id, {marker}", params
        ).fetchone()
        if row is not None and row[0] is not None:
            self.release(load_segments(row[0]))
        return None if row is None else (row[1], bool(row[2]))

    def _archive_latest(self, bucket: str, key: bytes) -> None:
        """The latest object becomes the newest noncurrent version."""
        self.conn.execute(
            f"INSERT INTO versions ({_VERSION_COLUMNS}) SELECT {_VERSION_COLUMNS} FROM objects"
            " WHERE bucket = ? AND key = ?",
            (bucket, key),
        )
        self.conn.execute("DELETE FROM objects WHERE bucket = ? AND key = ?", (bucket, key))

    def _promote_newest(self, bucket: str, key: bytes) -> None:
        """After the latest object went, the newest remaining version becomes the latest object,
        unless it is a delete marker (which then stays the latest, in ``versions``)."""
        newest = self.newest_version(bucket, key)
        if newest is None or newest[1]:
            return
        self.conn.execute(
            f"INSERT INTO objects ({_VERSION_COLUMNS}) SELECT {_VERSION_COLUMNS} FROM versions WHERE id = ?",
            (newest[0],),
        )
        self.conn.execute("DELETE FROM versions WHERE id = ?", (newest[0],))

    def make_way(self, bucket: str, key: str, latest: Latest) -> str | None:
        """Clear the way for a new latest version of the key, as the bucket's versioning says, and
        return the version id it gets: never versioned, the object is replaced; enabled, the latest
        object becomes a noncurrent version and the new one gets a fresh id; suspended, the new one
        is the null version, replacing the one there is."""
        key_bytes = key.encode()
        if latest.versioning is None:
            if latest.exists:
                self._release_row("objects", "bucket = ? AND key = ?", (bucket, key_bytes))
            return None
        if latest.versioning == VERSIONING_ENABLED:
            if latest.exists:
                self._archive_latest(bucket, key_bytes)
            return uuid.uuid4().hex
        if latest.exists and latest.version_id is None:
            self._release_row("objects", "bucket = ? AND key = ?", (bucket, key_bytes))
        else:
            if latest.exists:
                self._archive_latest(bucket, key_bytes)
            self._release_row(
                "versions", "bucket = ? AND key = ? AND version_id IS NULL", (bucket, key_bytes)
            )
        return None

    def store_object(
        self, info: ObjectInfo, inline: bytes | None, segments: list[Segment] | None, upload_id: str | None = None
    ) -> None:
        """Make this the key's latest object; ``make_way`` cleared its place. The caller has already
        taken the references ``segments`` needs, so replacing an object by itself is safe.
        ``upload_id``: the multipart upload that made it."""
        self.conn.execute(
            f"INSERT INTO objects ({_VERSION_COLUMNS}, upload_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                info.bucket, info.key.encode(), info.size, info.etag, info.last_modified, info.content_type,
                _dump(info.metadata), _dump(info.headers), _dump(info.checksums), info.parts_count,
                None if segments is None else _dump_segments(segments), inline,
                json.dumps(info.part_sizes) if info.part_sizes else None,
                None if info.version_id is None else stored_version(info.version_id),
                _dump_lock(info.lock),
                json.dumps(info.part_checksums, separators=(",", ":")) if any(info.part_checksums) else None,
                _dump(info.tags), upload_id,
            ),
        )  # fmt: skip

    def delete_latest(self, bucket: str, key: str, latest: Latest, now: float) -> DeleteResult:
        """DeleteObject without a version id: the object goes, or a delete marker becomes the latest."""
        if latest.versioning is None:
            released = self._release_row("objects", "bucket = ? AND key = ?", (bucket, key.encode()))
            return DeleteResult(released is not None)
        version = self.make_way(bucket, key, latest)
        self.conn.execute(
            "INSERT INTO versions (bucket, key, size, etag, last_modified, content_type, version_id,"
            " delete_marker) VALUES (?, ?, 0, '', ?, '', ?, 1)",
            (bucket, key.encode(), now, version),
        )
        return DeleteResult(True, shown_version(latest.versioning, version), delete_marker=True)

    def _version_lock(self, bucket: str, key: bytes, stored: str | None) -> tuple[str, ObjectLock] | None:
        """The table holding a version (not a delete marker) and its lock, None when there is none."""
        for table, marker in (("objects", ""), ("versions", " AND delete_marker = 0")):
            row = self.conn.execute(
                f"SELECT lock FROM {table} WHERE bucket = ? AND key = ? AND version_id IS ?{marker}",
                (bucket, key, stored),
            ).fetchone()
            if row is not None:
                return table, _load_lock(row[0])
        return None

    def delete_version(
        self,
        bucket: str,
        key: str,
        version_id: str,
        versioning: str | None,
        now: float,
        bypass_governance: bool,
    ) -> DeleteResult:
        """Remove one version for good, unless its lock forbids; the next newest becomes the latest."""
        key_bytes, stored = key.encode(), stored_version(version_id)
        locked = self._version_lock(bucket, key_bytes, stored)
        if locked is not None:
            check_removal(locked[1], now, bypass_governance)
        removed = self._release_row(
            "objects", "bucket = ? AND key = ? AND version_id IS ?", (bucket, key_bytes, stored)
        )
        if removed is None:
            removed = self._release_row(
                "versions", "bucket = ? AND key = ? AND version_id IS ?", (bucket, key_bytes, stored)
            )
        if removed is None:
            return DeleteResult(False, version_id)
        if self.conn.execute(
            "SELECT NOT EXISTS (SELECT 1 FROM objects WHERE bucket = ? AND key = ?)", (bucket, key_bytes)
        ).fetchone()[0]:
            self._promote_newest(bucket, key_bytes)
        return DeleteResult(
            True, shown_version(versioning, removed[0]) or version_id, delete_marker=removed[1]
        )

    def set_lock(
        self, bucket: str, key: str, version_id: str, lock: ObjectLock, now: float, bypass_governance: bool
    ) -> None:
        """Replace a version's retention and legal hold, if its current retention allows."""
        key_bytes, stored = key.encode(), stored_version(version_id)
        found = self._version_lock(bucket, key_bytes, stored)
        if found is None:
            raise NoSuchVersion(f"The specified version does not exist: {version_id}")
        table, old = found
        check_change(old, lock, now, bypass_governance)
        self.conn.execute(
            f"UPDATE {table} SET lock = ? WHERE bucket = ? AND key = ? AND version_id IS ?",
            (_dump_lock(lock), bucket, key_bytes, stored),
        )

    def set_column(self, bucket: str, key: str, version_id: str, column: str, values: dict[str, str]) -> None:
        """Replace the tags or the metadata (``column``) of a version (not a delete marker)."""
        if column not in ("tags", "metadata"):  # a name of ours, never a caller's: it goes into the SQL
            raise ValueError(f"not a column of versions: {column}")
        key_bytes, stored = key.encode(), stored_version(version_id)
        found = self._version_lock(bucket, key_bytes, stored)
        if found is None:
            raise NoSuchVersion(f"The specified version does not exist: {version_id}")
        self.conn.execute(
            f"UPDATE {found[0]} SET {column} = ? WHERE bucket = ? AND key = ? AND version_id IS ?",
            (_dump(values), bucket, key_bytes, stored),
        )

    # -- multipart uploads ---------------------------------------------------------------
    def create_upload(self, upload: UploadInfo) -> None:
        self.conn.execute(
            f"INSERT INTO uploads (bucket, {_UPLOAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                upload.bucket, upload.key.encode(), upload.upload_id, upload.initiated, upload.content_type,
                _dump(upload.metadata), _dump(upload.headers), upload.checksum_algorithm, _dump_lock(upload.lock),
                upload.checksum_type, _dump(upload.tags),
            ),
        )  # fmt: skip

    def store_part(self, upload_id: str, part: PartInfo, segments: list[Segment]) -> None:
        """Add or replace a part; the caller has taken the references of ``segments``."""
        row = self.conn.execute(
            "DELETE FROM parts WHERE upload_id = ? AND part_number = ? RETURNING segments",
            (upload_id, part.part_number),
        ).fetchone()
        if row is not None:
            self.release(load_segments(row[0]))
        self.conn.execute(
            f"INSERT INTO parts (upload_id, {_PART_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                upload_id, part.part_number, part.etag, part.size, part.last_modified,
                _dump(part.checksums), _dump_segments(segments),
            ),
        )  # fmt: skip

    def delete_uploads_of_bucket(self, bucket: str) -> None:
        """Abort every multipart upload of the bucket, releasing its parts' files."""
        rows = self.conn.execute(
            "DELETE FROM parts WHERE upload_id IN (SELECT upload_id FROM uploads WHERE bucket = ?)"
            " RETURNING segments",
            (bucket,),
        ).fetchall()
        for (segments,) in rows:
            self.release(load_segments(segments))
        self.conn.execute("DELETE FROM uploads WHERE bucket = ?", (bucket,))

    def delete_upload(self, upload_id: str) -> None:
        """Forget the upload and its parts; their file references must be released or handed over."""
        self.conn.execute("DELETE FROM parts WHERE upload_id = ?", (upload_id,))
        self.conn.execute("DELETE FROM uploads WHERE upload_id = ?", (upload_id,))


class Index:
    """The index database, with one connection per thread."""

    def __init__(self, path: Path):
        self._path = path
        self._local = threading.local()
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        self._connections_lock = threading.Lock()
        self._write_lock = threading.Lock()
        conn = self._connection()
        conn.execute("PRAGMA journal_mode = WAL")
        with self.write() as txn:
            for statement in _SCHEMA.split(";"):
                txn.conn.execute(statement)
            for table, column, kind in _UPGRADES:
                columns = {row[1] for row in txn.conn.execute(f"PRAGMA table_info({table})")}
                if column not in columns:
                    txn.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self._path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA synchronous = NORMAL")
            with self._connections_lock:
                # Threads come and go in some callers: close what finished threads left open.
                for thread in [thread for thread in self._connections if not thread.is_alive()]:
                    self._connections.pop(thread).close()
                self._connections[threading.current_thread()] = conn
            self._local.conn = conn
        return conn

    @contextmanager
    def read(self) -> Iterator[Reader]:
        conn = self._connection()
        conn.execute("BEGIN")
        try:
            yield Reader(conn)
        finally:
            conn.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[Txn]:
        conn = self._connection()
        with self._write_lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                txn = Txn(conn)
                yield txn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._connections_lock:
            connections, self._connections = self._connections, {}
        for conn in connections.values():
            conn.close()
