"""Object versions on the wire: the version a request names, the version headers an answer carries,
and how a read of a deleted key or of a delete marker is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import NULL_VERSION, DeleteMarkerVersion, DeleteResult, NoSuchKey
from .errors import S3Error
from .xmlio import http_date

if TYPE_CHECKING:
    from .handler import S3Handler

VERSION_HEADER = "x-amz-version-id"
DELETE_MARKER_HEADER = "x-amz-delete-marker"


def check_version_id(value: str) -> str:
    """A version id a request names. An empty one cannot be anyone's: S3 answers InvalidArgument."""
    if not value:
        raise S3Error("InvalidArgument", "Invalid version id specified")
    return value


def requested_version(req: S3Handler) -> str | None:
    """The version ``?versionId`` names; None for the latest."""
    if "versionId" not in req.query:
        return None
    return check_version_id(req.query["versionId"])


def set_written_version(req: S3Handler, version_id: str | None) -> None:
    """The version a write made. The null version (a bucket suspended) goes unnamed, as MinIO and
    Ceph answer it: clients take a VersionId to mean the bucket keeps versions."""
    if version_id not in (None, NULL_VERSION):
        req.set_header(VERSION_HEADER, version_id)


def set_read_version(req: S3Handler, version_id: str | None) -> None:
    """The version a read answered (``null`` included); nothing in a bucket never versioned."""
    if version_id is not None:
        req.set_header(VERSION_HEADER, version_id)


def set_delete_headers(req: S3Handler, result: DeleteResult) -> None:
    set_read_version(req, result.version_id)
    if result.delete_marker:
        req.set_header(DELETE_MARKER_HEADER, "true")


def read_error(exc: NoSuchKey | DeleteMarkerVersion) -> S3Error:
    """A refused read, with the headers S3 sends: the key's latest version is a delete marker (404),
    or the version asked for is one (405, which has no content to send)."""
    if isinstance(exc, DeleteMarkerVersion):
        return S3Error("MethodNotAllowed", str(exc), headers={
            DELETE_MARKER_HEADER: "true", VERSION_HEADER: exc.version_id, "Last-Modified": http_date(exc.last_modified),
        })
    headers = {DELETE_MARKER_HEADER: "false"}
    if exc.delete_marker is not None:
        headers = {DELETE_MARKER_HEADER: "true", VERSION_HEADER: exc.delete_marker}
    return S3Error("NoSuchKey", str(exc) or "The specified key does not exist.", headers=headers)


async def read_object(req: S3Handler, reader, version_id: str | None):
    """``reader`` (the store's get_object_info or open_object) on the request's object and version,
    its refusals as S3 answers them."""
    try:
        return await req.run_read(reader, req.bucket, req.key, version_id)
    except (NoSuchKey, DeleteMarkerVersion) as exc:
        raise read_error(exc) from None
