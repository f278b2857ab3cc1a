"""ACLs on the wire: GetBucketAcl/PutBucketAcl, GetObjectAcl/PutObjectAcl, the ``x-amz-acl`` of bucket
and object writes, and a bucket's ObjectOwnership (``?ownershipControls``, ``x-amz-object-ownership``).

Canned ACLs only (acl.py says what each grants). A bucket's ACL and owner are kept in its ``acl``
document (bucket_access.py); an object's canned ACL in its metadata, when not private. With
ObjectOwnership ``BucketOwnerEnforced`` ACLs are off, as in AWS: a write or PutAcl naming an ACL
other than the owner's full control is AccessControlListNotSupported, and reads answer the owner's
full control. PublicAccessBlock's BlockPublicAcls refuses public canned ACLs (AccessDenied).
"""

from __future__ import annotations

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


# -- writes that carry x-amz-acl -----------------------------------------------------------------
def checked_write_acl(req: S3Handler, rules: AccessRules | None, value: str | None) -> str:
    """The canned ACL a write asks for (private when none), once the bucket's settings allow it."""
    if any(name.lower().startswith("x-amz-grant-") for name in req.request.headers):
        raise S3Error("NotImplemented", "Grants by header (x-amz-grant-*) are not supported; use a canned ACL "
                      "(x-amz-acl) or a bucket policy.")
    canned = acl.canned_acl(value) if value is not None else acl.PRIVATE
    if rules is not None:
        if not rules.acls_enabled and canned not in _OWNER_ONLY:
            raise S3Error("AccessControlListNotSupported", "The bucket does not allow ACLs")
        if rules.block.block_public_acls and canned in acl.PUBLIC:
            raise S3Error("AccessDenied", "Access Denied: the bucket's PublicAccessBlock blocks public ACLs.")
    return canned


def object_acl_metadata(req: S3Handler) -> dict[str, str]:
    """The metadata entry keeping the ACL of an object write (none when private)."""
    rules = req.services.bucket_access.rules(req.bucket)
    canned = checked_write_acl(req, rules, req.request.headers.get(ACL_HEADER))
    return {} if canned in _OWNER_ONLY else {acl.OBJECT_ACL_ENTRY: canned}


# -- bucket ACL ----------------------------------------------------------------------------------
async def get_bucket_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    shown = rules.acl if rules.acls_enabled else acl.Acl(rules.acl.owner)
    req.send_xml(shown.to_xml())


async def put_bucket_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    canned = _requested_acl(req, rules.acl.owner)
    checked_write_acl(req, rules, canned)
    await req.run_blocking(req.services.bucket_access.put_acl, req.bucket, acl.Acl(rules.acl.owner, canned))
    req.send_empty()


# -- object ACL ----------------------------------------------------------------------------------
async def get_object_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    canned = info.metadata.get(acl.OBJECT_ACL_ENTRY, acl.PRIVATE) if rules.acls_enabled else acl.PRIVATE
    set_read_version(req, info.version_id)
    req.send_xml(acl.Acl(rules.acl.owner, canned).to_xml())


async def put_object_acl(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    canned = checked_write_acl(req, rules, _requested_acl(req, rules.acl.owner))
    version = requested_version(req)
    info = await read_object(req, req.store.get_object_info, version)
    metadata = {name: value for name, value in info.metadata.items() if name != acl.OBJECT_ACL_ENTRY}
    if canned not in _OWNER_ONLY:
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
def _requested_acl(req: S3Handler, owner: str) -> str:
    """The canned ACL of a PutAcl request: its header, else its AccessControlPolicy body."""
    header = req.request.headers.get(ACL_HEADER)
    if header is not None:
        return acl.canned_acl(header)
    if req.body.strip():
        return acl.canned_of_body(bytes(req.body), owner)
    raise S3Error("MissingSecurityHeader", "Your request was missing a required header: x-amz-acl.")
