"""SigV2 presigned query URLs (``AWSAccessKeyId``, ``Signature``, ``Expires``): what boto3's
``generate_presigned_url`` makes by default for us-east-1.

String to sign: ``METHOD\\nContent-MD5\\nContent-Type\\nExpires\\n`` + the ``x-amz-*`` headers as
``name:value\\n`` lines + the path and the S3 sub-resources of the query; HMAC-SHA1, base64.
The signer puts the headers it signed into the query too, since whoever opens the URL may not
send them, so each is taken from the request's headers and failing that from the query.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from .canonical import RequestParts, canonical_uris
from .errors import AuthError
from .result import AuthResult
from .signing import UNSIGNED_PAYLOAD, Secrets, lookup_secret, same_signature, signature_mismatch

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
    if service != "s3":
        raise AuthError(
            "AuthorizationQueryParametersError", "Signature Version 2 is only supported for S3.", 400
        )
    expires = params["Expires"]
    if not expires.isdigit():
        raise AuthError(
            "AuthorizationQueryParametersError", "Expires must be a number of epoch seconds.", 400
        )
    if now > int(expires):
        raise AuthError("AccessDenied", "Request has expired.")
    secret = lookup_secret(secrets, params["AWSAccessKeyId"])
    signed = _signed_fields(request)
    head = f"{request.method}\n{signed.pop('content-md5', '')}\n{signed.pop('content-type', '')}\n{expires}\n"
    amz_headers = "".join(f"{name}:{signed[name]}\n" for name in sorted(signed))
    subresources = _subresources(request.query)
    signature = params["Signature"]
    for path in _resource_paths(resource_path or request.raw_path):
        if same_signature(sign_v2(secret, f"{head}{amz_headers}{path}{subresources}"), signature):
            return AuthResult(
                params["AWSAccessKeyId"], "query-v2", "", service, "", "", UNSIGNED_PAYLOAD, b"", signature
            )
    raise signature_mismatch()


def sign_v2(secret: str, string_to_sign: str) -> str:
    """A SigV2 signature: the HMAC-SHA1 of ``string_to_sign``, base64."""
    return base64.b64encode(hmac.new(secret.encode(), string_to_sign.encode(), hashlib.sha1).digest()).decode()


def _resource_paths(raw_path: str) -> list[str]:
    """The paths a signer may have signed: botocore signs a bucket-level request of a path-style URL
    as ``/bucket/`` whether or not the URL it hands out ends in a slash."""
    paths = list(canonical_uris(raw_path, double_encode=False))
    return paths + [path + "/" for path in paths if path.count("/") == 1 and len(path) > 1]


def _signed_fields(request: RequestParts) -> dict[str, str]:
    """Content-MD5, Content-Type and the x-amz-* headers: from the headers, else from the query."""
    fields = {
        name.lower(): value.strip()
        for name, value in request.params.items()
        if _is_signed_field(name.lower())
    }
    for name, value in request.headers.items():
        if _is_signed_field(name.lower()):
            fields[name.lower()] = value.strip()
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
