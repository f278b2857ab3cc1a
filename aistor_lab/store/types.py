"""Plain values passed across the store interface."""

from __future__ import annotations

from dataclasses import dataclass, field

from .object_lock import NO_LOCK, ObjectLock

# Parts of a multipart upload other than the last must be at least this big (as S3 requires).
MIN_PART_SIZE = 5 * 1024 * 1024
MAX_PART_SIZE = 5 * 1024 * 1024 * 1024
MAX_PART_NUMBER = 10000

# The bucket where services keep their own state (IAM, catalog pointers, shares). Its name is not
# a valid S3 bucket name, and the APIs refuse every name ObjectStore.is_system_bucket holds for.
SYSTEM_BUCKET = ".aistor-system"

# A bucket's versioning state: None until versioning is first configured (objects then carry no
# version id at all), then one of these two. Objects written while a bucket is unversioned or
# suspended are its "null" version, as in S3.
VERSIONING_ENABLED = "Enabled"
VERSIONING_SUSPENDED = "Suspended"
NULL_VERSION = "null"


@dataclass(frozen=True)
class ObjectEncryption:
    """How an object (or upload) is encrypted at rest, as answers describe it: never its keys."""

    mode: str  # "AES256" (SSE-S3), "aws:kms" (SSE-KMS) or "SSE-C"
    kms_key_id: str | None = None  # SSE-KMS: the key ring's key
    kms_context: dict[str, str] | None = None  # SSE-KMS: the client's encryption context
    bucket_key_enabled: bool = False


@dataclass(frozen=True)
class BucketInfo:
    name: str
    created: float  # epoch seconds
    versioning: str | None = None  # VERSIONING_ENABLED, VERSIONING_SUSPENDED, or None: never configured


@dataclass(frozen=True)
class ObjectInfo:
    bucket: str
    key: str
    size: int
    etag: str  # hex MD5 (or md5-of-md5s-N for multipart), without quotes
    last_modified: float  # epoch seconds
    content_type: str = "binary/octet-stream"
    # User metadata: lower-case names without the ``x-amz-meta-`` prefix.
    metadata: dict[str, str] = field(default_factory=dict)
    # Other standard headers stored with the object: Cache-Control, Content-Disposition,
    # Content-Encoding, Content-Language, Expires (canonical capitalisation).
    headers: dict[str, str] = field(default_factory=dict)
    # Flexible checksums: algorithm ("crc32", "crc32c", "crc64nvme", "sha1", "sha256") -> base64.
    # Multipart objects hold composite values ending in ``-N``, or full-object CRCs (no suffix).
    checksums: dict[str, str] = field(default_factory=dict)
    parts_count: int | None = None
    # Sizes of a multipart object's parts, in order, where the store reads them with the object (the
    # local store's single-object reads); GET ?partNumber=N asks the store for the part's bytes.
    part_sizes: tuple[int, ...] = ()
    # The checksums of those parts, in order, where the store reads them with the object (as part_sizes).
    part_checksums: tuple[dict[str, str], ...] = ()
    # None in a bucket whose versioning was never configured; else the version id (NULL_VERSION for
    # the null version).
    version_id: str | None = None
    # Retention and legal hold, where the store reads them with the object (single-object reads).
    lock: ObjectLock = NO_LOCK
    # Server-side encryption at rest (store.encryption): None for an object stored in the clear.
    encryption: ObjectEncryption | None = None
    # Object tags (the S3 layer enforces S3's limits), where the store reads them with the object (the
    # local store's single-object reads and version listings); tagged_object_info reads them anywhere.
    tags: dict[str, str] = field(default_factory=dict)

    def part_checksums_of(self, part_number: int) -> dict[str, str]:
        """The checksums part ``part_number`` was uploaded with, where the store read them."""
        return self.part_checksums[part_number - 1] if part_number <= len(self.part_checksums) else {}


@dataclass(frozen=True)
class WriteCondition:
    """Conditional-write headers, checked in the same transaction that writes."""

    if_match: str | None = None  # an ETag (quotes allowed) or "*"
    if_none_match: str | None = None  # "*" (the key must be absent) or ETags it must not have

    def __bool__(self) -> bool:
        return self.if_match is not None or self.if_none_match is not None


@dataclass(frozen=True)
class ListPage:
    objects: list[ObjectInfo]
    common_prefixes: list[str]
    is_truncated: bool
    # The last key or common prefix returned; pass it back as ``start_after`` for the next page.
    next_marker: str | None


@dataclass(frozen=True)
class ObjectVersion:
    """One entry of ListObjectVersions: an object version, or a delete marker (whose ``info`` has
    only bucket, key, version id and last-modified meaningful)."""

    info: ObjectInfo
    is_latest: bool
    is_delete_marker: bool = False


@dataclass(frozen=True)
class VersionsPage:
    versions: list[ObjectVersion]
    common_prefixes: list[str]
    is_truncated: bool
    # Where the next page starts: pass back as ``key_marker`` / ``version_id_marker``.
    next_key_marker: str | None
    next_version_id_marker: str | None


@dataclass(frozen=True)
class DeleteResult:
    """What a delete did: ``version_id`` of the version removed or of the delete marker created (None
    in a bucket never versioned); ``delete_marker`` when a marker was created or removed."""

    deleted: bool
    version_id: str | None = None
    delete_marker: bool = False

    def __bool__(self) -> bool:
        return self.deleted


@dataclass(frozen=True)
class PartInfo:
    part_number: int
    etag: str
    size: int
    last_modified: float
    checksums: dict[str, str] = field(default_factory=dict)
    encryption: ObjectEncryption | None = None  # the upload's, where the store tells it


@dataclass(frozen=True)
class UploadInfo:
    bucket: str
    key: str
    upload_id: str
    initiated: float
    content_type: str = "binary/octet-stream"
    metadata: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    checksum_algorithm: str | None = None
    lock: ObjectLock = NO_LOCK  # what the completed object version gets
    # How the object's checksum derives from the parts': "COMPOSITE" (a checksum of the parts'
    # checksums, ``-N``) or "FULL_OBJECT" (the CRC of the whole object); None without an algorithm.
    checksum_type: str | None = None
    encryption: ObjectEncryption | None = None  # what the completed object is encrypted with
    tags: dict[str, str] = field(default_factory=dict)  # what the completed object is tagged with


@dataclass(frozen=True)
class PartsPage:
    upload: UploadInfo
    parts: list[PartInfo]
    is_truncated: bool
    next_part_marker: int | None


@dataclass(frozen=True)
class UploadsPage:
    uploads: list[UploadInfo]
    common_prefixes: list[str]
    is_truncated: bool
    next_key_marker: str | None
    next_upload_id_marker: str | None
