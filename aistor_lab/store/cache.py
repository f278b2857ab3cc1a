"""The one in-memory cache the services use, over cachetools: least recently used entries go first,
and entries may expire (``ttl``) so that processes sharing one store converge on each other's writes.

cachetools' caches are not thread-safe and the services call them from a thread pool, so every
access takes a lock; loads run outside it, as they read the store and may be slow.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache, TTLCache

V = TypeVar("V")

# The longest a server answers from what it read of state another server in front of the same store
# can change (IAM users and policies, share tokens, bucket configurations, whether a bucket is a
# warehouse): the bound on seeing another server's change. Table metadata is never cached by state,
# only by its immutable location, so commits need no bound.
SHARED_STATE_SECONDS = 2.0


class Cache(Generic[V]):
    """Values by key (None included, to remember misses), at most ``max_entries`` of them, each for
    ``ttl`` seconds on ``clock`` when given, else until evicted (for values that never change under
    their key, such as immutable files named by their location)."""

    def __init__(self, max_entries: int, ttl: float | None = None, clock: Callable[[], float] = time.monotonic):
        self._entries: LRUCache = LRUCache(max_entries) if ttl is None else TTLCache(max_entries, ttl, clock)
        self._lock = threading.Lock()

    def get_or_load(self, key: Hashable, load: Callable[[], V]) -> V:
        with self._lock:
            try:
                return self._entries[key]
            except KeyError:
                pass
        # Two threads may load the same key at once, which is harmless; a load racing a local write
        # may keep the older value for one TTL at most.
        value = load()
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._entries[key] = value

    def discard(self, key: Hashable) -> None:
        """Forget ``key``: the next ``get_or_load`` loads it again."""
        with self._lock:
            self._entries.pop(key, None)
