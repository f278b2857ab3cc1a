"""Whether a share's token still works, as the panel and ``share token list`` show it: ``valid``,
``expiring`` (within three days: time to hand the recipient a new one) or ``expired``."""

from __future__ import annotations

import time
from datetime import datetime

EXPIRING_WITHIN = 3 * 24 * 3600


def token_state(expiration_time: str | None, now: float | None = None) -> str:
    """The state of a token whose ``expirationTime`` (ISO 8601, None: never) is given."""
    if not expiration_time:
        return "valid"
    left = datetime.fromisoformat(expiration_time).timestamp() - (now or time.time())
    if left <= 0:
        return "expired"
    return "expiring" if left <= EXPIRING_WITHIN else "valid"


def with_states(tokens: list[dict]) -> list[dict]:
    now = time.time()
    return [{**token, "state": token_state(token.get("expirationTime"), now)} for token in tokens]
