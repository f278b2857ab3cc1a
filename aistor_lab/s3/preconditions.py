"""HTTP preconditions and byte ranges, as S3 applies them to reads and copies."""

from __future__ import annotations

import re
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

from ..store import ObjectInfo, WriteCondition
from .errors import S3Error
from .xmlio import http_date

_RANGE_RE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _etag_matches(header: str, etag: str) -> bool:
    candidates = [value.strip().strip('"') for value in header.split(",")]
    return "*" in candidates or etag in candidates


def _parse_date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None  # an unparsable date is ignored, as HTTP says


def check_read_preconditions(info: ObjectInfo, headers: Mapping[str, str], prefix: str = "") -> None:
    """Raise PreconditionFailed (412) or NotModified (304) per RFC 7232 precedence.

    ``prefix`` is ``x-amz-copy-source-`` for the source of a copy, where both failures are 412.
    """
    if_match = headers.get(prefix + "If-Match")
    if_none_match = headers.get(prefix + "If-None-Match")
    modified = int(info.last_modified)
    if if_match is not None:
        if not _etag_matches(if_match, info.etag):
            raise S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
    else:
        since = _parse_date(headers.get(prefix + "If-Unmodified-Since"))
        if since is not None and modified > since:
            raise S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
    if if_none_match is not None:
        if _etag_matches(if_none_match, info.etag):
            raise _not_modified(info, prefix)
    else:
        since = _parse_date(headers.get(prefix + "If-Modified-Since"))
        if since is not None and modified <= since:
            raise _not_modified(info, prefix)


def _not_modified(info: ObjectInfo, prefix: str) -> S3Error:
    """304, which S3 sends with the headers that let a cache revalidate (412 for a copy source)."""
    if prefix:
        return S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
    headers = {"ETag": f'"{info.etag}"', "Last-Modified": http_date(info.last_modified)}
    if info.version_id is not None:
        headers["x-amz-version-id"] = info.version_id
    return S3Error("NotModified", "Not Modified", 304, headers=headers)


def write_condition(headers: Mapping[str, str]) -> WriteCondition | None:
    """Conditional-write headers, each ``*`` or ETags: ``If-Match`` (the key must exist, with one of
    the ETags) and ``If-None-Match`` (the key must not exist, or not with one of the ETags)."""
    if_match, if_none_match = headers.get("If-Match"), headers.get("If-None-Match")
    condition = WriteCondition(if_match=if_match, if_none_match=if_none_match)
    return condition or None


def delete_condition(headers: Mapping[str, str]) -> WriteCondition | None:
    """A delete's conditions: If-None-Match only as ``*`` (a delete has no use for its ETag form)."""
    condition = write_condition(headers)
    if condition and condition.if_none_match is not None and condition.if_none_match.strip() != "*":
        raise S3Error("NotImplemented", "Only If-None-Match: * is supported for deletes.")
    return condition


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The ``[start, end)`` a Range header asks for, None for the whole object.

    Syntax S3 does not serve (several ranges, other units) is ignored and the whole object is sent;
    a range that starts past the end is InvalidRange (416).
    """
    if not header:
        return None
    match = _RANGE_RE.match(header.strip().replace(" ", ""))
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.groups()
    if first == "":
        length = int(last)
        if length == 0:
            raise S3Error("InvalidRange", "The requested range is not satisfiable")
        return max(size - length, 0), size
    start = int(first)
    end = size if last == "" else min(int(last) + 1, size)
    if last != "" and int(last) < start:
        return None
    if start >= size:
        raise S3Error("InvalidRange", "The requested range is not satisfiable")
    return start, end


def parse_copy_range(header: str | None, size: int) -> tuple[int, int]:
    """``x-amz-copy-source-range: bytes=first-last`` (both required), checked against the source."""
    if header is None:
        return 0, size
    match = _RANGE_RE.match(header.strip())
    if not match or "" in match.groups():
        raise S3Error("InvalidArgument", "The x-amz-copy-source-range value must be of the form bytes=first-last")
    first, last = (int(value) for value in match.groups())
    if first > last or last >= size:
        raise S3Error("InvalidRange", "The requested range is not satisfiable")
    return first, last + 1
