"""What the runner keeps per bucket, in the store's system bucket: where the walk stopped (so that a
restart continues it instead of starting over), the last run's report, and a lease.

The lease is taken with a conditional write, so that several servers in front of one store never run
the same bucket at once: a server runs a bucket only while the lease it wrote is the one stored.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from ..store import ObjectStore, PreconditionFailed
from ..store.documents import DocumentStore

# Longer than any run should take; a server that died mid-run holds its buckets this long.
LEASE_SECONDS = 600
_BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


class BucketStates:
    def __init__(self, store: ObjectStore, clock: Callable[[], float]):
        self._docs = DocumentStore(store, "lifecycle/", _BUCKET_NAME)
        self._clock = clock
        self.owner = uuid.uuid4().hex  # this process

    def read(self, bucket: str) -> dict | None:
        found = self._docs.read(bucket)
        return None if found is None else found[0]

    def claim(self, bucket: str) -> tuple[dict, str] | None:
        """The bucket's state and its ETag, with our lease on it; None when another server holds it."""
        now = self._clock()
        found = self._docs.read(bucket)
        state, etag = found if found is not None else ({}, None)
        lease = state.get("lease") or {}
        if lease.get("owner") not in (None, self.owner) and lease.get("until", 0) > now:
            return None
        claimed = {**state, "lease": {"owner": self.owner, "until": now + LEASE_SECONDS}}
        try:
            if etag is None:
                if not self._docs.create(bucket, claimed):
                    return None
            else:
                self._docs.replace(bucket, claimed, etag)
        except PreconditionFailed:
            return None  # another server claimed it between our read and our write
        found = self._docs.read(bucket)
        if found is None or (found[0].get("lease") or {}).get("owner") != self.owner:
            return None
        return found

    def release(self, bucket: str, state: dict, etag: str) -> bool:
        """Store ``state`` without a lease, if our lease is still the stored one."""
        try:
            self._docs.replace(bucket, {k: v for k, v in state.items() if k != "lease"}, etag)
        except PreconditionFailed:
            return False
        return True
