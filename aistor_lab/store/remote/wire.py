"""How store values travel through botocore for ``RemoteS3Store``: parameters, responses, errors."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, urlencode

from botocore.exceptions import ClientError

from ..encryption.stored import RESERVED_PREFIX
from ..errors import (
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    DeleteMarkerVersion,
    EntityTooSmall,
    InvalidPart,
    InvalidPartOrder,
    NoSuchBucket,
    NoSuchKey,
    NoSuchUpload,
    NoSuchVersion,
    ObjectLocked,
    PreconditionFailed,
    StoreError,
)
from ..object_lock import ObjectLock
from ..types import ObjectInfo, ObjectVersion, WriteCondition

# Our algorithm names -> botocore members, in the order of preference when a remote (like AWS)
# takes only one flexible checksum per request.
CHECKSUM_MEMBERS = {
    "crc32": "ChecksumCRC32",
    "crc32c": "ChecksumCRC32C",
    "crc64nvme": "ChecksumCRC64NVME",
    "sha1": "ChecksumSHA1",
    "sha256": "ChecksumSHA256",
}
# Stored standard headers -> botocore members. They are read back from the raw response headers,
# because botocore turns Expires into a datetime (and hides values it cannot parse).
HEADER_MEMBERS = {
    "Cache-Control": "CacheControl",
    "Content-Disposition": "ContentDisposition",
    "Content-Encoding": "ContentEncoding",
    "Content-Language": "ContentLanguage",
    "Expires": "Expires",
}
DEFAULT_CONTENT_TYPE = "binary/octet-stream"

_ERRORS_BY_CODE: dict[str, type[StoreError]] = {
    error.code: error
    for error in (
        BucketAlreadyOwnedByYou,
        BucketNotEmpty,
        EntityTooSmall,
        InvalidPart,
        InvalidPartOrder,
        NoSuchBucket,
        NoSuchKey,
        NoSuchUpload,
        NoSuchVersion,
        PreconditionFailed,
    )
}
# HEAD answers carry no body, so only the status tells what went wrong. AWS answers 409
# ConditionalRequestConflict when a concurrent conditional write won: for a caller that is a lost race.
_ERRORS_BY_CODE.update({"412": PreconditionFailed, "ConditionalRequestConflict": PreconditionFailed})


class RemoteError(StoreError):
    """An error of the remote endpoint with no store equivalent; keeps the remote's S3 code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def store_error(error: ClientError, missing: type[StoreError]) -> StoreError:
    """The store error for a remote error; ``missing`` is what a bare 404 means for this call."""
    details = error.response.get("Error", {})
    code = str(details.get("Code", ""))
    message = details.get("Message") or str(error)
    headers = error.response.get("ResponseMetadata", {}).get("HTTPHeaders", {})
    if headers.get("x-amz-delete-marker") == "true":
        # A read of a key whose latest version is a delete marker, or of a marker by its id (405).
        version_id = headers.get("x-amz-version-id")
        if code in ("405", "MethodNotAllowed"):
            modified = headers.get("last-modified")
            return DeleteMarkerVersion(
                version_id, parsedate_to_datetime(modified).timestamp() if modified else 0.0
            )
        return NoSuchKey(message, delete_marker=version_id)
    if code in ("404", "NotFound"):
        return missing()
    if code == ObjectLocked.code and message == ObjectLocked.wire_message:
        return ObjectLocked(message)
    known = _ERRORS_BY_CODE.get(code)
    if known is not None:
        return known(message)
    return RemoteError(code or "InternalError", f"remote S3 endpoint: {message}")


def strip_etag(value: str) -> str:
    return value.strip().strip('"')


def quote_etag(value: str) -> str:
    return value if value == "*" else f'"{strip_etag(value)}"'


def parts_count(etag: str) -> int | None:
    """S3 marks a multipart object's ETag with ``-N``, N being its number of parts."""
    _, dash, count = etag.rpartition("-")
    return int(count) if dash and count.isdigit() else None


def condition_params(condition: WriteCondition | None) -> dict[str, str]:
    params = {}
    if condition and condition.if_match is not None:
        params["IfMatch"] = quote_etag(condition.if_match)
    if condition and condition.if_none_match is not None:
        params["IfNoneMatch"] = condition.if_none_match.strip()
    return params


def checksum_params(checksums: Mapping[str, str] | None) -> dict[str, str]:
    """The preferred one of the given checksums: AWS refuses several in one request."""
    for algorithm, member in CHECKSUM_MEMBERS.items():
        if checksums and algorithm in checksums:
            return {member: checksums[algorithm]}
    return {}


def checksums_of(response: Mapping[str, Any]) -> dict[str, str]:
    return {
        algorithm: response[member] for algorithm, member in CHECKSUM_MEMBERS.items() if response.get(member)
    }


_WIRE_PREFIX = "aistor-front-"


def metadata_to_wire(metadata: Mapping[str, str]) -> dict[str, str]:
    """User metadata as the cluster keeps it. The service's own entries (an object's ACL and owner,
    its encryption) are under the reserved prefix, which an aistor-lab cluster refuses from its
    clients, as it should: they travel under another name."""
    return {_renamed(name.lower(), RESERVED_PREFIX, _WIRE_PREFIX): value for name, value in metadata.items()}


def metadata_from_wire(metadata: Mapping[str, str]) -> dict[str, str]:
    return {_renamed(name.lower(), _WIRE_PREFIX, RESERVED_PREFIX): value for name, value in metadata.items()}


