"""User metadata (``x-amz-meta-*``) as S3 keeps it: non-ASCII values travel RFC 2047-encoded.

Header values reach us as tornado decodes them, one character per byte (latin-1); a client's
non-ASCII text arrives as its UTF-8 bytes, so the value is those bytes read as UTF-8. S3 decodes
RFC 2047 encoded words (``=?UTF-8?B?...?=``) before storing, and answers a value that is not all
ASCII RFC 2047-encoded, so that it is safe in an HTTP header.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from email.errors import HeaderParseError
from email.header import decode_header, make_header

from ..auth import header_text
from ..store.encryption import RESERVED_PREFIX
from .errors import S3Error

META_PREFIX = "x-amz-meta-"


def request_metadata(headers: Mapping[str, str]) -> dict[str, str]:
    """The user metadata of a write: lower-case names without the prefix, values as text. Names
    under the reserved prefix (what the service keeps with an object: its ACL, its encryption) are
    refused."""
    metadata = {
        name.lower()[len(META_PREFIX):]: _decoded(header_text(value))
        for name, value in headers.items()
        if name.lower().startswith(META_PREFIX)
    }
    for name in metadata:
        if name.startswith(RESERVED_PREFIX):
            raise S3Error("InvalidArgument", f"Metadata names starting with {RESERVED_PREFIX} are reserved: "
                          f"{META_PREFIX}{name}.")
    return metadata


def visible_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """An object's metadata as clients see it: without the reserved entries."""
    return {name: value for name, value in metadata.items() if not name.startswith(RESERVED_PREFIX)}


def metadata_headers(metadata: Mapping[str, str]) -> dict[str, str]:
    """The ``x-amz-meta-*`` headers of an answer."""
    return {META_PREFIX + name: _mail_safe(value) for name, value in visible_metadata(metadata).items()}


def _decoded(value: str) -> str:
    if "=?" not in value:
        return value
    try:
        return str(make_header(decode_header(value)))
    except (HeaderParseError, LookupError, UnicodeDecodeError):
        return value  # not an encoded word after all: kept as sent


def _mail_safe(value: str) -> str:
    if value.isascii():
        return value
    return f"=?UTF-8?B?{base64.b64encode(value.encode()).decode()}?="
