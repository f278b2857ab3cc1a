"""EncryptingStore: server-side encryption below every caller of the store.

The S3 API, the catalog, Delta Sharing and the lifecycle runner all read and write through it:

- Writes are encrypted as the encryption request of the call asks (``with_encryption``, from an S3
  request's SSE headers), else as the bucket's default encryption says, else not at all. Bytes are
  encrypted as they arrive (``stage_for``, ``streams``), in packages (``packages``); the data key
  is stored sealed in the object's metadata under a reserved prefix (``stored``), never in the clear.
- Reads decrypt SSE-S3 and SSE-KMS objects for everyone; an SSE-C object needs the customer's key,
  which only an S3 request can give: any other reader gets InvalidRequest.
- What callers see is the plaintext: sizes, part sizes, ranges and part ranges; the reserved
  metadata entries are dropped and ``ObjectInfo.encryption`` describes the encryption instead.
- A multipart upload's parts are each a stream of their own, encrypted under the upload's data key
  with their part number: an encrypted upload completes with parts numbered 1 to N.
- Copies (and part copies) touching an encrypted object decrypt and encrypt again, between any modes.

ETags: a single-part SSE-S3 object's is the MD5 of its plaintext, as in S3 (SDKs check it against
what they sent); a part's is its plaintext's MD5 (SSE-S3) or a digest keyed by the upload's data key,
and a multipart object's is md5-of-those-N, as S3 computes it. Conditions naming a shown ETag are
translated to the stored one, which the backend checks in its write. A single-part SSE-KMS or SSE-C
object's is what the backend computes over the stored bytes, no MD5 of the plaintext (in S3 neither).
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import replace

from ..base import ObjectHandle, ObjectStore, Staging
from ..cache import SHARED_STATE_SECONDS, Cache
from ..errors import NoSuchUpload, StoreError
from ..object_lock import NO_LOCK, ObjectLock
from ..types import (
    SYSTEM_BUCKET,
    BucketInfo,
    DeleteResult,
    ListPage,
    ObjectInfo,
    ObjectVersion,
    PartInfo,
    PartsPage,
    UploadInfo,
    UploadsPage,
    VersionsPage,
    WriteCondition,
)
from . import bucket_default
from .errors import EncryptionNotSupported, EncryptionParametersInvalid, UnreadableEncryption
from .keys import MasterKeys, refuse_customer_key
from .modes import AES256, BucketDefault, EncryptionParams, EncryptionRequest
from .packages import Encryptor, Stream, part_context, plain_size
from .stored import PART_ETAG, StoredEncryption, encryption_entries, refuse_reserved_metadata, user_metadata
from .streams import DecryptingHandle, EncryptingStaging

# A bucket's default encryption is read at most this often: several servers in front of one store
# see each other's PutBucketEncryption within this time.
DEFAULT_TTL_SECONDS = SHARED_STATE_SECONDS


class EncryptingStore(ObjectStore):
    """Encrypts and decrypts object content over any backend (which never sees a key)."""

    def __init__(self, inner: ObjectStore, keys: MasterKeys, default_ttl: float = DEFAULT_TTL_SECONDS):
        self._inner = inner
        self.keys = keys
        self.fast_reads = inner.fast_reads
        self.lists_tags = inner.lists_tags
        self._params = EncryptionParams()
        self._defaults: Cache[BucketDefault | None] = Cache(4096, default_ttl)
        # An upload's encryption never changes under its id: every part asks for it.
        self._uploads: Cache[StoredEncryption | None] = Cache(4096)

    def with_encryption(self, params: EncryptionParams) -> ObjectStore:
        view = copy.copy(self)  # shares the backend, keys and cache
        view._params = params
        return view

    # -- what reads show -----------------------------------------------------------------------
    def _streams(self, info: ObjectInfo, stored: StoredEncryption) -> list[Stream]:
        """The encrypted streams of a stored object: its parts (numbered 1 to N), or itself."""
        if not info.parts_count:
            return [Stream(part_context(None), info.size)]
        if len(info.part_sizes) != info.parts_count:
            # Only backends that read part sizes with an object take encrypted uploads.
            raise UnreadableEncryption("The sizes of the encrypted object's parts are not known.")
        return [Stream(part_context(number), size) for number, size in enumerate(info.part_sizes, 1)]

    def _shown(self, info: ObjectInfo, stored: StoredEncryption | None = None) -> ObjectInfo:
        """What callers see of a stored object: plaintext sizes, no reserved metadata."""
        stored = stored or StoredEncryption.from_metadata(info.metadata)
        if stored is None:
            return info
        shown = replace(info, metadata=user_metadata(info.metadata), encryption=stored.public())
        if info.part_checksums:
            part_checksums = tuple(_without_part_etag(checksums) for checksums in info.part_checksums)
            shown = replace(shown, part_checksums=part_checksums, etag=_multipart_etag(info.part_checksums, info.etag))
        if stored.plain_etag is not None:
            shown = replace(shown, etag=stored.plain_etag)
        if not info.parts_count:
            size = stored.plain_size if stored.plain_size is not None else plain_size(info.size, stored.package_size)
            return replace(shown, size=size)
        parts = tuple(plain_size(stream.cipher_size, stored.package_size) for stream in self._streams(info, stored))
        return replace(shown, size=sum(parts), part_sizes=parts)

    def _listed(self, info: ObjectInfo) -> ObjectInfo:
        """An entry of a listing: listings do not carry part sizes, so an encrypted multipart object's
        plaintext size takes a lookup of the version listed."""
        stored = StoredEncryption.from_metadata(info.metadata)
        if stored is None or not info.parts_count:
            return self._shown(info, stored)
        try:
            full = self._inner.get_object_info(info.bucket, info.key, info.version_id)
        except StoreError:
            full = None  # removed since it was listed
        if full is None or full.etag != info.etag:
            return replace(info, metadata=user_metadata(info.metadata), encryption=stored.public())
        return replace(self._shown(full, stored), last_modified=info.last_modified)

    def _condition(
        self, bucket: str, key: str, condition: WriteCondition | None, version_id: str | None = None
    ) -> WriteCondition | None:
        """``condition`` as the backend checks it: an If-Match naming an ETag this store shows instead
        of the stored one (SSE-S3) names the stored one, if the object still has it."""
        if not condition or condition.if_match in (None, "*"):
            return condition
        try:
            info = self._inner.get_object_info(bucket, key, version_id)
        except StoreError:
            return condition  # nothing there: the backend refuses the condition itself
        if self._shown(info).etag == condition.if_match.strip().strip('"'):
            return replace(condition, if_match=info.etag)
        return condition

    def _shown_upload(self, upload: UploadInfo) -> UploadInfo:
        stored = StoredEncryption.from_metadata(upload.metadata)
        if stored is None:
            return upload
        return replace(upload, metadata=user_metadata(upload.metadata), encryption=stored.public())

    def _data_key(self, info: ObjectInfo, customer_key) -> tuple[bytes, StoredEncryption] | None:
        stored = StoredEncryption.from_metadata(info.metadata)
        if stored is None:
            refuse_customer_key(customer_key)
            return None
        return self.keys.open(stored.sealed, info.bucket, info.key, customer_key), stored

    # -- what writes get ------------------------------------------------------------------------
    def bucket_default(self, bucket: str) -> BucketDefault | None:
        """The bucket's default encryption (cached for a short while). The services' own state has
        none: its secrets are sealed by their owners (store.keyring)."""
        if bucket == SYSTEM_BUCKET:
            return None
        return self._defaults.get_or_load(
            bucket, lambda: bucket_default.from_document(self._inner.get_bucket_config(bucket, bucket_default.CONFIG_NAME))
        )

    def _write_request(self, bucket: str, explicit: EncryptionRequest | None) -> EncryptionRequest | None:
        if explicit is not None:
            return explicit
        default = self.bucket_default(bucket)
        return None if default is None else default.request()

    def _upload_encryption(self, bucket: str, key: str, upload_id: str) -> StoredEncryption | None:
        """Raises NoSuchUpload (not remembered)."""

        def load() -> StoredEncryption | None:
            page = self._inner.list_parts(bucket, key, upload_id, max_parts=1)
            return StoredEncryption.from_metadata(page.upload.metadata)

        return self._uploads.get_or_load((bucket, key, upload_id), load)

    def stage(self) -> Staging:
        return self._inner.stage()

    def stage_for(self, bucket: str, key: str, *, upload_id: str | None = None, part_number: int | None = None) -> Staging:
        if upload_id is not None:
            stored = self._upload_encryption(bucket, key, upload_id)
            if stored is None:
                refuse_customer_key(self._params.customer_key)
                return self._inner.stage()
            data_key = self.keys.open(stored.sealed, bucket, key, self._params.customer_key)
            encryptor = Encryptor(data_key, part_context(part_number), stored.package_size)
            target = (bucket, key, upload_id, part_number)
            return EncryptingStaging(self._inner.stage(), data_key, encryptor, stored, target)
        request = self._write_request(bucket, self._params.write)
        if request is None:
            return self._inner.stage()
        data_key, sealed = self.keys.new_data_key(request, bucket, key)
        stored = StoredEncryption(sealed, bucket_key_enabled=request.bucket_key_enabled)
        encryptor = Encryptor(data_key, part_context(None))
        return EncryptingStaging(self._inner.stage(), data_key, encryptor, stored, (bucket, key))

    # -- buckets (as the backend has them) ---------------------------------------------------------
    def is_system_bucket(self, name: str) -> bool:
        return self._inner.is_system_bucket(name)

    def create_bucket(self, name: str, *, object_lock: bool = False) -> BucketInfo:
        info = self._inner.create_bucket(name, object_lock=object_lock)
        self._defaults.put(name, None)  # a new bucket has no default, whatever one of its name had
        return info

    def delete_bucket(self, name: str) -> None:
        self._inner.delete_bucket(name)
        self._defaults.put(name, None)

    def get_bucket(self, name: str) -> BucketInfo:
        return self._inner.get_bucket(name)

    def list_buckets(self) -> list[BucketInfo]:
        return self._inner.list_buckets()

    def set_versioning(self, name: str, status: str) -> None:
        self._inner.set_versioning(name, status)

    def get_bucket_config(self, bucket: str, name: str) -> bytes | None:
        return self._inner.get_bucket_config(bucket, name)

    def put_bucket_config(self, bucket: str, name: str, document: bytes | None) -> None:
        self._inner.put_bucket_config(bucket, name, document)
        if name == bucket_default.CONFIG_NAME:
            self._defaults.put(bucket, bucket_default.from_document(document))

    # -- objects ----------------------------------------------------------------------------------
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
        """Encrypted when ``data`` came from ``stage_for`` for an encrypted write; what was decided
        then holds, even if the bucket's default changed since."""
        metadata = dict(metadata or {})
        refuse_reserved_metadata(metadata)
        if isinstance(data, EncryptingStaging):
            plain_etag = data.md5_hex() if data.stored.sealed.mode == AES256 else None
            metadata |= replace(data.stored, plain_size=data.size, plain_etag=plain_etag).to_metadata()
            data = data.sealed((bucket, key))
        info = self._inner.put_object(
            bucket, key, data, content_type=content_type, metadata=metadata, headers=headers,
            checksums=checksums, condition=self._condition(bucket, key, condition), lock=lock, tags=tags,
        )  # fmt: skip
        return self._shown(info)

    def get_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        info = self._inner.get_object_info(bucket, key, version_id)
        if self._params.check_reads:
            self._data_key(info, self._params.customer_key)
        return self._shown(info)

    def tagged_object_info(self, bucket: str, key: str, version_id: str | None = None) -> ObjectInfo:
        return self._shown(self._inner.tagged_object_info(bucket, key, version_id))

    def open_object(self, bucket: str, key: str, version_id: str | None = None) -> ObjectHandle:
        return self._open(bucket, key, version_id, self._params.customer_key)

    def get_bytes(self, bucket: str, key: str) -> tuple[ObjectInfo, bytes]:
        # The backend's own whole read (one GET on a remote store) answers one version, where opening
        # then reading fails if another server replaces the object in between (a table's pointer
        # under concurrent commits). An encrypted object is read again through a decrypting handle.
        info, data = self._inner.get_bytes(bucket, key)
        if StoredEncryption.from_metadata(info.metadata) is None:
            refuse_customer_key(self._params.customer_key)
            return info, data
        return super().get_bytes(bucket, key)

    def _open(self, bucket: str, key: str, version_id: str | None, customer_key) -> ObjectHandle:
        handle = self._inner.open_object(bucket, key, version_id)
        try:
            opened = self._data_key(handle.info, customer_key)
            if opened is None:
                return handle
            data_key, stored = opened
            info = self._shown(handle.info, stored)
            streams = self._streams(handle.info, stored)
            return DecryptingHandle(handle, info, data_key, streams, stored.package_size)
        except BaseException:
            handle.close()
            raise

    def part_range(self, info: ObjectInfo, part_number: int) -> tuple[int, int]:
        if info.encryption is None:
            return self._inner.part_range(info, part_number)
        # ``info`` is this store's: its part sizes are the plaintext's.
        start = sum(info.part_sizes[: part_number - 1])
        return start, start + info.part_sizes[part_number - 1]

    def delete_object(
        self,
        bucket: str,
        key: str,
        condition: WriteCondition | None = None,
        *,
        version_id: str | None = None,
        bypass_governance: bool = False,
    ) -> DeleteResult:
        return self._inner.delete_object(
            bucket, key, self._condition(bucket, key, condition, version_id), version_id=version_id,
            bypass_governance=bypass_governance,
        )  # fmt: skip

    def set_object_lock(
        self,
        bucket: str,
        key: str,
        version_id: str | None,
        lock: ObjectLock,
        *,
        bypass_governance: bool = False,
    ) -> ObjectInfo:
        info = self._inner.set_object_lock(bucket, key, version_id, lock, bypass_governance=bypass_governance)
        return self._shown(info)

    def set_object_tags(
        self, bucket: str, key: str, version_id: str | None, tags: dict[str, str]
    ) -> ObjectInfo:
        return self._shown(self._inner.set_object_tags(bucket, key, version_id, tags))

    def set_object_metadata(
        self, bucket: str, key: str, version_id: str | None, metadata: dict[str, str]
    ) -> ObjectInfo:
        """Keeps the stored encryption entries: only the user's part of the metadata changes."""
        refuse_reserved_metadata(metadata)
        info = self._inner.get_object_info(bucket, key, version_id)
        kept = encryption_entries(info.metadata)
        return self._shown(self._inner.set_object_metadata(bucket, key, version_id, {**metadata, **kept}))

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
        """The backend copies stored bytes when neither side is encrypted; otherwise the source's
        plaintext is encrypted again for the destination (in any mode, under a new data key)."""
        if metadata is not None:
            refuse_reserved_metadata(metadata)
        request = self._write_request(dst_bucket, self._params.write)
        source_info = self._inner.get_object_info(src_bucket, src_key, src_version_id)
        if request is None and StoredEncryption.from_metadata(source_info.metadata) is None:
            refuse_customer_key(self._params.source_customer_key)
            info = self._inner.copy_object(
                src_bucket, src_key, dst_bucket, dst_key, metadata=metadata, content_type=content_type,
                headers=headers, condition=self._condition(dst_bucket, dst_key, condition),
                src_version_id=source_info.version_id, lock=lock, tags=tags,
            )  # fmt: skip
            return self._shown(info)
        with self._open(src_bucket, src_key, source_info.version_id, self._params.source_customer_key) as source:
            shown = source.info
            if metadata is None:
                metadata, content_type, headers = shown.metadata, shown.content_type, shown.headers
            if tags is None:
                tags = self._inner.tagged_object_info(src_bucket, src_key, source_info.version_id).tags
            # A multipart source's composite checksums do not describe a single-part copy.
            checksums = {name: value for name, value in shown.checksums.items() if "-" not in value}
            writer = self.with_encryption(replace(self._params, write=request))
            with writer.stage_for(dst_bucket, dst_key) as staging:
                for chunk in source.iter_range():
                    staging.write(chunk)
                return writer.put_object(
                    dst_bucket, dst_key, staging, content_type=content_type, metadata=dict(metadata),
                    headers=headers, checksums=checksums, condition=condition, lock=lock, tags=tags,
                )  # fmt: skip

    def list_objects(
        self,
        bucket: str,
        *,
        prefix: str = "",
        delimiter: str = "",
        start_after: str = "",
        max_keys: int = 1000,
    ) -> ListPage:
        page = self._inner.list_objects(
            bucket, prefix=prefix, delimiter=delimiter, start_after=start_after, max_keys=max_keys
        )
        return replace(page, objects=[self._listed(info) for info in page.objects])

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
        page = self._inner.list_object_versions(
            bucket, prefix=prefix, delimiter=delimiter, key_marker=key_marker,
            version_id_marker=version_id_marker, max_keys=max_keys,
        )  # fmt: skip
        versions = [
            entry if entry.is_delete_marker else ObjectVersion(self._listed(entry.info), entry.is_latest)
            for entry in page.versions
        ]
        return replace(page, versions=versions)

    # -- multipart ----------------------------------------------------------------------------------
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
        metadata = dict(metadata or {})
        refuse_reserved_metadata(metadata)
        request = self._write_request(bucket, self._params.write)
        if request is not None:
            _, sealed = self.keys.new_data_key(request, bucket, key)
            metadata |= StoredEncryption(sealed, bucket_key_enabled=request.bucket_key_enabled).to_metadata()
        upload = self._inner.create_multipart_upload(
            bucket, key, content_type=content_type, metadata=metadata, headers=headers,
            checksum_algorithm=checksum_algorithm, lock=lock, checksum_type=checksum_type, tags=tags,
        )  # fmt: skip
        if request is not None and self._upload_encryption(bucket, key, upload.upload_id) is None:
            # Parts are encrypted with the key the upload records: a backend that cannot tell an
            # upload's metadata back (S3's ListParts does not) cannot take encrypted uploads.
            self._inner.abort_multipart_upload(bucket, key, upload.upload_id)
            raise EncryptionNotSupported("Encrypted multipart uploads need a store that keeps upload metadata.")
        return self._shown_upload(upload)

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
        """``data`` must come from ``stage_for`` with this upload and part number when the upload
        is encrypted (its parts are encrypted as they arrive)."""
        if not isinstance(data, EncryptingStaging):
            return self._inner.upload_part(bucket, key, upload_id, part_number, data, checksums=checksums)
        size, etag = data.size, data.part_etag()
        sealed = data.sealed((bucket, key, upload_id, part_number))
        recorded = dict(checksums or {}) | {PART_ETAG: etag}
        part = self._inner.upload_part(bucket, key, upload_id, part_number, sealed, checksums=recorded)
        return replace(part, size=size, etag=etag, checksums=dict(checksums or {}), encryption=data.stored.public())

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
        """``[start, end)`` of the source's plaintext. The backend copies stored bytes when neither
        the source nor the upload is encrypted; otherwise the range is decrypted and encrypted again."""
        source_info = self._inner.get_object_info(src_bucket, src_key, src_version_id)
        source_stored = StoredEncryption.from_metadata(source_info.metadata)
        if source_stored is None and self._upload_encryption(bucket, key, upload_id) is None:
            refuse_customer_key(self._params.source_customer_key)
            refuse_customer_key(self._params.customer_key)
            return self._inner.upload_part_copy(
                bucket, key, upload_id, part_number, src_bucket, src_key, start, end, source_info.version_id
            )
        source_key = self._params.source_customer_key
        with (
            self._open(src_bucket, src_key, source_info.version_id, source_key) as source,
            self.stage_for(bucket, key, upload_id=upload_id, part_number=part_number) as staging,
        ):
            for chunk in source.iter_range(start, end):
                staging.write(chunk)
            return self.upload_part(bucket, key, upload_id, part_number, staging)

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
        """An encrypted upload's parts must be numbered 1 to N: reads find each part's stream by
        its position, and a stream only decrypts under the part number it was written with."""
        try:
            encrypted = self._upload_encryption(bucket, key, upload_id) is not None
        except NoSuchUpload:
            encrypted = False  # completed already, maybe: the backend answers a repeat
        if encrypted:
            if [number for number, _ in parts] != list(range(1, len(parts) + 1)):
                raise EncryptionParametersInvalid(
                    "The parts of an encrypted multipart upload must be numbered 1 to N without gaps."
                )
            parts = self._stored_part_etags(bucket, key, upload_id, parts)
        info = self._inner.complete_multipart_upload(
            bucket, key, upload_id, parts, checksums=checksums, condition=self._condition(bucket, key, condition)
        )
        return self._shown(info)

    def _stored_part_etags(
        self, bucket: str, key: str, upload_id: str, parts: list[tuple[int, str]]
    ) -> list[tuple[int, str]]:
        """The parts a completion names, by the ETags the backend stored for them; an ETag that is
        not the part's is passed on for the backend to refuse."""
        stored: dict[int, tuple[str, str | None]] = {}
        marker = 0
        while True:
            page = self._inner.list_parts(bucket, key, upload_id, part_number_marker=marker, max_parts=1000)
            stored |= {part.part_number: (part.etag, part.checksums.get(PART_ETAG)) for part in page.parts}
            if not page.is_truncated or page.next_part_marker is None:
                break
            marker = page.next_part_marker
        named = []
        for number, etag in parts:
            backend_etag, shown = stored.get(number, (None, None))
            named.append((number, backend_etag if shown == etag.strip().strip('"') else etag))
        return named

    def abort_multipart_upload(self, bucket: str, key: str, upload_id: str) -> None:
        self._inner.abort_multipart_upload(bucket, key, upload_id)

    def list_parts(
        self, bucket: str, key: str, upload_id: str, *, part_number_marker: int = 0, max_parts: int = 1000
    ) -> PartsPage:
        page = self._inner.list_parts(
            bucket, key, upload_id, part_number_marker=part_number_marker, max_parts=max_parts
        )
        stored = StoredEncryption.from_metadata(page.upload.metadata)
        if stored is None:
            return page
        parts = [self._shown_part(part, stored) for part in page.parts]
        return replace(page, upload=self._shown_upload(page.upload), parts=parts)

    @staticmethod
    def _shown_part(part: PartInfo, stored: StoredEncryption) -> PartInfo:
        checksums = _without_part_etag(part.checksums)
        etag = part.checksums.get(PART_ETAG, part.etag)
        size = plain_size(part.size, stored.package_size)
        return replace(part, etag=etag, size=size, checksums=checksums, encryption=stored.public())

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
        page = self._inner.list_multipart_uploads(
            bucket, prefix=prefix, delimiter=delimiter, key_marker=key_marker,
            upload_id_marker=upload_id_marker, max_uploads=max_uploads,
        )  # fmt: skip
        return replace(page, uploads=[self._shown_upload(upload) for upload in page.uploads])

    def close(self) -> None:
        self._inner.close()


def _without_part_etag(checksums: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in checksums.items() if name != PART_ETAG}


def _multipart_etag(part_checksums: tuple[dict[str, str], ...], stored_etag: str) -> str:
    """A multipart object's ETag over the ETags its parts answered (S3's md5-of-part-md5s-N: for
    SSE-S3 over the plaintext's MD5s, as in S3), where the backend kept them with the object."""
    etags = [checksums.get(PART_ETAG) for checksums in part_checksums]
    if None in etags:
        return stored_etag
    return hashlib.md5(b"".join(bytes.fromhex(etag) for etag in etags)).hexdigest() + f"-{len(etags)}"
