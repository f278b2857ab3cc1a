"""The SSE headers of S3 requests, read into small typed values, and the headers answers carry.

Writes (PutObject, CreateMultipartUpload, the destination of CopyObject) ask for one of:

- SSE-S3: ``x-amz-server-side-encryption: AES256``;
- SSE-KMS: ``x-amz-server-side-encryption: aws:kms``, optionally ``...-aws-kms-key-id`` (a key name
  of the server's key ring, or an ARN ending in ``key/NAME``) and ``...-context`` (base64 of a JSON
  object of strings, bound to the object's key);
- SSE-C: ``x-amz-server-side-encryption-customer-algorithm: AES256``, ``...-customer-key`` (base64
  of 32 bytes) and ``...-customer-key-MD5`` (base64 of its MD5, which must match).

Reads (GET, HEAD), UploadPart and CompleteMultipartUpload carry the SSE-C key of an SSE-C object
again; CopyObject and UploadPartCopy carry the source's as ``x-amz-copy-source-server-side-encryption-
customer-*``. Errors are AWS's: InvalidArgument for malformed or contradictory headers.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping

from ...store.encryption import (
    AES256,
    AWS_KMS,
    SSE_C,
    BucketDefault,
    CustomerKey,
    EncryptionRequest,
    canonical_json,
)
from ..errors import S3Error

SSE = "x-amz-server-side-encryption"
KMS_KEY_ID = "x-amz-server-side-encryption-aws-kms-key-id"
KMS_CONTEXT = "x-amz-server-side-encryption-context"
BUCKET_KEY_ENABLED = "x-amz-server-side-encryption-bucket-key-enabled"
CUSTOMER = "x-amz-server-side-encryption-customer-"
COPY_SOURCE_CUSTOMER = "x-amz-copy-source-server-side-encryption-customer-"

_NOT_IMPLEMENTED_ALGORITHMS = frozenset({"aws:kms:dsse"})
_MAX_CONTEXT = 4096


def write_request(
    headers: Mapping[str, str], default: BucketDefault | None = None
) -> EncryptionRequest | None:
    """What a PutObject, CreateMultipartUpload or CopyObject asks for; None: no encryption. Header
    names are looked up in lower case: pass tornado's case-insensitive HTTPHeaders, or lower-case keys."""
    algorithm = headers.get(SSE)
    customer_key = customer_key_of(headers)
    if customer_key is not None and algorithm is not None:
        raise S3Error(
            "InvalidArgument",
            "Server Side Encryption with Customer provided key is incompatible "
            "with the encryption method specified",
        )
    if algorithm is not None and algorithm not in (AES256, AWS_KMS):
        if algorithm in _NOT_IMPLEMENTED_ALGORITHMS:
            raise S3Error("NotImplemented", f"Server-side encryption {algorithm} is not implemented.")
        raise S3Error("InvalidArgument", "The encryption method specified is not supported")
    if algorithm != AWS_KMS and (KMS_KEY_ID in headers or KMS_CONTEXT in headers):
        raise S3Error(
            "InvalidArgument",
            "Server Side Encryption with AWS KMS managed key requires HTTP header "
            "x-amz-server-side-encryption : aws:kms",
        )
    bucket_key = _bucket_key_enabled(headers.get(BUCKET_KEY_ENABLED))
    if customer_key is not None:
        return EncryptionRequest(SSE_C, customer_key=customer_key)
    if algorithm == AES256:
        return EncryptionRequest(AES256, bucket_key_enabled=bucket_key)
    if algorithm == AWS_KMS:
        kms_key_id = headers.get(KMS_KEY_ID)
        if kms_key_id is not None and not kms_key_id.strip():
            raise S3Error("InvalidArgument", "The KMS key id must not be empty.")
        return EncryptionRequest(
            AWS_KMS, kms_key_id, _kms_context(headers.get(KMS_CONTEXT)), bucket_key_enabled=bucket_key
        )
    if default is not None:
        return EncryptionRequest(
            default.algorithm, default.kms_key_id, bucket_key_enabled=default.bucket_key_enabled or bucket_key
        )
    return None


