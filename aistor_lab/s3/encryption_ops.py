"""A bucket's default encryption: PutBucketEncryption, GetBucketEncryption, DeleteBucketEncryption."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store.encryption import AWS_KMS
from .bucket_documents import send_document
from .encryption import bucket_config

if TYPE_CHECKING:
    from .handler import S3Handler


async def put_bucket_encryption(req: S3Handler) -> None:
    await req.run_read(req.store.get_bucket, req.bucket)
    config = bucket_config.parse(bytes(req.body))
    if config.algorithm == AWS_KMS:
        # As MinIO does: a default naming a key the key ring lacks would fail every later write.
        req.services.sse_keys.resolve_kms_key(config.kms_key_id)
    document = bucket_config.to_xml(config)
    await req.run_blocking(req.store.put_bucket_config, req.bucket, bucket_config.CONFIG_NAME, document)
    req.send_empty()


async def get_bucket_encryption(req: S3Handler) -> None:
    await send_document(req, bucket_config.CONFIG_NAME, "ServerSideEncryptionConfigurationNotFoundError",
                        "The server side encryption configuration was not found")


async def delete_bucket_encryption(req: S3Handler) -> None:
    await req.run_blocking(req.store.put_bucket_config, req.bucket, bucket_config.CONFIG_NAME, None)
    req.send_empty(204)
