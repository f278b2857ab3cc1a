"""Temporary S3 credentials, as STS issues them: an access key, a secret and a session token, valid
until an expiry and only within an inline session policy, on behalf of a parent user.

Stateless: the session token is the sealed session itself (sealing.py), holding the access key, its
secret, the parent, the expiry and the policy. Whoever presents the access key must present its
token too, and the request's signature proves it holds the secret. What a session may do is what
its policy allows *and* what its parent may do at that moment (``IAM.is_allowed``), never more.
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..auth.errors import AuthError
from .errors import MalformedPolicy
from .policy import Policy
from .sealing import TokenSealer

PURPOSE = "session"
# As AWS names its temporary keys; a key is taken as a session's only when its token comes along.
ACCESS_KEY_PREFIX = "ASIA"
_KEY_ALPHABET = string.ascii_uppercase + string.digits


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

    def issue(self, parent: str, policy: Mapping, ttl_seconds: float) -> SessionCredentials:
        """New credentials for ``parent`` limited to ``policy`` (a policy document) for ``ttl_seconds``."""
        compiled = Policy(policy)
        access_key = ACCESS_KEY_PREFIX + "".join(secrets.choice(_KEY_ALPHABET) for _ in range(16))
        secret_key = secrets.token_urlsafe(30)
        expires_at = self._clock() + ttl_seconds
        token = self._sealer.seal(PURPOSE, {"ak": access_key, "sk": secret_key, "p": parent,
                                            "exp": expires_at, "pol": compiled.document})
        return SessionCredentials(access_key, secret_key, token, parent, expires_at, compiled)

    def open(self, token: str) -> SessionCredentials:
        """The session a token stands for; AuthError InvalidToken or ExpiredToken otherwise."""
        claims = self._sealer.unseal(PURPOSE, token)
        try:
            session = SessionCredentials(claims["ak"], claims["sk"], token, claims["p"], float(claims["exp"]),
                                         Policy(claims["pol"]))
        except (TypeError, KeyError, ValueError, MalformedPolicy):
            raise invalid_token() from None
        if self._clock() >= session.expires_at:
            raise AuthError("ExpiredToken", "The provided token has expired.", 400)
        return session


def invalid_token() -> AuthError:
    return AuthError("InvalidToken", "The provided token is malformed or otherwise invalid.", 400)
