"""Multipart uploads: create, upload part (and part copy), complete, abort, list parts/uploads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import NoSuchUpload
from .acl_ops import object_owner
from .bucket_ops import write_owner
from .checksums import HEADER_PREFIX, TYPE_HEADER, checksum_type, normalize_algorithm, upload_checksum_type
from .encryption.answers import set_encryption_headers
from .errors import S3Error
from .multipart_checksums import listed_part_checksums, object_checksums
from .names import check_key
from .object_lock_ops import lock_of_write
from .object_ops import (
    copy_source_info,
    parse_copy_source,
    part_number,
    set_checksum_headers,
    write_attributes,
)
from .object_versions import set_written_version
from .preconditions import parse_copy_range, write_condition
from .tagging_ops import tags_of_write
from .xmlio import XmlWriter, child_text, iso8601, parse_xml

if TYPE_CHECKING:
    from .handler import S3Handler


def _max(req: S3Handler, name: str, default: int = 1000) -> int:
    value = req.query.get(name)
    if value is None:
        return default
    if not value.isdigit():
        raise S3Error("InvalidArgument", f"{name} must be a non-negative integer.")
    return min(int(value), default)


async def create_upload(req: S3Handler) -> None:
    check_key(req.key)
    content_type, metadata, stored = write_attributes(req)
    algorithm = normalize_algorithm(req.request.headers.get("x-amz-checksum-algorithm"))
    kind = upload_checksum_type(algorithm, req.request.headers.get(TYPE_HEADER))
    lock = await lock_of_write(req)
    tags = tags_of_write(req)
    upload = await req.run_blocking(
        req.store.create_multipart_upload,
        req.bucket,
        req.key,
        content_type=content_type,
        metadata=metadata,
        headers=stored,
        checksum_algorithm=algorithm,
        checksum_type=kind,
        lock=lock,
        tags=tags,
    )
    if algorithm:
        req.set_header("x-amz-checksum-algorithm", algorithm.upper())
        req.set_header(TYPE_HEADER, kind)
    set_encryption_headers(req, upload.encryption)
    xml = XmlWriter("InitiateMultipartUploadResult")
    xml.element("Bucket", req.bucket).element("Key", req.key).element("UploadId", upload.upload_id)
    req.send_xml(xml.to_bytes())


async def upload_part(req: S3Handler) -> None:
    number = part_number(req)
    staging = req.take_staging()
    try:
        checksums = req.checksums.verify(req.trailers, staging.md5_hex())
        part = await req.run_blocking(
            req.store.upload_part,
            req.bucket,
            req.key,
            req.query["uploadId"],
            number,
            staging,
            checksums=checksums,
        )
    finally:
        staging.discard()
    req.set_header("ETag", f'"{part.etag}"')
    for algorithm, value in checksums.items():
        req.set_header(HEADER_PREFIX + algorithm, value)
    set_encryption_headers(req, part.encryption)
    req.send_empty()


async def upload_part_copy(req: S3Handler) -> None:
    number = part_number(req)
    source = parse_copy_source(req)
    info = await copy_source_info(req, source)
    start, end = parse_copy_range(req.request.headers.get("x-amz-copy-source-range"), info.size)
    part = await req.run_blocking(
        req.store.upload_part_copy,
        req.bucket,
        req.key,
        req.query["uploadId"],
        number,
        source.bucket,
        source.key,
        start,
        end,
        src_version_id=source.version_id,
    )
    set_encryption_headers(req, part.encryption)
    xml = XmlWriter("CopyPartResult").element("ETag", f'"{part.etag}"')
    req.send_xml(xml.element("LastModified", iso8601(part.last_modified)).to_bytes())


async def complete_upload(req: S3Handler) -> None:
    root = parse_xml(bytes(req.body), "CompleteMultipartUpload")
    parts, listed = [], {}
    for element in root.findall("Part"):
        number, etag = child_text(element, "PartNumber"), child_text(element, "ETag")
        if number is None or etag is None or not number.strip().isdigit():
            raise S3Error("MalformedXML", "Each Part needs a numeric PartNumber and an ETag.")
        parts.append((int(number), etag.strip().strip('"')))
        listed[int(number)] = listed_part_checksums(element)
    if not parts:
        raise S3Error("MalformedXML", "You must specify at least one part.")
    upload_id = req.query["uploadId"]
    await req.run_read(req.services.table_guard.check_write, req.bucket, req.key)
    checksums = await req.run_read(_object_checksums, req, upload_id, parts, listed)
    info = await req.run_blocking(
        req.store.complete_multipart_upload,
        req.bucket,
        req.key,
        upload_id,
        parts,
        checksums=checksums,
        condition=write_condition(req.request.headers),
    )
    set_checksum_headers(req, info.checksums)
    set_written_version(req, info.version_id)
    set_encryption_headers(req, info.encryption)
    xml = XmlWriter("CompleteMultipartUploadResult")
    # The URL as the client addressed it, path or virtual-host style.
    xml.element("Location", f"{req.request.protocol}://{req.request.host}{req.request.path}")
    xml.element("Bucket", req.bucket).element("Key", req.key).element("ETag", f'"{info.etag}"')
    for algorithm, value in info.checksums.items():
        xml.element("Checksum" + algorithm.upper(), value)
    if info.checksums:
        xml.element("ChecksumType", checksum_type(info.checksums))
    req.send_xml(xml.to_bytes())


def _object_checksums(
    req: S3Handler, upload_id: str, parts: list[tuple[int, str]], listed: dict[int, dict[str, str]]
) -> dict[str, str]:
    """The checksum the object gets (multipart_checksums.py); nothing to compute for an upload gone:
    the store answers a repeated completion with the object it made, or NoSuchUpload."""
    try:
        page = req.store.list_parts(req.bucket, req.key, upload_id, max_parts=10000)
    except NoSuchUpload:
        return {}
    stored = {part.part_number: part for part in page.parts}
    return object_checksums(page.upload, stored, parts, listed, req.request.headers)


async def abort_upload(req: S3Handler) -> None:
    await req.run_blocking(req.store.abort_multipart_upload, req.bucket, req.key, req.query["uploadId"])
    req.send_empty(204)


async def list_parts(req: S3Handler) -> None:
    marker = req.query.get("part-number-marker", "0")
    if not marker.isdigit():
        raise S3Error("InvalidArgument", "part-number-marker must be an integer.")
    page = await req.run_blocking(
        req.store.list_parts,
        req.bucket,
        req.key,
        req.query["uploadId"],
        part_number_marker=int(marker),
        max_parts=_max(req, "max-parts"),
    )
    xml = XmlWriter("ListPartsResult")
    xml.element("Bucket", req.bucket).element("Key", req.key).element("UploadId", page.upload.upload_id)
    xml.element("PartNumberMarker", int(marker)).element("NextPartNumberMarker", page.next_part_marker or 0)
    xml.element("MaxParts", _max(req, "max-parts")).element("IsTruncated", page.is_truncated)
    bucket_owner = (await req.services.bucket_access.of_request(req)).acl.owner
    _write_owners(xml, page.upload.metadata, bucket_owner)
    algorithm = page.upload.checksum_algorithm
    if algorithm:
        xml.element("ChecksumAlgorithm", algorithm.upper())
        xml.element("ChecksumType", page.upload.checksum_type or upload_checksum_type(algorithm, None))
    xml.element("StorageClass", "STANDARD")
    for part in page.parts:
        xml.open("Part").element("PartNumber", part.part_number)
        xml.element("LastModified", iso8601(part.last_modified)).element("ETag", f'"{part.etag}"')
        xml.element("Size", part.size)
        for algorithm, value in part.checksums.items():
            xml.element("Checksum" + algorithm.upper(), value)
        xml.close("Part")
    req.send_xml(xml.to_bytes())


async def list_uploads(req: S3Handler) -> None:
    query = req.query
    page = await req.run_blocking(
        req.store.list_multipart_uploads,
        req.bucket,
        prefix=query.get("prefix", ""),
        delimiter=query.get("delimiter", ""),
        key_marker=query.get("key-marker", ""),
        upload_id_marker=query.get("upload-id-marker", ""),
        max_uploads=_max(req, "max-uploads"),
    )
    xml = XmlWriter("ListMultipartUploadsResult").element("Bucket", req.bucket)
    xml.element("KeyMarker", query.get("key-marker", "")).element("UploadIdMarker", query.get("upload-id-marker", ""))
    xml.element("NextKeyMarker", page.next_key_marker or "")
    xml.element("NextUploadIdMarker", page.next_upload_id_marker or "")
    xml.element("Prefix", query.get("prefix", ""))
    if query.get("delimiter"):
        xml.element("Delimiter", query["delimiter"])
    xml.element("MaxUploads", _max(req, "max-uploads")).element("IsTruncated", page.is_truncated)
    bucket_owner = (await req.services.bucket_access.of_request(req)).acl.owner
    for upload in page.uploads:
        xml.open("Upload").element("Key", upload.key).element("UploadId", upload.upload_id)
        _write_owners(xml, upload.metadata, bucket_owner)
        xml.element("StorageClass", "STANDARD").element("Initiated", iso8601(upload.initiated)).close("Upload")
    for common in page.common_prefixes:
        xml.open("CommonPrefixes").element("Prefix", common).close("CommonPrefixes")
    req.send_xml(xml.to_bytes())


def _write_owners(xml: XmlWriter, metadata: dict[str, str], bucket_owner: str) -> None:
    """An upload's Initiator and Owner: the object's owner-to-be (acl_ops.object_acl_metadata)."""
    owner = object_owner(metadata, bucket_owner)
    write_owner(xml, owner, "Initiator")
    write_owner(xml, owner)
