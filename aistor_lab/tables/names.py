"""Which warehouse, namespace, table and view names the catalog accepts.

Warehouses are buckets, so their names follow the stricter table-bucket rule (lowercase letters,
digits and hyphens, 3-63 characters): no dots, which would make ``warehouse.namespace.table``
ambiguous in SQL engines. Namespace levels and table/view names may hold any Unicode text of
1-255 UTF-8 bytes except control characters (0x1F is the REST namespace separator), ``/`` (it
would travel as ``%2F`` inside a URL path segment, which proxies and routers mangle), and the
path-like names ``.`` and ``..``.
"""

from __future__ import annotations

import re

from .errors import BadRequestException

_WAREHOUSE_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")
# Paths the server's other APIs own at the root of the S3 namespace: they can never be buckets.
_RESERVED_WAREHOUSES = frozenset({"delta-sharing", "minio"})
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
MAX_NAME_BYTES = 255
MAX_NAMESPACE_DEPTH = 16


def check_warehouse_name(name: object) -> str:
    if not isinstance(name, str) or not _WAREHOUSE_RE.match(name) or name in _RESERVED_WAREHOUSES:
        raise BadRequestException(
            f"Invalid warehouse name {name!r}: use 3-63 lowercase letters, digits and hyphens"
        )
    return name


def check_name(name: object, what: str = "name") -> str:
    if not isinstance(name, str) or not name:
        raise BadRequestException(f"Invalid {what}: must be a non-empty string")
    if len(name.encode()) > MAX_NAME_BYTES:
        raise BadRequestException(f"Invalid {what} {name!r}: longer than {MAX_NAME_BYTES} bytes")
    if _CONTROL_RE.search(name) or "/" in name or name in (".", ".."):
        raise BadRequestException(
            f"Invalid {what} {name!r}: control characters, '/', '.' and '..' are not allowed"
        )
    return name


def check_namespace(namespace: object, *, allow_empty: bool = False) -> list[str]:
    if not isinstance(namespace, (list, tuple)):
        raise BadRequestException("Invalid namespace: must be a list of strings")
    if not namespace and not allow_empty:
        raise BadRequestException("Invalid namespace: must have at least one level")
    if len(namespace) > MAX_NAMESPACE_DEPTH:
        raise BadRequestException(f"Invalid namespace: deeper than {MAX_NAMESPACE_DEPTH} levels")
    return [check_name(level, "namespace level") for level in namespace]


def parse_identifier(identifier: object) -> tuple[list[str], str]:
    """A TableIdentifier ``{"namespace": [...], "name": ...}`` -> (namespace, name)."""
    if not isinstance(identifier, dict):
        raise BadRequestException("Invalid identifier: must be an object with namespace and name")
    return check_namespace(identifier.get("namespace")), check_name(identifier.get("name"))
