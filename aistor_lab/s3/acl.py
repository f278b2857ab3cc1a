"""Canned ACLs: what ``private``, ``public-read``... grant, as ACL documents and as permissions.

Only canned ACLs are kept (a bucket's in its ``acl`` document, an object's with the object); an
``AccessControlPolicy`` body is taken when its grants are exactly those of a canned ACL, as the
answers of GetBucketAcl/GetObjectAcl are. Owners are access keys: this service is one account, so
the owner a document names is the user who created the bucket (the root user for buckets made
before owners were kept, or by the catalog), and an object's owner is its bucket's.

What a grant permits (``permits``) is the ACL's meaning in S3: READ on a bucket lists it, WRITE on
a bucket writes and deletes its objects, READ on an object reads it. ``authenticated-read`` grants
to every signed caller, the ``public-*`` ACLs to everyone, anonymous callers included.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ..store.encryption import RESERVED_PREFIX
from .errors import S3Error
from .xmlio import XmlWriter, child_text, parse_xml

PRIVATE = "private"
OBJECT_ACL_ENTRY = RESERVED_PREFIX + "acl"  # an object's canned ACL, kept in its metadata when not private
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
# What READ and WRITE allow on a bucket, and READ on an object.
_BUCKET_READ = frozenset({"s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"})
_BUCKET_WRITE = frozenset({"s3:PutObject", "s3:DeleteObject", "s3:DeleteObjectVersion",
                           "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"})
OBJECT_READ = frozenset({"s3:GetObject", "s3:GetObjectVersion"})


@dataclass(frozen=True)
class Acl:
    owner: str
    canned: str = PRIVATE

    def grants(self) -> list[tuple[str, str, str]]:
        """(grantee type, ID or URI, permission): the groups' grants, then the owner's FULL_CONTROL (the
        order RGW answers in, which Ceph's tests compare)."""
        grants = [("Group", uri, permission) for uri, permission in _GROUP_GRANTS.get(self.canned, ())]
        return [*grants, ("CanonicalUser", self.owner, "FULL_CONTROL")]

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


def canned_of_body(body: bytes, owner: str) -> str:
    """The canned ACL whose grants an AccessControlPolicy body holds; NotImplemented for others."""
    root = parse_xml(body, "AccessControlPolicy")
    acl_list = root.find("AccessControlList")
    if acl_list is None:
        raise S3Error("MalformedACLError", "The XML you provided was not well-formed or did not validate.")
    grants = sorted(_grant(element) for element in acl_list.findall("Grant"))
    for canned in ("private", "public-read", "public-read-write", "authenticated-read"):
        if grants == sorted(_as_body_grants(Acl(owner, canned))):
            return canned
    raise S3Error("NotImplemented", "Only the grants of a canned ACL (private, public-read, public-read-write, "
                  "authenticated-read) are supported; use a bucket policy for anything finer.")


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


def _as_body_grants(acl: Acl) -> list[tuple[str, str]]:
    return [(grantee, permission) for _, grantee, permission in acl.grants()]


def _grant(element: ET.Element) -> tuple[str, str]:
    grantee = element.find("Grantee")
    permission = child_text(element, "Permission")
    if grantee is None or permission is None:
        raise S3Error("MalformedACLError", "Each Grant needs a Grantee and a Permission.")
    name = child_text(grantee, "URI") or child_text(grantee, "ID")
    if not name:
        raise S3Error("NotImplemented", "Grants by e-mail address are not supported; grant by ID or group URI.")
    return name, permission
