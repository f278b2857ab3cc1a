"""The SSE headers of an answer about an object or upload: its mode, SSE-KMS key and context, and
for SSE-C the MD5 of the key the request gave."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store import ObjectEncryption
from ...store.encryption import SSE_C
from .headers import response_headers

if TYPE_CHECKING:
    from ..handler import S3Handler


def set_encryption_headers(req: S3Handler, encryption: ObjectEncryption | None) -> None:
    if encryption is None:
        return
    params = req.sse
    customer_key = params.customer_key or (params.write.customer_key if params.write else None)
    if encryption.mode == SSE_C and customer_key is None:
        return
    headers = response_headers(
        encryption.mode,
        kms_key_id=encryption.kms_key_id,
        kms_context=encryption.kms_context,
        customer_key=customer_key,
        bucket_key_enabled=encryption.bucket_key_enabled,
    )
    for name, value in headers.items():
        req.set_header(name, value)
