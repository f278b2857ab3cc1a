"""Table and view pointers: the one small document per table/view that names its current metadata
file. Every change of a pointer is a conditional put on its ETag, so the store decides races.

A multi-table transaction (see transactions.py) first *prepares* each pointer: it adds a
``pending`` section (the transaction id and the complete new pointer) under the old ETag, then
decides the transaction by creating its decision document, then rewrites each pointer to the new
state. Until decided, a pending pointer still means its old state; once the decision document
says ``committed`` it means the new one. Readers resolve that without writing; writers first
*settle* a pending pointer (roll it forward or back). A writer that finds a pointer pending for
longer than ``stale_after_s`` aborts the transaction by creating its decision as ``aborted``:
the create-if-absent makes the coordinator's commit and a helper's abort mutually exclusive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from . import layout
from .errors import CommitFailedException
from .json_files import Doc, Documents

COMMITTED = "committed"
ABORTED = "aborted"


@dataclass(frozen=True)
class Pointer:
    key: str
    etag: str
    body: dict  # the effective state: ``pending`` already resolved for readers

    @property
    def metadata_location(self) -> str:
        return self.body["metadata-location"]


class Pointers:
    def __init__(
        self,
        docs: Documents,
        *,
        now: Callable[[], float] = time.time,
        stale_after_s: float = 30.0,
        settle_wait_s: float = 5.0,
    ):
        self.docs = docs
        self._now = now
        self._stale_after_s = stale_after_s
        self._settle_wait_s = settle_wait_s

    def decision(self, txn_id: str) -> str | None:
        doc = self.docs.get(layout.transaction_key(txn_id))
        return doc.body.get("state") if doc else None

    def current(self, key: str) -> Pointer | None:
        """The pointer as of now, for readers; never writes."""
        doc = self.docs.get(key)
        if doc is None:
            return None
        pending = doc.body.get("pending")
        if pending and self.decision(pending["txn"]) == COMMITTED:
            return Pointer(key, doc.etag, pending["pointer"])
        return Pointer(key, doc.etag, {k: v for k, v in doc.body.items() if k != "pending"})

    def settled(self, key: str) -> Pointer | None:
        """The pointer with no pending transaction left on it, for writers: the ETag it returns is
        the one to swap against. Waits briefly for a young pending transaction, then gives up
        with CommitFailedException (the client retries)."""
        deadline = time.monotonic() + self._settle_wait_s
        while True:
            doc = self.docs.get(key)
            if doc is None:
                return None
            if not doc.body.get("pending"):
                return Pointer(key, doc.etag, doc.body)
            if not self._settle(key, doc) and time.monotonic() > deadline:
                raise CommitFailedException(
                    "The table is locked by a multi-table transaction in progress; retry"
                )
            time.sleep(0.02)

    def _settle(self, key: str, doc: Doc) -> bool:
        """Roll a pending pointer forward or back once its transaction is decided; False when the
        transaction is still young and undecided."""
        pending = doc.body["pending"]
        state = self.decision(pending["txn"])
        if state is None:
            if self._now() * 1000 - pending["since-ms"] < self._stale_after_s * 1000:
                return False
            created = self.docs.create(layout.transaction_key(pending["txn"]), {"state": ABORTED})
            state = ABORTED if created else self.decision(pending["txn"])
        settled = (
            pending["pointer"]
            if state == COMMITTED
            else {k: v for k, v in doc.body.items() if k != "pending"}
        )
        self.docs.replace(key, settled, doc.etag)  # losing this race means someone else settled it
        return True

    def create(self, key: str, body: dict) -> str | None:
        return self.docs.create(key, body)

    def swap(self, pointer: Pointer, body: dict) -> str | None:
        """Replace a settled pointer if unchanged; the new ETag, or None when it changed."""
        return self.docs.replace(pointer.key, body, pointer.etag)

    def delete(self, pointer: Pointer) -> bool:
        return self.docs.delete(pointer.key, pointer.etag)

    def prepare(self, pointer: Pointer, body: dict, txn_id: str) -> str | None:
        pending = {"txn": txn_id, "since-ms": int(self._now() * 1000), "pointer": body}
        return self.docs.replace(pointer.key, {**pointer.body, "pending": pending}, pointer.etag)
