"""Temporary S3 credentials, as STS issues them: an access key, a secret and a session token, valid
until an expiry and only within an inline session policy, on behalf of a parent user.

Stateless: the session token is the sealed session itself (sealing.py), holding the access key, its
secret, the parent, the expiry and the policy. Whoever presents the access key must present its
token too, and the request's signature proves it holds the secret. What a session may do is what
its policy allows *and* what its parent may do at that moment (``IAM.is_allowed``), never more.
"""

from __future__ import annotations

import json
import secrets
import string
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cachetools import LRUCache

from ..auth.errors import AuthError
from .errors import MalformedPolicy
from .policy import Policy
from .sealing import TokenSealer

PURPOSE = "session"
# As AWS names its temporary keys; a key is taken as a session's only when its token comes along.
ACCESS_KEY_PREFIX = "ASIA"
_KEY_ALPHABET = string.ascii_uppercase + string.digits
# Opened tokens by token, issued sessions by (parent, policy, ttl): every S3 request of a vended
# session presents its token, and every loadTable asks for the same table's credentials again.
_OPENED_SESSIONS = 4096
_ISSUED_SESSIONS = 1024


@dataclass(frozen=True)
class SessionCredentials:
    access_key: str
    secret_key: str
    token: str
    parent: str
    expires_at: float  # epoch seconds
    policy: Policy

    def secret_for(self, access_key: str) -> str:
        """The secret to verify the request's signature with: only this session's key goes with its token."""
        if access_key != self.access_key:
            raise invalid_token()
        return self.secret_key


class Sessions:
    def __init__(self, sealer: TokenSealer, clock: Callable[[], float] = time.time):
        self._sealer = sealer
        self._clock = clock
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe
        self._opened: LRUCache = LRUCache(_OPENED_SESSIONS)
        self._issued: LRUCache = LRUCache(_ISSUED_SESSIONS)

    def issue(self, parent: str, policy: Mapping, ttl_seconds: float) -> SessionCredentials:
        """New credentials for ``parent`` limited to ``policy`` (a policy document) for ``ttl_seconds``."""
        compiled = Policy(policy)
        access_key = ACCESS_KEY_PREFIX + "".join(secrets.choice(_KEY_ALPHABET) for _ in range(16))
        secret_key = secrets.token_urlsafe(30)
        expires_at = self._clock() + ttl_seconds
        token = self._sealer.seal(PURPOSE, {"ak": access_key, "sk": secret_key, "p": parent,
                                            "exp": expires_at, "pol": compiled.document})
        return SessionCredentials(access_key, secret_key, token, parent, expires_at, compiled)

    def reusable(self, parent: str, policy: Mapping, ttl_seconds: float) -> SessionCredentials:
        """Credentials for ``parent`` within ``policy``: the ones issued for the same parent, policy and
        lifetime while at least half of that lifetime is left, else new ones. They allow the same
        either way; reusing them spares a seal and a policy compile per ``loadTable``."""
        key = (parent, json.dumps(policy, sort_keys=True), ttl_seconds)
        with self._lock:
            session = self._issued.get(key)
        if session is not None and session.expires_at - self._clock() >= ttl_seconds / 2:
            return session
        session = self.issue(parent, policy, ttl_seconds)
        with self._lock:
            self._issued[key] = session
        return session

    def open(self, token: str) -> SessionCredentials:
        """The session a token stands for; AuthError InvalidToken or ExpiredToken otherwise."""
        with self._lock:
            session = self._opened.get(token)
        if session is None:
            # The token is authenticated (AES-GCM), so the same token always opens to the same session.
            session = self._unseal(token)
            with self._lock:
                self._opened[token] = session
        if self._clock() >= session.expires_at:
            raise AuthError("ExpiredToken", "The provided token has expired.", 400)
        return session

    def _unseal(self, token: str) -> SessionCredentials:
        claims = self._sealer.unseal(PURPOSE, token)
        try:
            return SessionCredentials(claims["ak"], claims["sk"], token, claims["p"], float(claims["exp"]),
                                      Policy(claims["pol"]))
        except (TypeError, KeyError, ValueError, MalformedPolicy):
            raise invalid_token() from None


def invalid_token() -> AuthError:
    return AuthError("InvalidToken", "The provided token is malformed or otherwise invalid.", 400)
