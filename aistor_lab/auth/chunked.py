"""Incremental decoding of ``aws-chunked`` bodies, with their chunk and trailer signatures.

Wire format (after HTTP's own ``Transfer-Encoding: chunked`` is undone)::

    hex-size[;chunk-signature=SIG]\\r\\n DATA \\r\\n   ...repeated...
    0[;chunk-signature=SIG]\\r\\n
    [\\r\\n]                                 (some signers end the empty final chunk like any other)
    [name:value\\r\\n ...]                   (trailers, e.g. x-amz-checksum-crc32)
    [x-amz-trailer-signature:SIG\\r\\n]
    [\\r\\n]                                 (often, not always, present)

Input arrives in pieces that do not line up with chunks. Data runs are sliced straight out of
the input (no per-byte work); only header and trailer lines are buffered, and they are short.
Decoded bytes come out before the signature of their chunk is known: callers must treat them as
unverified until ``finish`` returns.
"""

from __future__ import annotations

import hashlib
import re

from .errors import AuthError
from .result import AuthResult
from .signing import EMPTY_SHA256, same_signature, sign_hex, signature_mismatch

_MAX_LINE = 4096  # real chunk headers and trailer lines are under 200 bytes
_MAX_TRAILER_LINES = 64
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")
_TRAILER_SIGNATURE = "x-amz-trailer-signature"

_HEADER, _DATA, _DATA_END, _TRAILER, _DONE = range(5)


class ChunkSignatures:
    """The signature chain of STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER] bodies."""

    def __init__(self, auth: AuthResult):
        self._key = auth.signing_key
        self._context = f"{auth.amz_date}\n{auth.scope}\n"
        self._previous = auth.seed_signature

    def check_chunk(self, signature: str, data_sha256: str) -> None:
        self._check(
            f"AWS4-HMAC-SHA256-PAYLOAD\n{self._context}{self._previous}\n{EMPTY_SHA256}\n{data_sha256}",
            signature,
        )

    def check_trailer(self, signature: str, trailers: dict[str, str]) -> None:
        canonical = "".join(f"{name}:{trailers[name]}\n" for name in sorted(trailers))
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        self._check(f"AWS4-HMAC-SHA256-TRAILER\n{self._context}{self._previous}\n{digest}", signature)

    def _check(self, string_to_sign: str, signature: str) -> None:
        if not same_signature(sign_hex(self._key, string_to_sign), signature):
            raise signature_mismatch()
        self._previous = signature


class AwsChunkedDecoder:
    """``feed`` returns the decoded bytes of each piece; ``finish`` checks the end and returns trailers."""

    def __init__(
        self,
        signatures: ChunkSignatures | None,
        *,
        trailers_allowed: bool,
        signed_trailer: bool,
        decoded_length: int | None,
    ):
        self._signatures = signatures
        self._trailers_allowed = trailers_allowed
        self._signed_trailer = signed_trailer
        self._decoded_length = decoded_length
        self._state = _HEADER
        self._line = bytearray()
        self._remaining = 0  # bytes left in the current chunk's data
        self._chunk_signature = ""
        self._chunk_hash = None
        self._decoded = 0
        self._trailers: dict[str, str] = {}
        self._trailer_signature = ""
        self._blank_after_final = False

    def feed(self, data: bytes) -> bytes:
        view = memoryview(data)
        pieces = []
        pos, end = 0, len(data)
        while pos < end:
            if self._state == _DATA:
                take = min(self._remaining, end - pos)
                piece = view[pos : pos + take]
                pieces.append(piece)
                if self._chunk_hash is not None:
                    self._chunk_hash.update(piece)
                pos += take
                self._remaining -= take
                if not self._remaining:
                    self._state = _DATA_END
            elif self._state == _DONE:
                raise _framing_error("Unexpected data after the end of the aws-chunked body.")
            else:
                newline = data.find(b"\n", pos, end)
                stop = end if newline < 0 else newline + 1
                self._line += view[pos:stop]
                pos = stop
                if len(self._line) > _MAX_LINE:
                    raise _framing_error("An aws-chunked header or trailer line is too long.")
                if newline >= 0:
                    line = bytes(self._line).rstrip(b"\r\n")
                    self._line.clear()
                    self._on_line(line)
        self._count(sum(len(piece) for piece in pieces))
        if len(pieces) == 1 and len(pieces[0]) == end:
            return data  # the whole piece was chunk data: no copy
        return b"".join(pieces)

    def finish(self) -> dict[str, str]:
        # The last line break of the body is optional in practice.
        if self._state == _TRAILER and not self._line:
            self._end_trailers()
        if self._state != _DONE:
            raise AuthError("IncompleteBody", "The aws-chunked body ended before its final chunk.", 400)
        if self._decoded_length is not None and self._decoded != self._decoded_length:
            raise _length_error()
        return self._trailers

    def _count(self, decoded: int) -> None:
        self._decoded += decoded
        if self._decoded_length is not None and self._decoded > self._decoded_length:
            raise _length_error()

    def _on_line(self, line: bytes) -> None:
        if self._state == _HEADER:
            self._start_chunk(line)
        elif self._state == _DATA_END:
            if line:
                raise AuthError(
                    "IncompleteBody", "An aws-chunked chunk holds more data than its size says.", 400
                )
            self._end_chunk()
            self._state = _HEADER
        elif line:
            self._add_trailer(line)
        elif self._trailers or self._trailer_signature or self._blank_after_final:
            self._end_trailers()
        else:
            # A blank line right after the final chunk may be that chunk's own (empty) data end.
            self._blank_after_final = True

    def _start_chunk(self, line: bytes) -> None:
        size, *extensions = line.split(b";")
        if not _CHUNK_SIZE.fullmatch(size.strip()):
            raise _framing_error("An aws-chunked chunk header is malformed.")
        self._chunk_signature = ""
        for extension in extensions:
            name, _, value = extension.partition(b"=")
            if name.strip() == b"chunk-signature":
                self._chunk_signature = value.strip().decode("latin-1")
        self._remaining = int(size, 16)
        if self._signatures is not None:
            self._chunk_hash = hashlib.sha256()
        if self._remaining:
            self._state = _DATA
        else:
            self._end_chunk()
            self._state = _TRAILER

    def _end_chunk(self) -> None:
        if self._signatures is not None:
            self._signatures.check_chunk(self._chunk_signature, self._chunk_hash.hexdigest())

    def _add_trailer(self, line: bytes) -> None:
        name, colon, value = line.decode("latin-1").partition(":")
        name = name.strip().lower()
        if not colon or not name or not self._trailers_allowed or len(self._trailers) >= _MAX_TRAILER_LINES:
            raise _framing_error("The aws-chunked body has a malformed or unexpected trailer.")
        if name == _TRAILER_SIGNATURE:
            self._trailer_signature = value.strip()
        else:
            self._trailers[name] = value.strip()

    def _end_trailers(self) -> None:
        if self._signed_trailer:
            if not self._trailer_signature:
                raise signature_mismatch()
            self._signatures.check_trailer(self._trailer_signature, self._trailers)
        self._state = _DONE


def _framing_error(message: str) -> AuthError:
    return AuthError("InvalidRequest", message, 400)


def _length_error() -> AuthError:
    return AuthError(
        "IncompleteBody", "The decoded body does not have the x-amz-decoded-content-length.", 400
    )
