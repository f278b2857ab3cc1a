"""The values encryption is asked for and described with: modes, keys, requests, bucket defaults."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field

# The modes, named as x-amz-server-side-encryption names them (and stored metadata records them).
AES256 = "AES256"  # SSE-S3
AWS_KMS = "aws:kms"  # SSE-KMS
SSE_C = "SSE-C"  # not a header value: SSE-C is asked for with the customer-key headers


@dataclass(frozen=True)
class CustomerKey:
    """An SSE-C key as a request gave it (checked against its MD5)."""

    key: bytes = field(repr=False)

    @property
    def key_md5(self) -> str:
        """What S3 answers in x-amz-server-side-encryption-customer-key-MD5."""
        return base64.b64encode(hashlib.md5(self.key).digest()).decode()


@dataclass(frozen=True)
class EncryptionRequest:
    """The encryption a write asks for (or its bucket's default encryption gives it)."""

    mode: str  # AES256, AWS_KMS or SSE_C
    kms_key_id: str | None = None  # as named in the request; None: the key ring's default key
    kms_context: dict[str, str] | None = None
    customer_key: CustomerKey | None = None
    bucket_key_enabled: bool = False


@dataclass(frozen=True)
class BucketDefault:
    """A bucket's default encryption (``?encryption``), applied to writes that ask for none."""

    algorithm: str  # AES256 or AWS_KMS
    kms_key_id: str | None = None
    bucket_key_enabled: bool = False

    def request(self) -> EncryptionRequest:
        return EncryptionRequest(self.algorithm, self.kms_key_id, bucket_key_enabled=self.bucket_key_enabled)


@dataclass(frozen=True)
class EncryptionParams:
    """What a client said about encryption on one call (an S3 request's SSE headers), for
    ``ObjectStore.with_encryption``. Callers that say nothing (the catalog, sharing, lifecycle) get
    the bucket's default encryption on writes and transparent decryption of SSE-S3/SSE-KMS reads."""

    # The encryption a new object or upload gets; None: the bucket's default, if any.
    write: EncryptionRequest | None = None
    # The SSE-C key of the object read (GET, HEAD) or of the upload a part goes to.
    customer_key: CustomerKey | None = None
    # The SSE-C key of a copy's source object.
    source_customer_key: CustomerKey | None = None
    # Reads answer a client that must prove an SSE-C object's key even without reading its bytes
    # (HEAD): get_object_info then checks ``customer_key`` as open_object does.
    check_reads: bool = False

    def __bool__(self) -> bool:
        return bool(self.write or self.customer_key or self.source_customer_key or self.check_reads)


def canonical_json(value: object) -> str:
    """One spelling of a JSON value, so that what is bound into a seal can be rebuilt exactly."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
