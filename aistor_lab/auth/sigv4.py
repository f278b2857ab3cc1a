"""Verification of signed requests: SigV4 in the Authorization header or in a presigned query,
and (delegated to ``sigv2``) SigV2 in the Authorization header or in presigned query URLs.

``verify_request`` takes one extra, optional argument beyond the package interface: ``body``.
Signers of services other than S3 (botocore's SigV4Auth, used by PyIceberg for the ``s3tables``
catalog) send no ``x-amz-content-sha256`` header but sign the SHA-256 of the body. Callers that
buffer small bodies anyway (the catalog) pass ``body=`` and get the payload checked here, in
every case. Callers that stream (S3) pass nothing and check the body with ``body_decoder``; a
request without the header then counts as signing an empty body, which ``body_decoder`` enforces.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import NamedTuple

from .canonical import RequestParts, canonical_headers, canonical_queries, canonical_uris
from .errors import AuthError
from .result import AuthResult
from .signing import (
    ALGORITHM,
    PAYLOAD_MARKERS,
    STREAMING_SIGNED,
    STREAMING_SIGNED_TRAILER,
    UNSIGNED_PAYLOAD,
    Secrets,
    check_skew,
    http_date,
    is_sha256_hex,
    lookup_secret,
    payload_mismatch,
    same_signature,
    sign_hex,
    signature_mismatch,
    signing_key,
)
from .sigv2 import is_header_v2, verify_header_v2, verify_presigned_v2

__all__ = ["AuthResult", "anonymous_request", "check_credential", "is_signed", "verify_request"]

HEADER_MALFORMED = "AuthorizationHeaderMalformed"
QUERY_MALFORMED = "AuthorizationQueryParametersError"
MAX_PRESIGN_SECONDS = 7 * 24 * 3600
_AMZ_DATE_FORMAT = "%Y%m%dT%H%M%SZ"
_QUERY_V4_PARAMS = (
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-SignedHeaders",
    "X-Amz-Signature",
)
# Any of these in a query makes it a presigned one (then checked whole, or refused).
_PRESIGN_V4_PARAMS = ("X-Amz-Algorithm", "X-Amz-Credential")
_PRESIGN_V2_PARAMS = ("AWSAccessKeyId", "Signature")
_PRESIGN_PARAMS = _PRESIGN_V4_PARAMS + _PRESIGN_V2_PARAMS


def is_signed(headers: Mapping[str, str], params: Mapping[str, str]) -> bool:
    """Whether a request carries credentials at all (else it is anonymous): an Authorization header,
    or a presigned query's parameters. ``params``: the decoded query."""
    return bool(headers.get("Authorization")) or any(name in params for name in _PRESIGN_PARAMS)


def anonymous_request(headers: Mapping[str, str]) -> AuthResult:
    """What an unsigned request proves: nobody, and a body hash it may state for itself. A body
    framed with chunk signatures cannot be anonymous: nothing signs its chunks."""
    payload = headers.get("x-amz-content-sha256") or UNSIGNED_PAYLOAD
    if payload in (STREAMING_SIGNED, STREAMING_SIGNED_TRAILER):
        raise AuthError("AccessDenied", "A body with chunk signatures needs a signed request.")
    return AuthResult(access_key="", kind="anonymous", region="", service="", date="", amz_date="",
                      payload=payload, signing_key=b"", seed_signature="")


def verify_request(
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Mapping[str, str],
    secrets: Secrets,
    *,
    service: str,
    now: float | None = None,
    max_skew: int = 900,
    body: bytes | None = None,
    resource_path: str | None = None,
) -> AuthResult:
    """Check a request's signature and return who signed it; raises AuthError otherwise.

    ``now`` is the server time in epoch seconds (default: the clock); ``body`` and
    ``resource_path``, see the module.
    """
    now = time.time() if now is None else now
    request = RequestParts.parse(method, raw_path, raw_query, headers)
    authorization = headers.get("Authorization")
    presigned_v4 = any(name in request.params for name in _PRESIGN_V4_PARAMS)
    presigned_v2 = any(name in request.params for name in _PRESIGN_V2_PARAMS)
    if authorization and (presigned_v4 or presigned_v2):
        raise AuthError(
            "InvalidArgument",
            "Only one auth mechanism allowed: the Authorization header or a presigned query.",
            400,
        )
    if authorization and is_header_v2(authorization):
        return verify_header_v2(request, authorization, secrets, service=service, now=now, max_skew=max_skew,
                                resource_path=resource_path)
    if resource_path is not None and (authorization or presigned_v4):
        _require_signed_host(authorization or "", request.params)
    if authorization:
        return _verify_header(request, authorization, secrets, service, now, max_skew, body)
    if presigned_v4:
        return _verify_query(request, secrets, service, now, max_skew)
    if presigned_v2:
        return verify_presigned_v2(request, secrets, service=service, now=now, resource_path=resource_path)
    raise AuthError("AccessDenied", "Anonymous access is forbidden.")


