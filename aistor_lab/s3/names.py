"""Bucket and key names: how they come out of a path-style URL and which ones are valid."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote

from .errors import S3Error

# Paths the other APIs of this server own; they can never be buckets.
RESERVED_BUCKETS = frozenset({"delta-sharing", "minio"})
MAX_KEY_BYTES = 1024
_BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def split_path(raw_path: str) -> tuple[str, str]:
    """``/bucket/some/key`` -> ("bucket", "some/key"); keys keep every byte after the first slash."""
    path = unquote(raw_path)
    bucket, _, key = path.lstrip("/").partition("/")
    return bucket, key


def check_bucket_name(name: str) -> None:
    if (
        not _BUCKET_RE.match(name)
        or ".." in name
        or ".-" in name
        or "-." in name
        or name.startswith(("xn--", "sthree-"))
        or name.endswith(("-s3alias", "--ol-s3"))
        or _is_ip_address(name)
    ):
        raise S3Error("InvalidBucketName", f"The specified bucket is not valid: {name!r}")
    if name in RESERVED_BUCKETS:
        raise S3Error("InvalidBucketName", f"The bucket name {name!r} is reserved by this server.")


def check_key(key: str) -> None:
    if len(key.encode()) > MAX_KEY_BYTES:
        raise S3Error("KeyTooLongError", "Your key is too long.")


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True
