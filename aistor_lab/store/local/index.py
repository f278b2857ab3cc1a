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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import NoSuchBucket, NoSuchKey, NoSuchUpload
from ..types import BucketInfo, ObjectInfo, PartInfo, UploadInfo
from .files import Segment

INDEX_FILE = "index.sqlite3"
BUSY_TIMEOUT_SECONDS = 60.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, created REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS objects (
    id INTEGER PRIMARY KEY,
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
    part_sizes TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS objects_by_key ON objects (bucket, key);
CREATE TABLE IF NOT EXISTS uploads (
    upload_id TEXT PRIMARY KEY,
    bucket TEXT NOT NULL,
    key BLOB NOT NULL,
    initiated REAL NOT NULL,
    content_type TEXT NOT NULL,
    metadata TEXT,
    headers TEXT,
    checksum_algorithm TEXT
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
"""
# ``inline`` comes after the columns listings read: they never touch its overflow pages.
# ``part_sizes`` (a JSON list, read by single-object reads only) came later: it is last so that older
# indexes gain it by ALTER TABLE when opened.

_OBJECT_COLUMNS = "key, size, etag, last_modified, content_type, metadata, headers, checksums, parts_count"
_UPLOAD_COLUMNS = "key, upload_id, initiated, content_type, metadata, headers, checksum_algorithm"
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


def _upload_info(bucket: str, row: tuple) -> UploadInfo:
    key, upload_id, initiated, content_type, metadata, headers, algorithm = row
    return UploadInfo(
        bucket, key.decode(), upload_id, initiated, content_type, _load(metadata), _load(headers), algorithm
    )


@dataclass(frozen=True)
class StoredObject:
    info: ObjectInfo
    inline: bytes | None  # the content, for objects kept in their row
    segments: list[Segment] | None  # otherwise, where the content is


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
        row = self.conn.execute("SELECT name, created FROM buckets WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NoSuchBucket(f"The specified bucket does not exist: {name}")
        return BucketInfo(*row)

    def buckets(self) -> list[BucketInfo]:
        return [
            BucketInfo(*row) for row in self.conn.execute("SELECT name, created FROM buckets ORDER BY name")
        ]

    def object_etag(self, bucket: str, key: str) -> str | None:
        """The ETag of the object, None when there is none; raises NoSuchBucket."""
        row = self.conn.execute(
            "SELECT etag FROM buckets LEFT JOIN objects ON bucket = name AND key = ? WHERE name = ?",
            (key.encode(), bucket),
        ).fetchone()
        if row is None:
            raise NoSuchBucket(f"The specified bucket does not exist: {bucket}")
        return row[0]

    def object(self, bucket: str, key: str, *, content: bool = False) -> StoredObject:
        """Raises NoSuchBucket or NoSuchKey. ``content`` also reads the inline bytes or segments."""
        # One statement tells a missing bucket from a missing key (the two tables share no column name).
        row = self.conn.execute(
            f"SELECT {_OBJECT_COLUMNS}, segments, {'inline' if content else 'NULL'}, part_sizes"
            " FROM buckets LEFT JOIN objects ON bucket = name AND key = ? WHERE name = ?",
            (key.encode(), bucket),
        ).fetchone()
        if row is None:
            raise NoSuchBucket(f"The specified bucket does not exist: {bucket}")
        if row[0] is None:
            raise NoSuchKey(f"The specified key does not exist: {key}")
        segments = load_segments(row[9]) if row[9] is not None else None
        info = _object_info(bucket, row)
        if info.parts_count:
            # An object completed before part sizes were recorded claims no parts it cannot serve.
            sizes = tuple(json.loads(row[11])) if row[11] is not None else ()
            info = replace(info, parts_count=len(sizes) or None, part_sizes=sizes)
        return StoredObject(info, row[10], segments)

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
        """Whether the bucket holds an object: its multipart uploads do not count, as in S3."""
        row = self.conn.execute("SELECT EXISTS (SELECT 1 FROM objects WHERE bucket = ?)", (bucket,)).fetchone()
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
        self.conn.execute("DELETE FROM buckets WHERE name = ?", (name,))

    # -- objects -------------------------------------------------------------------------
    def _release_object(self, bucket: str, key: bytes) -> bool:
        row = self.conn.execute(
            "DELETE FROM objects WHERE bucket = ? AND key = ? RETURNING segments", (bucket, key)
        ).fetchone()
        if row is not None and row[0] is not None:
            self.release(load_segments(row[0]))
        return row is not None

    def store_object(
        self, info: ObjectInfo, inline: bytes | None, segments: list[Segment] | None, *, replaces: bool
    ) -> None:
        """Make this the object's row, releasing the content of the row it ``replaces``. The caller has
        already taken the references ``segments`` needs, so replacing an object by itself is safe."""
        key = info.key.encode()
        if replaces:
            self._release_object(info.bucket, key)
        self.conn.execute(
            "INSERT INTO objects (bucket, key, size, etag, last_modified, content_type, metadata, headers,"
            " checksums, parts_count, segments, inline, part_sizes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                info.bucket, key, info.size, info.etag, info.last_modified, info.content_type,
                _dump(info.metadata), _dump(info.headers), _dump(info.checksums), info.parts_count,
                None if segments is None else _dump_segments(segments), inline,
                json.dumps(info.part_sizes) if info.part_sizes else None,
            ),
        )  # fmt: skip

    def delete_object(self, bucket: str, key: str) -> bool:
        return self._release_object(bucket, key.encode())

    # -- multipart uploads ---------------------------------------------------------------
    def create_upload(self, upload: UploadInfo) -> None:
        self.conn.execute(
            f"INSERT INTO uploads (bucket, {_UPLOAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                upload.bucket, upload.key.encode(), upload.upload_id, upload.initiated, upload.content_type,
                _dump(upload.metadata), _dump(upload.headers), upload.checksum_algorithm,
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
            columns = {row[1] for row in txn.conn.execute("PRAGMA table_info(objects)")}
            if "part_sizes" not in columns:
                txn.conn.execute("ALTER TABLE objects ADD COLUMN part_sizes TEXT")

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
