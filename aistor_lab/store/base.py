"""The store interface: what the S3 API, the catalog and the sharing service use.

Every method is blocking and thread-safe; the HTTP layers call them from a thread pool.
A write is decided in one step: the new object is fully staged first, then made visible
atomically (if its WriteCondition holds), so readers see the old or the new object, never a mix.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Self

from .encryption.modes import EncryptionParams
from .object_lock import NO_LOCK, ObjectLock
from .types import (
    SYSTEM_BUCKET,
    BucketInfo,
    DeleteResult,
    ListPage,
    ObjectInfo,
    PartInfo,
    PartsPage,
    UploadInfo,
    UploadsPage,
    VersionsPage,
    WriteCondition,
)


class Staging(ABC):
    """Bytes of a future object or part, written as they arrive (to a temp file or memory).

    The store that made it computes the size and MD5 while bytes are written. Handing it to
    ``put_object``/``upload_part`` consumes it; ``discard()`` drops it (safe to call twice).
    """

    @abstractmethod
    def write(self, data: bytes | memoryview) -> None: ...

    @property
    @abstractmethod
    def size(self) -> int: ...

    @abstractmethod
    def md5_hex(self) -> str:
        """MD5 of everything written; call once writing is over."""

    @abstractmethod
    def discard(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.discard()


class ObjectHandle(ABC):
    """A consistent snapshot of one object: later overwrites and deletes do not affect it."""

    info: ObjectInfo

    @abstractmethod
    def iter_range(
        self, start: int = 0, end: int | None = None, chunk_size: int = 1 << 20
    ) -> Iterator[bytes]:
        """Yield the bytes in ``[start, end)`` (end None = to the end of the object)."""

    @abstractmethod
    def close(self) -> None: ...

    def read(self, start: int = 0, end: int | None = None) -> bytes:
        return b"".join(self.iter_range(start, end))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ObjectStore(ABC):
    # True when reads are quick local lookups that callers may run in place instead of on a pool.
    fast_reads = False
    # True when list_object_versions entries carry their tags (ObjectInfo.tags); else a caller that
    # needs them reads each with tagged_object_info.
    lists_tags = False

    # -- buckets -------------------------------------------------------------------------
    def is_system_bucket(self, name: str) -> bool:
        """Whether a client-facing bucket name reaches the services' own state: the APIs refuse it
        to every caller, whatever the policies say."""
        return name == SYSTEM_BUCKET

    @abstractmethod
    def create_bucket(self, name: str, *, object_lock: bool = False) -> BucketInfo:
        """Raises BucketAlreadyOwnedByYou when it exists. Names are not validated here. With
        ``object_lock`` the bucket may hold locked versions: its versioning is enabled from the start."""

    @abstractmethod
    def delete_bucket(self, name: str) -> None:
        """Raises NoSuchBucket, or BucketNotEmpty while it holds objects. Its unfinished multipart
        uploads do not keep it: they are aborted with it, as S3 does."""

    @abstractmethod
    def get_bucket(self, name: str) -> BucketInfo:
        """Raises NoSuchBucket."""

    @abstractmethod
    def list_buckets(self) -> list[BucketInfo]:
        """All buckets but the system bucket, sorted by name."""

    @abstractmethod
    def set_versioning(self, name: str, status: str) -> None:
        """Set a bucket's versioning to VERSIONING_ENABLED or VERSIONING_SUSPENDED (``get_bucket``
        reports it). Raises NoSuchBucket."""

    @abstractmethod
    def get_bucket_config(self, bucket: str, name: str) -> bytes | None:
        """A bucket configuration document (``lifecycle``, ``encryption``, ...) as last put, None when
        absent. Raises NoSuchBucket."""

    @abstractmethod
    def put_bucket_config(self, bucket: str, name: str, document: bytes | None) -> None:
        """Set (None: delete) a bucket configuration document; they go with the bucket. Raises
        NoSuchBucket."""

    # -- encryption at rest (store.encryption.EncryptingStore; backends keep these defaults) --------
    def with_encryption(self, params: EncryptionParams) -> ObjectStore:
        """This store for calls that carry a client's encryption parameters (an S3 request's SSE
        headers: the encryption a write asks for, SSE-C keys). Without an encryption layer any
        parameter is refused (NotImplemented) rather than ignored."""
        if params:
            from .encryption.errors import EncryptionNotSupported

            raise EncryptionNotSupported("This store has no server-side encryption.")
        return self

    def stage_for(self, bucket: str, key: str, *, upload_id: str | None = None, part_number: int | None = None) -> Staging:
        """A place to write the bytes of the object ``bucket/key`` (or of part ``part_number`` of the
        upload ``upload_id``): a store that encrypts does it as the bytes arrive, so it must know
        where they go. The Staging's ``size`` and ``md5_hex`` are those of the bytes written."""
        return self.stage()

    # -- objects -------------------------------------------------------------------------
    @abstractmethod
    def stage(self) -> Staging:
        """A place to write the bytes of a new object or part."""

    @abstractmethod
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
        """Make ``data`` the object's content (its new version, locked as ``lock`` says and tagged
        with ``tags``). Raises NoSuchBucket, PreconditionFailed."""

    @abstractmethod
    def get_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        """The latest version, or the version named. Raises NoSuchBucket, NoSuchKey (with the id of
        the delete marker that is the latest version, if one is), NoSuchVersion, DeleteMarkerVersion."""

    def tagged_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        """``get_object_info`` with the version's tags read, whatever the store's reads carry. Raises
        as ``get_object_info``."""
        return self.get_object_info(bucket, key, version_id)

    @abstractmethod
    def open_object(self, bucket: str, key: str, version_id: str | None = None) -> ObjectHandle:
        """Raises as ``get_object_info``."""

    @abstractmethod
    def part_range(self, info: ObjectInfo, part_number: int) -> tuple[int, int]:
        """Bytes ``[start, end)`` of part ``part_number`` (1 to ``info.parts_count``) of the multipart
        object ``info`` describes. Raises PreconditionFailed if the object was replaced since."""

    @abstractmethod
    def delete_object(
        self,
        bucket: str,
        key: str,
        condition: WriteCondition | None = None,
        *,
        version_id: str | None = None,
        bypass_governance: bool = False,
    ) -> DeleteResult:
        """Without ``version_id``: delete the object, or in a versioned bucket add a delete marker (in
        a suspended one, the marker is the null version). With it: remove that version for good (a
        missing one is no error); the next newest becomes the latest. Raises NoSuchBucket,
        PreconditionFailed, ObjectLocked (see object_lock.check_removal)."""

    @abstractmethod
    def set_object_lock(
        self,
        bucket: str,
        key: str,
        version_id: str | None,
        lock: ObjectLock,
        *,
        bypass_governance: bool = False,
    ) -> ObjectInfo:
        """Replace the retention and legal hold of a version (None: the latest). Raises NoSuchBucket,
        NoSuchKey, NoSuchVersion, DeleteMarkerVersion, ObjectLocked (see object_lock.check_change)."""

    @abstractmethod
    def set_object_tags(
        self, bucket: str, key: str, version_id: str | None, tags: dict[str, str]
    ) -> ObjectInfo:
        """Replace the tags of a version (None: the latest; ``{}`` removes them). Raises NoSuchBucket,
        NoSuchKey, NoSuchVersion, DeleteMarkerVersion."""

    @abstractmethod
    def set_object_metadata(
        self, bucket: str, key: str, version_id: str | None, metadata: dict[str, str]
    ) -> ObjectInfo:
        """Replace the user metadata of a version (None: the latest) in place: the version, its
        ETag and modification time stay (an object's ACL lives there). Raises as ``set_object_tags``."""

    @abstractmethod
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
        """Copy content and checksums (of the source's latest version, or ``src_version_id``); the
        copy is locked as ``lock`` says, whatever the source's lock. ``metadata`` None keeps the source's metadata,
        content type and headers (the COPY directive); a dict replaces all three. ``tags`` None keeps
        the source's tags; a dict replaces them."""

    @abstractmethod
    def list_objects(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        start_after: str = "",
        max_keys: int = 1000,
    ) -> ListPage:
        """Keys in UTF-8 byte order. With a delimiter, keys sharing ``prefix + X + delimiter``
        roll up into one common prefix; resuming after such a prefix skips all its keys."""

    @abstractmethod
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
        """Every version and delete marker, keys in UTF-8 byte order, each key's versions newest
        first; prefixes roll up as in ``list_objects``. Resumes after ``key_marker`` (after the
        version ``version_id_marker`` of that key, when given). A bucket never versioned lists its
        objects as their null versions. Entries carry tags where the store reads them (ObjectInfo.tags)."""

    # -- multipart -----------------------------------------------------------------------
    @abstractmethod
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
        """``checksum_type``: COMPOSITE or FULL_OBJECT, how the object's checksum of
        ``checksum_algorithm`` derives from its parts' (UploadInfo.checksum_type). The completed
        object gets ``lock`` and ``tags``."""

    @abstractmethod
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
        """Store (or replace) one part. Raises NoSuchUpload."""

    @abstractmethod
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
        """A part made of ``[start, end)`` of another object (of its version ``src_version_id``)."""

    @abstractmethod
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
        """Assemble the listed (part number, ETag) pairs. Raises NoSuchUpload, InvalidPart,
        InvalidPartOrder, EntityTooSmall (a part but the last under MIN_PART_SIZE),
        PreconditionFailed. The ETag is md5-of-part-md5s + ``-N``. Completing an upload completed
        already answers the object it made while that is the key's latest version, as S3 does
        (NoSuchUpload once it is not)."""

    @abstractmethod
    def abort_multipart_upload(self, bucket: str, key: str, upload_id: str) -> None:
        """Raises NoSuchUpload."""

    @abstractmethod
    def list_parts(
        self, bucket: str, key: str, upload_id: str, *, part_number_marker: int = 0, max_parts: int = 1000
    ) -> PartsPage: ...

    @abstractmethod
    def list_multipart_uploads(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        key_marker: str = "",
        upload_id_marker: str = "",
        max_uploads: int = 1000,
    ) -> UploadsPage: ...

    def close(self) -> None:
        """Release connections and files."""

    # -- conveniences for services that keep small documents in the store -----------------
    def put_bytes(
        self,
        bucket: str,
        key: str,
        data: bytes,
        *,
        content_type: str | None = None,
        condition: WriteCondition | None = None,
    ) -> ObjectInfo:
        staging = self.stage_for(bucket, key)
        try:
            staging.write(data)
            return self.put_object(bucket, key, staging, content_type=content_type, condition=condition)
        finally:
            staging.discard()

    def iter_objects(self, bucket: str, prefix: str = "") -> Iterator[ObjectInfo]:
        """Every object under ``prefix``, page after page (``list_objects`` without a delimiter)."""
        start_after = ""
        while True:
            page = self.list_objects(bucket, prefix=prefix, start_after=start_after)
            yield from page.objects
            if not page.is_truncated or not page.next_marker:
                return
            start_after = page.next_marker

    def get_bytes(self, bucket: str, key: str) -> tuple[ObjectInfo, bytes]:
        with self.open_object(bucket, key) as handle:
            return handle.info, handle.read()

    def ensure_bucket(self, name: str) -> None:
        from .errors import BucketAlreadyOwnedByYou

        try:
            self.create_bucket(name)
        except BucketAlreadyOwnedByYou:
            pass
