"""Primitives shared by the verifiers (SigV4 requests and chunks, SigV2): names, key derivation,
comparison, the request clock."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from datetime import UTC
from email.utils import parsedate_to_datetime
from functools import lru_cache

from .errors import AuthError

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()

UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
STREAMING_SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
STREAMING_SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
STREAMING_UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
PAYLOAD_MARKERS = frozenset(
    {UNSIGNED_PAYLOAD, STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER}
)

_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")

Secrets = Callable[[str], str | None]  # access key -> secret key, None when unknown


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


# Every S3 request derives the same key for its (date, region, service): four HMACs saved.
# Keyed by the secret itself so that a changed secret can never meet a stale key.
@lru_cache(maxsize=256)
def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = _hmac(("AWS4" + secret).encode(), date)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return key


def sign_hex(key: bytes, string_to_sign: str) -> str:
    return _hmac(key, string_to_sign).hex()


def same_signature(expected: str, given: str) -> bool:
    """Constant-time comparison that also copes with non-ASCII garbage from the wire."""
    return hmac.compare_digest(expected.encode(), given.encode("utf-8", "replace"))


def is_sha256_hex(value: str) -> bool:
    return _SHA256_HEX.fullmatch(value) is not None


def lookup_secret(secrets: Secrets, access_key: str) -> str:
    secret = secrets(access_key)
    if secret is None:
        raise AuthError(
            "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."
        )
    return secret


def signature_mismatch() -> AuthError:
    return AuthError(
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided. "
        "Check your key and signing method.",
    )


def payload_mismatch() -> AuthError:
    return AuthError(
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
        400,
    )


def http_date(value: str) -> float | None:
    """An RFC 1123 date (``Date``, SigV2's ``x-amz-date``) in epoch seconds; None when it is none,
    or before 1970 (AWS refuses those as invalid rather than as skewed)."""
    try:
        seconds = parsedate_to_datetime(value).astimezone(UTC).timestamp()
    except (TypeError, ValueError, OverflowError):
        return None
    return seconds if seconds >= 0 else None


def check_skew(signed_at: float, now: float, max_skew: int) -> None:
    if abs(now - signed_at) > max_skew:
        raise AuthError(
            "RequestTimeTooSkewed",
            "The difference between the request time and the server's time is too large.",
        )
