"""Object operations: put, get/head (ranges, preconditions), delete, batch delete, copy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..http.limits import StallWatch
from ..store import MAX_PART_NUMBER, DeleteMarkerVersion, DeleteResult, NoSuchKey, ObjectInfo, WriteCondition
from .acl_ops import access_entries, object_acl_metadata
from .checksums import HEADER_PREFIX, TYPE_HEADER, checksum_type
from .encryption.answers import set_encryption_headers
from .errors import S3Error
from .lifecycle_ops import set_expiration_header
from .names import check_bucket_name, check_key, check_visible_bucket, decode_wire
from .object_lock_ops import governance_bypass, lock_of_write, set_lock_headers
from .object_versions import (
    check_version_id,
    read_object,
    requested_version,
    set_delete_headers,
    set_read_version,
    set_written_version,
)
from .preconditions import check_read_preconditions, delete_condition, parse_range, write_condition
from .tagging_ops import set_count_header, tags_of_write
from .user_metadata import metadata_headers, request_metadata, visible_metadata
from .xmlio import XmlWriter, child_text, http_date, iso8601, parse_xml

# Answers up to this size fit in a loopback or LAN socket's send buffer: their flush never waits.
UNWATCHED_ANSWER = 64 * 1024

if TYPE_CHECKING:
    from .handler import S3Handler

STORED_HEADERS = ("Cache-Control", "Content-Disposition", "Content-Encoding", "Content-Language", "Expires")
RESPONSE_OVERRIDES = {
    "response-content-type": "Content-Type",
    "response-content-language": "Content-Language",
    "response-expires": "Expires",
    "response-cache-control": "Cache-Control",
    "response-content-disposition": "Content-Disposition",
    "response-content-encoding": "Content-Encoding",
}
MAX_DELETE_KEYS = 1000


def object_attributes(headers: Mapping[str, str]) -> tuple[str, dict[str, str], dict[str, str]]:
    """Content type, user metadata and stored standard headers of a write request."""
    stored = {}
    for name in STORED_HEADERS:
        value = headers.get(name)
        if name == "Content-Encoding" and value:
            # aws-chunked is transport framing, not a property of the object: only it goes, the
            # rest stays as sent ("deflate, gzip").
            value = ",".join(part for part in value.split(",") if part.strip().lower() != "aws-chunked").strip()
        if value:
            stored[name] = value
    return headers.get("Content-Type") or "binary/octet-stream", request_metadata(headers), stored


def write_attributes(req: S3Handler) -> tuple[str, dict[str, str], dict[str, str]]:
    """``object_attributes`` of a write request, its canned ACL (``x-amz-acl``) kept in the metadata."""
    content_type, metadata, stored = object_attributes(req.request.headers)
    return content_type, {**metadata, **object_acl_metadata(req)}, stored


def set_checksum_headers(req: S3Handler, checksums: Mapping[str, str], kind: str | None = None) -> None:
    """The checksums and their type (``kind``, else the type of ``checksums``: a part's checksums
    are of the type of their object's)."""
    for algorithm, value in checksums.items():
        req.set_header(HEADER_PREFIX + algorithm, value)
    if checksums:
        req.set_header(TYPE_HEADER, kind or checksum_type(checksums))


async def put_object(req: S3Handler) -> None:
    await write_staged(req)
    req.send_empty()


async def write_staged(req: S3Handler) -> ObjectInfo:
    """Commit the staged body as ``req.key``, as the request's headers describe it, and set the
    answer's headers of the write (PutObject, and POST Object whose form fields are its headers)."""
    check_key(req.key)
    staging = req.take_staging()
    try:
        await req.run_read(req.services.table_guard.check_write, req.bucket, req.key, staging.size)
        checksums = req.checksums.verify(req.trailers, staging.md5_hex())
        content_type, metadata, stored = write_attributes(req)
        lock = await lock_of_write(req)
        tags = tags_of_write(req)
        info = await req.run_blocking(
            req.store.put_object,
            req.bucket,
            req.key,
            staging,
            content_type=content_type,
            metadata=metadata,
            headers=stored,
            checksums=checksums,
            condition=write_condition(req.request.headers),
            lock=lock,
            tags=tags,
        )
    finally:
        staging.discard()
    req.set_header("ETag", f'"{info.etag}"')
    set_written_version(req, info.version_id)
    set_checksum_headers(req, checksums)
    await set_expiration_header(req, info)
    set_encryption_headers(req, info.encryption)
    return info


def _set_object_headers(req: S3Handler, info: ObjectInfo) -> None:
    req.set_header("ETag", f'"{info.etag}"')
    req.set_header("Last-Modified", http_date(info.last_modified))
    req.set_header("Content-Type", info.content_type)
    req.set_header("Accept-Ranges", "bytes")
    set_read_version(req, info.version_id)
    for name, value in info.headers.items():
        req.set_header(name, value)
    for name, value in metadata_headers(info.metadata).items():
        req.set_header(name, value)
    if info.parts_count:
        req.set_header("x-amz-mp-parts-count", str(info.parts_count))
    set_lock_headers(req, info.lock)
    set_encryption_headers(req, info.encryption)
    set_count_header(req, info.tags)
    for query_name, header in RESPONSE_OVERRIDES.items():
        if query_name in req.query:
            req.set_header(header, req.query[query_name])


async def get_object(req: S3Handler) -> None:
    """GET and HEAD: preconditions, an optional byte range, then the bytes in 1 MiB chunks."""
    head = req.request.method == "HEAD"
    opener = req.store.get_object_info if head else req.store.open_object
    found = await read_object(req, opener, requested_version(req))
    handle = None if head else found
    info = found if head else found.info
    try:
        check_read_preconditions(info, req.request.headers)
        if "partNumber" in req.query:
            byte_range = await _part_range(req, info)
        else:
            byte_range = parse_range(req.request.headers.get("Range"), info.size)
        _set_object_headers(req, info)
        await set_expiration_header(req, info)
        start, end = byte_range or (0, info.size)
        if byte_range is not None:
            req.set_status(206)
            req.set_header("Content-Range", f"bytes {start}-{end - 1}/{info.size}")
        if req.request.headers.get("x-amz-checksum-mode", "").upper() == "ENABLED":
            if "partNumber" in req.query and info.parts_count:
                set_checksum_headers(req, info.part_checksums_of(part_number(req)), checksum_type(info.checksums))
            elif byte_range is None or "partNumber" in req.query:
                set_checksum_headers(req, info.checksums)
        req.set_header("Content-Length", str(end - start))
        if handle is not None:
            # A client that stops reading may not hold the connection and the file open forever; an
            # answer the socket's buffers take whole cannot stall, so small GETs arm no timer.
            stall = None
            if end - start > UNWATCHED_ANSWER:
                stall = StallWatch(req.request.connection, req.services.settings.body_timeout_seconds)
            try:
                for chunk in handle.iter_range(start, end):
                    req.write(chunk)
                    await req.flush()
                    if stall is not None:
                        stall.touch()
            finally:
                if stall is not None:
                    stall.stop()
        req.finish()
    except S3Error as error:
        if error.code == "InvalidRange":
            req.set_header("Content-Range", f"bytes */{info.size}")
        raise
    finally:
        if handle is not None:
            handle.close()


async def _part_range(req: S3Handler, info: ObjectInfo) -> tuple[int, int] | None:
    """The bytes of ``?partNumber=N``: that part of a multipart object; part 1 of any other object
    is all of it. None for an empty object, which has no range to send."""
    if "Range" in req.request.headers:
        raise S3Error("InvalidRequest", "Cannot specify both Range header and partNumber query parameter.")
    number = part_number(req)
    if number > (info.parts_count or 1):
        raise S3Error("InvalidPartNumber", "The requested partnumber is not satisfiable.")
    if not info.parts_count:
        return (0, info.size) if info.size else None
    return await req.run_read(req.store.part_range, info, number)


def part_number(req: S3Handler) -> int:
    value = req.query.get("partNumber", "")
    if not value.isdigit() or not 1 <= int(value) <= MAX_PART_NUMBER:
        raise S3Error("InvalidArgument", f"Part number must be an integer between 1 and {MAX_PART_NUMBER}.")
    return int(value)


async def delete_object(req: S3Handler) -> None:
    version_id = requested_version(req)
    await req.run_read(req.services.table_guard.check_delete, req.bucket, req.key, version_id)
    result = await req.run_blocking(
        req.store.delete_object, req.bucket, req.key, delete_condition(req.request.headers), version_id=version_id,
        bypass_governance=version_id is not None and governance_bypass(req, req.key),
    )
    set_delete_headers(req, result)
    req.send_empty(204)


async def delete_objects(req: S3Handler) -> None:
    root = parse_xml(bytes(req.body), "Delete")
    quiet = (child_text(root, "Quiet") or "").strip().lower() == "true"
    objects = [_ObjectToDelete.of(element) for element in root.findall("Object")]
    if not objects or len(objects) > MAX_DELETE_KEYS or any(entry.key is None for entry in objects):
        raise S3Error("MalformedXML", f"A Delete request names 1 to {MAX_DELETE_KEYS} objects, each with a Key.")
    await req.run_blocking(req.store.get_bucket, req.bucket)
    outcomes = await req.run_blocking(_delete_each, req, objects)
    xml = XmlWriter("DeleteResult")
    for (key, version_id, *_), outcome in zip(objects, outcomes, strict=True):
        if isinstance(outcome, S3Error):
            xml.open("Error").element("Key", key).element("VersionId", version_id).element("Code", outcome.code)
            xml.element("Message", outcome.message).close("Error")
        elif not quiet:
            xml.open("Deleted").element("Key", key).element("VersionId", version_id)
            if outcome.delete_marker:
                # A marker this delete made, or the marker it removed: S3 names it either way.
                xml.element("DeleteMarker", True).element("DeleteMarkerVersionId", outcome.version_id)
            xml.close("Deleted")
    req.send_xml(xml.to_bytes())


class _ObjectToDelete(NamedTuple):
    key: str | None
    version_id: str | None
    etag: str | None  # deleted only if it still has this ETag
    unchecked: bool  # names a condition only directory buckets check (LastModifiedTime, Size)

    @classmethod
    def of(cls, element) -> _ObjectToDelete:
        unchecked = any(element.find(tag) is not None for tag in ("LastModifiedTime", "Size"))
        return cls(child_text(element, "Key"), child_text(element, "VersionId"), child_text(element, "ETag"), unchecked)


def _delete_each(req: S3Handler, objects: list[_ObjectToDelete]) -> list[DeleteResult | S3Error]:
    outcomes: list[DeleteResult | S3Error] = []
    for key, version_id, etag, unchecked in objects:
        try:
            if unchecked:
                raise S3Error("NotImplemented", "Deletes conditional on LastModifiedTime or Size are not implemented.")
            if version_id is not None:
                check_version_id(version_id)
            req.authorize("s3:DeleteObject" if version_id is None else "s3:DeleteObjectVersion", req.bucket, key)
            req.services.table_guard.check_delete(req.bucket, key, version_id)
            condition = None if etag is None else WriteCondition(if_match=etag)
            bypass = version_id is not None and governance_bypass(req, key)
            outcomes.append(
                req.store.delete_object(req.bucket, key, condition, version_id=version_id, bypass_governance=bypass)
            )
        except Exception as exc:  # noqa: BLE001 - one key's failure is reported in its entry
            outcomes.append(S3Error.from_exception(exc))
    return outcomes


@dataclass(frozen=True)
class CopySource:
    bucket: str
    key: str
    version_id: str | None  # None: the latest version


def parse_copy_source(req: S3Handler) -> CopySource:
    """``x-amz-copy-source``: ``bucket/key``, URL-encoded, and ``?versionId=`` to name a version. The
    version is split off before decoding, so an encoded ``?`` stays in the key."""
    raw = req.request.headers["x-amz-copy-source"]
    raw_path, named, raw_version = raw.partition("?versionId=")
    source = decode_wire(raw_path, "The copy source").lstrip("/")
    bucket, _, key = source.partition("/")
    if not bucket or not key:
        raise S3Error("InvalidArgument", "Copy Source must mention the source bucket and key: bucket/key.")
    version_id = check_version_id(decode_wire(raw_version, "The copy source version")) if named else None
    check_visible_bucket(req.store, bucket)
    check_bucket_name(bucket)
    req.authorize("s3:GetObject" if version_id is None else "s3:GetObjectVersion", bucket, key)
    return CopySource(bucket, key, version_id)


async def copy_source_info(req: S3Handler, source: CopySource) -> ObjectInfo:
    try:
        info = await req.run_read(req.store.get_object_info, source.bucket, source.key, source.version_id)
    except NoSuchKey:
        raise S3Error("NoSuchKey", "The specified copy source key does not exist.") from None
    except DeleteMarkerVersion:
        raise S3Error(
            "InvalidRequest", "The source of a copy request may not specifically refer to a delete marker by version id."
        ) from None
    check_read_preconditions(info, req.request.headers, prefix="x-amz-copy-source-")
    if info.version_id is not None:
        req.set_header("x-amz-copy-source-version-id", info.version_id)
    return info


async def copy_object(req: S3Handler) -> None:
    check_key(req.key)
    source = parse_copy_source(req)
    source_info = await copy_source_info(req, source)
    directive = req.request.headers.get("x-amz-metadata-directive", "COPY").upper()
    if directive not in ("COPY", "REPLACE"):
        raise S3Error("InvalidArgument", "Unknown metadata directive.")
    # Copying a named version over its key is how S3 restores an older version.
    if directive == "COPY" and (source.bucket, source.key, source.version_id) == (req.bucket, req.key, None):
        raise S3Error(
            "InvalidRequest",
            "This copy request is illegal because it is trying to copy an object to itself without "
            "changing the object's metadata.",
        )
    await req.run_read(req.services.table_guard.check_write, req.bucket, req.key, source_info.size)
    lock = await lock_of_write(req)
    tags = tags_of_write(req)
    replace = {}
    if directive == "REPLACE":
        content_type, metadata, stored = write_attributes(req)
        replace = {"metadata": metadata, "content_type": content_type, "headers": stored}
    else:
        # The copy's ACL and owner are the request's, never the source's (S3: a copy is private and
        # its writer's unless asked otherwise).
        entries = object_acl_metadata(req)
        if entries != access_entries(source_info.metadata):
            metadata = {**visible_metadata(source_info.metadata), **entries}
            replace = {"metadata": metadata, "content_type": source_info.content_type,
                       "headers": source_info.headers}
    info = await req.run_blocking(
        req.store.copy_object,
        source.bucket,
        source.key,
        req.bucket,
        req.key,
        condition=write_condition(req.request.headers),
        src_version_id=source.version_id,
        lock=lock,
        tags=tags,
        **replace,
    )
    set_written_version(req, info.version_id)
    set_encryption_headers(req, info.encryption)
    xml = XmlWriter("CopyObjectResult").element("ETag", f'"{info.etag}"')
    xml.element("LastModified", iso8601(info.last_modified))
    for algorithm, value in info.checksums.items():
        xml.element("Checksum" + algorithm.upper(), value)
    req.send_xml(xml.to_bytes())
