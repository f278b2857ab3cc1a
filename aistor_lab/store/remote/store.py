"""``RemoteS3Store``: the store interface on top of an existing S3-compatible endpoint.

With it, the catalog and sharing services run as stateless processes in front of an S3 cluster:
every object, upload and bucket lives in the remote; nothing is kept here between calls.

How the interface maps onto S3, where the mapping is not one to one:

- ``SYSTEM_BUCKET`` (not a valid S3 name) is the remote bucket ``system_bucket``, created when
  absent and hidden from ``list_buckets``; ``is_system_bucket`` also holds for the client name
  that would reach it. Other names get ``bucket_prefix`` in front, so several deployments can
  share one cluster.
- Write conditions become ``If-Match``/``If-None-Match`` on PutObject, CopyObject and
  CompleteMultipartUpload, and ``If-Match`` on DeleteObject: the remote decides them atomically,
  so it must honour conditional writes, as aistor-lab and AWS S3 do. botocore retries a request
  whose answer was lost; a retried conditional write can then fail on its own first attempt.
- The ObjectInfo a write returns is read back with a HEAD pinned (``If-Match``) to the ETag the
  write answered, so size, ETag and last-modified are the remote's own.
- An ObjectHandle sends ``If-Match`` with the ETag it was opened with on every read: an object
  replaced or deleted after it was opened fails those reads with PreconditionFailed rather than
  mixing two versions (a remote without versioning keeps no old bytes to read).
- Flexible checksums travel as S3's own (``x-amz-checksum-*``), not as metadata, because parts can
  carry nothing else: one per write is passed (AWS takes one per request), the remote verifies it,
  and they are read back with ``ChecksumMode=ENABLED``; what the remote keeps is what ObjectInfo
  shows. The remote computes a multipart object's composite checksum from its parts' checksums.
- Listings come from ListObjectsV2 and carry key, size, ETag and last-modified only, as S3's do.
- Versioning is the remote's own: version ids, delete markers and ListObjectVersions pass through
  (botocore splits a versions page into versions and delete markers; ``wire.listed_versions``
  orders them again). Bucket configuration documents live in the system bucket under
  ``bucket-configs/<bucket>/``.
- Every write names its content type: remotes differ in the one they give an object written
  without (S3: binary/octet-stream).

What SeaweedFS needs (``traits.py``; the store recognises it by its ``Server`` header):

- A write to a missing bucket creates the bucket there: PutObject, CopyObject and
  CreateMultipartUpload are preceded by a HeadBucket, so they fail with NoSuchBucket as on S3.
- If-Match on a missing key answers PreconditionFailed; a HEAD then tells NoSuchKey (on any remote,
  only after a refusal).
- CopyObject's result carries no checksums, though the copy keeps them: the copy's ObjectInfo is
  read back with a HEAD pinned to its ETag, as a PutObject's is.
- CompleteMultipartUpload must name every part's checksum when the upload has an algorithm, but
  ListParts tells neither the algorithm nor the parts' checksums: the store records them in the
  system bucket (``upload_records.py``) and forgets them when the upload completes or is aborted.
  So is when each upload started, to the nanosecond: it lists uploads in upload id order, which the
  store makes S3's (key, then start) from all the prefix's uploads.
  Part lists not in ascending order are refused here (SeaweedFS accepts them), and so is aborting
  an upload ListParts does not know (SeaweedFS answers success).
- ListParts lists a part uploaded again twice: the latest is kept.
- The ETag of a part copied with UploadPartCopy is not the MD5 of its bytes (``traits``
  tells it); the bytes and their order are S3's.
- Listings walk its directory tree: StartAfter naming a key with keys under it skips them, so a
  listing resumes from just before the key (``traits.just_before``) and drops what it has seen; a
  page with a delimiter can hold more than MaxKeys entries, and is cut to them.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from itertools import pairwise
from typing import IO, Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from botocore.response import StreamingBody

from ..base import ObjectHandle, ObjectStore, Staging
from ..errors import (
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    InvalidPart,
    InvalidPartOrder,
    NoSuchBucket,
    NoSuchKey,
    NoSuchUpload,
    NoSuchVersion,
    NotSupportedByBackend,
    PreconditionFailed,
    StoreError,
)
from ..local.listing import resume
from ..object_lock import NO_LOCK, ObjectLock
from ..types import (
    MAX_PART_NUMBER,
    MAX_PART_SIZE,
    MIN_PART_SIZE,
    SYSTEM_BUCKET,
    BucketInfo,
    DeleteResult,
    ListPage,
    ObjectInfo,
    PartInfo,
    PartsPage,
    UploadInfo,
    UploadsPage,
    VersionsPage,
    WriteCondition,
)
from .conditional_writes import check_conditional_writes
from .traits import LAST_CHAR, RemoteTraits, just_before, traits_of
from .upload_records import (
    forget_upload,
    read_records,
    record_algorithm,
    record_part,
    record_start,
    start_times,
)
from .wire import (
    CHECKSUM_MEMBERS,
    DEFAULT_CONTENT_TYPE,
    RemoteError,
    attribute_params,
    checksum_params,
    checksums_of,
    condition_params,
    listed_object_info,
    listed_versions,
    lock_params,
    metadata_from_wire,
    modified_time,
    object_info,
    parts_count,
    quote_etag,
    response_date,
    retention_params,
    store_error,
    strip_etag,
    tag_set,
    tagging_params,
)

T = TypeVar("T")

# Staged bytes stay in memory up to this size, then spill to a temp file. Small objects stay in
# memory; parts (5 MiB at least) do not, else every part in flight would sit whole in memory.
SPOOL_MEMORY_BYTES = 1024 * 1024
# The server's thread pool and a few service threads share one client; more connections than
# threads means no thread waits for a pooled connection.
MAX_POOL_CONNECTIONS = 64
# How often a copy is retried when its source is replaced between our HEAD and the copy.
COPY_ATTEMPTS = 3
# Bucket configuration documents live in the system bucket under this prefix.
BUCKET_CONFIGS = "bucket-configs/"


class SpooledStaging(Staging):
    """Bytes in memory up to a limit, then in a temp file, with their size and MD5."""

    def __init__(self, max_memory: int = SPOOL_MEMORY_BYTES):
        # Open for the staging's whole life; discard() closes it.
        self.file = tempfile.SpooledTemporaryFile(max_size=max_memory)  # noqa: SIM115
        self._md5 = hashlib.md5()
        self._size = 0

    def write(self, data: bytes | memoryview) -> None:
        self._size += self.file.write(data)
        self._md5.update(data)

    @property
    def size(self) -> int:
        return self._size

    def md5_hex(self) -> str:
        return self._md5.hexdigest()

    def md5_base64(self) -> str:
        """The Content-MD5 header value, so the remote checks what it received."""
        return base64.b64encode(self._md5.digest()).decode()

    def rewound(self) -> IO[bytes]:
        self.file.seek(0)
        return self.file

    def discard(self) -> None:
        self.file.close()


class RemoteObjectHandle(ObjectHandle):
    """An object as it was when opened; reads fail with PreconditionFailed once it has changed."""

    def __init__(self, store: RemoteS3Store, info: ObjectInfo):
        self._store = store
        self.info = info

    def iter_range(
        self, start: int = 0, end: int | None = None, chunk_size: int = 1 << 20
    ) -> Iterator[bytes]:
        end = self.info.size if end is None else min(end, self.info.size)
        if start >= end:
            return
        body = self._store._read_range(self.info, start, end)
        with self._store._errors(), body:
            yield from body.iter_chunks(chunk_size)

    def close(self) -> None:
        """Nothing to release: each read opens and closes its own response."""


def _without_expect(request: Any, **_: Any) -> None:
    """botocore asks for "100 Continue" before it sends a file-like body. Between the service and its
    remote that only adds a wait (SeaweedFS answers it late: each such write stalled for seconds, and
    a connection could be left out of step, its next answer unreadable). Expect is not signed."""
    request.headers.pop("Expect", None)


class RemoteS3Store(ObjectStore):
    """An ObjectStore whose buckets and objects live in an S3-compatible endpoint."""

    def __init__(
        self,
        endpoint_url: str,
        access_key: str,
        secret_key: str,
        *,
        region: str = "us-east-1",
        system_bucket: str = "aistor-system",
        bucket_prefix: str = "",
        multipart_threshold: int = MAX_PART_SIZE,
    ):
        """``multipart_threshold``: objects bigger than this are written with a multipart upload
        (their ETag then ends in ``-N``); the default is the biggest single PUT S3 accepts."""
        self._endpoint_url = endpoint_url
        self._region = region
        self._system_bucket = system_bucket
        self._bucket_prefix = bucket_prefix
        self._multipart_threshold = multipart_threshold
        # Clients are thread-safe; sessions are not, hence a private session to make it.
        self._client = boto3.session.Session().client(
            "s3",
            endpoint_url=endpoint_url,
            aws_access_key_id=access_key,
            aws_secret_access_key=secret_key,
            region_name=region,
            config=Config(
                signature_version="s3v4",
                s3={"addressing_style": "path"},
                retries={"mode": "standard", "max_attempts": 4},
                max_pool_connections=MAX_POOL_CONNECTIONS,
                connect_timeout=10,
                read_timeout=120,
                # We pass Content-MD5 and the caller's checksums ourselves; computing more would
                # read every staged body twice.
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
            ),
        )
        self._client.meta.events.register_last("before-send.s3", _without_expect)
        if self._find_bucket(system_bucket) is None:
            self._create_remote_bucket(system_bucket)
        self._traits = traits_of(self._call("head_bucket", missing=NoSuchBucket, Bucket=system_bucket))
        check_conditional_writes(self._client, system_bucket, endpoint_url)

    @property
    def traits(self) -> RemoteTraits:
        """What the remote does differently from S3, where the store makes up for it or cannot."""
        return self._traits

    def close(self) -> None:
        self._client.close()

    # -- calls and names -------------------------------------------------------------------
    @contextmanager
    def _errors(self, missing: type[StoreError] = NoSuchKey) -> Iterator[None]:
        """Translate botocore errors into store errors; ``missing`` is what a bare 404 means."""
        try:
            yield
        except ClientError as error:
            raise store_error(error, missing) from error
        except BotoCoreError as error:
            raise StoreError(f"remote S3 endpoint {self._endpoint_url}: {error}") from error

    def _call(self, operation: str, missing: type[StoreError] = NoSuchKey, **params: Any) -> dict[str, Any]:
        with self._errors(missing):
            return getattr(self._client, operation)(**params)

    def is_system_bucket(self, name: str) -> bool:
        # The remote system bucket is an ordinary bucket on the cluster: hide every name reaching it.
        return name == SYSTEM_BUCKET or self._bucket_prefix + name == self._system_bucket

    def _remote(self, bucket: str) -> str:
        if bucket == SYSTEM_BUCKET:
            return self._system_bucket
        name = self._bucket_prefix + bucket
        if name == self._system_bucket:
            raise RemoteError("InvalidBucketName", f"The bucket name {bucket!r} is reserved by this server.")
        return name

    # -- buckets ---------------------------------------------------------------------------
    def _remote_buckets(self, prefix: str) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {"Prefix": prefix} if prefix else {}
        while True:
            response = self._call("list_buckets", **params)
            # Remotes that ignore Prefix list everything; filter here too.
            yield from (entry for entry in response.get("Buckets", []) if entry["Name"].startswith(prefix))
            if not response.get("ContinuationToken"):
                return
            params["ContinuationToken"] = response["ContinuationToken"]

    def _find_bucket(self, remote: str) -> dict[str, Any] | None:
        return next((entry for entry in self._remote_buckets(remote) if entry["Name"] == remote), None)

    def _create_remote_bucket(self, remote: str, object_lock: bool = False) -> None:
        params: dict[str, Any] = {"ObjectLockEnabledForBucket": True} if object_lock else {}
        if self._region != "us-east-1":
            params["CreateBucketConfiguration"] = {"LocationConstraint": self._region}
        self._call("create_bucket", Bucket=remote, **params)

    def create_bucket(self, name: str, *, object_lock: bool = False) -> BucketInfo:
        remote = self._remote(name)
        # S3 in us-east-1 answers 200 to creating a bucket one already owns, so look first.
        if self._find_bucket(remote) is not None:
            raise BucketAlreadyOwnedByYou()
        self._create_remote_bucket(remote, object_lock)
        return self.get_bucket(name)

    def delete_bucket(self, name: str) -> None:
        # Objects keep the bucket (checked first, so their uploads survive); uploads are aborted, then
        # the remote bucket goes. S3 has no single call for both: an object written in between makes
        # the remote refuse the delete (BucketNotEmpty) after the uploads were aborted.
        remote = self._remote(name)
        listed = self._call("list_object_versions", missing=NoSuchBucket, Bucket=remote, MaxKeys=1)
        if listed.get("Versions") or listed.get("DeleteMarkers"):
            raise BucketNotEmpty()
        for upload in self._remote_uploads(remote):
            with suppress(NoSuchUpload):
                self._call("abort_multipart_upload", missing=NoSuchUpload, Bucket=remote, **upload)
            self._forget_upload_records(remote, upload["UploadId"])
        self._call("delete_bucket", missing=NoSuchBucket, Bucket=remote)
        self._delete_bucket_configs(name)

    def _remote_uploads(self, remote: str) -> Iterator[dict[str, str]]:
        """Key and UploadId of every unfinished upload in the remote bucket."""
        params: dict[str, Any] = {"Bucket": remote}
        while True:
            response = self._call("list_multipart_uploads", missing=NoSuchBucket, **params)
            yield from (
                {"Key": entry["Key"], "UploadId": entry["UploadId"]} for entry in response.get("Uploads", [])
            )
            if not response.get("IsTruncated"):
                return
            # SeaweedFS pages by upload id alone (no NextKeyMarker).
            if response.get("NextKeyMarker"):
                params["KeyMarker"] = response["NextKeyMarker"]
            params["UploadIdMarker"] = response["NextUploadIdMarker"]

    def get_bucket(self, name: str) -> BucketInfo:
        remote = self._remote(name)
        found = self._find_bucket(remote)
        if found is None:
            raise NoSuchBucket()
        status = self._call("get_bucket_versioning", missing=NoSuchBucket, Bucket=remote).get("Status")
        return BucketInfo(name, found["CreationDate"].timestamp(), status or None)

    def set_versioning(self, name: str, status: str) -> None:
        self._call(
            "put_bucket_versioning", missing=NoSuchBucket, Bucket=self._remote(name),
            VersioningConfiguration={"Status": status},
        )  # fmt: skip

    def _config_key(self, bucket: str, name: str) -> str:
        return f"{BUCKET_CONFIGS}{bucket}/{name}"

    def _check_bucket(self, bucket: str) -> None:
        """Raises NoSuchBucket; one HeadBucket, where get_bucket lists buckets and reads versioning."""
        self._call("head_bucket", missing=NoSuchBucket, Bucket=self._remote(bucket))

    def _check_bucket_before_write(self, bucket: str) -> None:
        """On a remote whose writes create missing buckets, NoSuchBucket before the write instead.
        A bucket deleted between the check and the write comes back (with that one object)."""
        if self._traits.writes_create_buckets:
            self._check_bucket(bucket)

    @contextmanager
    def _refined_precondition(self, bucket: str, key: str, condition: WriteCondition | None) -> Iterator[None]:
        """With If-Match on a key that does not exist S3 answers NoSuchKey; some remotes (SeaweedFS)
        answer PreconditionFailed, which a HEAD then tells apart."""
        try:
            yield
        except PreconditionFailed:
            if condition is not None and condition.if_match is not None:
                self._head(bucket, key)  # raises NoSuchKey
            raise

    def get_bucket_config(self, bucket: str, name: str) -> bytes | None:
        # Every write reads a configuration or two (object lock, default encryption): check the bucket
        # in one request, and that only when the document is absent.
        try:
            return self.get_bytes(SYSTEM_BUCKET, self._config_key(bucket, name))[1]
        except NoSuchKey:
            self._check_bucket(bucket)
            return None

    def put_bucket_config(self, bucket: str, name: str, document: bytes | None) -> None:
        self._check_bucket(bucket)
        if document is None:
            self.delete_object(SYSTEM_BUCKET, self._config_key(bucket, name))
        else:
            self.put_bytes(SYSTEM_BUCKET, self._config_key(bucket, name), document)

    def _delete_bucket_configs(self, bucket: str) -> None:
        page = self.list_objects(SYSTEM_BUCKET, prefix=self._config_key(bucket, ""))
        for info in page.objects:
            self.delete_object(SYSTEM_BUCKET, info.key)

    def list_buckets(self) -> list[BucketInfo]:
        prefix = self._bucket_prefix
        buckets = [
            BucketInfo(entry["Name"][len(prefix) :], entry["CreationDate"].timestamp())
            for entry in self._remote_buckets(prefix)
            if entry["Name"] != self._system_bucket
        ]
        return sorted(buckets, key=lambda bucket: bucket.name)

    # -- objects ---------------------------------------------------------------------------
    def stage(self) -> SpooledStaging:
        return SpooledStaging()

    @staticmethod
    def _own(data: Staging) -> SpooledStaging:
        if not isinstance(data, SpooledStaging):
            raise TypeError("put_object and upload_part take a Staging made by this store's stage()")
        return data

    def _head(
        self, bucket: str, key: str, if_match: str | None = None, version_id: str | None = None
    ) -> ObjectInfo:
        remote = self._remote(bucket)
        condition = {"IfMatch": quote_etag(if_match)} if if_match else {}
        if version_id is not None:
            condition["VersionId"] = version_id
        missing = NoSuchKey if version_id is None else NoSuchVersion
        try:
            response = self._call(
                "head_object", missing=missing, Bucket=remote, Key=key, ChecksumMode="ENABLED", **condition
            )
        except (NoSuchKey, NoSuchVersion):
            # A HEAD answers a bare 404 for a missing bucket too.
            self._check_bucket(bucket)
            raise
        return object_info(bucket, key, response)

    def _info_after_write(self, known: ObjectInfo) -> ObjectInfo:
        """The remote's ObjectInfo of what we just wrote, or ``known`` (what the write answered)
        if another writer has already replaced or deleted it."""
        try:
            return self._head(known.bucket, known.key, if_match=known.etag)
        except (PreconditionFailed, NoSuchKey):
            return known

    def put_object(
        self,
        bucket: str,
        key: str,
        data: Staging,
        *,
        content_type: str | None = None,
        metadata: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        checksums: dict[str, str] | None = None,
        condition: WriteCondition | None = None,
        lock: ObjectLock = NO_LOCK,
        tags: dict[str, str] | None = None,
    ) -> ObjectInfo:
        staging = self._own(data)
        try:
            remote = self._remote(bucket)
            self._check_bucket_before_write(bucket)
            attributes = attribute_params(content_type, metadata, headers) | lock_params(lock) | tagging_params(tags)
            with self._refined_precondition(bucket, key, condition):
                if staging.size > self._multipart_threshold:
                    response = self._put_in_parts(remote, key, staging, attributes, condition)
                else:
                    response = self._call(
                        "put_object",
                        Bucket=remote,
                        Key=key,
                        Body=staging.rewound(),
                        ContentLength=staging.size,
                        ContentMD5=staging.md5_base64(),
                        **attributes,
                        **checksum_params(checksums),
                        **condition_params(condition),
                    )
        finally:
            staging.discard()
        etag = strip_etag(response["ETag"])
        known = ObjectInfo(
            bucket,
            key,
            staging.size,
            etag,
            response_date(response),
            content_type or DEFAULT_CONTENT_TYPE,
            metadata_from_wire(attributes["Metadata"]),
            dict(headers or {}),
            checksums_of(response),
            parts_count(etag),
            version_id=response.get("VersionId"),
            lock=lock,
            tags=dict(tags or {}),
        )
        # A HEAD does not tell tags: the ones just written are the version's.
        return replace(self._info_after_write(known), tags=known.tags)

    def _put_in_parts(
        self,
        remote: str,
        key: str,
        staging: SpooledStaging,
        attributes: dict[str, Any],
        condition: WriteCondition | None,
    ) -> dict[str, Any]:
        """Upload a staged object too big for one PUT; the condition is checked at completion."""
        upload_id = self._call("create_multipart_upload", Bucket=remote, Key=key, **attributes)["UploadId"]
        part_size = max(MIN_PART_SIZE, -(-staging.size // MAX_PART_NUMBER))
        try:
            parts = []
            file = staging.rewound()
            for number in range(1, -(-staging.size // part_size) + 1):
                chunk = file.read(part_size)
                digest = base64.b64encode(hashlib.md5(chunk).digest()).decode()
                answer = self._call(
                    "upload_part",
                    Bucket=remote,
                    Key=key,
                    UploadId=upload_id,
                    PartNumber=number,
                    Body=chunk,
                    ContentMD5=digest,
                )
                parts.append({"PartNumber": number, "ETag": answer["ETag"]})
            return self._call(
                "complete_multipart_upload",
                Bucket=remote,
                Key=key,
                UploadId=upload_id,
                MultipartUpload={"Parts": parts},
                **condition_params(condition),
            )
        except BaseException:
            self._abort_quietly(remote, key, upload_id)
            raise

    def _abort_quietly(self, remote: str, key: str, upload_id: str) -> None:
        # The write's own error is the one to report; a stray upload only costs space.
        with suppress(BotoCoreError, ClientError):
            self._client.abort_multipart_upload(Bucket=remote, Key=key, UploadId=upload_id)

    def get_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        return self._head(bucket, key, version_id=version_id)

    def tagged_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        info = self._head(bucket, key, version_id=version_id)
        response = self._call(
            "get_object_tagging", Bucket=self._remote(bucket), Key=key, **version_params(info)
        )
        return replace(info, tags={tag["Key"]: tag["Value"] for tag in response["TagSet"]})

    def open_object(self, bucket: str, key: str, version_id: str | None = None) -> RemoteObjectHandle:
        return RemoteObjectHandle(self, self._head(bucket, key, version_id=version_id))

    def part_range(self, info: ObjectInfo, part_number: int) -> tuple[int, int]:
        """The remote tells where the part lies: HEAD with PartNumber answers its Content-Range."""
        try:
            response = self._call(
                "head_object", Bucket=self._remote(info.bucket), Key=info.key, PartNumber=part_number,
                IfMatch=quote_etag(info.etag), **version_params(info),
            )  # fmt: skip
        except (PreconditionFailed, NoSuchKey):
            raise PreconditionFailed(
                f"{info.bucket}/{info.key} was replaced or deleted after it was read"
            ) from None
        first, _, last = response["ContentRange"].removeprefix("bytes ").partition("/")[0].partition("-")
        return int(first), int(last) + 1

    def _read_range(self, info: ObjectInfo, start: int, end: int) -> StreamingBody:
        """The streaming body of ``[start, end)`` of the object version ``info`` describes."""
        try:
            response = self._call(
                "get_object",
                Bucket=self._remote(info.bucket),
                Key=info.key,
                Range=f"bytes={start}-{end - 1}",
                IfMatch=quote_etag(info.etag),
                **version_params(info),
            )
        except (PreconditionFailed, NoSuchKey):
            raise PreconditionFailed(
                f"{info.bucket}/{info.key} was replaced or deleted after it was opened"
            ) from None
        return response["Body"]

    def get_bytes(self, bucket: str, key: str) -> tuple[ObjectInfo, bytes]:
        """One GET rather than a HEAD and a GET: info and bytes come from the same answer."""
        response = self._call("get_object", Bucket=self._remote(bucket), Key=key, ChecksumMode="ENABLED")
        with self._errors(), response["Body"] as body:
            data = body.read()
        return object_info(bucket, key, response), data

    def delete_object(
        self,
        bucket: str,
        key: str,
        condition: WriteCondition | None = None,
        *,
        version_id: str | None = None,
        bypass_governance: bool = False,
    ) -> DeleteResult:
        remote = self._remote(bucket)
        if version_id is not None or (condition and condition.if_none_match is None):
            # A version, or If-Match alone: the remote decides (If-Match on a missing key is NoSuchKey).
            versioned = {} if version_id is None else {"VersionId": version_id}
            if bypass_governance:
                versioned["BypassGovernanceRetention"] = True
            response = self._call(
                "delete_object", Bucket=remote, Key=key, **versioned, **condition_params(condition)
            )
            return _deleted(response)
        # S3 answers a delete the same whether or not the key existed; a HEAD tells. With
        # If-None-Match (only "*" is meaningful) the delete can only succeed when there is nothing to delete.
        try:
            self._head(bucket, key)
        except NoSuchKey:
            if condition and condition.if_match is not None:
                raise
            return DeleteResult(False)
        if condition:
            raise PreconditionFailed("If-None-Match: the object exists")
        return _deleted(self._call("delete_object", Bucket=remote, Key=key))

    def set_object_lock(
        self,
        bucket: str,
        key: str,
        version_id: str | None,
        lock: ObjectLock,
        *,
        bypass_governance: bool = False,
    ) -> ObjectInfo:
        info = self._head(bucket, key, version_id=version_id)
        target = {"Bucket": self._remote(bucket), "Key": key, **version_params(info)}
        bypass = {"BypassGovernanceRetention": True} if bypass_governance else {}
        if (lock.mode, lock.retain_until) != (info.lock.mode, info.lock.retain_until):
            self._call("put_object_retention", Retention=retention_params(lock), **target, **bypass)
        if lock.legal_hold != info.lock.legal_hold:
            status = "ON" if lock.legal_hold else "OFF"
            self._call("put_object_legal_hold", LegalHold={"Status": status}, **target)
        return replace(info, lock=lock)

    def set_object_tags(
        self, bucket: str, key: str, version_id: str | None, tags: dict[str, str]
    ) -> ObjectInfo:
        info = self._head(bucket, key, version_id=version_id)
        target = {"Bucket": self._remote(bucket), "Key": key, **version_params(info)}
        if tags:
            self._call("put_object_tagging", Tagging=tag_set(tags), **target)
        else:
            self._call("delete_object_tagging", **target)
        return replace(info, tags=dict(tags))

    def set_object_metadata(
        self, bucket: str, key: str, version_id: str | None, metadata: dict[str, str]
    ) -> ObjectInfo:
        # S3 changes metadata only by copying, which makes a new version with a new date.
        raise NotSupportedByBackend("Changing an object's metadata (its ACL) in place is not supported on an "
                                    "S3 backend; write the object with the ACL instead.")

    def _with_pinned_source(
        self, src_bucket: str, src_key: str, src_version_id: str | None, copy: Callable[[ObjectInfo], T]
    ) -> T:
        """Run ``copy(source)`` with the source's current info; the copy sends
        ``x-amz-copy-source-if-match`` so the info describes exactly the bytes copied. If the
        source was replaced in between, copy its new version."""
        for _ in range(COPY_ATTEMPTS):
            source = self.get_object_info(src_bucket, src_key, src_version_id)
            try:
                return copy(source)
            except PreconditionFailed:
                if self.get_object_info(src_bucket, src_key, src_version_id).etag == source.etag:
                    raise  # the source held still: the caller's own condition failed
        raise PreconditionFailed(f"{src_bucket}/{src_key} kept changing while it was copied")

    def _copy_source(self, bucket: str, key: str, source: ObjectInfo) -> dict[str, Any]:
        named = {"Bucket": self._remote(bucket), "Key": key, **version_params(source)}
        return {"CopySource": named, "CopySourceIfMatch": quote_etag(source.etag)}

    def copy_object(
        self,
        src_bucket: str,
        src_key: str,
        dst_bucket: str,
        dst_key: str,
        *,
        metadata: dict[str, str] | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
        condition: WriteCondition | None = None,
        src_version_id: str | None = None,
        lock: ObjectLock = NO_LOCK,
        tags: dict[str, str] | None = None,
    ) -> ObjectInfo:
        remote = self._remote(dst_bucket)
        self._check_bucket_before_write(dst_bucket)
        tagging = {} if tags is None else {"TaggingDirective": "REPLACE", **tagging_params(tags)}

        def copy(source: ObjectInfo) -> ObjectInfo:
            if metadata is None:
                directive = {"MetadataDirective": "COPY"}
                kept = (source.content_type, source.metadata, source.headers)
            else:
                directive = {
                    "MetadataDirective": "REPLACE",
                    **attribute_params(content_type, metadata, headers),
                }
                kept = (content_type or DEFAULT_CONTENT_TYPE, metadata_from_wire(directive["Metadata"]), dict(headers or {}))
            response = self._call(
                "copy_object",
                Bucket=remote,
                Key=dst_key,
                **self._copy_source(src_bucket, src_key, source),
                **directive,
                **condition_params(condition),
                **lock_params(lock),
                **tagging,
            )
            result = response["CopyObjectResult"]
            etag = strip_etag(result["ETag"])
            known = ObjectInfo(
                dst_bucket,
                dst_key,
                source.size,
                etag,
                modified_time(result["LastModified"]),
                *kept,
                checksums=checksums_of(result),
                parts_count=parts_count(etag),
                version_id=response.get("VersionId"),
                lock=lock,
                tags=source.tags if tags is None else dict(tags),
            )
            # The result tells no checksums on some remotes (SeaweedFS), though the copy keeps them.
            return replace(self._info_after_write(known), tags=known.tags)

        return self._with_pinned_source(src_bucket, src_key, src_version_id, copy)

    def list_objects(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        start_after: str = "",
        max_keys: int = 1000,
    ) -> ListPage:
        params: dict[str, Any] = {"Bucket": self._remote(bucket), "Prefix": prefix, "StartAfter": start_after}
        if delimiter:
            params["Delimiter"] = delimiter
        skip_under = is_common_prefix(start_after, prefix, delimiter)
        if skip_under:
            # Resuming after a common prefix skips its keys. S3 has no "after everything under
            # this prefix", so start just past it and drop the rare keys beyond (U+10FFFF + more).
            params["StartAfter"] = start_after + LAST_CHAR
        elif start_after and self._traits.lists_by_directory:
            params["StartAfter"] = just_before(start_after)
        after = start_after.encode()

        def wanted(entry: str) -> bool:
            return entry.encode() > after and not (skip_under and entry.startswith(start_after))

        objects: list[ObjectInfo] = []
        common: list[str] = []
        while True:
            response = self._call(
                "list_objects_v2",
                missing=NoSuchBucket,
                MaxKeys=max_keys - len(objects) - len(common),
                **params,
            )
            objects += [
                listed_object_info(bucket, entry)
                for entry in response.get("Contents", [])
                if wanted(entry["Key"])
            ]
            common += [
                entry["Prefix"] for entry in response.get("CommonPrefixes", []) if wanted(entry["Prefix"])
            ]
            truncated = bool(response.get("IsTruncated"))
            if not truncated or len(objects) + len(common) >= max_keys:
                break
            params["ContinuationToken"] = response["NextContinuationToken"]
        if len(objects) + len(common) > max_keys:
            # A remote's page held more than asked (SeaweedFS, with a delimiter): keep the first ones.
            kept = sorted([info.key for info in objects] + common, key=str.encode)[:max_keys]
            limit = kept[-1].encode() if kept else b""
            objects = [info for info in objects if info.key.encode() <= limit]
            common = [entry for entry in common if entry.encode() <= limit]
            truncated = True
        last = max([info.key for info in objects[-1:]] + common[-1:], key=str.encode, default=None)
        return ListPage(objects, common, truncated, last if truncated else None)

    def list_object_versions(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        key_marker: str = "",
        version_id_marker: str = "",
        max_keys: int = 1000,
    ) -> VersionsPage:
        params = self._two_marker_params(
            bucket, prefix, delimiter, key_marker, ("VersionIdMarker", version_id_marker)
        )
        response = self._call("list_object_versions", missing=NoSuchBucket, MaxKeys=max_keys, **params)
        truncated = bool(response.get("IsTruncated"))
        return VersionsPage(
            listed_versions(bucket, response),
            [entry["Prefix"] for entry in response.get("CommonPrefixes", [])],
            truncated,
            response.get("NextKeyMarker") if truncated else None,
            response.get("NextVersionIdMarker") if truncated else None,
        )

    def _two_marker_params(
        self, bucket: str, prefix: str, delimiter: str, key_marker: str, second: tuple[str, str]
    ) -> dict[str, Any]:
        """The parameters of a listing that resumes after a key and, within it, after a second marker
        (ListObjectVersions, ListMultipartUploads): S3 takes the second only with the first."""
        params: dict[str, Any] = {"Bucket": self._remote(bucket), "Prefix": prefix}
        if delimiter:
            params["Delimiter"] = delimiter
        if key_marker:
            params["KeyMarker"] = key_marker
            if second[1]:
                params[second[0]] = second[1]
        return params

    # -- multipart -------------------------------------------------------------------------
    def create_multipart_upload(
        self,
        bucket: str,
        key: str,
        *,
        content_type: str | None = None,
        metadata: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        checksum_algorithm: str | None = None,
        lock: ObjectLock = NO_LOCK,
        checksum_type: str | None = None,
        tags: dict[str, str] | None = None,
    ) -> UploadInfo:
        attributes = attribute_params(content_type, metadata, headers) | lock_params(lock) | tagging_params(tags)
        if checksum_algorithm:
            attributes["ChecksumAlgorithm"] = checksum_algorithm.upper()
        if checksum_type:
            attributes["ChecksumType"] = checksum_type
        remote = self._remote(bucket)
        self._check_bucket_before_write(bucket)
        response = self._call("create_multipart_upload", Bucket=remote, Key=key, **attributes)
        with self._errors():
            if checksum_algorithm and self._traits.forgets_upload_checksums:
                record_algorithm(
                    self._client, self._system_bucket, remote, response["UploadId"], checksum_algorithm, checksum_type
                )
            if self._traits.lists_uploads_by_id:
                record_start(self._client, self._system_bucket, remote, response["UploadId"])
        return UploadInfo(
            bucket,
            key,
            response["UploadId"],
            response_date(response),
            content_type or DEFAULT_CONTENT_TYPE,
            metadata_from_wire(attributes["Metadata"]),
            dict(headers or {}),
            checksum_algorithm,
            lock,
            checksum_type,
            tags=dict(tags or {}),
        )

    def upload_part(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        part_number: int,
        data: Staging,
        *,
        checksums: dict[str, str] | None = None,
    ) -> PartInfo:
        staging = self._own(data)
        try:
            response = self._call(
                "upload_part",
                missing=NoSuchUpload,
                Bucket=self._remote(bucket),
                Key=key,
                UploadId=upload_id,
                PartNumber=part_number,
                Body=staging.rewound(),
                ContentLength=staging.size,
                ContentMD5=staging.md5_base64(),
                **checksum_params(checksums),
            )
        finally:
            staging.discard()
        part = PartInfo(
            part_number,
            strip_etag(response["ETag"]),
            staging.size,
            response_date(response),
            checksums_of(response),
        )
        self._record_part(self._remote(bucket), upload_id, part)
        return part

    def upload_part_copy(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        part_number: int,
        src_bucket: str,
        src_key: str,
        start: int = 0,
        end: int | None = None,
        src_version_id: str | None = None,
    ) -> PartInfo:
        remote = self._remote(bucket)

        def copy(source: ObjectInfo) -> PartInfo:
            stop = source.size if end is None else end
            # S3 wants both ends of a range; a whole (maybe empty) source goes without one.
            span = (
                {} if (start, stop) == (0, source.size) else {"CopySourceRange": f"bytes={start}-{stop - 1}"}
            )
            response = self._call(
                "upload_part_copy",
                missing=NoSuchUpload,
                Bucket=remote,
                Key=key,
                UploadId=upload_id,
                PartNumber=part_number,
                **self._copy_source(src_bucket, src_key, source),
                **span,
            )
            result = response["CopyPartResult"]
            return PartInfo(
                part_number,
                strip_etag(result["ETag"]),
                stop - start,
                result["LastModified"].timestamp(),
                checksums_of(result),
            )

        part = self._with_pinned_source(src_bucket, src_key, src_version_id, copy)
        self._record_part(remote, upload_id, part)
        return part

    def _record_part(self, remote: str, upload_id: str, part: PartInfo) -> None:
        """Where the remote forgets it, which upload of the part number is the latest, and its checksums."""
        if self._traits.forgets_upload_checksums:
            with self._errors():
                record_part(
                    self._client, self._system_bucket, remote, upload_id, part.part_number, part.etag, part.checksums
                )

    def complete_multipart_upload(
        self,
        bucket: str,
        key: str,
        upload_id: str,
        parts: list[tuple[int, str]],
        *,
        checksums: dict[str, str] | None = None,
        condition: WriteCondition | None = None,
    ) -> ObjectInfo:
        """``checksums`` are not sent: the remote computes the object's own from the parts'
        checksums, which it requires in the request when the upload has an algorithm. An upload
        completed already is the remote's to answer (S3 answers a repeat with the object it made)."""
        if any(later <= earlier for (earlier, _), (later, _) in pairwise(parts)):
            # S3 refuses a list not in strictly ascending order; not every remote checks (SeaweedFS).
            raise InvalidPartOrder()
        try:
            stored = {part.part_number: part for part in self._all_parts(bucket, key, upload_id)}
        except NoSuchUpload:
            stored = {}
        completed = []
        for number, etag in parts:
            if number in stored and stored[number].etag != strip_etag(etag):
                # A part uploaded again replaced this one; not every remote forgets it (SeaweedFS).
                raise InvalidPart(f"Part {number} is not the one uploaded last.")
            entry: dict[str, Any] = {"PartNumber": number, "ETag": quote_etag(etag)}
            if number in stored:
                entry.update(
                    {CHECKSUM_MEMBERS[name]: value for name, value in stored[number].checksums.items()}
                )
            completed.append(entry)
        response = self._call(
            "complete_multipart_upload",
            Bucket=self._remote(bucket),
            Key=key,
            UploadId=upload_id,
            MultipartUpload={"Parts": completed},
            **condition_params(condition),
        )
        self._forget_upload_records(self._remote(bucket), upload_id)
        etag = strip_etag(response["ETag"])
        size = sum(stored[number].size for number, _ in parts if number in stored)
        known = ObjectInfo(
            bucket,
            key,
            size,
            etag,
            response_date(response),
            checksums=checksums_of(response),
            parts_count=parts_count(etag),
            version_id=response.get("VersionId"),
        )
        return self._info_after_write(known)

    def _all_parts(self, bucket: str, key: str, upload_id: str) -> Iterator[PartInfo]:
        marker = 0
        while True:
            page = self.list_parts(bucket, key, upload_id, part_number_marker=marker)
            yield from page.parts
            if not page.is_truncated or page.next_part_marker is None:
                return
            marker = page.next_part_marker

    def abort_multipart_upload(self, bucket: str, key: str, upload_id: str) -> None:
        remote = self._remote(bucket)
        if self._traits.aborts_unknown_uploads:
            self._call("list_parts", missing=NoSuchUpload, Bucket=remote, Key=key, UploadId=upload_id, MaxParts=1)
        self._call("abort_multipart_upload", missing=NoSuchUpload, Bucket=remote, Key=key, UploadId=upload_id)
        self._forget_upload_records(remote, upload_id)

    def _forget_upload_records(self, remote: str, upload_id: str) -> None:
        # Left-over records only cost a listing entry each: their removal's failure is not the caller's.
        if self._traits.forgets_upload_checksums or self._traits.lists_uploads_by_id:
            with suppress(BotoCoreError, ClientError):
                forget_upload(self._client, self._system_bucket, remote, upload_id)

    def list_parts(
        self, bucket: str, key: str, upload_id: str, *, part_number_marker: int = 0, max_parts: int = 1000
    ) -> PartsPage:
        """ListParts does not tell an upload's content type, metadata or start time: the page's
        UploadInfo carries defaults for those (and 0.0 as ``initiated``)."""
        response = self._call(
            "list_parts",
            missing=NoSuchUpload,
            Bucket=self._remote(bucket),
            Key=key,
            UploadId=upload_id,
            PartNumberMarker=part_number_marker,
            MaxParts=max_parts,
        )
        algorithm = response.get("ChecksumAlgorithm")
        upload = UploadInfo(
            bucket, key, upload_id, 0.0, checksum_algorithm=algorithm.lower() if algorithm else None,
            checksum_type=response.get("ChecksumType"),
        )  # fmt: skip
        entries = response.get("Parts", [])
        latest: dict[int, str] = {}
        if self._traits.forgets_upload_checksums:
            with self._errors():
                records = read_records(self._client, self._system_bucket, self._remote(bucket), upload_id)
            upload = replace(
                upload,
                checksum_algorithm=upload.checksum_algorithm or records.checksum_algorithm,
                checksum_type=upload.checksum_type or records.checksum_type,
            )
            latest = {number: etag for number, (_, etag) in records.latest_parts.items()}
        parts = [
            PartInfo(
                entry["PartNumber"],
                strip_etag(entry["ETag"]),
                entry["Size"],
                entry["LastModified"].timestamp(),
                checksums_of(entry),
            )
            for entry in _latest_parts(entries, latest)
        ]
        if self._traits.forgets_upload_checksums:
            parts = [
                replace(part, checksums=part.checksums or records.part_checksums.get((part.part_number, part.etag), {}))
                for part in parts
            ]
        marker = response.get("NextPartNumberMarker")
        return PartsPage(upload, parts, bool(response.get("IsTruncated")), int(marker) if marker else None)

    def list_multipart_uploads(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        key_marker: str = "",
        upload_id_marker: str = "",
        max_uploads: int = 1000,
    ) -> UploadsPage:
        """Uploads as ListMultipartUploads tells them: key, id, start time and checksum algorithm."""
        if self._traits.lists_uploads_by_id:
            return self._paged_uploads(bucket, prefix, delimiter, key_marker, upload_id_marker, max_uploads)
        params = self._two_marker_params(
            bucket, prefix, delimiter, key_marker, ("UploadIdMarker", upload_id_marker)
        )
        response = self._call(
            "list_multipart_uploads", missing=NoSuchBucket, MaxUploads=max_uploads, **params
        )
        return UploadsPage(
            [_listed_upload(bucket, entry) for entry in response.get("Uploads", [])],
            [entry["Prefix"] for entry in response.get("CommonPrefixes", [])],
            bool(response.get("IsTruncated")),
            response.get("NextKeyMarker") or None,
            response.get("NextUploadIdMarker") or None,
        )

    def _paged_uploads(
        self, bucket: str, prefix: str, delimiter: str, key_marker: str, upload_id_marker: str, max_uploads: int
    ) -> UploadsPage:
        """S3's page of the uploads under ``prefix`` (key order, then start time), from all of them:
        memory grows with the prefix's unfinished uploads, which are few but for a leak."""
        params: dict[str, Any] = {"Bucket": self._remote(bucket), "Prefix": prefix}
        rows: list[tuple[bytes, UploadInfo]] = []
        while True:
            response = self._call("list_multipart_uploads", missing=NoSuchBucket, **params)
            rows += [
                (entry["Key"].encode(), _listed_upload(bucket, entry))
                for entry in response.get("Uploads", [])
                if entry["Key"].startswith(prefix)
            ]
            if not response.get("IsTruncated") or not response.get("NextUploadIdMarker"):
                break
            params["UploadIdMarker"] = response["NextUploadIdMarker"]
        with self._errors():
            started = start_times(self._client, self._system_bucket, params["Bucket"])
        rows.sort(key=lambda row: (row[0], started.get(row[1].upload_id, int(row[1].initiated * 1e9))))
        keys = [key for key, _ in rows]
        marker = key_marker.encode()

        def scan(bound: bytes, inclusive: bool, limit: int) -> list[tuple[bytes, UploadInfo]]:
            start = (bisect_left if inclusive else bisect_right)(keys, bound)
            return rows[start : start + limit]

        first: list[tuple[bytes, UploadInfo]] = []
        if upload_id_marker and key_marker.startswith(prefix):
            # S3: the marker key's own uploads after the upload id marker come first.
            own = [row for row in rows if row[0] == marker]
            ids = [upload.upload_id for _, upload in own]
            first = own[ids.index(upload_id_marker) + 1 :] if upload_id_marker in ids else []
        page = resume(first, scan, prefix.encode(), delimiter.encode(), marker, max_uploads)
        if not page.is_truncated:
            return UploadsPage(page.entries, page.common_prefixes, False, None, None)
        upload_id = page.last_entry.upload_id if page.last_entry is not None else None
        return UploadsPage(page.entries, page.common_prefixes, True, page.last_key, upload_id)