def _require_signed_host(authorization: str, params: Mapping[str, str]) -> None:
    """On a virtual host the Host names the bucket: a SigV4 signature that leaves it out would be
    good for the same key of any bucket (SigV2 signs ``/BUCKET/KEY`` itself)."""
    if authorization:
        signed = _authorization_fields(authorization)["SignedHeaders"]
    else:
        signed = params.get("X-Amz-SignedHeaders", "")
    if "host" not in signed.lower().split(";"):
        raise AuthError("AccessDenied", "A virtual-host-style request must sign its Host header.")


def _verify_header(
    request: RequestParts,
    authorization: str,
    secrets: Secrets,
    service: str,
    now: float,
    max_skew: int,
    body: bytes | None,
) -> AuthResult:
    access_key, fields, amz_date, date, region, secret = _header_credential(
        request.headers, authorization, secrets, service, now, max_skew
    )
    key = signing_key(secret, date, region, service)
    payload = _payload_hash(request.headers, body)
    signature = fields["Signature"]
    candidates = _canonical_requests(request, service, canonical_queries(request), fields["SignedHeaders"], payload)
    _check_signature(key, amz_date, f"{date}/{region}/{service}/aws4_request", candidates, signature)
    return AuthResult(access_key, "header-v4", region, service, date, amz_date, payload, key, signature)


class _HeaderCredential(NamedTuple):
    access_key: str
    fields: dict[str, str]
    amz_date: str
    date: str
    region: str
    secret: str


def _header_credential(
    headers: Mapping[str, str], authorization: str, secrets: Secrets, service: str, now: float, max_skew: int
) -> _HeaderCredential:
    """What a header-signed request proves before its signature is checked: a well-formed credential
    scope for ``service``, a date within ``max_skew``, and a known access key (with its secret)."""
    fields = _authorization_fields(authorization)
    amz_date, signed_at = _request_time(headers)
    access_key, date, region = _credential_scope(fields["Credential"], amz_date, service, HEADER_MALFORMED)
    check_skew(signed_at, now, max_skew)
    return _HeaderCredential(access_key, fields, amz_date, date, region, lookup_secret(secrets, access_key))


def check_credential(
    headers: Mapping[str, str], secrets: Secrets, *, service: str, now: float | None = None, max_skew: int = 900
) -> str:
    """What a header-signed request proves before its body is in, when its signature covers a body hash
    that no header carries: the access key is known, the service and date are right. Returns the access
    key; ``verify_request(..., body=...)`` must still verify the signature once the body has arrived."""
    now = time.time() if now is None else now
    return _header_credential(headers, headers.get("Authorization", ""), secrets, service, now, max_skew).access_key


def _verify_query(
    request: RequestParts, secrets: Secrets, service: str, now: float, max_skew: int
) -> AuthResult:
    params = request.params
    missing = [name for name in _QUERY_V4_PARAMS if name not in params]
    if missing:
        raise AuthError(
            QUERY_MALFORMED,
            "Query-string authentication version 4 requires the parameters " + ", ".join(missing),
            400,
        )
    if params["X-Amz-Algorithm"] != ALGORITHM:
        raise AuthError(QUERY_MALFORMED, f'X-Amz-Algorithm only supports "{ALGORITHM}".', 400)
    amz_date = params["X-Amz-Date"]
    signed_at = _parse_amz_date(amz_date)
    if signed_at is None:
        raise AuthError(QUERY_MALFORMED, "X-Amz-Date must be of the form YYYYMMDDTHHMMSSZ.", 400)
    access_key, date, region = _credential_scope(
        params["X-Amz-Credential"], amz_date, service, QUERY_MALFORMED
    )
    expires = params["X-Amz-Expires"]
    if expires.startswith("-") and expires[1:].isdigit():
        # S3 refuses a URL that expired before it was made as it refuses an expired one, with 403.
        raise AuthError(QUERY_MALFORMED, "X-Amz-Expires must be non-negative", 403)
    if not expires.isdigit() or int(expires) > MAX_PRESIGN_SECONDS:
        raise AuthError(
            QUERY_MALFORMED, f"X-Amz-Expires must be a number of seconds up to {MAX_PRESIGN_SECONDS}.", 400
        )
    if signed_at - max_skew > now:
        raise AuthError("AccessDenied", "Request is not valid yet.")
    if now > signed_at + int(expires):
        raise AuthError("AccessDenied", "Request has expired.")
    key = signing_key(lookup_secret(secrets, access_key), date, region, service)
    signature = params["X-Amz-Signature"]
    queries = canonical_queries(request, exclude="X-Amz-Signature")
    candidates = _canonical_requests(
        request, service, queries, params["X-Amz-SignedHeaders"], UNSIGNED_PAYLOAD
    )
    _check_signature(key, amz_date, f"{date}/{region}/{service}/aws4_request", candidates, signature)
    return AuthResult(
        access_key, "query-v4", region, service, date, amz_date, UNSIGNED_PAYLOAD, key, signature
    )


