"""Per-object data keys, and the keys that seal them so that they are never stored in the clear.

Every encrypted object (every multipart upload) gets a random 256-bit data key. What is stored is
that key sealed with AES-256-GCM under a key-encryption key (KEK) of its mode:

- SSE-S3: derived (HKDF, its own info) from the server's master key: the key ring's default KMS key
  (``AISTOR_KMS_SECRET_KEY``) when set, else the key derived from the root credentials, as the
  secrets of ``store.keyring`` are. Which one is recorded, so setting a KMS key later leaves older
  objects readable.
- SSE-KMS: derived from a named key of the local key ring (``AISTOR_KMS_SECRET_KEY`` is its
  default key, ``AISTOR_KMS_KEYS`` adds more), as MinIO's KMS keeps named keys.
- SSE-C: derived from the customer's key, which is never stored: a later request proves it gave
  the same key by opening the seal (GCM authenticates), so not even a hash of the key is kept.

The seal's associated data binds the mode, the key id, the bucket and key of the object, and the
SSE-KMS encryption context: a sealed key copied to another object, or opened as another mode or
under another context, does not open.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..keyring import ROOT_LABEL, derive_root_key
from .errors import EncryptionParametersInvalid, KMSKeyNotFound, UnreadableEncryption, WrongCustomerKey
from .modes import AES256, AWS_KMS, SSE_C, CustomerKey, EncryptionRequest, canonical_json

DATA_KEY_SIZE = 32
_NONCE_SIZE = 12
_KMS_LABEL = "kms:"  # an SSE-S3 key id naming the key ring's key it was derived from
_INFO = {AES256: b"aistor-lab sse-s3 v1", AWS_KMS: b"aistor-lab sse-kms v1", SSE_C: b"aistor-lab sse-c v1"}
_ARN_PREFIX = "arn:aws:kms:"


@dataclass(frozen=True)
class SealedKey:
    """A data key as stored: sealed, with what says which key opens it."""

    mode: str  # AES256 (SSE-S3), AWS_KMS or SSE_C
    key_id: str  # SSE-S3: ROOT_LABEL or "kms:NAME"; SSE-KMS: the key's name; SSE-C: ""
    ciphertext: bytes  # nonce + AES-256-GCM of the data key
    kms_context: dict[str, str] | None = None  # SSE-KMS: the client's encryption context


def _kek(master: bytes, mode: str) -> AESGCM:
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO[mode]).derive(master))


def _associated_data(
    mode: str, key_id: str, bucket: str, key: str, kms_context: dict[str, str] | None
) -> bytes:
    bound = {
        "v": 1,
        "mode": mode,
        "key_id": key_id,
        "object": f"{bucket}/{key}",
        "context": kms_context or {},
    }
    return canonical_json(bound).encode()


def kms_key_name(key_id: str) -> str:
    """A key id as S3 clients write it (``NAME``, ``arn:aws:kms:NAME``, or an ARN ending in
    ``key/NAME`` or ``alias/NAME``) -> the key ring's name for it."""
    name = key_id.strip()
    if name.startswith(_ARN_PREFIX):
        name = name.removeprefix(_ARN_PREFIX)
        for marker in (":key/", ":alias/"):
            if marker in name:
                name = name.rsplit(marker, 1)[1]
    return name


