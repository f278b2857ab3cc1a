"""Canned ACLs: what ``private``, ``public-read``... grant, as ACL documents and as permissions.

Only canned ACLs are kept (a bucket's in its ``acl`` document, an object's with the object); an
``AccessControlPolicy`` body is taken when its grants are exactly those of a canned ACL, as the
answers of GetBucketAcl/GetObjectAcl are. Owners are access keys: this service is one account, so
the owner a document names is the user who created the bucket (the root user for buckets made
before owners were kept, or by the catalog); an object's owner is the user who wrote it, unless the
bucket's ObjectOwnership gives it to the bucket owner (acl_ops.py). Grants by ``x-amz-grant-*``
header or in a body are taken when they amount to a canned ACL.

What a grant permits (``permits``) is the ACL's meaning in S3: READ on a bucket lists it, WRITE on
a bucket writes and deletes its objects, READ on an object reads it. ``authenticated-read`` grants
to every signed caller, the ``public-*`` ACLs to everyone, anonymous callers included.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..store.encryption import RESERVED_PREFIX
from .errors import S3Error
from .xmlio import XmlWriter, child_text, parse_xml

PRIVATE = "private"
OBJECT_ACL_ENTRY = RESERVED_PREFIX + "acl"  # an object's canned ACL, kept in its metadata when not private
OBJECT_OWNER_ENTRY = RESERVED_PREFIX + "owner"  # an object's owner, kept when not its bucket's
CANNED = ("private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read",
          "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write")
# The canned ACLs AWS counts as public (PublicAccessBlock's BlockPublicAcls refuses them).
PUBLIC = frozenset({"public-read", "public-read-write", "authenticated-read"})
ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTHENTICATED_USERS = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"

# Canned ACL -> its grants besides the owner's FULL_CONTROL: (group URI, permission).
_GROUP_GRANTS = {
    "public-read": ((ALL_USERS, "READ"),),
    "public-read-write": ((ALL_USERS, "READ"), (ALL_USERS, "WRITE")),
    "authenticated-read": ((AUTHENTICATED_USERS, "READ"),),
}
# Canned ACL -> what it grants an object's bucket owner (when not the object's owner).
_BUCKET_OWNER_GRANTS = {"bucket-owner-read": "READ", "bucket-owner-full-control": "FULL_CONTROL"}
_HEADER_PERMISSIONS = {
    "x-amz-grant-read": "READ", "x-amz-grant-write": "WRITE", "x-amz-grant-read-acp": "READ_ACP",
    "x-amz-grant-write-acp": "WRITE_ACP", "x-amz-grant-full-control": "FULL_CONTROL",
}
# What READ and WRITE allow on a bucket, and READ on an object.
_BUCKET_READ = frozenset({"s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"})
# Tagging what one writes too: WRITE already lets a grantee replace any object, tags and all.
_BUCKET_WRITE = frozenset({"s3:PutObject", "s3:PutObjectTagging", "s3:DeleteObject", "s3:DeleteObjectVersion",
                           "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"})
OBJECT_READ = frozenset({"s3:GetObject", "s3:GetObjectVersion"})
# READ_ACP and WRITE_ACP on an object (its owner's, within FULL_CONTROL).
OBJECT_ACP = frozenset({"s3:GetObjectAcl", "s3:GetObjectVersionAcl", "s3:PutObjectAcl", "s3:PutObjectVersionAcl"})


@dataclass(frozen=True)
class Acl:
    owner: str
    canned: str = PRIVATE
    bucket_owner: str = ""  # an object's: whom bucket-owner-read / -full-control grant to

    def grants(self) -> list[tuple[str, str, str]]:
        """(grantee type, ID or URI, permission): the groups' grants, then the owner's FULL_CONTROL,
        then the bucket owner's (the order RGW answers in, which Ceph's tests compare)."""
        grants = [("Group", uri, permission) for uri, permission in _GROUP_GRANTS.get(self.canned, ())]
        grants.append(("CanonicalUser", self.owner, "FULL_CONTROL"))
        permission = _BUCKET_OWNER_GRANTS.get(self.canned)
        if permission and self.bucket_owner and self.bucket_owner != self.owner:
            grants.append(("CanonicalUser", self.bucket_owner, permission))
        return grants

    def to_xml(self) -> bytes:
        xml = XmlWriter("AccessControlPolicy")
        xml.open("Owner").element("ID", self.owner).element("DisplayName", self.owner).close("Owner")
        xml.open("AccessControlList")
        for kind, grantee, permission in self.grants():
            xml.open("Grant").open(f'Grantee xmlns:xsi="{_XSI}" xsi:type="{kind}"')
            if kind == "Group":
                xml.element("URI", grantee)
            else:
                xml.element("ID", grantee).element("DisplayName", grantee)
            xml.close("Grantee").element("Permission", permission).close("Grant")
        return xml.close("AccessControlList").to_bytes()


def canned_acl(value: str) -> str:
    if value not in CANNED:
        raise S3Error("InvalidArgument", f"The canned ACL {value!r} is not one of {', '.join(CANNED)}.")
    return value


def canned_of_body(body: bytes, owner: str, bucket_owner: str, is_user: Callable[[str], bool]) -> str:
    """The canned ACL whose grants an AccessControlPolicy body holds (see ``canned_of_grants``)."""
    root = parse_xml(body, "AccessControlPolicy")
    acl_list = root.find("AccessControlList")
    if acl_list is None:
        raise S3Error("MalformedACLError", "The XML you provided was not well-formed or did not validate.")
    return canned_of_grants([_grant(element) for element in acl_list.findall("Grant")], owner, bucket_owner,
                            is_user)


def canned_of_headers(headers: Mapping[str, str], owner: str, bucket_owner: str,
                      is_user: Callable[[str], bool]) -> str | None:
    """The canned ACL that ``x-amz-grant-*`` headers amount to; None when there are none."""
    grants = []
    for name, value in headers.items():
        permission = _HEADER_PERMISSIONS.get(name.lower())
        if permission is None:
            continue
        for item in value.split(","):
            kind, _, grantee = item.strip().partition("=")
            grantee = grantee.strip().strip('"')
            kind = kind.strip().lower()
            if kind not in ("id", "uri", "emailaddress") or not grantee:
                raise S3Error("InvalidArgument", f"Invalid grantee in {name}: {item.strip()!r}.")
            grants.append((("email", grantee) if kind == "emailaddress" else grantee, permission))
    return canned_of_grants(grants, owner, bucket_owner, is_user) if grants else None


def canned_of_grants(grants: list[tuple], owner: str, bucket_owner: str, is_user: Callable[[str], bool]) -> str:
    """The canned ACL of a set of (grantee, permission) grants. The owner's own FULL_CONTROL is implied;
    grants to unknown users are InvalidArgument (e-mail addresses: UnresolvableGrantByEmailAddress, as
    there are none here); grants no canned ACL makes are NotImplemented."""
    wanted = set()
    for grantee, permission in grants:
        if isinstance(grantee, tuple):
            raise S3Error("UnresolvableGrantByEmailAddress",
                          "The e-mail address you provided does not match any account on record.")
        if grantee not in (ALL_USERS, AUTHENTICATED_USERS) and not is_user(grantee):
            raise S3Error("InvalidArgument", f"Invalid id: {grantee}")
        if (grantee, permission) != (owner, "FULL_CONTROL"):
            wanted.add((grantee, permission))
    for canned in CANNED:
        implied = {(g, p) for _, g, p in Acl(owner, canned, bucket_owner).grants()} - {(owner, "FULL_CONTROL")}
        if wanted == implied:
            return canned
    raise S3Error("NotImplemented", "Only the grants of a canned ACL (private, public-read, public-read-write, "
                  "authenticated-read, bucket-owner-read, bucket-owner-full-control) are supported; use a "
                  "bucket policy for anything finer.")


def grants_bucket_owner(canned: str, action: str) -> bool:
    """Whether an object's canned ACL lets its bucket's owner (not the object's) do ``action``."""
    permission = _BUCKET_OWNER_GRANTS.get(canned)
    return permission == "FULL_CONTROL" or (permission == "READ" and action in OBJECT_READ)


def permits(canned: str, action: str, *, signed: bool, on_object: bool) -> bool:
    """Whether the group grants of ``canned`` allow ``action`` to a caller (signed or anonymous)."""
    for uri, permission in _GROUP_GRANTS.get(canned, ()):
        if uri == AUTHENTICATED_USERS and not signed:
            continue
        if on_object:
            if permission == "READ" and action in OBJECT_READ:
                return True
        elif action in (_BUCKET_READ if permission == "READ" else _BUCKET_WRITE):
            return True
    return False


def _grant(element: ET.Element) -> tuple:
    grantee = element.find("Grantee")
    permission = child_text(element, "Permission")
    if grantee is None or permission is None:
        raise S3Error("MalformedACLError", "Each Grant needs a Grantee and a Permission.")
    email = child_text(grantee, "EmailAddress")
    if email:
        return ("email", email), permission
    name = child_text(grantee, "URI") or child_text(grantee, "ID")
    if not name:
        raise S3Error("MalformedACLError", "Each Grantee needs an ID, a URI or an EmailAddress.")
    return name, permission
