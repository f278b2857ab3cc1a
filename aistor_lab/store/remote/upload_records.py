"""What a remote forgets about an unfinished multipart upload, kept beside it in the system bucket.

SeaweedFS keeps an upload's checksum algorithm and its parts' checksums, and wants every part's
in CompleteMultipartUpload, but ListParts tells neither. The store writes them down itself: each
is the name of a one-byte object under ``upload-records/<remote bucket>/<upload id>/``, so one
listing reads them all back, whichever server wrote them:

- ``algorithm/<name>[/<checksum type>]``, written when the upload is created with an algorithm;
- ``part/<number>/<ETag>/<algorithm>/<value>`` per checksum of an uploaded part (value in URL-safe
  base64). A part uploaded again gets a record under its new ETag; the ETag the remote lists
  tells which is the part's.
- ``uploaded/<number>/<nanoseconds>/<ETag>`` per uploaded part: SeaweedFS lists a part uploaded
  again twice, with times in whole seconds; the latest record tells which is the part.
- ``started/<nanoseconds>``: when the upload was created. SeaweedFS tells it in whole seconds, and
  S3 lists a key's uploads in the order they started.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from botocore.client import BaseClient

RECORDS = "upload-records/"


@dataclass
class UploadRecords:
    """What the records of one upload say."""

    checksum_algorithm: str | None = None
    checksum_type: str | None = None
    # (part number, ETag) -> algorithm -> base64 value
    part_checksums: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    # part number -> (when, ETag) of its latest upload
    latest_parts: dict[int, tuple[int, str]] = field(default_factory=dict)


def _prefix(remote_bucket: str, upload_id: str) -> str:
    return f"{RECORDS}{remote_bucket}/{upload_id}/"


def _put_record(client: BaseClient, system_bucket: str, key: str) -> None:
    # One byte, not none: after an empty PutObject, SeaweedFS 4.48 gave the next UploadPart on that
    # connection an empty answer (no ETag).
    client.put_object(Bucket=system_bucket, Key=key, Body=b"1")


def record_algorithm(
    client: BaseClient, system_bucket: str, remote_bucket: str, upload_id: str, algorithm: str,
    checksum_type: str | None,
) -> None:  # fmt: skip
    suffix = f"/{checksum_type}" if checksum_type else ""
    _put_record(client, system_bucket, f"{_prefix(remote_bucket, upload_id)}algorithm/{algorithm}{suffix}")


def record_part(
    client: BaseClient, system_bucket: str, remote_bucket: str, upload_id: str, part_number: int, etag: str,
    checksums: Mapping[str, str],
) -> None:  # fmt: skip
    prefix = _prefix(remote_bucket, upload_id)
    _put_record(client, system_bucket, f"{prefix}uploaded/{part_number}/{time.time_ns():020d}/{etag}")
    for algorithm, value in checksums.items():
        encoded = value.replace("+", "-").replace("/", "_")
        key = f"{prefix}part/{part_number}/{etag}/{algorithm}/{encoded}"
        _put_record(client, system_bucket, key)


def record_start(client: BaseClient, system_bucket: str, remote_bucket: str, upload_id: str) -> None:
    _put_record(client, system_bucket, f"{_prefix(remote_bucket, upload_id)}started/{time.time_ns():020d}")


def start_times(client: BaseClient, system_bucket: str, remote_bucket: str) -> dict[str, int]:
    """Upload id -> when it started (nanoseconds), for the bucket's uploads that have the record."""
    prefix = f"{RECORDS}{remote_bucket}/"
    started = {}
    for key in _record_keys(client, system_bucket, prefix):
        upload_id, _, rest = key[len(prefix) :].partition("/")
        kind, _, value = rest.partition("/")
        if kind == "started" and value.isdigit():
            started[upload_id] = int(value)
    return started


def _record_keys(client: BaseClient, system_bucket: str, prefix: str) -> Iterator[str]:
    params: dict[str, Any] = {"Bucket": system_bucket, "Prefix": prefix}
    while True:
        response = client.list_objects_v2(**params)
        yield from (entry["Key"] for entry in response.get("Contents", []))
        if not response.get("IsTruncated"):
            return
        params["ContinuationToken"] = response["NextContinuationToken"]


def read_records(client: BaseClient, system_bucket: str, remote_bucket: str, upload_id: str) -> UploadRecords:
    prefix = _prefix(remote_bucket, upload_id)
    records = UploadRecords()
    for key in _record_keys(client, system_bucket, prefix):
        kind, *fields = key[len(prefix) :].split("/")
        if kind == "algorithm" and fields:
            records.checksum_algorithm = fields[0]
            records.checksum_type = fields[1] if len(fields) > 1 else None
        elif kind == "part" and len(fields) == 4:
            number, etag, algorithm, encoded = fields
            value = encoded.replace("-", "+").replace("_", "/")
            base64.b64decode(value, validate=True)  # a record of ours, or a bug: fail loudly
            records.part_checksums.setdefault((int(number), etag), {})[algorithm] = value
        elif kind == "uploaded" and len(fields) == 3:
            number, when, etag = fields
            records.latest_parts[int(number)] = max(records.latest_parts.get(int(number), (0, "")), (int(when), etag))
    return records


def forget_upload(client: BaseClient, system_bucket: str, remote_bucket: str, upload_id: str) -> None:
    """Delete an upload's records (after it completed or was aborted)."""
    for key in _record_keys(client, system_bucket, _prefix(remote_bucket, upload_id)):
        client.delete_object(Bucket=system_bucket, Key=key)
