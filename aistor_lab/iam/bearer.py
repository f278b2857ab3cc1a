"""OAuth2 bearer tokens for the catalog: a sealed (user, expiry) pair (sealing.py), so any server process
sharing the store accepts what another issued. A token speaks for its user while the user exists and
is enabled, with that user's policies at the time of each request."""

from __future__ import annotations

import time
from collections.abc import Callable

from .sealing import TokenSealer

PURPOSE = "bearer"


class BearerTokens:
    def __init__(self, sealer: TokenSealer, clock: Callable[[], float] = time.time):
        self._sealer = sealer
        self._clock = clock

    def issue(self, user: str, ttl_seconds: int) -> str:
        return self._sealer.seal(PURPOSE, {"sub": user, "exp": self._clock() + ttl_seconds})

    def user_of(self, token: str) -> str | None:
        """The user a live token speaks for; None when the token is unknown, forged or expired."""
        claims = self._sealer.unseal(PURPOSE, token)
        if claims is None or not isinstance(claims.get("sub"), str):
            return None
        expires_at = claims.get("exp")
        if not isinstance(expires_at, int | float) or self._clock() >= expires_at:
            return None
        return claims["sub"]
