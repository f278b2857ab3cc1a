"""The object store's S3 API as the workbench's object commands (``aistor ls|cp|rm|...``) use it: one
boto3 client built from a ``ServiceConfig``, and the operations those commands need. Every failure is
an ``AIStorError``: the service's own S3 error code and message, or ServiceUnreachable."""

from __future__ import annotations

import mimetypes
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, BinaryIO

import boto3
from boto3.exceptions import Boto3Error
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError
from botocore.exceptions import SSLError as BotocoreSSLError

from .client import ServiceError, ServiceUnreachable
from .service_config import ServiceConfig, boto3_options

DELETE_BATCH = 1000  # the most keys one DeleteObjects takes
# What HEAD answers carry no body to say: their status's S3 code.
_HEAD_CODES = {"404": "NoSuchKey", "403": "AccessDenied", "400": "BadRequest"}
_TRANSFER = TransferConfig(multipart_threshold=64 * 1024 * 1024, multipart_chunksize=16 * 1024 * 1024)

Progress = Callable[[int], None]


def _service_error(exc: ClientError) -> ServiceError:
    error = exc.response.get("Error", {})
    code = str(error.get("Code") or "")
    code = _HEAD_CODES.get(code, code)
    status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    message = error.get("Message") or ""
    if not message or message == "Not Found":  # a HEAD's answer has no body to say more
        message = "Object does not exist" if code == "NoSuchKey" else code or str(exc)
    return ServiceError(f"{message} ({code})" if code and code not in message else message, status, code)


@contextmanager
def s3_errors(endpoint: str) -> Iterator[None]:
    """botocore's and boto3's exceptions -> the workbench's one-line errors."""
    try:
        yield
    except ClientError as exc:
        raise _service_error(exc) from None
    except BotocoreSSLError as exc:
        raise ServiceUnreachable(f"cannot verify the TLS certificate of {endpoint}: {exc}") from None
    except EndpointConnectionError:
        raise ServiceUnreachable(f"cannot reach the AIStor service at {endpoint}: is it running?") from None
    except (BotoCoreError, Boto3Error) as exc:
        if isinstance(exc.__context__, ClientError):  # a transfer's failure wraps the service's answer
            raise _service_error(exc.__context__) from None
        raise ServiceError(str(exc)) from None


def _version(value: str | None) -> dict[str, str]:
    return {"VersionId": value} if value else {}


