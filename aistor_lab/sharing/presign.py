"""Presigned S3 GET URLs for the data files of shared tables, signed as our own S3 API verifies them.

SigV4 query authentication (``X-Amz-Signature`` in the query, host the only signed header,
``UNSIGNED-PAYLOAD``), path-style ``/bucket/key`` on the public endpoint. Readers such as
delta-kernel-rs only treat a URL as presigned when it carries ``X-Amz-Signature``, so SigV2 would
not do. One ``UrlSigner`` signs a whole answer at one instant: every URL then shares the derived
key and the expiration time, which the answer reports as ``expirationTimestamp``. It signs only
inside the shared table's scope: the sources check every path already, and the signer, which holds
the server's own credentials, checks again whatever reaches it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from urllib.parse import urlsplit

from ..auth.canonical import aws_encode
from ..auth.signing import ALGORITHM, UNSIGNED_PAYLOAD, signing_key
from ..store.locations import Scope
from .source import inside

MAX_EXPIRY_SECONDS = 7 * 24 * 3600  # what SigV4 allows
# SigV4 encoding of ASCII paths: a regex finds the few characters to escape (urllib's quote costs
# more than the signature, and str.translate looks every character up, five times slower).
_TO_ESCAPE = re.compile(r"[^A-Za-z0-9\-._~/]")
_ESCAPES = {chr(c): f"%{c:02X}" for c in range(128)}
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Presigner:
    """Knows the public S3 endpoint and the credentials to sign with."""

    def __init__(self, endpoint: str, access_key: str, secret_key: str, *, region: str = "us-east-1",
                 expiry_seconds: int = 3600):
        parts = urlsplit(endpoint)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"the data endpoint must be an http(s) URL, got {endpoint!r}")
        # Clients leave default ports out of the Host header, so the signature must too.
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        port = parts.port
        self.host = host if port in (None, _DEFAULT_PORTS[parts.scheme]) else f"{host}:{port}"
        self.base = f"{parts.scheme}://{self.host}"
        self.access_key = access_key
        self.secret_key = secret_key
        self.region = region
        self.expiry_seconds = max(1, min(int(expiry_seconds), MAX_EXPIRY_SECONDS))

    def signer(self, scope: Scope, now: float | None = None) -> UrlSigner:
        """A signer for one answer about the table at ``scope``."""
        return UrlSigner(self, scope, time.time() if now is None else now)


class UrlSigner:
    def __init__(self, presigner: Presigner, scope: Scope, now: float):
        self._presigner = presigner
        self._table = scope
        self._amz_date = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
        date = self._amz_date[:8]
        self._scope = f"{date}/{presigner.region}/s3/aws4_request"
        self._key = signing_key(presigner.secret_key, date, presigner.region, "s3")
        self._sts_head = f"{ALGORITHM}\n{self._amz_date}\n{self._scope}\n"
        self._query = "&".join([
            f"X-Amz-Algorithm={ALGORITHM}",
            f"X-Amz-Credential={aws_encode(f'{presigner.access_key}/{self._scope}')}",
            f"X-Amz-Date={self._amz_date}",
            f"X-Amz-Expires={presigner.expiry_seconds}",
            "X-Amz-SignedHeaders=host",
        ])  # already in canonical (sorted) order
        self._tail = f"\nhost:{presigner.host}\n\nhost\n{UNSIGNED_PAYLOAD}"
        # The URL stops working at the signing second plus the expiry.
        self.expiration_ms = (int(now) + presigner.expiry_seconds) * 1000

    def url(self, location: str) -> str:
        """The presigned URL of ``s3://bucket/key`` (the key as stored, not encoded) inside the scope."""
        path = _encode_path(inside(self._table, location)[4:])  # "/bucket/key", AWS-encoded
        canonical = f"GET\n{path}\n{self._query}{self._tail}"
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        # hmac.digest: the one-shot C HMAC, several times cheaper than hmac.new for thousands of URLs.
        signature = hmac.digest(self._key, f"{self._sts_head}{digest}".encode(), "sha256").hex()
        return f"{self._presigner.base}{path}?{self._query}&X-Amz-Signature={signature}"


def _encode_path(path: str) -> str:
    return _TO_ESCAPE.sub(_escape, path) if path.isascii() else aws_encode(path, keep_slash=True)


def _escape(match: re.Match) -> str:
    return _ESCAPES[match[0]]
