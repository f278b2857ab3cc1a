"""Bucket and key names: how they come out of a path-style URL and which ones are valid.

Keys are UTF-8, as in S3. Every key, prefix or marker is decoded strictly, from the bytes on the
wire (tornado hands the request line and headers over as latin-1 text, one character per byte):
a key that is not valid UTF-8 is refused, never decoded lossily (with U+FFFD two different keys
would become one object): in the path with InvalidURI ("Couldn't parse the specified URI.", as S3
answers, also for a path with a C1 control character), elsewhere with InvalidArgument.

Keys with characters that XML 1.0 cannot carry at all (NUL and the other C0 controls but tab, LF
and CR; U+FFFE, U+FFFF) are refused at write with InvalidArgument, as MinIO refuses what its disks
cannot hold: such a key could only be listed with ``encoding-type=url``. Tab, LF and CR are
accepted; listings write CR and LF as ``&#x0D;``/``&#x0A;``, as S3 does, so they survive an XML
parser. A key of that kind already in a remote store (written there directly) cannot break a
listing either: the listing answers InvalidArgument unless it asks for ``encoding-type=url``
(xmlio.XmlWriter), which lists every key.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote_to_bytes

from ..store import ObjectStore
from .errors import S3Error
from .xmlchars import NOT_XML

# Paths the other APIs of this server own; they can never be buckets.
RESERVED_BUCKETS = frozenset({"delta-sharing", "minio"})
MAX_KEY_BYTES = 1024
_BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_C1_CONTROL = re.compile("[\x80-\x9f]")


def split_path(raw_path: str, host_bucket: str | None = None) -> tuple[str, str]:
    """``/bucket/some/key`` -> ("bucket", "some/key"); keys keep every byte after the first slash.
    With ``host_bucket`` (a virtual-host request, see virtual_hosts) the whole path is the key.
    A path that is not UTF-8, or holds a C1 control character, is InvalidURI, as S3 answers."""
    try:
        path = decode_wire(raw_path, "The object key")
    except S3Error:
        raise S3Error("InvalidURI", "Couldn't parse the specified URI.") from None
    if _C1_CONTROL.search(path):
        raise S3Error("InvalidURI", "Couldn't parse the specified URI.")
    if host_bucket is not None:
        return host_bucket, path.removeprefix("/")
    bucket, _, key = path.lstrip("/").partition("/")
    return bucket, key


def decode_wire(raw: str, what: str) -> str:
    """Percent-decode a path, header value or query field as received; InvalidArgument unless the
    bytes are UTF-8."""
    try:
        return unquote_to_bytes(raw.encode("latin-1")).decode("utf-8")
    except UnicodeError:
        raise S3Error("InvalidArgument", f"{what} is not valid UTF-8.") from None


def parse_query(raw_query: str) -> dict[str, str]:
    """The query's fields (``+`` is a space; the last of repeated names wins; blank values kept)."""
    fields = {}
    for field in raw_query.split("&"):
        if field:
            name, _, value = field.replace("+", " ").partition("=")
            fields[decode_wire(name, "A query parameter")] = decode_wire(value, f"The {name} parameter")
    return fields


def check_visible_bucket(store: ObjectStore, name: str, *, creating: bool = False) -> None:
    """The system bucket does not exist for S3 clients, whoever they are."""
    if store.is_system_bucket(name):
        if creating:
            raise S3Error("InvalidBucketName", f"The bucket name {name!r} is reserved by this server.")
        raise S3Error("NoSuchBucket", "The specified bucket does not exist.")


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
    """A key a write may create (see the module's docstring)."""
    bad = NOT_XML.search(key)
    if bad:
        raise S3Error("InvalidArgument", f"Object keys cannot hold the character U+{ord(bad.group()):04X}.")
    if len(key.encode()) > MAX_KEY_BYTES:
        raise S3Error("KeyTooLongError", "Your key is too long.")


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True
