"""ACLs on the wire: GetBucketAcl/PutBucketAcl, GetObjectAcl/PutObjectAcl, the ``x-amz-acl`` of bucket
and object writes, and a bucket's ObjectOwnership (``?ownershipControls``, ``x-amz-object-ownership``).

Canned ACLs only (acl.py says what each grants). A bucket's ACL and owner are kept in its ``acl``
document (bucket_access.py); an object's canned ACL in its metadata, when not private. With
ObjectOwnership ``BucketOwnerEnforced`` ACLs are off, as in AWS: a write or PutAcl naming an ACL
other than the owner's full control is AccessControlListNotSupported, and reads answer the owner's
full control. PublicAccessBlock's BlockPublicAcls refuses public canned ACLs (AccessDenied).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from . import acl
from .bucket_access import OWNERSHIP, AccessRules
from .errors import S3Error
from .object_versions import read_object, requested_version, set_read_version
from .xmlio import XmlWriter, child_text, parse_xml

if TYPE_CHECKING:
    from .handler import S3Handler

ACL_HEADER = "x-amz-acl"
OWNERSHIP_HEADER = "x-amz-object-ownership"
OWNERSHIPS = ("BucketOwnerEnforced", "BucketOwnerPreferred", "ObjectWriter")
_OWNER_ONLY = frozenset({"private", "bucket-owner-full-control"})
_BUCKET_OWNER_ACLS = frozenset({"bucket-owner-read", "bucket-owner-full-control"})


# -- writes that carry x-amz-acl -----------------------------------------------------------------
def checked_write_acl(req: S3Handler, rules: AccessRules | None, owner: str, bucket_owner: str) -> str | None:
    """The canned ACL a write asks for (``x-amz-acl``, or ``x-amz-grant-*`` headers that amount to
    one); None when it asks for none. Refused when the bucket's settings do not allow it."""
    headers = req.request.headers
    value = headers.get(ACL_HEADER)
    by_grants = acl.canned_of_headers(headers, owner, bucket_owner, _is_user(req))
    if value is not None and by_grants is not None:
        raise S3Error("InvalidRequest", "Specify either x-amz-acl or x-amz-grant-* headers, not both.")
    canned = acl.canned_acl(value) if value is not None else by_grants
    if rules is not None and canned is not None:
        _check_allowed(rules, canned)
    return canned


def _check_allowed(rules: AccessRules, canned: str) -> None:
    if not rules.acls_enabled and canned != "bucket-owner-full-control":
        raise S3Error("AccessControlListNotSupported", "The bucket does not allow ACLs")
    if rules.block.block_public_acls and canned in acl.PUBLIC:
        raise S3Error("AccessDenied", "Access Denied: the bucket's PublicAccessBlock blocks public ACLs.")


def object_acl_metadata(req: S3Handler) -> dict[str, str]:
    """The metadata entries of an object write: its canned ACL when not private, its owner (the
    writer) when not the bucket's owner. The bucket owner owns what is written under
    BucketOwnerEnforced, and under BucketOwnerPreferred what is written bucket-owner-full-control."""
    rules = req.services.bucket_access.rules(req.bucket)
    bucket_owner = rules.acl.owner if rules is not None else ""
    writer = req.access_key or bucket_owner  # an anonymous write goes to the bucket owner
    canned = checked_write_acl(req, rules, writer, bucket_owner)
    entries = {} if canned in (None, *_OWNER_ONLY) else {acl.OBJECT_ACL_ENTRY: canned}
    ownership = rules.ownership if rules is not None else None
    to_bucket_owner = ownership == "BucketOwnerEnforced" or (
        ownership == "BucketOwnerPreferred" and canned == "bucket-owner-full-control")
    if writer != bucket_owner and not to_bucket_owner:
        entries[acl.OBJECT_OWNER_ENTRY] = writer
        if canned == "bucket-owner-full-control":
            entries[acl.OBJECT_ACL_ENTRY] = canned
    return entries


def access_entries(metadata: Mapping[str, str]) -> dict[str, str]:
    """The entries ``object_acl_metadata`` keeps, of an object's metadata."""
    return {name: value for name, value in metadata.items() if name in (acl.OBJECT_ACL_ENTRY, acl.OBJECT_OWNER_ENTRY)}


