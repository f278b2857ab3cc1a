"""A bucket's default encryption as its stored ``encryption`` configuration document gives it.

The S3 API validates and writes the document (``ServerSideEncryptionConfiguration``, one rule);
the store only reads the rule's algorithm, key id and bucket-key flag back from it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .errors import UnreadableEncryption
from .modes import AES256, AWS_KMS, BucketDefault

CONFIG_NAME = "encryption"  # the store's name of the bucket configuration document


def from_document(document: bytes | None) -> BucketDefault | None:
    """The default a stored document gives, None without one."""
    if document is None:
        return None
    try:
        root = ET.fromstring(document)
    except ET.ParseError:
        raise UnreadableEncryption("The bucket's encryption configuration is not readable.") from None
    values = {element.tag.rsplit("}", 1)[-1]: (element.text or "").strip() for element in root.iter()}
    algorithm = values.get("SSEAlgorithm")
    if algorithm not in (AES256, AWS_KMS):
        raise UnreadableEncryption("The bucket's encryption configuration names no known algorithm.")
    return BucketDefault(algorithm, values.get("KMSMasterKeyID") or None, values.get("BucketKeyEnabled") == "true")
