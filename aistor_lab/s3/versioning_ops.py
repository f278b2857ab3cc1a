"""Bucket versioning: its configuration (PUT/GET ?versioning) and the listing of every version and
delete marker (GET ?versions). The version ids of single objects are in object_versions.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import NULL_VERSION, VERSIONING_ENABLED, VERSIONING_SUSPENDED, ObjectVersion
from .acl_ops import object_owner
from .bucket_ops import key_encoder, parse_max_keys, write_owner
from .errors import S3Error
from .object_lock_ops import bucket_configuration
from .xmlio import XmlWriter, child_text, iso8601, parse_xml

if TYPE_CHECKING:
    from .handler import S3Handler

_STATES = (VERSIONING_ENABLED, VERSIONING_SUSPENDED)


async def put_versioning(req: S3Handler) -> None:
    root = parse_xml(bytes(req.body), "VersioningConfiguration")
    status, mfa_delete = (_stripped(child_text(root, tag)) for tag in ("Status", "MfaDelete"))
    if status not in _STATES or mfa_delete not in (None, "Enabled", "Disabled"):
        raise S3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against "
                      "our published schema.")  # fmt: skip
    if mfa_delete == "Enabled":
        # No MFA device exists here to check a code against: MFA Delete could never be satisfied.
        if "x-amz-mfa" not in req.request.headers:
            raise S3Error("AccessDenied", "Mfa Authentication must be used for this request")
        raise S3Error("NotImplemented", "MFA Delete is not implemented by this server.")
    if status == VERSIONING_SUSPENDED and await bucket_configuration(req, req.bucket) is not None:
        raise S3Error("InvalidBucketState", "An Object Lock configuration is present on this bucket, so the "
                      "versioning state cannot be changed.")  # fmt: skip
    await req.run_blocking(req.store.set_versioning, req.bucket, status)
    req.send_empty()


def _stripped(text: str | None) -> str | None:
    return None if text is None else text.strip()


async def get_versioning(req: S3Handler) -> None:
    bucket = await req.run_read(req.store.get_bucket, req.bucket)
    # A bucket whose versioning was never configured answers an empty configuration, as S3 does.
    req.send_xml(XmlWriter("VersioningConfiguration").element("Status", bucket.versioning).to_bytes())


async def list_versions(req: S3Handler) -> None:
    query = req.query
    enc = key_encoder(query)
    max_keys = parse_max_keys(query.get("max-keys"))
    prefix, delimiter = query.get("prefix", ""), query.get("delimiter", "")
    key_marker, version_id_marker = query.get("key-marker", ""), query.get("version-id-marker", "")
    if version_id_marker and not key_marker:
        raise S3Error("InvalidArgument", "A version-id marker cannot be specified without a key marker.")
    page = await req.run_blocking(
        req.store.list_object_versions,
        req.bucket,
        prefix=prefix,
        delimiter=delimiter,
        key_marker=key_marker,
        version_id_marker=version_id_marker,
        max_keys=max_keys,
    )
    bucket_owner = (await req.services.bucket_access.of_request(req)).acl.owner
    xml = XmlWriter("ListVersionsResult").element("Name", req.bucket).element("Prefix", enc(prefix))
    xml.element("KeyMarker", enc(key_marker)).element("VersionIdMarker", version_id_marker)
    if page.is_truncated:
        xml.element("NextKeyMarker", None if page.next_key_marker is None else enc(page.next_key_marker))
        xml.element("NextVersionIdMarker", page.next_version_id_marker)
    xml.element("MaxKeys", max_keys)
    if delimiter:
        xml.element("Delimiter", enc(delimiter))
    xml.element("IsTruncated", page.is_truncated)
    if "encoding-type" in query:
        xml.element("EncodingType", "url")
    for version in page.versions:
        _version_entry(xml, version, enc(version.info.key), bucket_owner)
    for common in page.common_prefixes:
        xml.open("CommonPrefixes").element("Prefix", enc(common)).close("CommonPrefixes")
    req.send_xml(xml.to_bytes())


def _version_entry(xml: XmlWriter, version: ObjectVersion, key: str, bucket_owner: str) -> None:
    """A Version or a DeleteMarker element; S3 lists both kinds in one sequence, in the store's order."""
    info = version.info
    tag = "DeleteMarker" if version.is_delete_marker else "Version"
    xml.open(tag).element("Key", key).element("VersionId", info.version_id or NULL_VERSION)
    xml.element("IsLatest", version.is_latest).element("LastModified", iso8601(info.last_modified))
    if not version.is_delete_marker:
        xml.element("ETag", f'"{info.etag}"').element("Size", info.size)
        for algorithm in info.checksums:
            xml.element("ChecksumAlgorithm", algorithm.upper())
        xml.element("StorageClass", "STANDARD")
    write_owner(xml, object_owner(info.metadata, bucket_owner))
    xml.close(tag)
