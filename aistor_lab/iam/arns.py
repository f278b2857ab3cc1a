"""The resource names the APIs pass to ``IAM.is_allowed``, so policies and callers agree on them."""

from __future__ import annotations

# ListAllMyBuckets (and other account-wide S3 calls) are checked against this resource.
ALL_BUCKETS = "arn:aws:s3:::*"
# Admin actions are not scoped by resource (see policy.py); the admin API passes this.
ADMIN_RESOURCE = "*"


def s3_arn(bucket: str, key: str | None = None) -> str:
    """``arn:aws:s3:::bucket`` for bucket calls, ``arn:aws:s3:::bucket/key`` for object calls."""
    return f"arn:aws:s3:::{bucket}" if key is None else f"arn:aws:s3:::{bucket}/{key}"


def warehouse_arn(warehouse: str) -> str:
    """A table bucket (warehouse): the resource of warehouse and namespace calls."""
    return f"arn:aws:s3tables:::bucket/{warehouse}"


def table_arn(warehouse: str, namespace: str, table: str) -> str:
    return f"arn:aws:s3tables:::bucket/{warehouse}/table/{namespace}/{table}"


def namespace_arn(warehouse: str, namespace: str) -> str:
    """Every table of a namespace: the resource of namespace calls (get, list tables, create, drop).

    A policy granting ``.../table/NAMESPACE/*`` thus covers the namespace and all its tables."""
    return f"arn:aws:s3tables:::bucket/{warehouse}/table/{namespace}/*"
