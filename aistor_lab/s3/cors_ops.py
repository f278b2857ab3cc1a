"""Bucket CORS: PutBucketCors, GetBucketCors, DeleteBucketCors (``?cors``), the preflight
(``OPTIONS /BUCKET[/KEY]``) and the CORS headers of actual requests.

A preflight is not signed and needs no authorization: the bucket's rules alone answer it, with the
errors S3 gives (400 BadRequest without Origin or Access-Control-Request-Method, 403 AccessForbidden
when the bucket, its configuration or a matching rule is missing). The system bucket answers as a
bucket that does not exist. An actual request carrying an Origin that a rule allows gets that rule's
headers on its answer, errors included; one without an Origin never reads the configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import NoSuchBucket
from .bucket_documents import send_document
from .checksums import verify_required_integrity
from .cors import CONFIG_NAME, CorsConfiguration, parse, requested_headers, to_xml
from .errors import S3Error

if TYPE_CHECKING:
    from .handler import S3Handler

_NOT_ALLOWED = (
    "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request "
    "method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the "
    "resource's CORS spec."
)


async def put_bucket_cors(req: S3Handler) -> None:
    body = bytes(req.body)
    verify_required_integrity(req.request.headers, req.trailers, body)
    configuration = parse(body)
    await req.run_blocking(req.store.put_bucket_config, req.bucket, CONFIG_NAME, to_xml(configuration))
    req.services.cors.changed(req.bucket, configuration)
    req.send_empty()


async def get_bucket_cors(req: S3Handler) -> None:
    await send_document(req, CONFIG_NAME, "NoSuchCORSConfiguration", "The CORS configuration does not exist")


async def delete_bucket_cors(req: S3Handler) -> None:
    await req.run_blocking(req.store.put_bucket_config, req.bucket, CONFIG_NAME, None)
    req.services.cors.changed(req.bucket, None)
    req.send_empty(204)


async def preflight(req: S3Handler) -> None:
    headers = req.request.headers
    origin = headers.get("Origin")
    if not origin:
        raise S3Error("BadRequest", "Insufficient information. Origin request header needed.")
    try:
        configuration = await _configuration(req)
    except NoSuchBucket:
        raise S3Error("AccessForbidden", "CORSResponse: Bucket not found", 403) from None
    if configuration is None:
        raise S3Error("AccessForbidden", "CORSResponse: CORS is not enabled for this bucket.", 403)
    method = headers.get("Access-Control-Request-Method")
    if not method:
        raise S3Error("BadRequest", "Insufficient information. Access-Control-Request-Method request header needed.")
    wanted = requested_headers(headers.get("Access-Control-Request-Headers"))
    rule = configuration.match(origin, method, wanted)
    if rule is None:
        raise S3Error("AccessForbidden", _NOT_ALLOWED, 403)
    for name, value in rule.answer_headers(origin, wanted).items():
        req.set_header(name, value)
    req.send_empty()


async def response_headers(req: S3Handler) -> dict[str, str]:
    """The CORS headers an actual request's answer carries: none without an Origin (and then no read
    of the configuration), none when no rule allows it. Never fails the request."""
    headers = req.request.headers
    origin = headers.get("Origin")
    if not origin or not req.bucket:
        return {}
    try:
        configuration = await _configuration(req)
    except Exception:  # noqa: BLE001 - the request itself answers any trouble with its bucket
        return {}
    if configuration is None:
        return {}
    # S3 takes this header for the method whenever it is sent, not only on preflights.
    method = headers.get("Access-Control-Request-Method") or req.request.method
    wanted = requested_headers(headers.get("Access-Control-Request-Headers"))
    rule = configuration.match(origin, method, wanted)
    return {} if rule is None else rule.answer_headers(origin, wanted)


async def _configuration(req: S3Handler) -> CorsConfiguration | None:
    """Raises NoSuchBucket, for the system bucket too."""
    if not req.bucket or req.store.is_system_bucket(req.bucket):
        raise NoSuchBucket()
    return await req.run_read(req.services.cors.get, req.bucket)
