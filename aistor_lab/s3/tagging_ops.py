"""Object and bucket tagging: PutObjectTagging, GetObjectTagging, DeleteObjectTagging (``?tagging`` on
an object, optionally of a version), the ``x-amz-tagging`` header of writes (PutObject, CopyObject with
``x-amz-tagging-directive``, CreateMultipartUpload), ``x-amz-tagging-count`` on reads, and bucket tags
(``?tagging`` on a bucket, kept with the bucket as a configuration document).

Tags are checked as S3 checks them: at most 10 per object (50 per bucket), keys of 1 to 128 and values
of at most 256 Unicode characters, no key twice, none starting with ``aws:`` (InvalidTag).
Tag sets are answered sorted by key, as Ceph and MinIO answer them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from .errors import S3Error
from .object_versions import read_object, requested_version, set_read_version
from .xmlio import XmlWriter, child_text, parse_xml

if TYPE_CHECKING:
    from .handler import S3Handler

TAGGING_HEADER = "x-amz-tagging"
DIRECTIVE_HEADER = "x-amz-tagging-directive"
COUNT_HEADER = "x-amz-tagging-count"
BUCKET_CONFIG_NAME = "tagging"
MAX_OBJECT_TAGS = 10
MAX_BUCKET_TAGS = 50
MAX_KEY_LENGTH = 128
MAX_VALUE_LENGTH = 256
_MALFORMED = "The XML you provided was not well-formed or did not validate against our published schema"


def check_tags(pairs: list[tuple[str, str]], limit: int = MAX_OBJECT_TAGS) -> dict[str, str]:
    """The tag set of ``pairs`` (in their order), or InvalidTag for the first rule they break."""
    if len(pairs) > limit:
        raise S3Error("InvalidTag", f"Object tags cannot be greater than {limit}")
    tags: dict[str, str] = {}
    for key, value in pairs:
        if not key or len(key) > MAX_KEY_LENGTH:
            raise S3Error("InvalidTag", f"The TagKey you have provided is invalid: 1 to {MAX_KEY_LENGTH} characters.")
        if len(value) > MAX_VALUE_LENGTH:
            raise S3Error("InvalidTag", f"The TagValue you have provided is too long, max {MAX_VALUE_LENGTH}")
        if key.lower().startswith("aws:"):
            raise S3Error("InvalidTag", "Your TagKey cannot be prefixed with aws:")
        if key in tags:
            raise S3Error("InvalidTag", "Cannot provide multiple Tags with the same key")
        tags[key] = value
    return tags


def parse_tagging_document(body: bytes, limit: int = MAX_OBJECT_TAGS) -> dict[str, str]:
    """A ``<Tagging><TagSet><Tag><Key/><Value/></Tag>...`` document: MalformedXML unless each Tag has
    one Key and one Value."""
    tag_set = parse_xml(body, "Tagging").find("TagSet")
    if tag_set is None:
        raise S3Error("MalformedXML", _MALFORMED)
    pairs = []
    for tag in tag_set:
        key, value = child_text(tag, "Key"), child_text(tag, "Value")
        if tag.tag != "Tag" or key is None or value is None:
            raise S3Error("MalformedXML", _MALFORMED)
        pairs.append((key, value))
    return check_tags(pairs, limit)


def tagging_document(tags: Mapping[str, str]) -> bytes:
    xml = XmlWriter("Tagging").open("TagSet")
    for key in sorted(tags):
        xml.open("Tag").element("Key", key).element("Value", tags[key]).close("Tag")
    return xml.close("TagSet").to_bytes()


def _header_tags(value: str) -> dict[str, str]:
    """``x-amz-tagging``: a URL-encoded query (``a=1&b``: a value may be absent, meaning empty)."""
    try:
        pairs = parse_qsl(value, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise S3Error("InvalidArgument", f"The header '{TAGGING_HEADER}' shall be encoded as UTF-8 then "
                      "URLEncoded URL query parameters without tag name duplicates.") from None  # fmt: skip
    return check_tags(pairs)


def tags_of_write(req: S3Handler) -> dict[str, str] | None:
    """The tags a PutObject or CreateMultipartUpload gives its object, or a CopyObject with the
    REPLACE tagging directive gives its copy; None when the copy keeps the source's (COPY, the
    default). Setting tags takes s3:PutObjectTagging besides the write's own action, as in S3."""
    headers = req.request.headers
    if req.operation.name == "CopyObject":
        directive = headers.get(DIRECTIVE_HEADER, "COPY").upper()
        if directive not in ("COPY", "REPLACE"):
            raise S3Error("InvalidArgument", "Unknown tagging directive.")
        if directive == "COPY":
            return None
    value = headers.get(TAGGING_HEADER)
    if value is None:
        return {} if req.operation.name == "CopyObject" else None
    tags = _header_tags(value)
    if tags:
        req.authorize("s3:PutObjectTagging", req.bucket, req.key)
    return tags


def set_count_header(req: S3Handler, tags: Mapping[str, str]) -> None:
    """``x-amz-tagging-count`` on GET and HEAD of a tagged version."""
    if tags:
        req.set_header(COUNT_HEADER, str(len(tags)))


# -- object tagging ------------------------------------------------------------------------------
async def put_object_tagging(req: S3Handler) -> None:
    tags = parse_tagging_document(bytes(req.body))
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    await req.run_blocking(req.store.set_object_tags, req.bucket, req.key, info.version_id, tags)
    set_read_version(req, info.version_id)
    req.send_empty()


async def get_object_tagging(req: S3Handler) -> None:
    info = await read_object(req, req.store.tagged_object_info, requested_version(req))
    set_read_version(req, info.version_id)
    req.send_xml(tagging_document(info.tags))


async def delete_object_tagging(req: S3Handler) -> None:
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    await req.run_blocking(req.store.set_object_tags, req.bucket, req.key, info.version_id, {})
    set_read_version(req, info.version_id)
    req.send_empty(204)


# -- bucket tagging ------------------------------------------------------------------------------
async def put_bucket_tagging(req: S3Handler) -> None:
    tags = parse_tagging_document(bytes(req.body), MAX_BUCKET_TAGS)
    await req.run_blocking(req.store.put_bucket_config, req.bucket, BUCKET_CONFIG_NAME, tagging_document(tags))
    req.send_empty(204)


async def get_bucket_tagging(req: S3Handler) -> None:
    document = await req.run_read(req.store.get_bucket_config, req.bucket, BUCKET_CONFIG_NAME)
    if document is None:
        raise S3Error("NoSuchTagSet", "The TagSet does not exist")
    req.send_xml(document)


async def delete_bucket_tagging(req: S3Handler) -> None:
    await req.run_blocking(req.store.put_bucket_config, req.bucket, BUCKET_CONFIG_NAME, None)
    req.send_empty(204)
