"""A small in-memory cache whose entries expire, so processes sharing one store converge."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class TTLCache(Generic[V]):
    """Values (None included, to remember misses) kept for ``ttl`` seconds.

    Past ``max_entries`` the cache starts over rather than tracking recency: it only bounds the
    memory a flood of unknown access keys could take.
    """

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic, max_entries: int = 10_000):
        self._ttl = ttl
        self._clock = clock
        self._max_entries = max_entries
        self._entries: dict[Hashable, tuple[float, V | None]] = {}
        self._lock = threading.Lock()

    def get_or_load(self, key: Hashable, load: Callable[[], V | None]) -> V | None:
        now = self._clock()
        entry = self._entries.get(key)
        if entry is not None and entry[0] > now:
            return entry[1]
        # Loaded outside the lock: two threads may load the same key at once, which is harmless,
        # and a load racing a local write may keep the older value for one TTL at most.
        value = load()
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: V | None) -> None:
        with self._lock:
            if len(self._entries) >= self._max_entries:
                self._entries.clear()
            self._entries[key] = (self._clock() + self._ttl, value)
