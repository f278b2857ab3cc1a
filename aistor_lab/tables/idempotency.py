"""Idempotency-Key support: a mutating request that carries a key runs at most once within the
key's lifetime; a replay (or a concurrent duplicate) gets the first run's response.

Records are small documents in the system bucket (``iceberg/idempotency/<key>.json``), not an
in-process cache, so a retry that reaches another server process sharing the store is replayed
too. A request claims its key with a create-if-absent ``pending`` record; duplicates wait for
the record to be finalized. Successes and 4xx errors are finalized and replayed; 5xx errors and
crashes are not (the claim is removed, or expires), so the client may retry. Records are not
pruned: an expired record is simply overwritten when its key is used again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from . import errors, layout
from .errors import (
    BadRequestException,
    IcebergError,
    ServiceUnavailableException,
    UnprocessableEntityException,
)
from .json_files import Documents
from .table_result import TableResult

_KEY_RE = re.compile(r"^[A-Za-z0-9._~-]{1,128}$")
_ERROR_TYPES = {
    cls.type: cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, IcebergError)
}


def _encode(result: Any) -> dict:
    if isinstance(result, TableResult):
        return {"table-result": result.to_json()}
    return {"value": result}


def _decode(stored: dict) -> Any:
    if "table-result" in stored:
        return TableResult.from_json(stored["table-result"])
    return stored["value"]


class Idempotency:
    def __init__(
        self,
        docs: Documents,
        *,
        lifetime_s: float = 30 * 60,
        wait_s: float = 30.0,
        now: Callable[[], float] = time.time,
    ):
        self.docs = docs
        self.lifetime_s = lifetime_s
        self._wait_s = wait_s
        self._now = now

    @property
    def lifetime_iso(self) -> str:
        """The lifetime as the ISO-8601 duration the /v1/config response advertises."""
        return f"PT{int(self.lifetime_s)}S"

    def run(self, key: str | None, operation: str, action: Callable[[], Any]) -> Any:
        """Run ``action`` once per ``key``; ``operation`` names what the key was first used for."""
        if key is None:
            return action()
        if not _KEY_RE.match(key):
            raise BadRequestException("Invalid Idempotency-Key")
        record_key = layout.idempotency_key(key)
        claim = {"state": "pending", "operation": operation, "since": self._now()}
        deadline = time.monotonic() + self._wait_s
        while True:
            etag = self.docs.create(record_key, claim)
            if etag is not None:
                break
            doc = self.docs.get(record_key)
            if doc is None:
                continue
            if self._now() - doc.body.get("since", 0) > self.lifetime_s:
                etag = self.docs.replace(record_key, claim, doc.etag)
                if etag is not None:
                    break
                continue
            if doc.body.get("operation") != operation:
                raise UnprocessableEntityException(
                    "Idempotency-Key was already used for a different operation"
                )
            if doc.body["state"] == "done":
                return self._replay(doc.body)
            if time.monotonic() > deadline:
                raise ServiceUnavailableException("A request with this Idempotency-Key is still in progress")
            time.sleep(0.05)
        return self._execute(record_key, etag, claim, action)

    def _execute(self, record_key: str, etag: str, claim: dict, action: Callable[[], Any]) -> Any:
        try:
            result = action()
        except IcebergError as exc:
            if exc.code >= 500:
                self.docs.delete(record_key, etag)
                raise
            error = {"type": exc.type, "message": exc.message}
            self.docs.replace(record_key, {**claim, "state": "done", "error": error}, etag)
            raise
        except BaseException:
            self.docs.delete(record_key, etag)
            raise
        self.docs.replace(record_key, {**claim, "state": "done", "result": _encode(result)}, etag)
        return result

    @staticmethod
    def _replay(record: dict) -> Any:
        if "error" in record:
            cls = _ERROR_TYPES.get(record["error"]["type"], BadRequestException)
            raise cls(record["error"]["message"])
        return _decode(record["result"])
