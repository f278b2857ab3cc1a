"""What the runner keeps per bucket, in the store's system bucket: where the walk stopped (so that a
restart continues it instead of starting over), the last run's report, and a lease
(store/leased_documents.py: several servers in front of one store never run the same bucket at once).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..store import ObjectStore
from ..store.leased_documents import LeasedDocuments

# Longer than any run should take; a server that died mid-run holds its buckets this long.
LEASE_SECONDS = 600
_BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def bucket_states(store: ObjectStore, clock: Callable[[], float]) -> LeasedDocuments:
    return LeasedDocuments(store, "lifecycle/", _BUCKET_NAME, clock=clock, lease_seconds=LEASE_SECONDS)
