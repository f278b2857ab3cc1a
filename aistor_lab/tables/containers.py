"""Warehouses and namespaces are containers: creating something inside one races with dropping it.
With only conditional puts (several server processes may share the store) the catalog settles
that race with a marker:

* drop: mark the container document ``dropping`` (conditional on its ETag), then check that it
  is empty, then delete it (conditional on the marked ETag); if it is not empty, unmark it.
* create inside: check the container is live, write the child (create-if-absent), then check
  the container again; if it is gone or being dropped, delete the child and fail.

Whatever the interleaving, either the drop sees the child (and refuses) or the creator sees the
marker (and backs out): a child never outlives its container. A marker older than
``stale_after_s`` (its dropper crashed) no longer counts.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import CommitFailedException, IcebergError
from .json_files import Doc, Documents

DROPPING = "dropping-ms"
# A warehouse under a force delete (warehouses.py): never stale, nothing may be created inside again.
DELETING = "deleting-ms"
_DROP_ATTEMPTS = 5


class Containers:
    def __init__(self, docs: Documents, now_ms: Callable[[], int], stale_after_s: float = 60.0):
        self.docs = docs
        self._now_ms = now_ms
        self._stale_after_ms = stale_after_s * 1000

    def is_live(self, doc: Doc | None) -> bool:
        if doc is None or DELETING in doc.body:
            return False
        marked = doc.body.get(DROPPING)
        return marked is None or self._now_ms() - marked > self._stale_after_ms

    def get_live(self, key: str, missing: Callable[[], IcebergError]) -> Doc:
        doc = self.docs.get(key)
        if not self.is_live(doc):
            raise missing()
        return doc  # type: ignore[return-value]

    def create_inside(
        self,
        container_key: str,
        missing: Callable[[], IcebergError],
        put_child: Callable[[], str | None],
        exists: Callable[[], IcebergError],
        undo_child: Callable[[str], object],
    ) -> str:
        """Write a child of a live container; the child's ETag."""
        self.get_live(container_key, missing)
        etag = put_child()
        if etag is None:
            raise exists()
        if not self.is_live(self.docs.get(container_key)):
            undo_child(etag)
            raise missing()
        return etag

    def drop(
        self,
        key: str,
        missing: Callable[[], IcebergError],
        is_empty: Callable[[], bool],
        not_empty: Callable[[], IcebergError],
    ) -> None:
        for _ in range(_DROP_ATTEMPTS):
            doc = self.docs.get(key)
            if doc is None or DELETING in doc.body:
                raise missing()
            body = {k: v for k, v in doc.body.items() if k != DROPPING}
            marked = self.docs.replace(key, {**body, DROPPING: self._now_ms()}, doc.etag)
            if marked is None:
                continue  # changed under us: read again
            if not is_empty():
                self.docs.replace(key, body, marked)
                raise not_empty()
            if self.docs.delete(key, marked):
                return
        raise CommitFailedException("The container changed concurrently while being dropped; retry")
