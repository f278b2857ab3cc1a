"""Server-side encryption at rest: SSE-S3, SSE-KMS against the local key ring, and SSE-C.

- ``packages``: object bytes as independently authenticated AES-256-GCM packages (ranged reads
  decrypt only what they touch; multipart parts are streams of their own);
- ``keys``: per-object data keys and the master keys that seal them;
- ``stored``: the reserved metadata entries recorded with an encrypted object;
- ``bucket_default``: a bucket's default encryption, read from its stored configuration;
- ``store``: ``EncryptingStore``, the decorator that applies all of it below every caller.

Plain Python over ``cryptography``; HTTP headers are the S3 layer's business.
"""

from __future__ import annotations

from . import bucket_default
from .errors import (
    EncryptionArgumentInvalid,
    EncryptionNotSupported,
    EncryptionParametersInvalid,
    KMSKeyNotFound,
    UnreadableEncryption,
    WrongCustomerKey,
)
from .keys import MasterKeys, SealedKey, refuse_customer_key
from .modes import (
    AES256,
    AWS_KMS,
    SSE_C,
    BucketDefault,
    CustomerKey,
    EncryptionParams,
    EncryptionRequest,
    canonical_json,
)
from .packages import Encryptor, ObjectDecryptor, Stream, StreamDecryptor, TamperedError, part_context
from .stored import RESERVED_PREFIX, StoredEncryption, refuse_reserved_metadata, user_metadata

__all__ = [
    "AES256",
    "AWS_KMS",
    "RESERVED_PREFIX",
    "SSE_C",
    "BucketDefault",
    "CustomerKey",
    "EncryptionArgumentInvalid",
    "EncryptionNotSupported",
    "EncryptionParametersInvalid",
    "EncryptionParams",
    "EncryptionRequest",
    "Encryptor",
    "KMSKeyNotFound",
    "MasterKeys",
    "ObjectDecryptor",
    "SealedKey",
    "StoredEncryption",
    "Stream",
    "StreamDecryptor",
    "TamperedError",
    "UnreadableEncryption",
    "WrongCustomerKey",
    "bucket_default",
    "canonical_json",
    "object_data_key",
    "part_context",
    "refuse_customer_key",
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
