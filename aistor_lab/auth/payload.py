"""The body side of authentication: check or decode a request body as its signature demands."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Protocol

from .chunked import AwsChunkedDecoder, ChunkSignatures
from .errors import AuthError
from .result import AuthResult
from .signing import (
    STREAMING_SIGNED,
    STREAMING_SIGNED_TRAILER,
    UNSIGNED_PAYLOAD,
    is_sha256_hex,
    payload_mismatch,
)


class BodyDecoder(Protocol):
    def feed(self, data: bytes) -> bytes: ...

    def finish(self) -> dict[str, str]: ...


class PassThrough:
    """UNSIGNED-PAYLOAD and presigned URLs: the body is what it is."""

    def feed(self, data: bytes) -> bytes:
        return data

    def finish(self) -> dict[str, str]:
        return {}


class Sha256Check:
    """A body whose SHA-256 was signed: pass it through, compare the hash at the end."""

    def __init__(self, expected_hex: str):
        self._expected = expected_hex.lower()
        self._hash = hashlib.sha256()

    def feed(self, data: bytes) -> bytes:
        self._hash.update(data)
        return data

    def finish(self) -> dict[str, str]:
        if self._hash.hexdigest() != self._expected:
            raise payload_mismatch()
        return {}


def body_decoder(auth: AuthResult, headers: Mapping[str, str]) -> BodyDecoder:
    payload = auth.payload
    encodings = [part.strip().lower() for part in headers.get("Content-Encoding", "").split(",")]
    # A body hashed whole (a hex x-amz-content-sha256) is not framed, whatever Content-Encoding
    # says: S3 then takes ``aws-chunked`` there as a name to drop from the stored encoding.
    if payload.startswith("STREAMING-") or ("aws-chunked" in encodings and not is_sha256_hex(payload)):
        signed = payload in (STREAMING_SIGNED, STREAMING_SIGNED_TRAILER)
        return AwsChunkedDecoder(
            ChunkSignatures(auth) if signed else None,
            trailers_allowed=payload != STREAMING_SIGNED,
            signed_trailer=payload == STREAMING_SIGNED_TRAILER,
            decoded_length=_decoded_length(headers),
        )
    if payload == UNSIGNED_PAYLOAD:
        return PassThrough()
    return Sha256Check(payload)


def _decoded_length(headers: Mapping[str, str]) -> int | None:
    value = headers.get("x-amz-decoded-content-length")
    if value is None:
        return None
    if not value.strip().isdigit():
        raise AuthError("InvalidArgument", "x-amz-decoded-content-length must be a number of bytes.", 400)
    return int(value)
