"""Multi-table commits, all or nothing, with a two-phase protocol on the pointers.

1. Plan every table (requirements checked, updates applied, new metadata files written).
2. Prepare: in key order, swap each pointer (on its ETag) to itself plus a ``pending`` section
   naming this transaction and the new pointer. A lost race undoes the prepared ones and retries.
3. Decide: create ``iceberg/transactions/<id>.json`` as ``committed`` (create-if-absent). This is
   the commit point: before it every reader sees all old tables, after it all new ones (readers
   resolve pending pointers through the decision, see pointers.py).
4. Finalize: rewrite each pointer to its new state, then delete the decision document.

A crash after 3 leaves pending pointers that readers already see as committed and writers roll
forward; a crash before 3 leaves pending pointers that a writer aborts after a timeout (by
creating the decision as ``aborted``, which the coordinator's create then loses). No reader or
writer ever sees some tables of a transaction changed and others not.
"""

from __future__ import annotations

import uuid as uuidlib

from ..store import StoreError
from . import layout
from .commits import MAX_ATTEMPTS, Planned, backoff
from .context import CatalogContext
from .entries import TABLE, missing_entry
from .errors import (
    BadRequestException,
    CommitFailedException,
    CommitStateUnknownException,
    ServiceFailureException,
)
from .names import parse_identifier
from .pointers import COMMITTED, Pointer
from .requirements import check_table_requirement_types, is_create
from .table_updates import check_update_actions
from .tables import Tables


class Transactions:
    def __init__(self, ctx: CatalogContext, tables: Tables):
        self.ctx = ctx
        self.tables = tables

    def commit(self, warehouse: str, request: dict, *, idempotency_key: str | None = None) -> None:
        """CommitTransactionRequest: ``table-changes``, each with an identifier; all or nothing."""
        changes = self._parse(warehouse, request)
        self.ctx.idempotency.run(
            idempotency_key,
            f"commit-transaction {warehouse} {sorted(changes)}",
            lambda: self._commit(warehouse, changes),
        )

    def _parse(self, warehouse: str, request: dict) -> dict[str, tuple[list[str], str, dict]]:
        if not isinstance(request, dict) or not isinstance(request.get("table-changes"), list):
            raise BadRequestException("Invalid transaction: table-changes must be a list")
        changes: dict[str, tuple[list[str], str, dict]] = {}
        for change in request["table-changes"]:
            if not isinstance(change, dict) or "identifier" not in change:
                raise BadRequestException("Invalid transaction: every table change needs an identifier")
            namespace, table = parse_identifier(change["identifier"])
            key = layout.entry_key(warehouse, namespace, table, TABLE)
            if key in changes:
                raise BadRequestException(
                    f"Invalid transaction: {'.'.join([*namespace, table])} appears twice"
                )
            check_table_requirement_types(change.get("requirements") or [])
            check_update_actions(change.get("updates") or [])
            if is_create(change.get("requirements") or []):
                raise BadRequestException("Creating tables inside a multi-table transaction is not supported")
            changes[key] = (namespace, table, change)
        if not changes:
            raise BadRequestException("Invalid transaction: no table changes")
        return changes

    def _commit(self, warehouse: str, changes: dict[str, tuple[list[str], str, dict]]) -> None:
        self.ctx.warehouse(warehouse)
        for attempt in range(MAX_ATTEMPTS):
            plans = self._plan_all(warehouse, changes)
            if not plans:
                return
            if self._try_commit(plans):
                return
            self._discard(plans)
            backoff(attempt)
        raise CommitFailedException(
            "Transaction lost the race against concurrent commits too many times; retry"
        )

    def _plan_all(self, warehouse: str, changes: dict) -> list[tuple[Pointer, Planned]]:
        plans: list[tuple[Pointer, Planned]] = []
        try:
            for key in sorted(changes):
                namespace, table, change = changes[key]
                pointer = self.ctx.pointers.settled(key)
                if pointer is None:
                    raise missing_entry(TABLE, namespace, table)
                planned = self.tables.plan(
                    warehouse, pointer, change.get("requirements") or [], change.get("updates") or []
                )
                if planned.pointer_body is not None:
                    plans.append((pointer, planned))
        except BaseException:
            self._discard(plans)
            raise
        return plans

    def _discard(self, plans: list[tuple[Pointer, Planned]]) -> None:
        for _, planned in plans:
            self.ctx.files.delete(planned.metadata_location)

    def _try_commit(self, plans: list[tuple[Pointer, Planned]]) -> bool:
        """True once committed; False when a pointer changed before the decision (retry)."""
        txn_id = str(uuidlib.uuid4())
        prepared: list[tuple[Pointer, Planned, str]] = []
        try:
            for pointer, planned in plans:
                etag = self.ctx.pointers.prepare(pointer, planned.pointer_body, txn_id)  # type: ignore[arg-type]
                if etag is None:
                    self._undo(prepared)
                    return False
                prepared.append((pointer, planned, etag))
        except (StoreError, OSError) as exc:
            self._undo(prepared)
            self._discard(plans)
            raise ServiceFailureException(f"Transaction not committed, the store failed: {exc}") from exc
        decision = {
            "state": COMMITTED,
            "tables": [p.key for p, _, _ in prepared],
            "since-ms": self.ctx.now_ms(),
        }
        try:
            decided = self.ctx.docs.create(layout.transaction_key(txn_id), decision)
        except (StoreError, OSError) as exc:
            raise CommitStateUnknownException(f"Transaction outcome unknown: {exc}") from exc
        if decided is None:  # a writer found us stale and aborted the transaction
            self._undo(prepared)
            self._discard(plans)
            raise CommitFailedException("Transaction was aborted while committing (too slow); retry")
        finalized = [
            self._finalize(pointer.key, planned.pointer_body, etag) for pointer, planned, etag in prepared
        ]
        if all(finalized):  # no pointer names the decision any more
            self.ctx.docs.delete(layout.transaction_key(txn_id), decided)
        return True

    def _finalize(self, key: str, body: dict | None, etag: str) -> bool:
        """Drop the pending section after the commit point; failing is harmless (readers resolve
        pending pointers through the decision), it only keeps the decision document alive."""
        try:
            return self.ctx.docs.replace(key, body, etag) is not None  # type: ignore[arg-type]
        except (StoreError, OSError):
            return False

    def _undo(self, prepared: list[tuple[Pointer, Planned, str]]) -> None:
        for pointer, _, etag in prepared:
            try:
                self.ctx.docs.replace(pointer.key, pointer.body, etag)
            except (StoreError, OSError):
                pass  # left pending: aborted by the next writer once stale
