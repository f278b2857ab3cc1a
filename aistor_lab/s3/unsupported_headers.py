"""Write-request headers whose semantics this server does not implement are refused, never dropped.

A client that asks for encryption, retention or a storage class must not be told its object was
written as asked when it was not. The headers boto3 can send on PutObject, CopyObject,
CreateMultipartUpload, UploadPart and UploadPartCopy are refused with the error AWS gives:

- ``x-amz-storage-class`` other than STANDARD: ``InvalidStorageClass`` (there is one class).
- ``x-amz-object-lock-*`` on UploadPart and UploadPartCopy, which lock nothing (an upload's lock is
  given when it is created): ``InvalidRequest``. PutObject, CopyObject and CreateMultipartUpload
  honour them (object_lock_ops.py), and refuse them in a bucket without Object Lock (InvalidRequest,
  as AWS).
- ``x-amz-website-redirect-location`` (no website hosting) and ``x-amz-write-offset-bytes``
  (appends): ``NotImplemented``.

On DeleteObject, ``x-amz-if-match-last-modified-time`` and ``x-amz-if-match-size`` (conditions S3
checks only in directory buckets) answer ``NotImplemented``: a delete must not ignore its condition.

The SSE headers are honoured (``s3/sse.py``), and so are ``x-amz-acl`` (``s3/acl_ops.py``), ``x-amz-tagging`` and
``x-amz-tagging-directive`` (``s3/tagging_ops.py``). Accepted as they are: ``x-amz-request-payer`` (no bucket is requester-pays) and
``x-amz-expected-bucket-owner`` / ``x-amz-source-expected-bucket-owner`` (every bucket has the one owner).
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import S3Error

# Operations whose request may carry the headers below.
WRITE_OPERATIONS = frozenset(
    {"PutObject", "PostObject", "CopyObject", "CreateMultipartUpload", "UploadPart", "UploadPartCopy"}
)

_NOT_IMPLEMENTED = frozenset({"x-amz-website-redirect-location", "x-amz-write-offset-bytes"})
_LOCKING_OPERATIONS = frozenset({"PutObject", "PostObject", "CopyObject", "CreateMultipartUpload"})
_DELETE_CONDITIONS = ("x-amz-if-match-last-modified-time", "x-amz-if-match-size")


def refuse_unsupported_headers(operation: str, headers: Mapping[str, str]) -> None:
    if operation == "DeleteObject":
        for name in _DELETE_CONDITIONS:
            if headers.get(name) is not None:
                raise S3Error("NotImplemented", f"A header you provided implies functionality that is not "
                              f"implemented: {name}.")  # fmt: skip
    if operation not in WRITE_OPERATIONS:
        return
    for name in headers:
        lower = name.lower()
        if lower in _NOT_IMPLEMENTED:
            raise S3Error(
                "NotImplemented",
                f"A header you provided implies functionality that is not implemented: {lower}.",
            )
        if lower.startswith("x-amz-object-lock-") and operation not in _LOCKING_OPERATIONS:
            raise S3Error("InvalidRequest", f"{lower} is given when the object or upload is created, not here.")
    storage_class = headers.get("x-amz-storage-class")
    if storage_class is not None and storage_class != "STANDARD":
        raise S3Error("InvalidStorageClass", "The storage class you specified is not valid")
