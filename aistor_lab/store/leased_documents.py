"""Documents of background work (a bucket's lifecycle walk, a table's maintenance), each with a lease,
in the store's system bucket: what a job keeps between runs (where it stopped, its reports), and
who runs it now.

The lease is taken with a conditional write, so that several servers in front of one store never run
the same job at once: a server runs a job only while the lease it wrote is the one stored.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from .base import ObjectStore
from .documents import DocumentStore
from .errors import PreconditionFailed


class LeasedDocuments:
    def __init__(self, store: ObjectStore, prefix: str, name_pattern: re.Pattern[str], *,
                 clock: Callable[[], float], lease_seconds: float):
        self._docs = DocumentStore(store, prefix, name_pattern)
        self._clock = clock
        self._lease_seconds = lease_seconds  # longer than any run: a server that died mid-run holds it this long
        self.owner = uuid.uuid4().hex  # this process

    def read(self, name: str) -> dict | None:
        found = self._docs.read(name)
        return None if found is None else found[0]

    def claim(self, name: str) -> tuple[dict, str] | None:
        """The document and its ETag, with our lease on it; None when another server holds it."""
        now = self._clock()
        found = self._docs.read(name)
        state, etag = found if found is not None else ({}, None)
        lease = state.get("lease") or {}
        if lease.get("owner") not in (None, self.owner) and lease.get("until", 0) > now:
            return None
        claimed = {**state, "lease": {"owner": self.owner, "until": now + self._lease_seconds}}
        try:
            if etag is None:
                if not self._docs.create(name, claimed):
                    return None
            else:
                self._docs.replace(name, claimed, etag)
        except PreconditionFailed:
            return None  # another server claimed it between our read and our write
        found = self._docs.read(name)
        if found is None or (found[0].get("lease") or {}).get("owner") != self.owner:
            return None
        return found

    def release(self, name: str, state: dict, etag: str) -> bool:
        """Store ``state`` without a lease, if our lease is still the stored one."""
        try:
            self._docs.replace(name, {k: v for k, v in state.items() if k != "lease"}, etag)
        except PreconditionFailed:
            return False
        return True
