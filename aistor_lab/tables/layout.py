"""Where the catalog keeps its state: keys of small JSON documents in the system bucket.

    iceberg/warehouses/<warehouse>.json                        warehouse document
    iceberg/catalog/<warehouse>/<l1>/.../<ln>/!namespace.json   namespace document (properties)
    iceberg/catalog/<warehouse>/<l1>/.../<ln>/!tables/<name>.json  table pointer
    iceberg/catalog/<warehouse>/<l1>/.../<ln>/!views/<name>.json   view pointer
    iceberg/transactions/<id>.json                              decision of a multi-table commit
    iceberg/idempotency/<key>.json                              stored response of a keyed request

Namespace levels and names are percent-encoded with nothing kept safe but ``A-Za-z0-9_.-~``,
so an encoded level never holds ``/`` or ``!``: the ``!``-entries of a namespace can never
collide with a child namespace, and a listing with delimiter ``/`` under a namespace's prefix
yields exactly its children (plus the ``!`` folders, which sort first).
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from .errors import BadRequestException

ROOT = "iceberg/"
NAMESPACE_DOC = "!namespace.json"
TABLES_DIR = "!tables/"
VIEWS_DIR = "!views/"
# S3 keys are at most 1024 bytes; keep room for the longest suffix.
_MAX_PREFIX_BYTES = 960


def _encode(level: str) -> str:
    return quote(level, safe="")


def warehouses_prefix() -> str:
    return ROOT + "warehouses/"


def warehouse_key(warehouse: str) -> str:
    return f"{warehouses_prefix()}{warehouse}.json"


def warehouse_from_key(key: str) -> str:
    return key[len(warehouses_prefix()) : -len(".json")]


def catalog_prefix(warehouse: str) -> str:
    return f"{ROOT}catalog/{warehouse}/"


def namespace_prefix(warehouse: str, namespace: list[str]) -> str:
    prefix = catalog_prefix(warehouse) + "".join(_encode(level) + "/" for level in namespace)
    if len(prefix.encode()) > _MAX_PREFIX_BYTES:
        raise BadRequestException("Namespace identifier is too long")
    return prefix


def namespace_key(warehouse: str, namespace: list[str]) -> str:
    return namespace_prefix(warehouse, namespace) + NAMESPACE_DOC


def child_level(common_prefix: str, parent_prefix: str) -> str | None:
    """The decoded child namespace level of a listing's common prefix, or None for ``!`` folders."""
    encoded = common_prefix[len(parent_prefix) : -1]
    return None if encoded.startswith("!") else unquote(encoded)


def entries_prefix(warehouse: str, namespace: list[str], kind: str) -> str:
    return namespace_prefix(warehouse, namespace) + (TABLES_DIR if kind == "table" else VIEWS_DIR)


def entry_key(warehouse: str, namespace: list[str], name: str, kind: str) -> str:
    return f"{entries_prefix(warehouse, namespace, kind)}{_encode(name)}.json"


def entry_name(key: str, prefix: str) -> str:
    return unquote(key[len(prefix) : -len(".json")])


def catalog_item(warehouse: str, key: str) -> tuple[str, list[str], str | None]:
    """What a key under the warehouse's catalog prefix holds: ("namespace", the namespace, None),
    or ("table" or "view", its namespace, its name)."""
    folders, _, leaf = key[len(catalog_prefix(warehouse)) :].rpartition("/")
    parts = folders.split("/") if folders else []
    if leaf == NAMESPACE_DOC:
        return "namespace", [unquote(part) for part in parts], None
    kind = "table" if parts[-1] + "/" == TABLES_DIR else "view"
    return kind, [unquote(part) for part in parts[:-1]], unquote(leaf[: -len(".json")])


def is_table_pointer_key(key: str) -> bool:
    return f"/{TABLES_DIR}" in key


def transaction_key(txn_id: str) -> str:
    return f"{ROOT}transactions/{txn_id}.json"


def idempotency_key(key: str) -> str:
    return f"{ROOT}idempotency/{key}.json"
