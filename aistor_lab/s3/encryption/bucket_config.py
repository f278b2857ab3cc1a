"""A bucket's default encryption: the ServerSideEncryptionConfiguration document of ``?encryption``.

One rule, as S3 and MinIO take it: ``ApplyServerSideEncryptionByDefault`` with ``SSEAlgorithm``
AES256 (SSE-S3) or aws:kms (SSE-KMS, with an optional ``KMSMasterKeyID``), and ``BucketKeyEnabled``.
The document is stored as this module writes it, and answered as stored.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ...store.encryption import AES256, AWS_KMS, BucketDefault
from ...store.encryption.bucket_default import CONFIG_NAME
from ..errors import S3Error
from ..xmlio import XmlWriter, child_text, parse_xml

__all__ = ["CONFIG_NAME", "parse", "to_xml"]

ROOT = "ServerSideEncryptionConfiguration"


def parse(body: bytes) -> BucketDefault:
    """A PutBucketEncryption body; MalformedXML or InvalidArgument when S3 refuses it."""
    root = parse_xml(body, ROOT)
    rules = root.findall("Rule")
    if len(rules) != 1:
        raise S3Error("MalformedXML", "A server-side encryption configuration holds exactly one Rule.")
    rule = rules[0]
    action = rule.find("ApplyServerSideEncryptionByDefault")
    if action is None:
        raise S3Error("MalformedXML", "The Rule has no ApplyServerSideEncryptionByDefault.")
    algorithm = child_text(action, "SSEAlgorithm")
    if algorithm == "aws:kms:dsse":
        raise S3Error("NotImplemented", "Server-side encryption aws:kms:dsse is not implemented.")
    if algorithm not in (AES256, AWS_KMS):
        raise S3Error("MalformedXML", "SSEAlgorithm must be AES256 or aws:kms.")
    key_id = child_text(action, "KMSMasterKeyID")
    if key_id is not None:
        if algorithm != AWS_KMS:
            raise S3Error(
                "InvalidArgument",
                "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms",
            )
        if not key_id.strip():
            raise S3Error("InvalidArgument", "The KMSMasterKeyID must not be empty.")
    _refuse_blocked_types(rule)
    bucket_key = child_text(rule, "BucketKeyEnabled")
    if bucket_key not in (None, "true", "false"):
        raise S3Error("MalformedXML", "BucketKeyEnabled must be true or false.")
    return BucketDefault(algorithm, key_id, bucket_key == "true")


def to_xml(config: BucketDefault) -> bytes:
    xml = XmlWriter(ROOT).open("Rule").open("ApplyServerSideEncryptionByDefault")
    xml.element("SSEAlgorithm", config.algorithm).element("KMSMasterKeyID", config.kms_key_id)
    xml.close("ApplyServerSideEncryptionByDefault").element("BucketKeyEnabled", config.bucket_key_enabled)
    return xml.close("Rule").to_bytes()


def _refuse_blocked_types(rule: ET.Element) -> None:
    # Blocking encryption types (S3's newer BlockedEncryptionTypes) is a semantics this server does
    # not have: refused rather than ignored, unless it blocks nothing.
    blocked = rule.find("BlockedEncryptionTypes")
    if blocked is not None and any((kind.text or "") != "NONE" for kind in blocked.findall("EncryptionType")):
        raise S3Error("NotImplemented", "BlockedEncryptionTypes is not implemented by this server.")
