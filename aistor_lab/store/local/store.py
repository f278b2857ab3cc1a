"""The local-disk backend: object bytes in immutable data files (or inline in the index when
small), and an SQLite index that decides every write in one transaction.

A write first makes its bytes durable in a new, uniquely named file, then one transaction checks
the WriteCondition, points the index row at the new content and drops the old content's
reference; files left without references are unlinked after the commit. A crash at any moment
therefore leaves the old or the new object, and at worst a file no row references, which the
startup sweep removes (see files.py). Nothing is ever modified in place.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from itertools import chain
from pathlib import Path

from ..base import ObjectHandle, ObjectStore, Staging
from ..errors import (
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    DeleteMarkerVersion,
    InvalidPart,
    NoSuchUpload,
    NoSuchVersion,
    StoreError,
)
from ..object_lock import NO_LOCK, ObjectLock
from ..types import (
    NULL_VERSION,
    SYSTEM_BUCKET,
    VERSIONING_ENABLED,
    BucketInfo,
    DeleteResult,
    ListPage,
    ObjectInfo,
    ObjectVersion,
    PartInfo,
    PartsPage,
    UploadInfo,
    UploadsPage,
    VersionsPage,
    WriteCondition,
)
from .files import DataFiles, Segment
from .handles import FileHandle, InlineHandle, clamp_range, slice_segments
from .index import INDEX_FILE, Index, Reader, StoredPart, Txn, shown_version
from .listing import PAST, resume, roll_up, start_bound
from .rules import check_condition, check_part_order, check_part_sizes, multipart_etag, unquote_etag
from .staging import LocalStaging

# Objects up to this size live in their index row: no file to create, fsync and open.
INLINE_LIMIT = 64 * 1024
# Every file of an object is open while a handle on it lives: an object spread over more part files
# than this is merged into one file when completed.
MAX_FILES_PER_OBJECT = 64
DEFAULT_CONTENT_TYPE = "binary/octet-stream"


class _PartsChanged(Exception):
    """A part was uploaded again while its completion was being prepared."""


def _listed_parts(
    reader: Reader, bucket: str, key: str, upload_id: str, parts: list[tuple[int, str]]
) -> tuple[UploadInfo, list[StoredPart], list[StoredPart]]:
    """The upload, its parts in the order listed (each checked against its ETag, sizes checked),
    and its parts not listed."""
    upload = reader.upload(bucket, key, upload_id)
    stored = {part.info.part_number: part for part in reader.parts(upload_id)}
    chosen = []
    for number, etag in parts:
        part = stored.pop(number, None)
        if part is None or part.info.etag != unquote_etag(etag):
            raise InvalidPart(f"Part {number} was not uploaded or its ETag does not match")
        chosen.append(part)
    check_part_sizes([part.info.size for part in chosen])
    return upload, chosen, list(stored.values())


def _content_of(parts: list[StoredPart]) -> list[Segment]:
    return list(chain.from_iterable(part.segments for part in parts))


def _own_staging(data: Staging) -> LocalStaging:
    if not isinstance(data, LocalStaging):
        raise TypeError("LocalStore only takes Staging objects made by its own stage()")
    return data


class LocalStore(ObjectStore):
    fast_reads = True  # SQLite (WAL) lookups and file opens: cheaper than a thread hop
    lists_tags = True  # a column of the listing's rows

    def __init__(self, data_dir: Path):
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        self._files = DataFiles(data_dir)
        self._index = Index(data_dir / INDEX_FILE)
        with self._index.write() as txn:
            txn.create_bucket(SYSTEM_BUCKET, time.time())
        self._files.sweep(self._referenced_files)

    def _referenced_files(self) -> set[str]:
        with self._index.read() as reader:
            return reader.referenced_files()

    @contextmanager
    def _transaction(self, new_files: Sequence[str] = ()) -> Iterator[Txn]:
        """A write transaction. If it fails, ``new_files`` (published for it) are removed; once it
        commits, the files it left without references are."""
        try:
            with self._index.write() as txn:
                yield txn
        except BaseException:
            self._files.remove(new_files)
            raise
        self._files.remove(txn.freed)

    def close(self) -> None:
        self._index.close()
        self._files.close()

    # -- buckets -------------------------------------------------------------------------
    def create_bucket(self, name: str, *, object_lock: bool = False) -> BucketInfo:
        created = time.time()
        versioning = VERSIONING_ENABLED if object_lock else None
        with self._index.write() as txn:
            if not txn.create_bucket(name, created):
                raise BucketAlreadyOwnedByYou(f"The bucket already exists: {name}")
            if versioning:
                txn.set_versioning(name, versioning)
        return BucketInfo(name, created, versioning)

    def delete_bucket(self, name: str) -> None:
        # One transaction aborts the uploads and drops the bucket: a racing CreateMultipartUpload or
        # UploadPart runs wholly before it (and its upload is aborted) or after it (NoSuchBucket).
        with self._transaction() as txn:
            txn.bucket(name)
            if txn.has_objects(name):
                raise BucketNotEmpty(f"The bucket you tried to delete is not empty: {name}")
            txn.delete_uploads_of_bucket(name)
            txn.delete_bucket(name)

    def get_bucket(self, name: str) -> BucketInfo:
        with self._index.read() as reader:
            return reader.bucket(name)

    def list_buckets(self) -> list[BucketInfo]:
        with self._index.read() as reader:
            return [bucket for bucket in reader.buckets() if bucket.name != SYSTEM_BUCKET]

    def set_versioning(self, name: str, status: str) -> None:
        with self._index.write() as txn:
            txn.set_versioning(name, status)

    def get_bucket_config(self, bucket: str, name: str) -> bytes | None:
        with self._index.read() as reader:
            return reader.bucket_config(bucket, name)

    def put_bucket_config(self, bucket: str, name: str, document: bytes | None) -> None:
        with self._index.write() as txn:
            txn.put_bucket_config(bucket, name, document)

    # -- objects -------------------------------------------------------------------------
    def stage(self) -> Staging:
        return LocalStaging(self._files, spill_at=INLINE_LIMIT)

    def put_object(
        self,
        bucket: str,
        key: str,
        data: Staging,
        *,
        content_type: str | None = None,
        metadata: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        checksums: dict[str, str] | None = None,
        condition: WriteCondition | None = None,
        lock: ObjectLock = NO_LOCK,
        tags: dict[str, str] | None = None,
    ) -> ObjectInfo:
        staging = _own_staging(data)
        try:
            inline = staging.in_memory()
            new_files = [] if inline is not None else [staging.publish()]
            segments = [(name, 0, staging.size) for name in new_files] or None
            info = ObjectInfo(
                bucket, key, staging.size, staging.md5_hex(), time.time(), content_type or DEFAULT_CONTENT_TYPE,
                dict(metadata or {}), dict(headers or {}), dict(checksums or {}), lock=lock, tags=dict(tags or {}),
            )  # fmt: skip
            with self._transaction(new_files) as txn:
                latest = txn.latest(bucket, key)
                check_condition(condition, latest.etag, key)
                txn.adopt(new_files)
                info = replace(
                    info, version_id=shown_version(latest.versioning, txn.make_way(bucket, key, latest))
                )
                txn.store_object(info, inline, segments)
            return info
        finally:
            staging.discard()

    def get_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        with self._index.read() as reader:
            return reader.object(bucket, key, version_id=version_id).info

    def open_object(self, bucket: str, key: str, version_id: str | None = None) -> ObjectHandle:
        return self._open(bucket, key, version_id)

    def part_range(self, info: ObjectInfo, part_number: int) -> tuple[int, int]:
        # ``info`` comes from a single-object read, which carries the part sizes.
        start = sum(info.part_sizes[: part_number - 1])
        return start, start + info.part_sizes[part_number - 1]

    def _open(self, bucket: str, key: str, version_id: str | None = None) -> InlineHandle | FileHandle:
        missing: list[Segment] | None = None
        while True:
            with self._index.read() as reader:
                stored = reader.object(bucket, key, content=True, version_id=version_id)
            if stored.segments is None:
                return InlineHandle(stored.info, stored.inline)
            try:
                return FileHandle(stored.info, stored.segments, self._files)
            except FileNotFoundError:
                # Normally the object was replaced between the query and the open: look again.
                if stored.segments == missing:
                    raise StoreError(f"the data of {bucket}/{key} is missing from the disk") from None
                missing = stored.segments

    def delete_object(
        self,
        bucket: str,
        key: str,
        condition: WriteCondition | None = None,
        *,
        version_id: str | None = None,
        bypass_governance: bool = False,
    ) -> DeleteResult:
        with self._transaction() as txn:
            latest = txn.latest(bucket, key)
            if version_id is None:
                check_condition(condition, latest.etag, key)
                return txn.delete_latest(bucket, key, latest, time.time())
            if condition:
                try:
                    etag = txn.object(bucket, key, version_id=version_id).info.etag
                except NoSuchVersion:
                    return DeleteResult(False, version_id)  # nothing to remove, nothing to check
                except DeleteMarkerVersion:
                    etag = None
                check_condition(condition, etag, key)
            return txn.delete_version(
                bucket, key, version_id, latest.versioning, time.time(), bypass_governance
            )

    def set_object_lock(
        self,
        bucket: str,
        key: str,
        version_id: str | None,
        lock: ObjectLock,
        *,
        bypass_governance: bool = False,
    ) -> ObjectInfo:
        with self._transaction() as txn:
            info = txn.object(bucket, key, version_id=version_id).info
            txn.set_lock(bucket, key, info.version_id or NULL_VERSION, lock, time.time(), bypass_governance)
        return replace(info, lock=lock)

    def set_object_tags(
        self, bucket: str, key: str, version_id: str | None, tags: dict[str, str]
    ) -> ObjectInfo:
        return self._set_version_field(bucket, key, version_id, "tags", tags)

    def set_object_metadata(
        self, bucket: str, key: str, version_id: str | None, metadata: dict[str, str]
    ) -> ObjectInfo:
        return self._set_version_field(bucket, key, version_id, "metadata", metadata)

    def _set_version_field(
        self, bucket: str, key: str, version_id: str | None, field: str, values: dict[str, str]
    ) -> ObjectInfo:
        """Replace the tags or the metadata of a version in place."""
        with self._transaction() as txn:
            info = txn.object(bucket, key, version_id=version_id).info
            txn.set_column(bucket, key, info.version_id or NULL_VERSION, field, values)
        return replace(info, **{field: dict(values)})

    def copy_object(
        self,
        src_bucket: str,
        src_key: str,
        dst_bucket: str,
        dst_key: str,
        *,
        metadata: dict[str, str] | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
        condition: WriteCondition | None = None,
        src_version_id: str | None = None,
        lock: ObjectLock = NO_LOCK,
        tags: dict[str, str] | None = None,
    ) -> ObjectInfo:
        # Data files are immutable, so the copy shares the source's files: no byte is copied.
        with self._transaction() as txn:
            source = txn.object(src_bucket, src_key, content=True, version_id=src_version_id)
            latest = txn.latest(dst_bucket, dst_key)
            check_condition(condition, latest.etag, dst_key)
            info = replace(source.info, bucket=dst_bucket, key=dst_key, last_modified=time.time(), lock=lock)
            if tags is not None:
                info = replace(info, tags=dict(tags))
            if metadata is not None:
                info = replace(
                    info, metadata=dict(metadata), content_type=content_type or DEFAULT_CONTENT_TYPE,
                    headers=dict(headers or {}),
                )  # fmt: skip
            if source.segments is not None:
                txn.retain(source.segments)
            info = replace(
                info, version_id=shown_version(latest.versioning, txn.make_way(dst_bucket, dst_key, latest))
            )
            txn.store_object(info, source.inline, source.segments)
        return info

    def list_objects(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        start_after: str = "",
        max_keys: int = 1000,
    ) -> ListPage:
        prefix_bytes, delimiter_bytes = prefix.encode(), delimiter.encode()
        below = prefix_bytes + PAST
        with self._index.read() as reader:
            reader.bucket(bucket)

            def scan(bound: bytes, inclusive: bool, limit: int) -> list[tuple[bytes, ObjectInfo]]:
                return reader.object_rows(bucket, bound, inclusive, below, limit)

            first = scan(*start_bound(start_after.encode(), prefix_bytes, delimiter_bytes), max_keys + 1)
            page = roll_up(first, scan, prefix_bytes, delimiter_bytes, max_keys)
        marker = page.last_key if page.is_truncated else None
        return ListPage(page.entries, page.common_prefixes, page.is_truncated, marker)

    def list_object_versions(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        key_marker: str = "",
        version_id_marker: str = "",
        max_keys: int = 1000,
    ) -> VersionsPage:
        prefix_bytes, delimiter_bytes, marker = prefix.encode(), delimiter.encode(), key_marker.encode()
        below = prefix_bytes + PAST
        with self._index.read() as reader:
            reader.bucket(bucket)

            def scan(bound: bytes, inclusive: bool, limit: int) -> list[tuple[bytes, ObjectVersion]]:
                return reader.version_rows(bucket, bound, inclusive, below, limit)

            first = []
            if version_id_marker and marker.startswith(prefix_bytes):
                # The marker key's versions older than the marker version come first. A marker version
                # removed since (as by a client deleting each page it lists) gives all of the key's.
                position = reader.version_position(bucket, marker, version_id_marker)
                if position is not None:
                    first = reader.version_rows(bucket, marker, False, below, max_keys + 1, below_id=position)
                else:
                    first = reader.version_rows(bucket, marker, True, marker + b"\0", max_keys + 1)
            page = resume(first, scan, prefix_bytes, delimiter_bytes, marker, max_keys)
        if not page.is_truncated:
            return VersionsPage(page.entries, page.common_prefixes, False, None, None)
        version_id = page.last_entry.info.version_id if page.last_entry is not None else None
        return VersionsPage(page.entries, page.common_prefixes, True, page.last_key, version_id)

    # -- multipart -----------------------------------------------------------------------
    def create_multipart_upload(
        self,
        bucket: str,
        key: str,
        *,
        content_type: str | None = None,
        metadata: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        checksum_algorithm: str | None = None,
        lock: ObjectLock = NO_LOCK,
        checksum_type: str | None = None,
        tags: dict[str, str] | None = None,
    ) -> UploadInfo:
        now = time.time()
        # Upload ids sort by creation time, the order S3 lists the uploads of one key in.
        upload_id = f"{time.time_ns():016x}{secrets.token_hex(12)}"
        upload = UploadInfo(
            bucket, key, upload_id, now, content_type or DEFAULT_CONTENT_TYPE,
            dict(metadata or {}), dict(headers or {}), checksum_algorithm, lock, checksum_type,
            tags=dict(tags or {}),
        )  # fmt: skip
        with self._index.write() as txn:
            txn.bucket(bucket)
            txn.create_upload(upload)
        return upload

    def upload_part(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        part_number: int,
        data: Staging,
        *,
        checksums: dict[str, str] | None = None,
    ) -> PartInfo:
        staging = _own_staging(data)
        try:
            name = staging.publish()
            part = PartInfo(part_number, staging.md5_hex(), staging.size, time.time(), dict(checksums or {}))
            with self._transaction([name]) as txn:
                txn.upload(bucket, key, upload_id)
                txn.adopt([name])
                txn.store_part(upload_id, part, [(name, 0, part.size)])
            return part
        finally:
            staging.discard()

    def upload_part_copy(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        part_number: int,
        src_bucket: str,
        src_key: str,
        start: int = 0,
        end: int | None = None,
        src_version_id: str | None = None,
    ) -> PartInfo:
        while True:
            with self._open(src_bucket, src_key, src_version_id) as source:
                first, last = clamp_range(start, end, source.info.size)
                md5 = hashlib.md5()
                for chunk in source.iter_range(first, last):
                    md5.update(chunk)
                part = PartInfo(part_number, md5.hexdigest(), last - first, time.time())
                if source.segments is None:
                    new_files = [self._files.write(source.read(first, last))]
                    segments = [(new_files[0], 0, part.size)]
                else:
                    new_files, segments = [], slice_segments(source.segments, first, last)
            with self._transaction(new_files) as txn:
                txn.upload(bucket, key, upload_id)
                if not new_files:
                    # The part shares the source's files; they are certainly still there if the source
                    # still references them, else read the source again.
                    current = txn.object(src_bucket, src_key, version_id=src_version_id)
                    if current.segments != source.segments:
                        continue
                    txn.retain(segments)
                txn.adopt(new_files)
                txn.store_part(upload_id, part, segments)
            return part

    def complete_multipart_upload(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        parts: list[tuple[int, str]],
        *,
        checksums: dict[str, str] | None = None,
        condition: WriteCondition | None = None,
    ) -> ObjectInfo:
        check_part_order(parts)
        while True:
            try:
                merged = self._merge_if_fragmented(bucket, key, upload_id, parts)
                return self._complete(bucket, key, upload_id, parts, merged, checksums or {}, condition)
            except _PartsChanged:
                continue
            except NoSuchUpload:
                # Completed already: S3 answers a repeat with the object it made, while it is current.
                with self._index.read() as reader:
                    completed = reader.completed_upload(bucket, key, upload_id)
                if completed is None:
                    raise
                return completed

    def _merge_if_fragmented(
        self, bucket: str, key: str, upload_id: str, parts: list[tuple[int, str]]
    ) -> tuple[str, list[Segment]] | None:
        """A handle opens every file of its object up front, so the parts of an object made of more
        than MAX_FILES_PER_OBJECT files are first merged into one file (by the kernel, outside the
        write lock). Returns that file and the segments it holds."""
        with self._index.read() as reader:
            _, chosen, _ = _listed_parts(reader, bucket, key, upload_id, parts)
        segments = _content_of(chosen)
        if sum(length for _, _, length in segments) <= INLINE_LIMIT:
            return None
        if len({name for name, _, _ in segments}) <= MAX_FILES_PER_OBJECT:
            return None
        return self._files.concatenate(segments), segments

    def _complete(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        parts: list[tuple[int, str]],
        merged: tuple[str, list[Segment]] | None,
        checksums: dict[str, str],
        condition: WriteCondition | None,
    ) -> ObjectInfo:
        with self._transaction([merged[0]] if merged else []) as txn:
            upload, chosen, unlisted = _listed_parts(txn, bucket, key, upload_id, parts)
            segments = _content_of(chosen)
            if merged is not None and merged[1] != segments:
                raise _PartsChanged
            latest = txn.latest(bucket, key)
            check_condition(condition, latest.etag, key)
            info = ObjectInfo(
                bucket, key, sum(part.info.size for part in chosen),
                multipart_etag([part.info.etag for part in chosen]), time.time(), upload.content_type,
                upload.metadata, upload.headers, dict(checksums), parts_count=len(chosen),
                part_sizes=tuple(part.info.size for part in chosen),
                part_checksums=tuple(part.info.checksums for part in chosen)
                if any(part.info.checksums for part in chosen) else (),
                lock=upload.lock, tags=upload.tags,
            )  # fmt: skip
            for part in unlisted:
                txn.release(part.segments)
            # The object takes over the references of the listed parts, unless it gets its own content.
            inline = None
            if info.size <= INLINE_LIMIT:
                with FileHandle(info, segments, self._files) as handle:
                    inline = handle.read()
                txn.release(segments)
                segments = None
            elif merged is not None:
                txn.adopt([merged[0]])
                txn.release(segments)
                segments = [(merged[0], 0, info.size)]
            info = replace(
                info, version_id=shown_version(latest.versioning, txn.make_way(bucket, key, latest))
            )
            txn.store_object(info, inline, segments, upload_id)
            txn.delete_upload(upload_id)
        return info

    def abort_multipart_upload(self, bucket: str, key: str, upload_id: str) -> None:
        with self._transaction() as txn:
            txn.upload(bucket, key, upload_id)
            for part in txn.parts(upload_id):
                txn.release(part.segments)
            txn.delete_upload(upload_id)

    def list_parts(
        self, bucket: str, key: str, upload_id: str, *, part_number_marker: int = 0, max_parts: int = 1000
    ) -> PartsPage:
        limit = max(max_parts, 0)
        with self._index.read() as reader:
            upload = reader.upload(bucket, key, upload_id)
            parts = [part.info for part in reader.parts(upload_id, part_number_marker, limit + 1)]
        if 0 < limit < len(parts):
            return PartsPage(upload, parts[:limit], True, parts[limit - 1].part_number)
        return PartsPage(upload, parts[:limit], False, None)

    def list_multipart_uploads(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        key_marker: str = "",
        upload_id_marker: str = "",
        max_uploads: int = 1000,
    ) -> UploadsPage:
        prefix_bytes, delimiter_bytes, marker = prefix.encode(), delimiter.encode(), key_marker.encode()
        below = prefix_bytes + PAST
        with self._index.read() as reader:
            reader.bucket(bucket)

            def scan(bound: bytes, inclusive: bool, limit: int) -> list[tuple[bytes, UploadInfo]]:
                return reader.upload_rows(bucket, bound, inclusive, below, limit)

            first = []
            if upload_id_marker and marker.startswith(prefix_bytes):
                # S3: the marker key's own uploads after the upload id marker come first.
                first = reader.uploads_of_key(bucket, marker, upload_id_marker, max_uploads + 1)
            page = resume(first, scan, prefix_bytes, delimiter_bytes, marker, max_uploads)
        if not page.is_truncated:
            return UploadsPage(page.entries, page.common_prefixes, False, None, None)
        upload_id = page.last_entry.upload_id if page.last_entry is not None else None
        return UploadsPage(page.entries, page.common_prefixes, True, page.last_key, upload_id)
