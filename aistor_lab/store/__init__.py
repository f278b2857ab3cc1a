"""The object store engine, with no HTTP: buckets, objects, multipart uploads, listings.

Two backends share one interface (``ObjectStore``): ``LocalStore`` keeps bytes in files and the
index in SQLite; ``RemoteS3Store`` keeps everything in an existing S3-compatible endpoint.
"""

from .base import ObjectHandle, ObjectStore, Staging
from .errors import (
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    DeleteMarkerVersion,
    EntityTooSmall,
    InvalidBucketState,
    InvalidPart,
    InvalidPartOrder,
    NoSuchBucket,
    NoSuchKey,
    NoSuchUpload,
    NoSuchVersion,
    PreconditionFailed,
    StoreError,
)
from .local import LocalStore
from .remote import RemoteS3Store
from .types import (
    MAX_PART_NUMBER,
    MAX_PART_SIZE,
    MIN_PART_SIZE,
    NULL_VERSION,
    SYSTEM_BUCKET,
    VERSIONING_ENABLED,
    VERSIONING_SUSPENDED,
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

__all__ = [
    "MAX_PART_NUMBER",
    "MAX_PART_SIZE",
    "MIN_PART_SIZE",
    "NULL_VERSION",
    "SYSTEM_BUCKET",
    "VERSIONING_ENABLED",
    "VERSIONING_SUSPENDED",
    "BucketAlreadyOwnedByYou",
    "BucketInfo",
    "BucketNotEmpty",
    "DeleteMarkerVersion",
    "DeleteResult",
    "EntityTooSmall",
    "InvalidBucketState",
    "InvalidPart",
    "InvalidPartOrder",
    "ListPage",
    "LocalStore",
    "NoSuchBucket",
    "NoSuchKey",
    "NoSuchUpload",
    "NoSuchVersion",
    "ObjectHandle",
    "ObjectInfo",
    "ObjectStore",
    "ObjectVersion",
    "PartInfo",
    "PartsPage",
    "PreconditionFailed",
    "RemoteS3Store",
    "Staging",
    "StoreError",
    "UploadInfo",
    "UploadsPage",
    "VersionsPage",
    "WriteCondition",
]
