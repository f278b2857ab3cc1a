"""Bucket lifecycle: PutBucketLifecycleConfiguration, GetBucketLifecycleConfiguration and
DeleteBucketLifecycle (``?lifecycle``). The configuration is validated by ``aistor_lab.lifecycle``,
kept with the bucket as the document GET answers, and applied by the service's background runner.

As S3 requires, a PUT carries an integrity check of its body: Content-MD5 or a flexible checksum
(boto3 sends one of them by itself); both are verified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lifecycle import CONFIG_NAME, LifecycleError, parse, to_xml
from ..store import ObjectInfo
from .bucket_documents import send_document
from .checksums import verify_required_integrity
from .errors import S3Error
from .xmlio import http_date

if TYPE_CHECKING:
    from .handler import S3Handler


async def put_lifecycle(req: S3Handler) -> None:
    body = bytes(req.body)
    verify_required_integrity(req.request.headers, req.trailers, body)
    try:
        configuration = parse(body)
    except LifecycleError as exc:
        raise S3Error(exc.code, exc.message) from None
    await req.run_blocking(req.store.put_bucket_config, req.bucket, CONFIG_NAME, to_xml(configuration))
    req.services.lifecycle_rules.changed(req.bucket, configuration)
    req.send_empty()


async def get_lifecycle(req: S3Handler) -> None:
    await send_document(req, CONFIG_NAME, "NoSuchLifecycleConfiguration",
                        "The lifecycle configuration does not exist")


async def delete_lifecycle(req: S3Handler) -> None:
    await req.run_blocking(req.store.put_bucket_config, req.bucket, CONFIG_NAME, None)
    req.services.lifecycle_rules.changed(req.bucket, None)
    req.send_empty(204)


async def set_expiration_header(req: S3Handler, info: ObjectInfo) -> None:
    """``x-amz-expiration`` on GET, HEAD and PUT of an object's current version that a rule will
    expire: when, and by which rule, as S3 and MinIO answer."""
    if "versionId" in req.query:
        return  # a named version may be noncurrent: the rules for current versions do not say
    found = await req.run_read(req.services.lifecycle_rules.expiry, info)
    if found is not None and found[1].isascii() and found[1].isprintable():  # else no header can carry it
        due, rule_id = found
        req.set_header("x-amz-expiration", f'expiry-date="{http_date(due)}", rule-id="{rule_id}"')

