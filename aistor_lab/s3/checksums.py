"""The flexible checksums of S3 (CRC32, CRC32C, CRC64NVME, SHA-1, SHA-256) and Content-MD5.

Values travel base64-encoded in ``x-amz-checksum-<algorithm>`` headers or trailers. They are
computed while a body streams in and compared once it is complete; a mismatch refuses the write.

A multipart object's checksum comes from its parts' (``x-amz-checksum-type`` of the upload):
COMPOSITE is the checksum of the parts' binary checksums, with ``-N`` (any algorithm but
CRC64NVME); FULL_OBJECT is the CRC of the whole object, combined from the parts' CRCs and sizes
(the CRCs only). An algorithm's default type is FULL_OBJECT for CRC64NVME, else COMPOSITE.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import zlib
from collections.abc import Mapping

from awscrt import checksums as crt

from .errors import S3Error

ALGORITHMS = ("crc32", "crc32c", "crc64nvme", "sha1", "sha256")
HEADER_PREFIX = "x-amz-checksum-"
TYPE_HEADER = "x-amz-checksum-type"
COMPOSITE, FULL_OBJECT = "COMPOSITE", "FULL_OBJECT"
# Combines the CRCs of two adjacent blocks, given the second block's length.
_COMBINE = {"crc32": crt.combine_crc32, "crc32c": crt.combine_crc32c, "crc64nvme": crt.combine_crc64nvme}


class _Crc:
    def __init__(self, update, width: int):
        self._update, self._width, self._value = update, width, 0

    def update(self, data) -> None:
        self._value = self._update(data, self._value)

    def digest(self) -> bytes:
        return self._value.to_bytes(self._width, "big")


def new_hasher(algorithm: str):
    """An object with update() and digest() for one algorithm."""
    if algorithm == "crc32":
        return _Crc(zlib.crc32, 4)
    if algorithm == "crc32c":
        return _Crc(crt.crc32c, 4)
    if algorithm == "crc64nvme":
        return _Crc(crt.crc64nvme, 8)
    if algorithm in ("sha1", "sha256"):
        return hashlib.new(algorithm)
    raise S3Error("InvalidRequest", f"Unsupported checksum algorithm: {algorithm}")


def normalize_algorithm(name: str | None) -> str | None:
    if not name:
        return None
    algorithm = name.strip().lower()
    if algorithm not in ALGORITHMS:
        raise S3Error("InvalidRequest", f"Value for x-amz-checksum-algorithm header is invalid: {name}")
    return algorithm


def requested_algorithms(headers: Mapping[str, str]) -> set[str]:
    """The algorithms a request asks us to verify: given as headers, announced as a trailer,
    or named by ``x-amz-sdk-checksum-algorithm``."""
    wanted = {name[len(HEADER_PREFIX):] for name in (k.lower() for k in headers) if name.startswith(HEADER_PREFIX)}
    wanted.discard("algorithm")
    wanted.discard("type")
    wanted.discard("mode")
    for trailer in headers.get("x-amz-trailer", "").split(","):
        trailer = trailer.strip().lower()
        if trailer.startswith(HEADER_PREFIX):
            wanted.add(trailer[len(HEADER_PREFIX):])
    sdk = normalize_algorithm(headers.get("x-amz-sdk-checksum-algorithm"))
    if sdk:
        wanted.add(sdk)
    for algorithm in wanted:
        if algorithm not in ALGORITHMS:
            raise S3Error("InvalidRequest", f"Unsupported checksum algorithm: {algorithm}")
    return wanted


class BodyChecksums:
    """Hashes a streaming body with every requested algorithm plus MD5 when Content-MD5 is set."""

    def __init__(self, headers: Mapping[str, str]):
        self._headers = headers
        self._hashers = {algorithm: new_hasher(algorithm) for algorithm in requested_algorithms(headers)}
        self._content_md5 = _decode_content_md5(headers.get("Content-MD5"))

    def update(self, data) -> None:
        for hasher in self._hashers.values():
            hasher.update(data)

    def verify(self, trailers: Mapping[str, str], md5_hex: str | None) -> dict[str, str]:
        """Compare with the expected values; return the checksums to store (base64)."""
        if self._content_md5 is not None and md5_hex != self._content_md5.hex():
            raise S3Error("BadDigest", "The Content-MD5 you specified did not match what we received.")
        computed: dict[str, str] = {}
        for algorithm, hasher in self._hashers.items():
            value = base64.b64encode(hasher.digest()).decode()
            name = HEADER_PREFIX + algorithm
            expected = trailers.get(name) or self._headers.get(name)
            if expected is not None and expected.strip() != value:
                raise S3Error(
                    "BadDigest", f"The {algorithm.upper()} you specified did not match the calculated checksum."
                )
            computed[algorithm] = value
        return computed


def verify_required_integrity(headers: Mapping[str, str], trailers: Mapping[str, str], body: bytes) -> None:
    """The integrity check S3 requires of some configuration PUTs (lifecycle, CORS): Content-MD5 or a
    flexible checksum must come with the body (boto3 sends one by itself), and both are verified."""
    if "Content-MD5" not in headers and not requested_algorithms(headers):
        raise S3Error("InvalidRequest", "Missing required header for this request: Content-MD5")
    checksums = BodyChecksums(headers)
    checksums.update(body)
    checksums.verify(trailers, hashlib.md5(body).hexdigest())


def _decode_content_md5(value: str | None) -> bytes | None:
    if value is None:
        return None
    try:
        digest = base64.b64decode(value, validate=True)
    except binascii.Error:
        digest = b""
    if len(digest) != 16:
        raise S3Error("InvalidDigest", "The Content-MD5 you specified is not valid.")
    return digest


def upload_checksum_type(algorithm: str | None, requested: str | None) -> str | None:
    """The checksum type of a new multipart upload (``x-amz-checksum-type``), checked against its
    algorithm as S3 does; None without an algorithm."""
    if requested is not None:
        requested = requested.strip().upper()
        if requested not in (COMPOSITE, FULL_OBJECT):
            raise S3Error("InvalidRequest", f"Value for x-amz-checksum-type header is invalid: {requested}")
        if algorithm is None:
            raise S3Error("InvalidRequest", "The x-amz-checksum-type header can only be used "
                          "with the x-amz-checksum-algorithm header.")  # fmt: skip
    if algorithm is None:
        return None
    chosen = requested or (FULL_OBJECT if algorithm == "crc64nvme" else COMPOSITE)
    if not (algorithm in _COMBINE if chosen == FULL_OBJECT else algorithm != "crc64nvme"):
        raise S3Error("InvalidRequest", f"The {algorithm.upper()} algorithm does not support the "
                      f"{chosen} checksum type.")  # fmt: skip
    return chosen


def checksum_type(values: Mapping[str, str]) -> str:
    """The type of an object's stored checksums: composite ones end in ``-N``."""
    return COMPOSITE if any("-" in value for value in values.values()) else FULL_OBJECT


def composite(algorithm: str, part_values: list[str]) -> str:
    """The checksum of a multipart object: the checksum of the parts' binary checksums, ``-N``."""
    hasher = new_hasher(algorithm)
    for value in part_values:
        hasher.update(base64.b64decode(value))
    return f"{base64.b64encode(hasher.digest()).decode()}-{len(part_values)}"


def full_object(algorithm: str, parts: list[tuple[str, int]]) -> str:
    """The CRC of a whole multipart object, from its parts' (base64 CRC, size) in order."""
    combine, width = _COMBINE[algorithm], 8 if algorithm == "crc64nvme" else 4
    crc = 0
    for value, size in parts:
        crc = combine(crc, int.from_bytes(base64.b64decode(value), "big"), size)
    return base64.b64encode(crc.to_bytes(width, "big")).decode()
