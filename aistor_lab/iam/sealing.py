"""Sealed tokens: small JSON claims encrypted and authenticated with AES-GCM under one server key.

The key is made once and kept in the object store's system bucket (``iam/keys/tokens.json``),
itself sealed under the master key (store/keyring.py), so every server process sharing the store opens
what any of them sealed, nothing is stored per token, and a copy of the store alone opens nothing.
Each kind of token seals with its own ``purpose`` as associated data: a token of one kind never
opens as another (a session token is no bearer token).
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import re
import threading

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..store.base import ObjectStore
from ..store.documents import DocumentStore, SealedDocumentError
from ..store.errors import NoSuchKey, PreconditionFailed
from ..store.keyring import Keyring

log = logging.getLogger(__name__)

KEY_DOCUMENT = "tokens"
KEY_FIELD = "aes256gcm"
_LOAD_ATTEMPTS = 4
_NONCE_BYTES = 12
_PURPOSE_PREFIX = b"aistor-lab/"


class TokenSealer:
    def __init__(self, store: ObjectStore, keyring: Keyring):
        self._keys = DocumentStore(store, "iam/keys/", re.compile(r"[a-z]{1,32}"), keyring=keyring,
                                   sealed=(KEY_FIELD,))
        self._aead: AESGCM | None = None
        self._lock = threading.Lock()

    def seal(self, purpose: str, claims: dict) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._cipher().encrypt(nonce, json.dumps(claims, separators=(",", ":")).encode(),
                                        _PURPOSE_PREFIX + purpose.encode())
        return base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")

    def unseal(self, purpose: str, token: str) -> dict | None:
        """The claims of a token this service sealed for ``purpose``; None for anything else."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            opened = self._cipher().decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:],
                                            _PURPOSE_PREFIX + purpose.encode())
            claims = json.loads(opened)
        except (ValueError, binascii.Error, InvalidTag):
            return None
        return claims if isinstance(claims, dict) else None

    def load_key(self) -> None:
        """Read (or make) the key now rather than at the first token, sealing a plain one."""
        self._cipher()

    def _cipher(self) -> AESGCM:
        if self._aead is None:
            with self._lock:
                if self._aead is None:
                    self._aead = AESGCM(self._load_or_create_key())
        return self._aead

    def _load_or_create_key(self) -> bytes:
        # Two processes may race to create (or replace) the key: the conditional write lets one win,
        # and the other reads the winner's key.
        for _ in range(_LOAD_ATTEMPTS):
            try:
                found = self._keys.open(KEY_DOCUMENT)
            except SealedDocumentError as exc:
                # Sealed under another master key. What it sealed lives an hour or so and is lost
                # anyway; as MinIO's STS tokens die with its root credentials, a new key replaces it.
                log.error("%s; a new token key replaces it: session credentials and bearer tokens "
                          "issued before no longer work", exc)
                try:
                    self._keys.replace(KEY_DOCUMENT, _new_key(), exc.etag)
                except (PreconditionFailed, NoSuchKey):
                    pass
                continue
            if found is not None:
                return base64.b64decode(found[0][KEY_FIELD])
            self._keys.create(KEY_DOCUMENT, _new_key())
        raise RuntimeError("the token key could not be read back from the system bucket")


def _new_key() -> dict:
    return {KEY_FIELD: base64.b64encode(AESGCM.generate_key(bit_length=256)).decode()}