def read_request(headers: Mapping[str, str]) -> CustomerKey | None:
    """The SSE-C key a GET, HEAD, UploadPart or CompleteMultipartUpload repeats, if any. Only SSE-C
    keys are repeated: asking a read for SSE-S3 or SSE-KMS is an error, as in S3."""
    for name in (SSE, KMS_KEY_ID, KMS_CONTEXT):
        if name in headers:
            raise S3Error("InvalidArgument", f"The {name} header is not supported for this operation.")
    return customer_key_of(headers)


def customer_key_of(headers: Mapping[str, str], prefix: str = CUSTOMER) -> CustomerKey | None:
    """The SSE-C key of the headers named ``prefix`` + algorithm / key / key-MD5 (COPY_SOURCE_CUSTOMER
    for the source of a copy); None when none of them is there."""
    algorithm = headers.get(prefix + "algorithm")
    encoded = headers.get(prefix + "key")
    md5 = headers.get(prefix + "key-md5")
    if algorithm is None and encoded is None and md5 is None:
        return None
    if algorithm != AES256:
        raise S3Error(
            "InvalidArgument",
            "Requests specifying Server Side Encryption with Customer provided "
            "keys must provide a valid encryption algorithm.",
        )
    if not encoded:
        raise S3Error(
            "InvalidArgument",
            "Requests specifying Server Side Encryption with Customer provided "
            "keys must provide an appropriate secret key.",
        )
    if not md5:
        raise S3Error(
            "InvalidArgument",
            "Requests specifying Server Side Encryption with Customer provided "
            "keys must provide the client calculated MD5 of the secret key.",
        )
    try:
        key = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        key = b""
    if len(key) != 32:
        raise S3Error("InvalidArgument", "The secret key was invalid for the specified algorithm.")
    customer_key = CustomerKey(key)
    if md5 != customer_key.key_md5:
        raise S3Error(
            "InvalidArgument", "The calculated MD5 hash of the key did not match the hash that was provided."
        )
    return customer_key


def response_headers(
    mode: str,
    *,
    kms_key_id: str | None = None,
    kms_context: dict[str, str] | None = None,
    customer_key: CustomerKey | None = None,
    bucket_key_enabled: bool = False,
) -> dict[str, str]:
    """The SSE headers of an answer about an object encrypted so (writes, GET, HEAD, copies,
    CreateMultipartUpload, UploadPart, CompleteMultipartUpload)."""
    if mode == SSE_C:
        if customer_key is None:
            raise ValueError("an SSE-C answer repeats the request's key MD5")
        return {CUSTOMER + "algorithm": AES256, CUSTOMER + "key-md5": customer_key.key_md5}
    headers = {SSE: mode}
    if mode == AWS_KMS:
        if kms_key_id is not None:
            headers[KMS_KEY_ID] = kms_key_id
        if kms_context:
            headers[KMS_CONTEXT] = base64.b64encode(canonical_json(kms_context).encode()).decode()
    if bucket_key_enabled:
        headers[BUCKET_KEY_ENABLED] = "true"
    return headers


def _kms_context(encoded: str | None) -> dict[str, str] | None:
    if encoded is None:
        return None
    try:
        if len(encoded) > _MAX_CONTEXT:
            raise ValueError("too long")
        context = json.loads(base64.b64decode(encoded, validate=True))
    except (binascii.Error, ValueError, RecursionError):
        context = None
    if not isinstance(context, dict) or not all(isinstance(v, str) for v in context.values()):
        raise S3Error(
            "InvalidArgument",
            "The x-amz-server-side-encryption-context header must be base64 of a "
            "JSON object whose values are strings.",
        )
    return context


def _bucket_key_enabled(value: str | None) -> bool:
    if value is None:
        return False
    if value.lower() not in ("true", "false"):
        raise S3Error(
            "InvalidArgument", "x-amz-server-side-encryption-bucket-key-enabled must be true or false."
        )
    return value.lower() == "true"