class MasterKeys:
    """The server's keys that seal data keys: the root-derived key and the key ring's named keys."""

    def __init__(self, root_key: bytes, kms_keys: Mapping[str, bytes], default_kms_key: str | None = None):
        if default_kms_key is not None and default_kms_key not in kms_keys:
            raise ValueError(f"the default KMS key {default_kms_key!r} is not in the key ring")
        self._root_key = root_key
        self._kms_keys = dict(kms_keys)
        self.default_kms_key = default_kms_key

    @classmethod
    def from_key_ring(
        cls,
        root_user: str,
        root_password: str,
        kms_keys: Mapping[str, bytes],
        kms_key: tuple[str, bytes] | None,
    ) -> MasterKeys:
        """The key ring of ``AISTOR_KMS_SECRET_KEY`` (``kms_key``, its default key) and
        ``AISTOR_KMS_KEYS``; ValueError when both name one key with different bytes."""
        keys = dict(kms_keys)
        default = None
        if kms_key is not None:
            default, key = kms_key
            if keys.setdefault(default, key) != key:
                raise ValueError(
                    f"AISTOR_KMS_SECRET_KEY and AISTOR_KMS_KEYS give the key {default!r} different values"
                )
        return cls(derive_root_key(root_user, root_password), keys, default)

    def resolve_kms_key(self, key_id: str | None) -> str:
        """The name of the key ring's key an SSE-KMS request names (None: the default key); the
        error AWS and MinIO give for a key that does not exist."""
        if key_id is None:
            if self.default_kms_key is None:
                raise KMSKeyNotFound(
                    "No KMS key id was given and the server has no default KMS key (AISTOR_KMS_SECRET_KEY).",
                )
            return self.default_kms_key
        name = kms_key_name(key_id)
        if name not in self._kms_keys:
            raise KMSKeyNotFound(f"Invalid keyId {key_id}")
        return name

    def seal(self, data_key: bytes, request: EncryptionRequest, bucket: str, key: str) -> SealedKey:
        """Seal ``data_key`` for the object ``bucket/key`` as ``request`` asks."""
        if request.mode == SSE_C:
            if request.customer_key is None:
                raise ValueError("SSE-C seals under the customer's key")
            master, key_id = request.customer_key.key, ""
        else:
            if request.mode == AWS_KMS:
                key_id = self.resolve_kms_key(request.kms_key_id)
            else:
                key_id = ROOT_LABEL if self.default_kms_key is None else _KMS_LABEL + self.default_kms_key
            master = self._server_master(request.mode, key_id)
        context = request.kms_context if request.mode == AWS_KMS else None
        nonce = os.urandom(_NONCE_SIZE)
        associated = _associated_data(request.mode, key_id, bucket, key, context)
        sealed = _kek(master, request.mode).encrypt(nonce, data_key, associated)
        return SealedKey(request.mode, key_id, nonce + sealed, context)

    def new_data_key(self, request: EncryptionRequest, bucket: str, key: str) -> tuple[bytes, SealedKey]:
        """A fresh random data key for the object ``bucket/key``, and its seal."""
        data_key = os.urandom(DATA_KEY_SIZE)
        return data_key, self.seal(data_key, request, bucket, key)

    def open(self, sealed: SealedKey, bucket: str, key: str, customer_key: CustomerKey | None) -> bytes:
        """The data key of the object ``bucket/key``. ``customer_key``: the SSE-C key the request
        gave, which an SSE-C object needs and any other object refuses (as S3 does)."""
        if sealed.mode == SSE_C:
            if customer_key is None:
                raise EncryptionParametersInvalid(
                    "The object was stored using a form of Server Side Encryption. "
                    "The correct parameters must be provided to retrieve the object.",
                )
            master = customer_key.key
        else:
            refuse_customer_key(customer_key)
            master = self._server_master(sealed.mode, sealed.key_id)
        associated = _associated_data(sealed.mode, sealed.key_id, bucket, key, sealed.kms_context)
        try:
            return _kek(master, sealed.mode).decrypt(
                sealed.ciphertext[:_NONCE_SIZE], sealed.ciphertext[_NONCE_SIZE:], associated
            )
        except InvalidTag:
            if sealed.mode == SSE_C:
                raise WrongCustomerKey("Access Denied.") from None
            raise UnreadableEncryption(
                "The object's key does not open with this server's keys "
                f"({sealed.mode} under {sealed.key_id!r})."
            ) from None

    def _server_master(self, mode: str, key_id: str) -> bytes:
        if mode == AES256 and key_id == ROOT_LABEL:
            return self._root_key
        name = key_id if mode == AWS_KMS else key_id.removeprefix(_KMS_LABEL)
        if name not in self._kms_keys:
            raise KMSKeyNotFound(
                f"The KMS key {name!r} that encrypted the object is not in the server's key ring.",
            )
        return self._kms_keys[name]


def refuse_customer_key(customer_key: CustomerKey | None) -> None:
    """An SSE-C key given for an object that is not SSE-C encrypted (or not encrypted) is an error."""
    if customer_key is not None:
        raise EncryptionParametersInvalid("The encryption parameters are not applicable to this object.")
