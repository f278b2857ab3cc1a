"""Sealed tokens: small JSON claims encrypted and authenticated with AES-GCM under one server key.

The key is made once and kept in the object store's system bucket (``iam/keys/tokens.json``), so
every server process sharing the store opens what any of them sealed, and nothing is stored per
token. Each kind of token seals with its own ``purpose`` as associated data: a token of one kind
never opens as another (a session token is no bearer token).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import threading

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..store.base import ObjectStore
from .documents import DocumentStore

KEY_DOCUMENT = "tokens"
_NONCE_BYTES = 12
_PURPOSE_PREFIX = b"aistor-lab/"


class TokenSealer:
    def __init__(self, store: ObjectStore):
        self._keys = DocumentStore(store, "iam/keys/", re.compile(r"[a-z]{1,32}"))
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

    def _cipher(self) -> AESGCM:
        if self._aead is None:
            with self._lock:
                if self._aead is None:
                    self._aead = AESGCM(self._load_or_create_key())
        return self._aead

    def _load_or_create_key(self) -> bytes:
        # Two processes may race to create the key: the conditional create lets one win, and the
        # other reads the winner's key.
        if self._keys.read(KEY_DOCUMENT) is None:
            key = base64.b64encode(AESGCM.generate_key(bit_length=256)).decode()
            self._keys.create(KEY_DOCUMENT, {"aes256gcm": key})
        found = self._keys.read(KEY_DOCUMENT)
        if found is None:
            raise RuntimeError("the token key could not be read back from the system bucket")
        return base64.b64decode(found[0]["aes256gcm"])
