"""Small JSON documents kept under one prefix of the object store's system bucket.

Writes use the store's conditional puts, so processes sharing one store never lose an update:
``create`` fails when the document exists, ``replace`` when it changed since it was read.

Secret fields (``sealed``) are kept sealed by a Keyring (keyring.py) and handed to callers open.
A document whose secret is still plain (as the previous release wrote it) or sealed under a previous
key is sealed again when read, by a write conditional on the version read, so servers sharing the
store may do it at once; ``migrate`` does it for every document (at start). A document that does not
open (the root credentials or the KMS key changed) is logged, saying what to set, and is absent.
"""

from __future__ import annotations

import json
import logging
import re

from .base import ObjectStore
from .errors import NoSuchBucket, NoSuchKey, PreconditionFailed
from .keyring import CannotOpen, Keyring
from .types import SYSTEM_BUCKET, WriteCondition

log = logging.getLogger(__name__)

_SUFFIX = ".json"


class SealedDocumentError(Exception):
    """A document whose sealed fields this server cannot open; the message says what to set."""

    def __init__(self, etag: str, message: str):
        super().__init__(message)
        self.etag = etag


class DocumentStore:
    """Documents named by ``name_pattern``: other names (say, an access key from a forged request)
    are never looked up, they simply do not exist."""

    def __init__(self, store: ObjectStore, prefix: str, name_pattern: re.Pattern[str], *,
                 keyring: Keyring | None = None, sealed: tuple[str, ...] = ()):
        if sealed and keyring is None:
            raise ValueError("sealed fields need a keyring")
        self._store = store
        self._prefix = prefix
        self._name_pattern = name_pattern
        self._keyring = keyring
        self._sealed = sealed
        self._reported: set[tuple[str, str]] = set()  # (name, etag) already logged as not opening

    def _key(self, name: str) -> str:
        return f"{self._prefix}{name}{_SUFFIX}"

    def valid_name(self, name: object) -> bool:
        return isinstance(name, str) and self._name_pattern.fullmatch(name) is not None

    def read(self, name: str) -> tuple[dict, str] | None:
        """The document (secrets open) and its ETag, or None when absent, unreadable or not opening
        (the last two logged)."""
        try:
            return self.open(name)
        except SealedDocumentError as exc:
            if (name, exc.etag) not in self._reported:  # once, not on every request naming it
                self._reported.add((name, exc.etag))
                log.error("%s; it is ignored until then", exc)
            return None

    def open(self, name: str) -> tuple[dict, str] | None:
        """As ``read``, but a document that does not open raises SealedDocumentError."""
        if not self.valid_name(name):
            return None
        try:
            info, data = self._store.get_bytes(SYSTEM_BUCKET, self._key(name))
        except (NoSuchKey, NoSuchBucket):
            return None
        try:
            document = json.loads(data)
        except ValueError:
            log.warning("ignoring %s/%s: not valid JSON", SYSTEM_BUCKET, self._key(name))
            return None
        if not self._sealed or not isinstance(document, dict):
            return document, info.etag
        opened, stale = self._open_fields(name, document, info.etag)
        if not stale:
            return opened, info.etag
        try:
            return opened, self._put(name, opened, WriteCondition(if_match=info.etag))
        except (PreconditionFailed, NoSuchKey):  # changed meanwhile: its next read seals it
            return opened, info.etag

    def migrate(self) -> None:
        """Seal every document that is plain or sealed under a previous key."""
        for name in self.names():
            self.read(name)

    def create(self, name: str, document: dict) -> bool:
        """Write a new document; False (and no change) when one exists already."""
        try:
            self._put(name, document, WriteCondition(if_none_match="*"))
        except PreconditionFailed:
            return False
        return True

    def replace(self, name: str, document: dict, etag: str | None = None) -> None:
        """Write unconditionally, or only over the version with ``etag`` (else PreconditionFailed)."""
        self._put(name, document, WriteCondition(if_match=etag) if etag else None)

    def delete(self, name: str) -> bool:
        if not self.valid_name(name):
            return False
        return self._store.delete_object(SYSTEM_BUCKET, self._key(name))

    def names(self) -> list[str]:
        names, marker = [], ""
        while True:
            page = self._store.list_objects(SYSTEM_BUCKET, prefix=self._prefix, start_after=marker)
            names += [o.key[len(self._prefix):].removesuffix(_SUFFIX) for o in page.objects
                      if o.key.endswith(_SUFFIX)]
            if not page.is_truncated or not page.next_marker:
                return names
            marker = page.next_marker

    def _open_fields(self, name: str, document: dict, etag: str) -> tuple[dict, bool]:
        """The document with its sealed fields open, and whether it must be sealed again."""
        opened, stale = dict(document), False
        for field in self._sealed:
            value = document.get(field)
            if value is None:
                continue
            if isinstance(value, str):  # written in plain by the previous release
                stale = True
                continue
            try:
                plaintext, previous_key = self._keyring.open(value, self._context(name, field))
                opened[field] = plaintext.decode()
            except (CannotOpen, UnicodeDecodeError) as exc:
                where = f"{SYSTEM_BUCKET}/{self._key(name)}"
                raise SealedDocumentError(etag, f"cannot open {field} of {where}: {exc}") from None
            stale = stale or previous_key
        return opened, stale

    def _context(self, name: str, field: str) -> str:
        return f"{self._key(name)}#{field}"

    def _put(self, name: str, document: dict, condition: WriteCondition | None) -> str:
        if not self.valid_name(name):
            raise ValueError(f"invalid document name {name!r}")  # callers validate names first
        stored = dict(document)
        for field in self._sealed:
            if isinstance(stored.get(field), str):
                stored[field] = self._keyring.seal(stored[field].encode(), self._context(name, field))
        data = json.dumps(stored, separators=(",", ":")).encode()
        return self._store.put_bytes(SYSTEM_BUCKET, self._key(name), data, content_type="application/json",
                                     condition=condition).etag
