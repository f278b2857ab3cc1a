"""The audit log of recipient queries: who read which table of which share, at which version, how
many files they were given, and whether it worked.

One small JSON object per record under ``sharing/audit/<share>/``, named by the inverted time so
that an ordinary (ascending) listing yields the newest records first. Stateless servers sharing a
store therefore share one log, and reading the last N records is one listing page.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable

from ..store.base import ObjectStore
from ..store.errors import NoSuchBucket, NoSuchKey
from ..store.types import SYSTEM_BUCKET

log = logging.getLogger(__name__)

_PREFIX = "sharing/audit/"
_INVERT_MS = 10**14  # past year 5000 in milliseconds: keeps the inverted times positive and 14 digits
MAX_READ = 1000


class AuditLog:
    def __init__(self, store: ObjectStore, *, clock: Callable[[], float] = time.time):
        self._store = store
        self._clock = clock

    def record(self, share: str, entry: dict) -> None:
        """Append one record; a failure to write is logged, never passed to the recipient."""
        now = self._clock()
        record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z",
                  "share": share, **entry}
        key = f"{_PREFIX}{share.lower()}/{_INVERT_MS - int(now * 1000):014d}-{uuid.uuid4().hex}.json"
        try:
            self._store.put_bytes(SYSTEM_BUCKET, key, json.dumps(record, separators=(",", ":")).encode(),
                                  content_type="application/json")
        except Exception:  # the audit trail must not take queries down with it
            log.exception("could not write the audit record %s", key)

    def read(self, share: str, limit: int = 100) -> list[dict]:
        """The newest ``limit`` records of a share, newest first."""
        limit = max(0, min(limit, MAX_READ))
        prefix = f"{_PREFIX}{share.lower()}/"
        page = self._store.list_objects(SYSTEM_BUCKET, prefix=prefix, max_keys=limit) if limit else None
        records = []
        for info in page.objects if page else ():
            try:
                records.append(json.loads(self._store.get_bytes(SYSTEM_BUCKET, info.key)[1]))
            except (NoSuchKey, NoSuchBucket, ValueError):
                continue
        return records
