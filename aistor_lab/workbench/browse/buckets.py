"""Buckets and objects as the panel's file browser shows them: one page of a prefix at a time (its
folders and objects), which folders are Delta or Iceberg tables (by their layout), an object's
details, and deletes. Every S3 call goes through ``workbench.objects``; the service itself keeps its
system bucket out of reach, so its refusal is what the panel shows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from ..client import AIStorClient, ServiceError
from ..objects import ObjectClient
from . import BadRequest

DELTA, ICEBERG = "delta", "iceberg"
MAX_PAGE = 1000  # ListObjectsV2's own most
DEFAULT_PAGE = 200
PROBED_FOLDERS = 50  # table detection asks at most this many folders a page...
_PROBE_THREADS = 4  # ...a few at a time
_ICEBERG_METADATA_KEYS = 200  # the metadata/ keys read to find a *.metadata.json
_MAX_KEY_BYTES = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def check_bucket(bucket: str) -> str:
    if not _BUCKET.fullmatch(bucket):
        raise BadRequest(f"{bucket!r} is not a bucket name: 3-63 lower-case letters, digits, '.' and '-'")
    return bucket


def check_prefix(prefix: str) -> str:
    """A prefix to list or delete under: "" (the bucket) or a key's beginning."""
    if len(prefix.encode()) > _MAX_KEY_BYTES or _CONTROL.search(prefix):
        raise BadRequest(f"bad prefix {prefix!r}: at most {_MAX_KEY_BYTES} bytes, no control characters")
    return prefix


def check_key(key: str) -> str:
    if not key:
        raise BadRequest("no object key given: add ?key=KEY")
    return check_prefix(key)


def check_limit(text: str, most: int = MAX_PAGE) -> int:
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise BadRequest(f"limit must be a number from 1 to {most}, got {text!r}")
    return int(text)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def _etag(value: str | None) -> str | None:
    return value.strip('"') if value else value


def list_buckets(objects: ObjectClient, client: AIStorClient) -> list[dict]:
    """Every bucket the caller sees, and whether the catalog manages it as a warehouse."""
    warehouses = set(client.list_warehouses())
    return [{"name": b["Name"], "created": _iso(b.get("CreationDate")), "warehouse": b["Name"] in warehouses}
            for b in objects.buckets()]


def table_format(objects: ObjectClient, bucket: str, root: str) -> str | None:
    """``delta`` when ``root`` (a prefix ending in ``/``, or "" for the bucket) holds a ``_delta_log/``,
    ``iceberg`` when it holds ``metadata/*.metadata.json``, else None."""
    if objects.first_keys(bucket, f"{root}_delta_log/", 1):
        return DELTA
    if any(key.endswith(".metadata.json") for key in objects.first_keys(bucket, f"{root}metadata/",
                                                                         _ICEBERG_METADATA_KEYS)):
        return ICEBERG
    return None


def _formats(objects: ObjectClient, bucket: str, folders: list[str]) -> list[str | None]:
    probed = folders[:PROBED_FOLDERS]
    with ThreadPoolExecutor(_PROBE_THREADS) as pool:
        found = list(pool.map(lambda folder: table_format(objects, bucket, folder), probed))
    return found + [None] * (len(folders) - len(probed))


def list_objects(objects: ObjectClient, bucket: str, prefix: str, token: str | None, limit: int) -> dict:
    """One page of a prefix, as a file browser shows it: folders (with the tables among them) and
    objects; ``nextToken`` continues it; ``table`` says whether the prefix itself is a table's root."""
    check_bucket(bucket)
    check_prefix(prefix)
    page = objects.list_page(bucket, prefix, token=token, limit=limit)
    folders = [entry["Prefix"] for entry in page.get("CommonPrefixes", [])]
    listed = [{"key": o["Key"], "size": o["Size"], "lastModified": _iso(o.get("LastModified")),
               "etag": _etag(o.get("ETag"))} for o in page.get("Contents", [])]
    own = table_format(objects, bucket, prefix) if not prefix or prefix.endswith("/") else None
    return {
        "bucket": bucket, "prefix": prefix,
        "folders": [{"prefix": folder, "table": kind}
                    for folder, kind in zip(folders, _formats(objects, bucket, folders), strict=True)],
        "objects": listed,
        "nextToken": page.get("NextContinuationToken") if page.get("IsTruncated") else None,
        "table": own,
    }


def object_details(objects: ObjectClient, bucket: str, key: str) -> dict:
    head = objects.head(check_bucket(bucket), check_key(key))
    return {
        "bucket": bucket, "key": key, "size": head.get("ContentLength"), "lastModified": _iso(head.get("LastModified")),
        "etag": _etag(head.get("ETag")), "contentType": head.get("ContentType"), "metadata": head.get("Metadata", {}),
        "versionId": head.get("VersionId"), "storageClass": head.get("StorageClass") or "STANDARD",
    }


def _keys_under(objects: ObjectClient, bucket: str, prefix: str) -> Iterator[tuple[str, None]]:
    for entry in objects.objects(bucket, prefix):
        yield entry["Key"], None


def delete(objects: ObjectClient, bucket: str, key: str | None, prefix: str | None) -> dict:
    """Delete one object, or every object under a prefix (batched DeleteObjects); ``deleted`` counts
    them. A prefix must end with ``/``: a folder, never "everything starting with these letters"."""
    check_bucket(bucket)
    if (key is None) == (prefix is None):
        raise BadRequest("give either ?key=KEY or ?prefix=FOLDER/")
    if key is not None:
        targets = iter([(check_key(key), None)])
    else:
        if not check_prefix(prefix or "").endswith("/"):
            raise BadRequest(f"prefix {prefix!r} is not a folder: it must end with '/'")
        targets = _keys_under(objects, bucket, prefix)
    deleted, errors = 0, []
    for entry in objects.delete(bucket, targets):
        if "Code" in entry:
            errors.append(entry)
        else:
            deleted += 1
    if errors:
        named = "; ".join(f"{e.get('Key')}: {e.get('Message') or e['Code']}" for e in errors[:3])
        denied = all(e["Code"] == "AccessDenied" for e in errors)
        raise ServiceError(f"deleted {deleted} objects, but {len(errors)} could not be: {named}",
                           403 if denied else 409, errors[0]["Code"])
    return {"deleted": deleted}
