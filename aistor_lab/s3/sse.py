"""Server-side encryption in S3 requests: each operation's SSE headers as the store's
EncryptionParams (the store encrypts and decrypts, see store.encryption) and the staging of
bodies for where they go. The SSE headers of answers are written by ``encryption.answers``.

SSE-C keys travel in the request, so AWS and MinIO take them over TLS only (InvalidRequest
otherwise); ``AISTOR_SSE_C_OVER_HTTP=on`` lets plain HTTP carry them, for tests on loopback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..store import Staging
from ..store.encryption import SSE_C, EncryptionParams
from .encryption.headers import COPY_SOURCE_CUSTOMER, customer_key_of, read_request, write_request
from .errors import S3Error
from .object_ops import part_number

if TYPE_CHECKING:
    from .handler import S3Handler

_READS = frozenset({"GetObject", "HeadObject", "GetObjectAttributes"})


def request_params(operation: str, headers: Mapping[str, str]) -> EncryptionParams:
    """What the request's SSE headers say, for the operations that take them (others ignore them)."""
    if operation in ("PutObject", "PostObject", "CreateMultipartUpload"):
        return EncryptionParams(write=write_request(headers))
    if operation == "CopyObject":
        return EncryptionParams(
            write=write_request(headers), source_customer_key=customer_key_of(headers, COPY_SOURCE_CUSTOMER)
        )
    # A part takes its upload's encryption: SSE-S3/SSE-KMS headers repeated on it are redundant and
    # go unread (ceph's suite sends them, RGW takes them); an SSE-C upload's key must come again.
    if operation == "UploadPart":
        return EncryptionParams(customer_key=customer_key_of(headers))
    if operation == "UploadPartCopy":
        return EncryptionParams(
            customer_key=customer_key_of(headers), source_customer_key=customer_key_of(headers, COPY_SOURCE_CUSTOMER)
        )
    if operation in _READS:
        return EncryptionParams(customer_key=read_request(headers), check_reads=True)
    return EncryptionParams()


def check_transport(params: EncryptionParams, protocol: str, allow_http: bool) -> None:
    customer_keys = (params.customer_key, params.source_customer_key, params.write and params.write.customer_key)
    if protocol != "https" and not allow_http and any(customer_keys):
        raise S3Error(
            "InvalidRequest",
            "Requests specifying Server Side Encryption with Customer provided keys must be made over a "
            "secure connection.",
        )


async def bind(req: S3Handler) -> EncryptionParams:
    """The request's encryption parameters, its store bound to them (``req.store``)."""
    params = request_params(req.operation.name, req.request.headers)
    check_transport(params, req.request.protocol, req.services.settings.sse_c_over_http)
    if params.write is not None and params.write.mode == SSE_C:
        await req.run_read(req.services.table_guard.check_customer_key_write, req.bucket, req.key)
    req.store = req.store.with_encryption(params)
    return params


def stage_body(req: S3Handler) -> Staging:
    """Where the body of a PutObject or UploadPart goes, encrypted as it arrives if it is to be."""
    if req.operation.name == "UploadPart":
        upload_id = req.query.get("uploadId", "")
        return req.store.stage_for(req.bucket, req.key, upload_id=upload_id, part_number=part_number(req))
    return req.store.stage_for(req.bucket, req.key)