def _listed_upload(bucket: str, entry: dict[str, Any]) -> UploadInfo:
    algorithm = entry.get("ChecksumAlgorithm")
    return UploadInfo(
        bucket, entry["Key"], entry["UploadId"], entry["Initiated"].timestamp(),
        checksum_algorithm=algorithm.lower() if algorithm else None,
    )  # fmt: skip


def _latest_parts(entries: list[dict[str, Any]], recorded: dict[int, str]) -> list[dict[str, Any]]:
    """Each part number once, its latest upload: some remotes (SeaweedFS) list a part uploaded
    again twice. ``recorded``: part number -> the ETag of its latest upload, where known."""
    latest: dict[int, dict[str, Any]] = {}
    for entry in entries:
        number, kept = entry["PartNumber"], latest.get(entry["PartNumber"])
        if number in recorded:
            if kept is None or strip_etag(entry["ETag"]) == recorded[number]:
                latest[number] = entry
        elif kept is None or entry["LastModified"] >= kept["LastModified"]:
            latest[number] = entry
    return [latest[number] for number in sorted(latest)]


def version_params(info: ObjectInfo) -> dict[str, str]:
    """Pins a read to the version ``info`` describes, where the remote has versions."""
    return {} if info.version_id is None else {"VersionId": info.version_id}


def _deleted(response: dict[str, Any]) -> DeleteResult:
    return DeleteResult(True, response.get("VersionId"), bool(response.get("DeleteMarker")))


def is_common_prefix(marker: str, prefix: str, delimiter: str) -> bool:
    """Whether ``marker`` is ``prefix + X + delimiter``, a common prefix a listing can return."""
    if not delimiter or not marker.startswith(prefix):
        return False
    cut = marker.find(delimiter, len(prefix))
    return cut >= 0 and cut + len(delimiter) == len(marker)
