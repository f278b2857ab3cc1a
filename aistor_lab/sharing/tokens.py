"""Recipient bearer tokens: created per share, shown once, kept only as their SHA-256.

One document per token, ``sharing/tokens/<sha256 of the secret>.json``, holding the token's id,
its share (name and id), description, creation and expiry times, and its kind: ``bearer`` for
tokens an admin created (they go into ``profile.share`` files), ``oauth`` for the short-lived
access tokens the OAuth token endpoint hands out. A SHA-256 is enough to store: secrets are 256
random bits, so there is nothing to brute-force. Lookups are cached for a couple of seconds;
revoking here updates the cache at once, other processes see it within the TTL.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..store.base import ObjectStore
from ..store.cache import SHARED_STATE_SECONDS, Cache
from ..store.documents import DocumentStore
from .errors import InvalidParameter, NotFound, Unauthenticated
from .shares import Share

BEARER, OAUTH = "bearer", "oauth"
TOKEN_PREFIX = "dapi"  # as AIStor's tokens look: dapi + 64 hex digits
_DURATION = re.compile(r"(\d{1,12})([smhdw]?)")  # more digits are past any expiry
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MAX_EXPIRY_SECONDS = 10 * 365 * 86400
# Bounds the memory a flood of made-up tokens could take (misses are cached too).
CACHED_TOKENS = 10_000


def parse_duration(text: object) -> float:
    """``90d``, ``12h``, ``30m``, ``3600`` (seconds) -> seconds."""
    match = _DURATION.fullmatch(text.strip().lower()) if isinstance(text, str) else None
    if isinstance(text, int) and not isinstance(text, bool):
        seconds = text
    elif match:
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    else:
        raise InvalidParameter(f"bad expiry {text!r}: use a number with s, m, h, d or w (30d, 12h)")
    if not 0 < seconds <= MAX_EXPIRY_SECONDS:
        raise InvalidParameter(f"the expiry must be between 1 second and 10 years, got {text!r}")
    return float(seconds)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def iso_time(epoch: float) -> str:
    """ISO 8601 in UTC with milliseconds, as profile files write ``expirationTime``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + f".{int(epoch % 1 * 1000):03d}Z"


@dataclass(frozen=True)
class Token:
    id: str
    share_id: str
    share: str
    description: str
    created: float
    expires: float | None
    kind: str = BEARER
    client_id: str | None = None

    def info(self) -> dict:
        """What the admin API lists: everything but the secret (which is not kept)."""
        info = {"id": self.id, "share": self.share, "description": self.description,
                "kind": self.kind, "created": iso_time(self.created),
                "expirationTime": None if self.expires is None else iso_time(self.expires)}
        if self.client_id:
            info["clientId"] = self.client_id
        return info


class TokenRegistry:
    def __init__(self, store: ObjectStore, *, clock: Callable[[], float] = time.time, cache_ttl: float = SHARED_STATE_SECONDS):
        self._documents = DocumentStore(store, "sharing/tokens/", re.compile(r"[0-9a-f]{64}"))
        self._clock = clock
        self._cache: Cache[Token | None] = Cache(CACHED_TOKENS, cache_ttl)

    def create(self, share: Share, *, expires_in: float | None, description: str = "",
               kind: str = BEARER, client_id: str | None = None) -> tuple[Token, str]:
        """A new token for ``share``; returns it with its secret, which is never kept."""
        if not isinstance(description, str):
            raise InvalidParameter("the description must be a string")
        now = self._clock()
        token = Token(str(uuid.uuid4()), share.id, share.name, description, now,
                      None if expires_in is None else now + expires_in, kind, client_id)
        secret = TOKEN_PREFIX + secrets.token_hex(32)
        digest = secret_hash(secret)
        self._documents.create(digest, asdict(token))
        self._cache.put(digest, token)
        return token, secret

    def authenticate(self, secret: str) -> Token:
        """The live token with this secret; Unauthenticated when unknown, revoked or expired."""
        digest = secret_hash(secret)
        token = self._cache.get_or_load(digest, lambda: self._load(digest))
        if token is None:
            raise Unauthenticated("the bearer token is not valid")
        if token.expires is not None and token.expires <= self._clock():
            raise Unauthenticated(f"the bearer token expired at {iso_time(token.expires)}")
        return token

    def list(self, share: str | None = None, kind: str | None = None) -> list[Token]:
        tokens = [t for t in map(self._load, self._documents.names()) if t is not None]
        return sorted((t for t in tokens if (share is None or t.share.lower() == share.lower())
                       and (kind is None or t.kind == kind)), key=lambda t: t.created)

    def revoke(self, share: str, token_id: str) -> Token:
        for digest in self._documents.names():
            token = self._load(digest)
            if token is not None and token.id == token_id and token.share.lower() == share.lower():
                self._drop(digest)
                return token
        raise NotFound(f"token {token_id!r} does not exist for share {share!r}")

    def revoke_where(self, keep: Callable[[Token], bool]) -> int:
        """Revoke every token ``keep`` returns False for; returns how many."""
        revoked = 0
        for digest in self._documents.names():
            token = self._load(digest)
            if token is not None and not keep(token):
                self._drop(digest)
                revoked += 1
        return revoked

    def _drop(self, digest: str) -> None:
        self._documents.delete(digest)
        self._cache.put(digest, None)

    def _load(self, digest: str) -> Token | None:
        found = self._documents.read(digest)
        return None if found is None else Token(**found[0])