def _renamed(name: str, prefix: str, replacement: str) -> str:
    return replacement + name[len(prefix):] if name.startswith(prefix) else name


def attribute_params(
    content_type: str | None, metadata: Mapping[str, str] | None, headers: Mapping[str, str] | None
) -> dict[str, Any]:
    """Content type, user metadata and stored headers as the parameters of a write."""
    # The type is always sent: remotes differ in the one they give an object written without
    # (SeaweedFS answers text/plain), S3's is binary/octet-stream.
    params: dict[str, Any] = {
        "Metadata": metadata_to_wire(metadata or {}),
        "ContentType": content_type or DEFAULT_CONTENT_TYPE,
    }
    for name, value in (headers or {}).items():
        if name == "Expires":
            # botocore sends Expires only as a date; an unparsable one is left out.
            try:
                params["Expires"] = parsedate_to_datetime(value)
            except (TypeError, ValueError):
                continue
        elif name in HEADER_MEMBERS:
            params[HEADER_MEMBERS[name]] = value
    return params


def response_date(response: Mapping[str, Any]) -> float:
    """The remote's clock at the time of a response (its ``Date`` header)."""
    return parsedate_to_datetime(response["ResponseMetadata"]["HTTPHeaders"]["date"]).timestamp()


def modified_time(moment: datetime) -> float:
    """Epoch seconds, whole: HEAD and GET tell the time in HTTP dates, which have no fractions,
    so listings and copy results (ISO 8601, with milliseconds) are cut to match them."""
    return float(math.floor(moment.timestamp()))


def object_info(bucket: str, key: str, response: Mapping[str, Any]) -> ObjectInfo:
    """The ObjectInfo of a HeadObject or GetObject response (of the whole object)."""
    raw_headers = response["ResponseMetadata"]["HTTPHeaders"]
    etag = strip_etag(response["ETag"])
    return ObjectInfo(
        bucket=bucket,
        key=key,
        size=response["ContentLength"],
        etag=etag,
        last_modified=modified_time(response["LastModified"]),
        content_type=response.get("ContentType") or DEFAULT_CONTENT_TYPE,
        metadata=metadata_from_wire(response.get("Metadata", {})),
        headers={name: raw_headers[name.lower()] for name in HEADER_MEMBERS if name.lower() in raw_headers},
        checksums=checksums_of(response),
        parts_count=response.get("PartsCount") or parts_count(etag),
        version_id=response.get("VersionId"),
        lock=_lock_of(response),
    )


def _lock_of(response: Mapping[str, Any]) -> ObjectLock:
    until = response.get("ObjectLockRetainUntilDate")
    return ObjectLock(
        response.get("ObjectLockMode"),
        until.timestamp() if until else None,
        response.get("ObjectLockLegalHoldStatus") == "ON",
    )


def lock_params(lock: ObjectLock) -> dict[str, Any]:
    """The object lock parameters of a write (PutObject, CopyObject, CreateMultipartUpload)."""
    params: dict[str, Any] = {}
    if lock.mode is not None:
        params["ObjectLockMode"] = lock.mode
        params["ObjectLockRetainUntilDate"] = datetime.fromtimestamp(lock.retain_until, UTC)
    if lock.legal_hold:
        params["ObjectLockLegalHoldStatus"] = "ON"
    return params


def tagging_params(tags: Mapping[str, str] | None) -> dict[str, str]:
    """The tags of a write (PutObject, CopyObject, CreateMultipartUpload): a URL-encoded query."""
    return {"Tagging": urlencode(dict(tags), quote_via=quote)} if tags else {}


def tag_set(tags: Mapping[str, str]) -> dict[str, list[dict[str, str]]]:
    """The Tagging member of PutObjectTagging."""
    return {"TagSet": [{"Key": name, "Value": value} for name, value in tags.items()]}


def retention_params(lock: ObjectLock) -> dict[str, Any]:
    """PutObjectRetention's Retention: empty removes it."""
    if lock.mode is None:
        return {}
    return {"Mode": lock.mode, "RetainUntilDate": datetime.fromtimestamp(lock.retain_until, UTC)}


def listed_object_info(bucket: str, entry: Mapping[str, Any]) -> ObjectInfo:
    """The ObjectInfo of a ListObjectsV2 entry: S3 listings carry no type, metadata or checksum values."""
    etag = strip_etag(entry["ETag"])
    return ObjectInfo(
        bucket=bucket,
        key=entry["Key"],
        size=entry["Size"],
        etag=etag,
        last_modified=modified_time(entry["LastModified"]),
        parts_count=parts_count(etag),
    )


def listed_versions(bucket: str, response: Mapping[str, Any]) -> list[ObjectVersion]:
    """The entries of a ListObjectVersions page in S3's order. botocore parses versions and delete
    markers into two lists, so the order is made again: keys in UTF-8 byte order, each key's latest
    first, then newest first."""
    entries = [
        ObjectVersion(
            replace(listed_object_info(bucket, entry), version_id=entry.get("VersionId")),
            bool(entry.get("IsLatest")),
        )
        for entry in response.get("Versions", [])
    ]
    entries += [
        ObjectVersion(
            ObjectInfo(
                bucket,
                entry["Key"],
                0,
                "",
                modified_time(entry["LastModified"]),
                version_id=entry.get("VersionId"),
            ),
            bool(entry.get("IsLatest")),
            is_delete_marker=True,
        )
        for entry in response.get("DeleteMarkers", [])
    ]
    return sorted(entries, key=lambda v: (v.info.key.encode(), not v.is_latest, -v.info.last_modified))
