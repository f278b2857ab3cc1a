"""The object store engine, with no HTTP: buckets, objects, multipart uploads, listings.

Two backends share one interface (``ObjectStore``): ``LocalStore`` keeps bytes in files and the
index in SQLite; ``RemoteS3Store`` keeps everything in an existing S3-compatible endpoint.
"""

from .base import ObjectHandle, ObjectStore, Staging
from .errors import (
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    EntityTooSmall,
    InvalidPart,
    InvalidPartOrder,
    NoSuchBucket,
    NoSuchKey,
    NoSuchUpload,
    PreconditionFailed,
    StoreError,
)
from .local import LocalStore
from .remote import RemoteS3Store
from .types import (
    MAX_PART_NUMBER,
    MAX_PART_SIZE,
    MIN_PART_SIZE,
    SYSTEM_BUCKET,
    BucketInfo,
    ListPage,
    ObjectInfo,
    PartInfo,
    PartsPage,
    UploadInfo,
    UploadsPage,
    WriteCondition,
)

__all__ = [
    "MAX_PART_NUMBER",
    "MAX_PART_SIZE",
    "MIN_PART_SIZE",
    "SYSTEM_BUCKET",
    "BucketAlreadyOwnedByYou",
    "BucketInfo",
    "BucketNotEmpty",
    "EntityTooSmall",
    "InvalidPart",
    "InvalidPartOrder",
    "ListPage",
    "LocalStore",
    "NoSuchBucket",
    "NoSuchKey",
    "NoSuchUpload",
    "ObjectHandle",
    "ObjectInfo",
    "ObjectStore",
    "PartInfo",
    "PartsPage",
    "PreconditionFailed",
    "RemoteS3Store",
    "Staging",
    "StoreError",
    "UploadInfo",
    "UploadsPage",
    "WriteCondition",
]