def object_owner(metadata: Mapping[str, str], bucket_owner: str) -> str:
    return metadata.get(acl.OBJECT_OWNER_ENTRY, bucket_owner)


# -- bucket ACL ----------------------------------------------------------------------------------
async def get_bucket_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    shown = rules.acl if rules.acls_enabled else acl.Acl(rules.acl.owner)
    req.send_xml(shown.to_xml())


async def put_bucket_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    owner = rules.acl.owner
    canned = _requested_acl(req, rules, owner, owner)
    if canned in _BUCKET_OWNER_ACLS:
        canned = acl.PRIVATE  # on a bucket these grant its owner what it has
    await req.run_blocking(req.services.bucket_access.put_acl, req.bucket, acl.Acl(owner, canned))
    req.send_empty()


# -- object ACL ----------------------------------------------------------------------------------
async def get_object_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    owner = object_owner(info.metadata, rules.acl.owner)
    canned = info.metadata.get(acl.OBJECT_ACL_ENTRY, acl.PRIVATE) if rules.acls_enabled else acl.PRIVATE
    set_read_version(req, info.version_id)
    req.send_xml(acl.Acl(owner, canned, rules.acl.owner).to_xml())


async def put_object_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    version = requested_version(req)
    info = await read_object(req, req.store.get_object_info, version)
    canned = _requested_acl(req, rules, object_owner(info.metadata, rules.acl.owner), rules.acl.owner)
    metadata = {name: value for name, value in info.metadata.items() if name != acl.OBJECT_ACL_ENTRY}
    if canned != acl.PRIVATE:
        metadata[acl.OBJECT_ACL_ENTRY] = canned
    if metadata != info.metadata:
        await req.run_blocking(req.store.set_object_metadata, req.bucket, req.key, info.version_id, metadata)
    set_read_version(req, info.version_id)
    req.send_empty()


# -- object ownership ----------------------------------------------------------------------------
def ownership_of_create(req: S3Handler) -> str | None:
    value = req.request.headers.get(OWNERSHIP_HEADER)
    if value is not None and value not in OWNERSHIPS:
        raise S3Error("InvalidArgument", f"Invalid x-amz-object-ownership header: {value}")
    return value


async def put_ownership(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    rule = parse_xml(bytes(req.body), "OwnershipControls").find("Rule")
    value = None if rule is None else child_text(rule, "ObjectOwnership")
    if value not in OWNERSHIPS:
        raise S3Error("MalformedXML", f"ObjectOwnership must be one of {', '.join(OWNERSHIPS)}.")
    if value == "BucketOwnerEnforced" and rules.acl.canned not in _OWNER_ONLY:
        raise S3Error("InvalidBucketAclWithObjectOwnership",
                      "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting")
    await req.run_blocking(req.services.bucket_access.put, req.bucket, OWNERSHIP, value.encode())
    req.send_empty()


async def get_ownership(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    if rules.ownership is None:
        raise S3Error("OwnershipControlsNotFoundError", "The bucket ownership controls were not found")
    xml = XmlWriter("OwnershipControls").open("Rule").element("ObjectOwnership", rules.ownership).close("Rule")
    req.send_xml(xml.to_bytes())


async def delete_ownership(req: S3Handler) -> None:
    await req.services.bucket_access.of_request(req)
    await req.run_blocking(req.services.bucket_access.put, req.bucket, OWNERSHIP, None)
    req.send_empty(204)


# -- helpers -------------------------------------------------------------------------------------
def _requested_acl(req: S3Handler, rules: AccessRules, owner: str, bucket_owner: str) -> str:
    """The canned ACL of a PutAcl request: its headers, else its AccessControlPolicy body."""
    canned = checked_write_acl(req, rules, owner, bucket_owner)
    if canned is not None:
        return canned
    if req.body.strip():
        canned = acl.canned_of_body(bytes(req.body), owner, bucket_owner, _is_user(req))
        _check_allowed(rules, canned)
        return canned
    raise S3Error("MissingSecurityHeader", "Your request was missing a required header: x-amz-acl.")


def _is_user(req: S3Handler) -> Callable[[str], bool]:
    """Whether a grant's ID names a user (the root user included)."""
    return lambda access_key: req.services.iam.secret_for(access_key) is not None
