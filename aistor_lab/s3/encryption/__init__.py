"""Server-side encryption at rest: SSE-S3, SSE-KMS against the local key ring, and SSE-C.

- ``packages``: object bytes as independently authenticated AES-256-GCM packages (ranged reads
  decrypt only what they touch; multipart parts are streams of their own);
- ``keys``: per-object data keys and the master keys that seal them;
- ``headers``: the SSE request headers read into typed values, and the headers answers carry;
- ``stored``: the reserved metadata entries recorded with an encrypted object;
- ``bucket_config``: a bucket's default encryption document (``?encryption``).

Plain Python over ``cryptography``; the S3 operations call it.
"""

from __future__ import annotations

from .headers import AES256, AWS_KMS, SSE_C, BucketDefault, CustomerKey, EncryptionRequest
from .keys import MasterKeys, SealedKey, refuse_customer_key
from .packages import Encryptor, ObjectDecryptor, Stream, StreamDecryptor, TamperedError, part_context
from .stored import RESERVED_PREFIX, StoredEncryption, refuse_reserved_metadata, user_metadata

__all__ = [
    "AES256",
    "AWS_KMS",
    "RESERVED_PREFIX",
    "SSE_C",
    "BucketDefault",
    "CustomerKey",
    "EncryptionRequest",
    "Encryptor",
    "MasterKeys",
    "ObjectDecryptor",
    "SealedKey",
    "StoredEncryption",
    "Stream",
    "StreamDecryptor",
    "TamperedError",
    "object_data_key",
    "part_context",
    "refuse_reserved_metadata",
    "user_metadata",
]


def object_data_key(
    keys: MasterKeys, stored: StoredEncryption | None, bucket: str, key: str, customer_key: CustomerKey | None
) -> bytes | None:
    """The data key of an object (None: stored in the clear), checking the SSE-C key a read gave:
    required for an SSE-C object (InvalidRequest), refused for any other (InvalidRequest), and
    AccessDenied when it is not the key the object was written with."""
    if stored is None:
        refuse_customer_key(customer_key)
        return None
    return keys.open(stored.sealed, bucket, key, customer_key)
