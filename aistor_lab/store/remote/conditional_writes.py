"""The start-up check that the remote honours conditional writes.

Every catalog commit, lease and document update of the service is a conditional write
(``If-None-Match: *`` to create, ``If-Match`` to replace), decided atomically by the remote. A
remote that ignored the condition would let two writers both win: a commit would silently be lost.
So before serving, the store writes a probe object in its system bucket and checks that each
condition it relies on is refused when it does not hold, on PutObject and on
CompleteMultipartUpload; a remote that fails any check is refused, naming what it lacks.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from botocore.exceptions import ClientError

from ..errors import StoreError

PROBE_PREFIX = "probes/conditional-writes/"
NO_SUCH_ETAG = '"00000000000000000000000000000000"'


class ConditionalWritesIgnored(StoreError):
    """The remote S3 endpoint does not honour the conditional writes the service relies on."""

    code = "NotImplemented"


def check_conditional_writes(client: Any, bucket: str, endpoint: str) -> None:
    """Raise ConditionalWritesIgnored, naming each missing feature, unless the remote refuses every
    write whose condition does not hold (and accepts one whose condition does)."""
    key = f"{PROBE_PREFIX}{uuid.uuid4().hex}"
    try:
        created = client.put_object(Bucket=bucket, Key=key, Body=b"probe", IfNoneMatch="*")
        checks: list[tuple[str, Callable[[], object]]] = [
            ("If-None-Match: * on PutObject",
             lambda: client.put_object(Bucket=bucket, Key=key, Body=b"again", IfNoneMatch="*")),
            ("If-Match on PutObject",
             lambda: client.put_object(Bucket=bucket, Key=key, Body=b"again", IfMatch=NO_SUCH_ETAG)),
            ("If-None-Match: * on CompleteMultipartUpload",
             lambda: _complete_upload(client, bucket, key, IfNoneMatch="*")),
            ("If-Match on CompleteMultipartUpload",
             lambda: _complete_upload(client, bucket, key, IfMatch=NO_SUCH_ETAG)),
        ]
        missing = [feature for feature, write in checks if not _refused(write)]
        try:  # the condition holds: the write must go through
            client.put_object(Bucket=bucket, Key=key, Body=b"replaced", IfMatch=created["ETag"])
        except ClientError as exc:
            missing.append(f"If-Match on PutObject with the current ETag (refused: {_code(exc)})")
    finally:
        _clean(client, bucket, key)
    if missing:
        raise ConditionalWritesIgnored(
            f"the S3 endpoint {endpoint} does not honour {', '.join(missing)}. The service commits "
            "tables and documents with conditional writes; on a remote that ignores them concurrent "
            "commits would overwrite each other. Use a backend that supports them (aistor-lab, MinIO, "
            "AWS S3, SeaweedFS)."
        )


def _refused(write: Callable[[], object]) -> bool:
    try:
        write()
    except ClientError as exc:
        return _code(exc) in ("PreconditionFailed", "412")
    return False


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", "?"))


def _complete_upload(client: Any, bucket: str, key: str, **condition: str) -> None:
    upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    try:
        part = client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=1, Body=b"part")
        client.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload,
            MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}, **condition)
    except ClientError:
        with suppress(ClientError):
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload)
        raise


def _clean(client: Any, bucket: str, key: str) -> None:
    # A probe object left behind is harmless: it is in the system bucket, under probes/.
    with suppress(ClientError):
        client.delete_object(Bucket=bucket, Key=key)