class ObjectClient:
    """Buckets and objects of one service, as one identity."""

    def __init__(self, config: ServiceConfig):
        self.config = config
        client_config = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2, "mode": "standard"},
                               connect_timeout=10, read_timeout=120)
        self.s3 = boto3.client("s3", config=client_config, **boto3_options(config))

    def _call(self, operation: str, **params: Any) -> dict:
        with s3_errors(self.config.endpoint):
            return getattr(self.s3, operation)(**params)

    # -- buckets ------------------------------------------------------------------------------

    def buckets(self) -> list[dict]:
        return self._call("list_buckets").get("Buckets", [])

    def make_bucket(self, bucket: str, *, lock: bool = False) -> None:
        self._call("create_bucket", Bucket=bucket, **({"ObjectLockEnabledForBucket": True} if lock else {}))

    def remove_bucket(self, bucket: str) -> None:
        self._call("delete_bucket", Bucket=bucket)

    def versioning(self, bucket: str) -> str:
        """``Enabled``, ``Suspended`` or "" (never enabled)."""
        return self._call("get_bucket_versioning", Bucket=bucket).get("Status", "")

    def set_versioning(self, bucket: str, status: str) -> None:
        self._call("put_bucket_versioning", Bucket=bucket, VersioningConfiguration={"Status": status})

    # -- listings -----------------------------------------------------------------------------

    def objects(self, bucket: str, prefix: str = "", *, recursive: bool = True) -> Iterator[dict]:
        """The objects under ``prefix`` (and, unless ``recursive``, its sub-prefixes as
        ``{"Prefix": ...}`` entries), in key order."""
        params = {"Bucket": bucket, "Prefix": prefix, **({} if recursive else {"Delimiter": "/"})}
        with s3_errors(self.config.endpoint):
            for page in self.s3.get_paginator("list_objects_v2").paginate(**params):
                entries = page.get("Contents", []) + page.get("CommonPrefixes", [])
                yield from sorted(entries, key=lambda e: e.get("Key") or e.get("Prefix"))

    def versions(self, bucket: str, prefix: str = "", *, recursive: bool = True) -> Iterator[dict]:
        """Every version and delete marker under ``prefix`` (``DeleteMarker`` True for markers), newest
        first for each key; unless ``recursive``, sub-prefixes as ``{"Prefix": ...}`` entries."""
        params = {"Bucket": bucket, "Prefix": prefix, **({} if recursive else {"Delimiter": "/"})}
        with s3_errors(self.config.endpoint):
            for page in self.s3.get_paginator("list_object_versions").paginate(**params):
                entries = page.get("Versions", []) + [{**m, "DeleteMarker": True} for m in page.get("DeleteMarkers", [])]
                entries.sort(key=lambda e: (e["Key"], -e["LastModified"].timestamp()))
                yield from entries
                yield from page.get("CommonPrefixes", [])

    def list_page(self, bucket: str, prefix: str = "", *, token: str | None = None, limit: int = 1000) -> dict:
        """One page of ListObjectsV2 with the delimiter ``/``: ``Contents``, ``CommonPrefixes`` and,
        when more follow, ``NextContinuationToken``."""
        params = {"Bucket": bucket, "Prefix": prefix, "Delimiter": "/", "MaxKeys": limit,
                  **({"ContinuationToken": token} if token else {})}
        return self._call("list_objects_v2", **params)

    def first_keys(self, bucket: str, prefix: str, count: int) -> list[str]:
        """The first ``count`` keys under ``prefix`` (one request)."""
        answer = self._call("list_objects_v2", Bucket=bucket, Prefix=prefix, MaxKeys=count)
        return [entry["Key"] for entry in answer.get("Contents", [])]

    # -- objects ------------------------------------------------------------------------------

    def head(self, bucket: str, key: str, version_id: str | None = None) -> dict:
        return self._call("head_object", Bucket=bucket, Key=key, **_version(version_id))

    def read(self, bucket: str, key: str, version_id: str | None = None) -> Iterator[bytes]:
        """The object's bytes, in chunks as they arrive (asked for now: a missing object fails here)."""
        return self._chunks(self._call("get_object", Bucket=bucket, Key=key, **_version(version_id))["Body"])

    def _chunks(self, body) -> Iterator[bytes]:
        with s3_errors(self.config.endpoint):
            yield from body.iter_chunks(1024 * 1024)

    def upload(self, path: str, bucket: str, key: str, progress: Progress | None = None) -> None:
        """A local file to an object (multipart past 64 MiB), typed by its extension as mc does."""
        content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        with s3_errors(self.config.endpoint):
            self.s3.upload_file(path, bucket, key, ExtraArgs={"ContentType": content_type}, Callback=progress,
                                Config=_TRANSFER)

    def upload_stream(self, stream: BinaryIO, bucket: str, key: str, progress: Progress | None = None) -> None:
        with s3_errors(self.config.endpoint):
            self.s3.upload_fileobj(stream, bucket, key, Callback=progress, Config=_TRANSFER)

    def put(self, bucket: str, key: str, body: bytes, content_type: str = "application/octet-stream") -> dict:
        return self._call("put_object", Bucket=bucket, Key=key, Body=body, ContentType=content_type)

    def start_multipart(self, bucket: str, key: str, content_type: str = "application/octet-stream") -> str:
        return self._call("create_multipart_upload", Bucket=bucket, Key=key, ContentType=content_type)["UploadId"]

    def upload_part(self, bucket: str, key: str, upload_id: str, number: int, body: bytes) -> dict:
        """One part; answers ``{"PartNumber", "ETag"}`` as ``complete_multipart`` takes them."""
        etag = self._call("upload_part", Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number,
                          Body=body)["ETag"]
        return {"PartNumber": number, "ETag": etag}

    def complete_multipart(self, bucket: str, key: str, upload_id: str, parts: list[dict]) -> dict:
        return self._call("complete_multipart_upload", Bucket=bucket, Key=key, UploadId=upload_id,
                          MultipartUpload={"Parts": parts})

    def abort_multipart(self, bucket: str, key: str, upload_id: str) -> None:
        self._call("abort_multipart_upload", Bucket=bucket, Key=key, UploadId=upload_id)

    def get(self, bucket: str, key: str) -> dict:
        """GetObject's answer: ``Body`` (a stream to read in chunks and close), ``ContentLength``,
        ``ContentType``..."""
        return self._call("get_object", Bucket=bucket, Key=key)

    def open(self, bucket: str, key: str, version_id: str | None = None) -> BinaryIO:
        """A readable stream of the object (for a copy between two services)."""
        return self._call("get_object", Bucket=bucket, Key=key, **_version(version_id))["Body"]

    def download(self, bucket: str, key: str, path: str, progress: Progress | None = None,
                 version_id: str | None = None) -> None:
        with s3_errors(self.config.endpoint):
            self.s3.download_file(bucket, key, path, ExtraArgs=_version(version_id) or None, Callback=progress,
                                  Config=_TRANSFER)

    def copy(self, source_bucket: str, source_key: str, bucket: str, key: str, progress: Progress | None = None,
             version_id: str | None = None) -> None:
        """A server-side copy (UploadPartCopy past 64 MiB): the bytes never leave the service."""
        source = {"Bucket": source_bucket, "Key": source_key, **_version(version_id)}
        with s3_errors(self.config.endpoint):
            self.s3.copy(source, bucket, key, Callback=progress, Config=_TRANSFER)

    def delete(self, bucket: str, targets: Iterable[tuple[str, str | None]]) -> Iterator[dict]:
        """Delete (key, version id or None) pairs, 1000 a request; yields DeleteObjects' ``Deleted``
        and ``Errors`` entries (errors with ``Code``)."""
        batch: list[dict] = []
        for key, version_id in targets:
            batch.append({"Key": key, **_version(version_id)})
            if len(batch) == DELETE_BATCH:
                yield from self._delete_batch(bucket, batch)
                batch = []
        if batch:
            yield from self._delete_batch(bucket, batch)

    def _delete_batch(self, bucket: str, batch: list[dict]) -> list[dict]:
        answer = self._call("delete_objects", Bucket=bucket, Delete={"Objects": batch})
        return answer.get("Deleted", []) + answer.get("Errors", [])

    def tags(self, bucket: str, key: str = "", version_id: str | None = None) -> dict[str, str]:
        """The tags of an object (or, without ``key``, of the bucket)."""
        if key:
            answer = self._call("get_object_tagging", Bucket=bucket, Key=key, **_version(version_id))
        else:
            try:
                answer = self._call("get_bucket_tagging", Bucket=bucket)
            except ServiceError as exc:
                if exc.code == "NoSuchTagSet":
                    return {}
                raise
        return {tag["Key"]: tag["Value"] for tag in answer.get("TagSet", [])}

    def set_tags(self, bucket: str, key: str, tags: dict[str, str], version_id: str | None = None) -> None:
        tagging = {"TagSet": [{"Key": k, "Value": v} for k, v in tags.items()]}
        if key:
            self._call("put_object_tagging", Bucket=bucket, Key=key, Tagging=tagging, **_version(version_id))
        else:
            self._call("put_bucket_tagging", Bucket=bucket, Tagging=tagging)

    def remove_tags(self, bucket: str, key: str = "", version_id: str | None = None) -> None:
        if key:
            self._call("delete_object_tagging", Bucket=bucket, Key=key, **_version(version_id))
        else:
            self._call("delete_bucket_tagging", Bucket=bucket)

    # -- bucket policy and lifecycle ----------------------------------------------------------

    def policy(self, bucket: str) -> str | None:
        """The bucket policy document, or None when the bucket has none."""
        try:
            return self._call("get_bucket_policy", Bucket=bucket)["Policy"]
        except ServiceError as exc:
            if exc.code == "NoSuchBucketPolicy":
                return None
            raise

    def set_policy(self, bucket: str, document: str | None) -> None:
        """Put the bucket policy, or delete it when ``document`` is None."""
        if document is None:
            self._call("delete_bucket_policy", Bucket=bucket)
        else:
            self._call("put_bucket_policy", Bucket=bucket, Policy=document)

    def lifecycle(self, bucket: str) -> list[dict]:
        """The lifecycle rules as boto3 spells them (the XML's element names), [] when none."""
        try:
            return self._call("get_bucket_lifecycle_configuration", Bucket=bucket).get("Rules", [])
        except ServiceError as exc:
            if exc.code == "NoSuchLifecycleConfiguration":
                return []
            raise

    def set_lifecycle(self, bucket: str, rules: list[dict]) -> None:
        """Replace the lifecycle rules; no rules deletes the configuration."""
        if rules:
            self._call("put_bucket_lifecycle_configuration", Bucket=bucket,
                       LifecycleConfiguration={"Rules": rules})
        else:
            self._call("delete_bucket_lifecycle", Bucket=bucket)


@lru_cache(maxsize=8)
def object_client(service: ServiceConfig) -> ObjectClient:
    """One boto3 client a service, shared (boto3's clients are thread-safe): a recursive copy makes a
    path for every file, and the panel asks on every click."""
    return ObjectClient(service)
