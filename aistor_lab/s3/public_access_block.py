"""A bucket's PublicAccessBlock configuration (``?publicAccessBlock``), as AWS defines its four switches:

- ``BlockPublicAcls``: a public canned ACL (public-read, public-read-write, authenticated-read) on a
  bucket or object write, PutBucketAcl or PutObjectAcl is refused (AccessDenied);
- ``IgnorePublicAcls``: public ACLs grant nothing;
- ``BlockPublicPolicy``: PutBucketPolicy of a public policy is refused (AccessDenied);
- ``RestrictPublicBuckets``: while the bucket's policy is public, its statements grant anonymous
  callers nothing (only this service's users keep what it grants them).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import S3Error
from .xmlio import XmlWriter, child_text, parse_xml

CONFIG_NAME = "public-access-block"
ROOT = "PublicAccessBlockConfiguration"
_FIELDS = ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")


@dataclass(frozen=True)
class PublicAccessBlock:
    block_public_acls: bool = False
    ignore_public_acls: bool = False
    block_public_policy: bool = False
    restrict_public_buckets: bool = False

    def to_xml(self) -> bytes:
        xml = XmlWriter(ROOT)
        for field, value in zip(_FIELDS, self._values(), strict=True):
            xml.element(field, value)
        return xml.to_bytes()

    def _values(self) -> tuple[bool, ...]:
        return (self.block_public_acls, self.ignore_public_acls, self.block_public_policy,
                self.restrict_public_buckets)


NONE = PublicAccessBlock()


def parse(body: bytes) -> PublicAccessBlock:
    root = parse_xml(body, ROOT)
    values = []
    for field in _FIELDS:
        text = child_text(root, field)
        if text not in (None, "true", "false", "TRUE", "FALSE", "True", "False"):
            raise S3Error("MalformedXML", f"{field} must be true or false.")
        values.append(text is not None and text.lower() == "true")
    return PublicAccessBlock(*values)
