"""The master key that seals the secrets the service must keep (SigV4 secret keys, the token key).

The master key is never stored: it is ``AISTOR_KMS_SECRET_KEY`` when set (MinIO's single-key KMS,
``NAME:BASE64``), else derived with HKDF-SHA256 from the root user and password, which every server
in front of one store shares (as MinIO derives the key of its IAM data from its root credentials).
Whoever reads the whole store, but not the server's environment, gets only sealed values.

A sealed value is ``{"key": <label>, "ciphertext": <base64 of nonce + AES-256-GCM output>}``. The
label says which key sealed it (``root-credentials`` or ``kms:NAME``), so that a value that does not
open can tell the operator what to set. The caller's ``context`` (the document and field it belongs
to) is the associated data: a sealed value copied into another document does not open there.
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ROOT_LABEL = "root-credentials"
_KMS_PREFIX = "kms:"
_NONCE_BYTES = 12
_HKDF_SALT = b"aistor-lab/master-key/v1"
_HKDF_INFO = b"seal secrets at rest"


class CannotOpen(Exception):
    """A sealed value this server cannot open; the message says what to set (never a secret)."""


def derive_root_key(root_user: str, root_password: str) -> bytes:
    # NUL separates the two, so ("ab", "c") and ("a", "bc") give different keys.
    material = root_user.encode() + b"\0" + root_password.encode()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=_HKDF_INFO).derive(material)


class Keyring:
    """Seals under the KMS key when there is one, else under the root-derived key; opens what either
    sealed, so turning a KMS key on needs no other step (``open`` reports such values as stale, for
    their owner to seal again under the KMS key)."""

    def __init__(self, root_user: str, root_password: str, kms_key: tuple[str, bytes] | None = None):
        self._keys = {ROOT_LABEL: AESGCM(derive_root_key(root_user, root_password))}
        self._label = ROOT_LABEL
        if kms_key is not None:
            self._label = _KMS_PREFIX + kms_key[0]
            self._keys[self._label] = AESGCM(kms_key[1])

    def seal(self, plaintext: bytes, context: str) -> dict:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._keys[self._label].encrypt(nonce, plaintext, context.encode())
        return {"key": self._label, "ciphertext": base64.b64encode(nonce + sealed).decode()}

    def open(self, sealed: object, context: str) -> tuple[bytes, bool]:
        """The plaintext, and whether it should be sealed again (it was sealed under another key than
        the one ``seal`` uses now); CannotOpen when it is not ours to open."""
        if not isinstance(sealed, dict) or not isinstance(sealed.get("key"), str):
            raise CannotOpen("it is not a sealed value")
        label = sealed["key"]
        cipher = self._keys.get(label)
        if cipher is None:
            raise CannotOpen(_what_to_set(label, self._label))
        try:
            raw = base64.b64decode(sealed.get("ciphertext", ""), validate=True)
            plaintext = cipher.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], context.encode())
        except (TypeError, ValueError, binascii.Error, InvalidTag):
            raise CannotOpen(_what_to_set(label, self._label)) from None
        return plaintext, label != self._label


def _what_to_set(label: str, current: str) -> str:
    if label == ROOT_LABEL:
        return ("it was sealed under a key derived from other root credentials: start the server with "
                "the AISTOR_ROOT_USER and AISTOR_ROOT_PASSWORD it was written with")
    if not label.startswith(_KMS_PREFIX):
        return f"it was sealed under an unknown key {label!r}"
    name = label.removeprefix(_KMS_PREFIX)
    other = "another key" if label == current else "the KMS key"
    return (f"it was sealed under {other} named {name!r}: "
            f"set AISTOR_KMS_SECRET_KEY to {name}:<that key, base64>")
