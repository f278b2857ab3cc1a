"""The checksum of a multipart object, decided when its upload completes.

CompleteMultipartUpload may name each part's checksum (``<ChecksumSHA256>`` in a ``<Part>``) and
the whole object's (``x-amz-checksum-<algorithm>``). A part's must be the one it was uploaded
with (else InvalidPart, as S3 answers a part it cannot match); the object's must be the one the
parts make, COMPOSITE or FULL_OBJECT as the upload was created (else BadDigest).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping

from ..store import PartInfo, UploadInfo
from .checksums import (
    ALGORITHMS,
    FULL_OBJECT,
    HEADER_PREFIX,
    TYPE_HEADER,
    composite,
    full_object,
    upload_checksum_type,
)
from .errors import S3Error
from .xmlio import child_text


def listed_part_checksums(element: ET.Element) -> dict[str, str]:
    """The checksums a ``<Part>`` of CompleteMultipartUpload names: algorithm -> base64."""
    found = {algorithm: child_text(element, "Checksum" + algorithm.upper()) for algorithm in ALGORITHMS}
    return {algorithm: value.strip() for algorithm, value in found.items() if value and value.strip()}


def object_checksums(
    upload: UploadInfo,
    stored: Mapping[int, PartInfo],
    parts: list[tuple[int, str]],
    listed: Mapping[int, dict[str, str]],
    headers: Mapping[str, str],
) -> dict[str, str]:
    """The object's checksum (algorithm -> base64) of the upload's algorithm, from the ``stored``
    parts the request lists; checked against what the request names. Empty when the upload has no
    algorithm, or when a listed part is missing or lacks a checksum (the store then refuses the part
    list, or the object gets no checksum)."""
    for number, checksums in listed.items():
        part = stored.get(number)
        if part is not None and any(part.checksums.get(name) != value for name, value in checksums.items()):
            raise S3Error("InvalidPart", f"The checksum of part {number} does not match the part uploaded.")
    algorithm = upload.checksum_algorithm
    kind = upload.checksum_type or upload_checksum_type(algorithm, None)
    requested_kind = headers.get(TYPE_HEADER)
    if requested_kind is not None and requested_kind.strip().upper() != kind:
        raise S3Error("InvalidRequest", f"The upload was created with the {kind or 'no'} checksum type.")
    for name in ALGORITHMS:
        if name != algorithm and headers.get(HEADER_PREFIX + name) is not None:
            raise S3Error("InvalidRequest", f"The upload was not created with the {name.upper()} checksum algorithm.")
    chosen = [stored.get(number) for number, _ in parts]
    if algorithm is None or any(part is None or algorithm not in part.checksums for part in chosen):
        return {}
    if kind == FULL_OBJECT:
        value = full_object(algorithm, [(part.checksums[algorithm], part.size) for part in chosen])
    else:
        value = composite(algorithm, [part.checksums[algorithm] for part in chosen])
    expected = headers.get(HEADER_PREFIX + algorithm)
    if expected is not None and expected.strip() != value:
        raise S3Error("BadDigest", f"The {algorithm.upper()} you specified did not match the calculated checksum.")
    return {algorithm: value}
