"""Verification of a signed request in two steps: the headers when they arrive, the body once it is in.

A server that refuses a request on its headers alone never has to read the body of a caller it does
not know. When the headers carry the payload hash (``x-amz-content-sha256``: hex, the AWS SDK's
base64, or a marker), the signature is verified at once and the body is then only checked against
the hash. Signers that send no such header (botocore's SigV4Auth, which PyIceberg uses for the
catalog) sign the SHA-256 of the body itself: their signature can only be verified with the body,
so the first step checks what it can (a known access key, the service, the date). SigV2 signs no
body: it is verified at once.
"""

from __future__ import annotations

from collections.abc import Mapping

from .payload import BodyDecoder, body_decoder
from .signing import ALGORITHM, Secrets
from .sigv4 import check_credential, verify_request


class StagedVerification:
    """``StagedVerification(...)`` checks the headers (raises AuthError); ``finish(body)`` the rest."""

    def __init__(self, method: str, raw_path: str, raw_query: str, headers: Mapping[str, str],
                 secrets: Secrets, *, service: str, max_skew: int, has_body: bool):
        """``has_body``: whether a non-empty body follows (an empty one is verified here and now)."""
        self._request = (method, raw_path, raw_query, headers, secrets)
        self._options = {"service": service, "max_skew": max_skew}
        self._decoder: BodyDecoder | None = None
        if has_body and headers.get("Authorization", "").startswith(ALGORITHM) and "x-amz-content-sha256" not in headers:
            self.access_key = check_credential(headers, secrets, service=service, max_skew=max_skew)
            return
        auth = verify_request(*self._request, **self._options, body=None if has_body else b"")
        self.access_key = auth.access_key
        self._decoder = body_decoder(auth, headers)

    @property
    def pending(self) -> bool:
        """Whether the signature can only be verified with the body, by ``finish``."""
        return self._decoder is None

    def finish(self, body: bytes) -> bytes:
        """Verify the body (and, for signers of the body itself, the signature); returns the payload
        (aws-chunked framing removed). Raises AuthError."""
        if self._decoder is None:
            self.access_key = verify_request(*self._request, **self._options, body=body).access_key
            return body
        payload = self._decoder.feed(body)
        self._decoder.finish()
        return payload
