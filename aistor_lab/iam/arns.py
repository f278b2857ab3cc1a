"""The resource names the APIs pass to ``IAM.is_allowed``, so policies and callers agree on them.

Catalog resources follow the AIStor documents: ``bucket/WAREHOUSE`` for a warehouse,
``bucket/WAREHOUSE/table/UUID`` and ``bucket/WAREHOUSE/view/UUID`` for one table or view (its uuid
survives renames). A table or view also goes by ``.../table/NAMESPACE/NAME`` (``.../view/...``),
which this server has always used, so policies may name it either way: a request names all of its
resources, and a statement matching any of them applies.
"""

from __future__ import annotations

# ListAllMyBuckets (and other account-wide S3 calls) are checked against this resource.
ALL_BUCKETS = "arn:aws:s3:::*"
# Admin actions are not scoped by resource (see policy.py); the admin API passes this.
ADMIN_RESOURCE = "*"
ALL_WAREHOUSES = "arn:aws:s3tables:::bucket/*"
TABLE, VIEW = "table", "view"


def s3_arn(bucket: str, key: str | None = None) -> str:
    """``arn:aws:s3:::bucket`` for bucket calls, ``arn:aws:s3:::bucket/key`` for object calls."""
    return f"arn:aws:s3:::{bucket}" if key is None else f"arn:aws:s3:::{bucket}/{key}"


def warehouse_arn(warehouse: str) -> str:
    """A table bucket (warehouse): the resource of warehouse calls and of listing or creating namespaces."""
    return f"arn:aws:s3tables:::bucket/{warehouse}"


def table_arn(warehouse: str, namespace: str, table: str) -> str:
    """A table by its dotted namespace and name."""
    return entry_arns(warehouse, TABLE, namespace, table)[0]


def entry_arns(warehouse: str, kind: str, namespace: str, name: str, uuid: str | None = None) -> tuple[str, ...]:
    """The names of a table or view (``kind``): by dotted namespace and name, and by uuid when known."""
    base = f"arn:aws:s3tables:::bucket/{warehouse}/{kind}/"
    return (f"{base}{namespace}/{name}", f"{base}{uuid}") if uuid else (f"{base}{namespace}/{name}",)


def namespace_arns(warehouse: str, namespace: str) -> tuple[str, str]:
    """Every table and every view of a namespace: the resources of namespace calls (get, drop, list
    its tables and views). A policy granting ``.../table/NAMESPACE/*`` thus covers the namespace."""
    base = f"arn:aws:s3tables:::bucket/{warehouse}"
    return f"{base}/table/{namespace}/*", f"{base}/view/{namespace}/*"
