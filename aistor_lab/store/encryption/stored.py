"""What is stored with an encrypted object: a few entries of its metadata, under a reserved prefix.

The entries live in the object's metadata (the store keeps them with the object, and copies an
upload's to the object it completes) under ``aistor-internal-sse-``. Clients can neither set nor
see names under ``aistor-internal-``: the S3 layer refuses them in writes and leaves them out of
answers (``s3/user_metadata.py``), and this layer refuses and hides its own entries besides.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass

from ..types import ObjectEncryption
from .errors import EncryptionArgumentInvalid, UnreadableEncryption
from .keys import SealedKey
from .modes import AES256, AWS_KMS, SSE_C, canonical_json
from .packages import FORMAT_VERSION, PACKAGE_SIZE

RESERVED_PREFIX = "aistor-internal-"
_SSE = RESERVED_PREFIX + "sse-"
FORMAT = _SSE + "format"  # the package format's version (packages.FORMAT_VERSION)
PACKAGE_SIZE_ENTRY = _SSE + "package-size"
MODE = _SSE + "mode"
KEY_ID = _SSE + "key-id"
SEALED_KEY = _SSE + "sealed-key"  # base64
KMS_CONTEXT = _SSE + "kms-context"  # base64 of canonical JSON
PLAIN_SIZE = _SSE + "plain-size"  # single-part objects; a multipart object's follows from its parts
BUCKET_KEY = _SSE + "bucket-key"
PLAIN_ETAG = _SSE + "etag"  # single-part SSE-S3 objects: the plaintext's MD5, their ETag as in S3
# A part of an encrypted upload keeps the ETag it answered among its checksums (parts have no
# metadata), so that its completion can name it: see store.EncryptingStore.upload_part.
PART_ETAG = _SSE + "part-etag"
_MODES = (AES256, AWS_KMS, SSE_C)


@dataclass(frozen=True)
class StoredEncryption:
    """An object's encryption, as its metadata records it."""

    sealed: SealedKey
    plain_size: int | None = None
    package_size: int = PACKAGE_SIZE
    bucket_key_enabled: bool = False
    plain_etag: str | None = None

    def to_metadata(self) -> dict[str, str]:
        entries = {
            FORMAT: str(FORMAT_VERSION),
            PACKAGE_SIZE_ENTRY: str(self.package_size),
            MODE: self.sealed.mode,
            KEY_ID: self.sealed.key_id,
            SEALED_KEY: base64.b64encode(self.sealed.ciphertext).decode(),
        }
        if self.sealed.kms_context is not None:
            entries[KMS_CONTEXT] = base64.b64encode(canonical_json(self.sealed.kms_context).encode()).decode()
        if self.plain_size is not None:
            entries[PLAIN_SIZE] = str(self.plain_size)
        if self.bucket_key_enabled:
            entries[BUCKET_KEY] = "true"
        if self.plain_etag is not None:
            entries[PLAIN_ETAG] = self.plain_etag
        return entries

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, str]) -> StoredEncryption | None:
        """None for an object stored in the clear; InternalError for entries this server cannot read."""
        if MODE not in metadata:
            return None
        try:
            if metadata.get(FORMAT) != str(FORMAT_VERSION) or metadata[MODE] not in _MODES:
                raise ValueError("unknown format")
            context = None
            if KMS_CONTEXT in metadata:
                context = json.loads(base64.b64decode(metadata[KMS_CONTEXT], validate=True))
            sealed = SealedKey(
                metadata[MODE],
                metadata.get(KEY_ID, ""),
                base64.b64decode(metadata[SEALED_KEY], validate=True),
                context,
            )
            plain_size = int(metadata[PLAIN_SIZE]) if PLAIN_SIZE in metadata else None
            package_size = int(metadata[PACKAGE_SIZE_ENTRY])
            if package_size <= 0:
                raise ValueError("no package is empty")
        except (KeyError, ValueError, binascii.Error):
            raise UnreadableEncryption("The object's encryption metadata is not readable.") from None
        return cls(sealed, plain_size, package_size, metadata.get(BUCKET_KEY) == "true", metadata.get(PLAIN_ETAG))

    def public(self) -> ObjectEncryption:
        """What answers may tell of this encryption."""
        if self.sealed.mode != AWS_KMS:
            return ObjectEncryption(self.sealed.mode, bucket_key_enabled=self.bucket_key_enabled)
        return ObjectEncryption(AWS_KMS, self.sealed.key_id, self.sealed.kms_context, self.bucket_key_enabled)


def user_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """The metadata without this layer's entries (the S3 layer hides the other reserved ones)."""
    return {name: value for name, value in metadata.items() if not name.startswith(_SSE)}


def encryption_entries(metadata: Mapping[str, str]) -> dict[str, str]:
    """The entries this layer keeps in an object's metadata."""
    return {name: value for name, value in metadata.items() if name.startswith(_SSE)}


def refuse_reserved_metadata(metadata: Mapping[str, str]) -> None:
    """A write may not set this layer's entries (names without ``x-amz-meta-``). Other reserved
    entries (an object's ACL) are the S3 layer's, which keeps clients from setting them."""
    for name in metadata:
        if name.lower().startswith(_SSE):
            raise EncryptionArgumentInvalid(
                f"Metadata names starting with {RESERVED_PREFIX} are reserved: x-amz-meta-{name}.",
            )
