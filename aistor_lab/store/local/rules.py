"""S3 rules the local store enforces itself (an S3 backend gets them from its server):
conditional writes, the part list of a multipart completion, and the multipart ETag."""

from __future__ import annotations

import hashlib
from itertools import pairwise

from ..errors import EntityTooSmall, InvalidPart, InvalidPartOrder, NoSuchKey, PreconditionFailed
from ..types import MIN_PART_SIZE, WriteCondition


def unquote_etag(etag: str) -> str:
    return etag.strip().removeprefix("W/").strip('"')


def _matches(header: str, etag: str) -> bool:
    candidates = {unquote_etag(value) for value in header.split(",")}
    return "*" in candidates or etag in candidates


def check_condition(condition: WriteCondition | None, current_etag: str | None, key: str) -> None:
    """Raise unless a write may replace the object whose ETag is ``current_etag`` (None: absent).

    If-Match on a missing key is NoSuchKey, as S3 answers; If-None-Match holds only when absent.
    """
    if not condition:
        return
    if condition.if_match is not None:
        if current_etag is None:
            raise NoSuchKey(f"The specified key does not exist: {key}")
        if not _matches(condition.if_match, current_etag):
            raise PreconditionFailed("If-Match does not match the current ETag")
    if (
        condition.if_none_match is not None
        and current_etag is not None
        and _matches(condition.if_none_match, current_etag)
    ):
        raise PreconditionFailed("If-None-Match: the object exists")


def check_part_order(parts: list[tuple[int, str]]) -> None:
    if not parts:
        raise InvalidPart("A multipart upload needs at least one part")
    numbers = [number for number, _ in parts]
    if any(later <= earlier for earlier, later in pairwise(numbers)):
        raise InvalidPartOrder("The list of parts was not in ascending order")


def check_part_sizes(sizes: list[int]) -> None:
    """Every part but the last must be at least MIN_PART_SIZE."""
    if any(size < MIN_PART_SIZE for size in sizes[:-1]):
        raise EntityTooSmall(f"Each part but the last must be at least {MIN_PART_SIZE} bytes")


def multipart_etag(part_etags: list[str]) -> str:
    """MD5 of the parts' binary MD5s, then ``-<part count>``, as S3 computes it."""
    digest = hashlib.md5(b"".join(bytes.fromhex(etag) for etag in part_etags))
    return f"{digest.hexdigest()}-{len(part_etags)}"
