"""GetObjectAttributes: what HEAD tells of an object, as XML, for the attributes the client names.

ObjectParts lists each part's number, size and the checksums it was uploaded with (paged by
``x-amz-max-parts`` and ``x-amz-part-number-marker``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import ObjectInfo
from .checksums import checksum_type
from .errors import S3Error
from .object_versions import read_object, requested_version, set_read_version
from .xmlio import XmlWriter, http_date

if TYPE_CHECKING:
    from .handler import S3Handler

ATTRIBUTES = frozenset({"ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"})
MAX_PARTS = 1000


def requested_attributes(header: str | None) -> set[str]:
    names = {name.strip() for name in (header or "").split(",") if name.strip()}
    if not names:
        raise S3Error("InvalidArgument", "The x-amz-object-attributes header specifying the attributes "
                      "to be retrieved is either missing or empty.")  # fmt: skip
    unknown = names - ATTRIBUTES
    if unknown:
        raise S3Error("InvalidArgument", f"Invalid attribute name specified: {min(unknown)}.")
    return names


async def get_object_attributes(req: S3Handler) -> None:
    names = requested_attributes(req.request.headers.get("x-amz-object-attributes"))
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    xml = XmlWriter("GetObjectAttributesResponse")
    if "ETag" in names:
        xml.element("ETag", info.etag)
    if "Checksum" in names and info.checksums:
        xml.open("Checksum")
        for algorithm, value in info.checksums.items():
            xml.element("Checksum" + algorithm.upper(), value)
        xml.element("ChecksumType", checksum_type(info.checksums)).close("Checksum")
    if "ObjectParts" in names and info.parts_count:
        await _write_parts(req, info, xml)
    if "StorageClass" in names:
        xml.element("StorageClass", "STANDARD")
    if "ObjectSize" in names:
        xml.element("ObjectSize", info.size)
    req.set_header("Last-Modified", http_date(info.last_modified))
    set_read_version(req, info.version_id)
    req.send_xml(xml.to_bytes())


async def _write_parts(req: S3Handler, info: ObjectInfo, xml: XmlWriter) -> None:
    marker = _int_header(req, "x-amz-part-number-marker", 0)
    max_parts = min(_int_header(req, "x-amz-max-parts", MAX_PARTS), MAX_PARTS)
    numbers = range(marker + 1, min(marker + max_parts, info.parts_count) + 1)
    xml.open("ObjectParts").element("PartsCount", info.parts_count)
    xml.element("PartNumberMarker", marker).element("MaxParts", max_parts)
    truncated = marker + max_parts < info.parts_count
    xml.element("IsTruncated", "true" if truncated else "false")
    if truncated:
        xml.element("NextPartNumberMarker", numbers[-1] if numbers else marker)
    for number in numbers:
        start, end = await req.run_read(req.store.part_range, info, number)
        xml.open("Part").element("PartNumber", number).element("Size", end - start)
        for algorithm, value in info.part_checksums_of(number).items():
            xml.element("Checksum" + algorithm.upper(), value)
        xml.close("Part")
    xml.close("ObjectParts")


def _int_header(req: S3Handler, name: str, default: int) -> int:
    value = req.request.headers.get(name)
    if value is None:
        return default
    if not value.isdigit():
        raise S3Error("InvalidArgument", f"{name} must be a non-negative integer.")
    return int(value)
