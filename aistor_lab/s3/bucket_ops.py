"""Bucket operations: list, create, delete, head, location, and object listings (v1 and v2)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import quote

from ..store import ObjectInfo
from .acl import PRIVATE, Acl
from .acl_ops import checked_write_acl, object_owner, ownership_of_create
from .bucket_access import OWNERSHIP
from .errors import S3Error
from .names import check_bucket_name
from .object_lock_ops import enable_on_new_bucket, object_lock_requested
from .xmlio import XmlWriter, iso8601, parse_xml

if TYPE_CHECKING:
    from .handler import S3Handler

MAX_LIST_KEYS = 1000
MAX_BUCKETS = 10000


async def list_buckets(req: S3Handler) -> None:
    """ListBuckets in name order, paged by ``max-buckets`` and ``continuation-token`` (the last name
    of the page before) when the client asks for pages, filtered by ``prefix``."""
    query = req.query
    prefix = query.get("prefix", "")
    limit = _max_buckets(query.get("max-buckets"))
    after = _decode_token(query["continuation-token"]) if "continuation-token" in query else ""
    buckets = [
        bucket for bucket in await req.run_blocking(req.store.list_buckets)
        if bucket.name.startswith(prefix) and bucket.name > after and not req.store.is_system_bucket(bucket.name)
    ]  # fmt: skip
    page = buckets[:limit]
    xml = XmlWriter("ListAllMyBucketsResult")
    write_owner(xml, req.access_key)  # the caller, as S3 names the account asking
    xml.open("Buckets")
    for bucket in page:
        xml.open("Bucket").element("Name", bucket.name).element("CreationDate", iso8601(bucket.created))
        xml.close("Bucket")
    xml.close("Buckets")
    if len(buckets) > len(page):
        xml.element("ContinuationToken", _encode_token(page[-1].name))
    if "prefix" in query:
        xml.element("Prefix", prefix)
    req.send_xml(xml.to_bytes())


def _max_buckets(value: str | None) -> int:
    if value is None:
        return MAX_BUCKETS
    if not value.isdigit() or not 1 <= int(value) <= MAX_BUCKETS:
        raise S3Error("InvalidArgument", f"max-buckets must be an integer between 1 and {MAX_BUCKETS}.")
    return int(value)


async def create_bucket(req: S3Handler) -> None:
    check_bucket_name(req.bucket)
    if req.body.strip():
        parse_xml(bytes(req.body), "CreateBucketConfiguration")  # location is accepted and ignored
    ownership = ownership_of_create(req)
    canned = checked_write_acl(req, None, req.access_key, req.access_key) or PRIVATE
    if canned in ("bucket-owner-read", "bucket-owner-full-control"):
        canned = PRIVATE  # on a bucket these grant its owner what it has
    if ownership == "BucketOwnerEnforced" and canned != PRIVATE:
        raise S3Error("InvalidBucketAclWithObjectOwnership",
                      "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting")
    if object_lock_requested(req):
        await enable_on_new_bucket(req)
    else:
        await req.run_blocking(req.store.create_bucket, req.bucket)
    # The creator owns the bucket (its ACL answers name them).
    await req.run_blocking(req.services.bucket_access.put_acl, req.bucket, Acl(req.access_key, canned))
    if ownership is not None:
        await req.run_blocking(req.services.bucket_access.put, req.bucket, OWNERSHIP, ownership.encode())
    req.set_header("Location", "/" + req.bucket)
    req.send_empty()


async def delete_bucket(req: S3Handler) -> None:
    await req.run_blocking(req.store.delete_bucket, req.bucket)
    req.services.bucket_access.forget(req.bucket)
    req.send_empty(204)


async def head_bucket(req: S3Handler) -> None:
    await req.run_read(req.store.get_bucket, req.bucket)
    req.send_empty()


async def get_location(req: S3Handler) -> None:
    await req.run_read(req.store.get_bucket, req.bucket)
    region = req.services.settings.region
    # S3 answers an empty constraint for us-east-1; clients read that as us-east-1.
    req.send_xml(XmlWriter("LocationConstraint").text("" if region == "us-east-1" else region).to_bytes())


async def list_objects(req: S3Handler) -> None:
    query = req.query
    v2 = query.get("list-type") == "2"
    enc = key_encoder(query)
    max_keys = parse_max_keys(query.get("max-keys"))
    prefix, delimiter = query.get("prefix", ""), query.get("delimiter", "")
    if v2:
        token = query.get("continuation-token")
        start_after = _decode_token(token) if token is not None else query.get("start-after", "")
    else:
        start_after = query.get("marker", "")
    page = await req.run_blocking(
        req.store.list_objects,
        req.bucket,
        prefix=prefix,
        delimiter=delimiter,
        start_after=start_after,
        max_keys=max_keys,
    )

    xml = XmlWriter("ListBucketResult")
    # S3 URL-encodes the echoed Prefix of v2 only (botocore decodes it in v2 answers, not in v1).
    xml.element("Name", req.bucket).element("Prefix", enc(prefix) if v2 else prefix)
    if v2:
        if "continuation-token" in query:
            xml.element("ContinuationToken", query["continuation-token"])
        if "start-after" in query:
            xml.element("StartAfter", enc(query["start-after"]))
        xml.element("KeyCount", len(page.objects) + len(page.common_prefixes))
    else:
        xml.element("Marker", enc(start_after))
    xml.element("MaxKeys", max_keys)
    if delimiter:
        xml.element("Delimiter", enc(delimiter))
    xml.element("IsTruncated", page.is_truncated)
    if page.is_truncated and page.next_marker is not None:
        if v2:
            xml.element("NextContinuationToken", _encode_token(page.next_marker))
        else:
            xml.element("NextMarker", enc(page.next_marker))
    if "encoding-type" in query:
        xml.element("EncodingType", "url")
    bucket_owner = None
    if not v2 or query.get("fetch-owner") == "true":
        bucket_owner = (await req.services.bucket_access.of_request(req)).acl.owner
    for info in page.objects:
        _object_entry(xml, info, enc(info.key), bucket_owner)
    for common in page.common_prefixes:
        xml.open("CommonPrefixes").element("Prefix", enc(common)).close("CommonPrefixes")
    req.send_xml(xml.to_bytes())


def _object_entry(xml: XmlWriter, info: ObjectInfo, key: str, bucket_owner: str | None) -> None:
    """``bucket_owner``: None when the listing shows no owners."""
    xml.open("Contents").element("Key", key).element("LastModified", iso8601(info.last_modified))
    xml.element("ETag", f'"{info.etag}"').element("Size", info.size)
    for algorithm in info.checksums:
        xml.element("ChecksumAlgorithm", algorithm.upper())
    if bucket_owner is not None:
        write_owner(xml, object_owner(info.metadata, bucket_owner))
    xml.element("StorageClass", "STANDARD").close("Contents")


def write_owner(xml: XmlWriter, owner: str, tag: str = "Owner") -> None:
    """An owner as S3 documents name one; IDs here are access keys (see acl.py)."""
    xml.open(tag).element("ID", owner).element("DisplayName", owner).close(tag)


def key_encoder(query: dict[str, str]) -> Callable[[str], str]:
    """How a listing writes keys and prefixes: as they are, or URL-encoded (``encoding-type=url``)."""
    if "encoding-type" not in query:
        return lambda value: value
    if query["encoding-type"] != "url":
        raise S3Error("InvalidArgument", "Invalid Encoding Method specified in Request")
    return lambda value: quote(value, safe="/")


def parse_max_keys(value: str | None) -> int:
    if value is None:
        return MAX_LIST_KEYS
    if not value.lstrip("-").isdigit() or int(value) < 0:
        raise S3Error("InvalidArgument", "max-keys must be a non-negative integer.")
    return min(int(value), MAX_LIST_KEYS)


def _encode_token(marker: str) -> str:
    return base64.urlsafe_b64encode(marker.encode()).decode()


def _decode_token(token: str) -> str:
    try:
        return base64.urlsafe_b64decode(token.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise S3Error("InvalidArgument", "The continuation token provided is incorrect.") from None
