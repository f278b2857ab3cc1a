"""SigV2: the ``Authorization: AWS ACCESS_KEY:SIGNATURE`` header (old tools: s3cmd, boto3 with
``signature_version="s3"``, Hadoop's and Java's older clients) and presigned query URLs
(``AWSAccessKeyId``, ``Signature``, ``Expires``: what boto3's ``generate_presigned_url`` makes by
default for us-east-1).

String to sign: ``METHOD\\nContent-MD5\\nContent-Type\\nDATE\\n`` + the ``x-amz-*`` headers as
``name:value\\n`` lines + ``/BUCKET/KEY`` and the S3 sub-resources of the query; HMAC-SHA1, base64.
DATE is ``Expires`` for a URL and the ``Date`` header for a header-signed request. The body is not
signed (Content-MD5 is, and the S3 layer checks it). A URL's signer puts the headers it signed into
the query too, since whoever opens the URL may not send them, so each is taken from the request's
headers and failing that from the query.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from .canonical import RequestParts, canonical_uris, header_text, header_values
from .errors import AuthError
from .result import AuthResult
from .signing import (
    UNSIGNED_PAYLOAD,
    Secrets,
    check_skew,
    http_date,
    lookup_secret,
    same_signature,
    signature_mismatch,
)

# The query parameters that are part of the signed resource (botocore's HmacV1Auth list).
SUBRESOURCES = frozenset(
    [
        "accelerate",
        "acl",
        "analytics",
        "cors",
        "defaultObjectAcl",
        "delete",
        "inventory",
        "lifecycle",
        "location",
        "logging",
        "metrics",
        "notification",
        "object-lock",
        "partNumber",
        "policy",
        "replication",
        "requestPayment",
        "response-cache-control",
        "response-content-disposition",
        "response-content-encoding",
        "response-content-language",
        "response-content-type",
        "response-expires",
        "restore",
        "select",
        "select-type",
        "storageClass",
        "tagging",
        "torrent",
        "uploadId",
        "uploads",
        "versionId",
        "versioning",
        "versions",
        "website",
    ]
)


def is_header_v2(authorization: str) -> bool:
    return authorization.startswith("AWS ")


def verify_header_v2(
    request: RequestParts,
    authorization: str,
    secrets: Secrets,
    *,
    service: str,
    now: float,
    max_skew: int,
    resource_path: str | None = None,
) -> AuthResult:
    """``authorization``: the header, ``AWS ACCESS_KEY:SIGNATURE``; ``resource_path`` as for URLs."""
    access_key, _, signature = authorization[len("AWS "):].strip().rpartition(":")
    if not access_key or not signature:
        # What S3 answers (ceph's s3-tests, test_*_bad_authorization_invalid_aws2), not
        # AuthorizationHeaderMalformed as for SigV4.
        raise AuthError(
            "InvalidArgument", "AWS authorization header is invalid. Expected AwsAccessKeyId:signature", 400
        )
    _require_s3(service, "AuthorizationHeaderMalformed")
    headers = request.headers
    # x-amz-date, when sent, is the request's time (for clients that cannot set Date) and is signed
    # among the x-amz-* headers; AWS then signs an empty Date line, botocore and MinIO the Date header.
    sent_date = "x-amz-date" in headers
    signed_at = http_date(headers["x-amz-date"] if sent_date else headers.get("Date", ""))
    if signed_at is None:
        raise AuthError("AccessDenied", "AWS authentication requires a valid Date or x-amz-date header.")
    check_skew(signed_at, now, max_skew)
    secret = lookup_secret(secrets, access_key)
    date = headers.get("Date", "").strip()
    _check_signature(secret, request, _signed_fields(request, with_query=False),
                     ["", date] if sent_date else [date], resource_path, signature)
    return AuthResult(access_key, "header-v2", "", service, "", "", UNSIGNED_PAYLOAD, b"", signature)


def verify_presigned_v2(
    request: RequestParts, secrets: Secrets, *, service: str, now: float, resource_path: str | None = None
) -> AuthResult:
    """``resource_path``: the ``/BUCKET/KEY`` signed when it is not the path (virtual-host style)."""
    params = request.params
    if not all(params.get(name) for name in ("AWSAccessKeyId", "Signature", "Expires")):
        raise AuthError(
            "AuthorizationQueryParametersError",
            "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters.",
            400,
        )
    _require_s3(service, "AuthorizationQueryParametersError")
    expires = params["Expires"]
    if not expires.isdigit():
        raise AuthError(
            "AuthorizationQueryParametersError", "Expires must be a number of epoch seconds.", 400
        )
    if now > int(expires):
        raise AuthError("AccessDenied", "Request has expired.")
    secret = lookup_secret(secrets, params["AWSAccessKeyId"])
    signature = params["Signature"]
    _check_signature(secret, request, _signed_fields(request, with_query=True), [expires], resource_path, signature)
    return AuthResult(
        params["AWSAccessKeyId"], "query-v2", "", service, "", "", UNSIGNED_PAYLOAD, b"", signature
    )


def _require_s3(service: str, code: str) -> None:
    if service != "s3":
        raise AuthError(code, "Signature Version 2 is only supported for S3.", 400)


def _check_signature(
    secret: str,
    request: RequestParts,
    signed: dict[str, str],
    date_lines: list[str],
    resource_path: str | None,
    signature: str,
) -> None:
    """Accept ``signature`` if it signs the request with any of ``date_lines`` and any form of the path."""
    head = f"{request.method}\n{signed.pop('content-md5', '')}\n{signed.pop('content-type', '')}\n"
    amz_headers = "".join(f"{name}:{signed[name]}\n" for name in sorted(signed))
    subresources = _subresources(request.query)
    for date_line in dict.fromkeys(date_lines):
        for path in _resource_paths(resource_path or request.raw_path):
            if same_signature(sign_v2(secret, f"{head}{date_line}\n{amz_headers}{path}{subresources}"), signature):
                return
    raise signature_mismatch()


def sign_v2(secret: str, string_to_sign: str) -> str:
    """A SigV2 signature: the HMAC-SHA1 of ``string_to_sign``, base64."""
    return base64.b64encode(hmac.new(secret.encode(), string_to_sign.encode(), hashlib.sha1).digest()).decode()


def _resource_paths(raw_path: str) -> list[str]:
    """The paths a signer may have signed: botocore signs a bucket-level request of a path-style URL
    as ``/bucket/`` whether or not the URL it hands out ends in a slash."""
    paths = list(canonical_uris(raw_path, double_encode=False))
    return paths + [path + "/" for path in paths if path.count("/") == 1 and len(path) > 1]


def _signed_fields(request: RequestParts, *, with_query: bool) -> dict[str, str]:
    """Content-MD5, Content-Type and the x-amz-* headers (repeats joined by commas) as the client
    signed them: from the headers, else (``with_query``: a URL's) from the query."""
    fields = {}
    if with_query:
        fields = {name.lower(): value.strip() for name, value in request.params.items() if _is_signed_field(name.lower())}
    for name in dict.fromkeys(name.lower() for name in request.headers):
        if _is_signed_field(name):
            fields[name] = ",".join(header_text(value).strip() for value in header_values(request.headers, name))
    return fields


def _is_signed_field(name: str) -> bool:
    return name.startswith("x-amz-") or name in ("content-md5", "content-type")


def _subresources(pairs: list[tuple[bytes, bytes]]) -> str:
    """``?name[=value]&...`` of the sub-resources, sorted by name, values decoded."""
    decoded = ((name.decode("utf-8", "replace"), value.decode("utf-8", "replace")) for name, value in pairs)
    picked = sorted(
        ((name, value) for name, value in decoded if name in SUBRESOURCES), key=lambda pair: pair[0]
    )
    if not picked:
        return ""
    return "?" + "&".join(f"{name}={value}" if value else name for name, value in picked)