def _canonical_requests(
    request: RequestParts, service: str, queries: list[str], signed_headers: str, payload: str
) -> Iterator[str]:
    """The canonical request for each form of the path and query the client may have signed."""
    tail = f"{canonical_headers(request.headers, signed_headers.split(';'))}\n{signed_headers}\n{payload}"
    for query in queries:
        for uri in canonical_uris(request.raw_path, double_encode=service != "s3"):
            yield f"{request.method}\n{uri}\n{query}\n{tail}"


def _check_signature(
    key: bytes, amz_date: str, scope: str, canonical_requests: Iterator[str], signature: str
) -> None:
    for canonical_request in canonical_requests:
        digest = hashlib.sha256(canonical_request.encode()).hexdigest()
        if same_signature(sign_hex(key, f"{ALGORITHM}\n{amz_date}\n{scope}\n{digest}"), signature):
            return
    raise signature_mismatch()


def _authorization_fields(authorization: str) -> dict[str, str]:
    algorithm, _, rest = authorization.strip().partition(" ")
    if algorithm != ALGORITHM:
        raise AuthError(
            HEADER_MALFORMED, f"The authorization mechanism is not supported; use {ALGORITHM} (or AWS for SigV2).",
            400,
        )
    fields = {}
    for part in rest.split(","):
        name, _, value = part.strip().partition("=")
        fields[name] = value
    missing = [name for name in ("Credential", "SignedHeaders", "Signature") if not fields.get(name)]
    if missing:
        raise AuthError(HEADER_MALFORMED, "The authorization header lacks " + ", ".join(missing), 400)
    return fields


def _credential_scope(credential: str, amz_date: str, service: str, malformed: str) -> tuple[str, str, str]:
    """Split ``AK/DATE/REGION/SERVICE/aws4_request`` (an access key may itself hold a slash)."""
    parts = credential.rsplit("/", 4)
    if len(parts) != 5 or not parts[0] or not parts[2] or parts[4] != "aws4_request":
        raise AuthError(malformed, f"The credential {credential!r} is malformed.", 400)
    access_key, date, region, signed_service, _ = parts
    if signed_service != service:
        raise AuthError(
            malformed, f'Incorrect service "{signed_service}". This endpoint belongs to "{service}".', 400
        )
    if date != amz_date[:8]:
        raise AuthError(malformed, "Invalid credential date. Date is not the same as X-Amz-Date.", 400)
    return access_key, date, region


def _request_time(headers: Mapping[str, str]) -> tuple[str, float]:
    """The signing time from ``x-amz-date``, else ``Date``: as SigV4 writes it, and in epoch seconds."""
    amz_date = headers.get("x-amz-date")
    if amz_date:
        signed_at = _parse_amz_date(amz_date)
        if signed_at is not None:
            return amz_date, signed_at
    else:
        signed_at = http_date(headers.get("Date", ""))
        if signed_at is not None:
            return datetime.fromtimestamp(signed_at, UTC).strftime(_AMZ_DATE_FORMAT), signed_at
    raise AuthError("AccessDenied", "AWS authentication requires a valid Date or x-amz-date header.")


def _parse_amz_date(value: str) -> float | None:
    """``YYYYMMDDTHHMMSSZ`` in epoch seconds; by hand, as strptime costs more than the HMACs."""
    if len(value) != 16 or value[8] != "T" or value[15] != "Z" or not (value[:8] + value[9:15]).isdigit():
        return None
    try:
        when = datetime(int(value[:4]), int(value[4:6]), int(value[6:8]),
                        int(value[9:11]), int(value[11:13]), int(value[13:15]), tzinfo=UTC)
    except ValueError:
        return None
    return when.timestamp()


def _payload_hash(headers: Mapping[str, str], body: bytes | None) -> str:
    declared = headers.get("x-amz-content-sha256")
    if declared is None:
        return hashlib.sha256(body or b"").hexdigest()
    if declared in PAYLOAD_MARKERS:
        return declared
    if _is_sha256_base64(declared):
        # The AWS SDK's Aws4Signer given checksum parameters (Iceberg's REST SigV4 signer) puts the
        # body's SHA-256 here in base64, and signs its hex form as the payload hash.
        digest = base64.b64decode(declared)
        if body is not None and hashlib.sha256(body).digest() != digest:
            raise payload_mismatch()
        return digest.hex()
    if not is_sha256_hex(declared):
        raise AuthError(
            "InvalidArgument",
            "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, a STREAMING-* value or a SHA-256 hex digest.",
            400,
        )
    if body is not None and hashlib.sha256(body).hexdigest() != declared.lower():
        raise payload_mismatch()
    return declared


def _is_sha256_base64(value: str) -> bool:
    try:
        return len(value) == 44 and len(base64.b64decode(value, validate=True)) == 32
    except binascii.Error:
        return False
