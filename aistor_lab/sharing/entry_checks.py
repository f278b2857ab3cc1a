"""What a share entry names, looked up when it is given: a ``delta:`` entry's bucket and its
``_delta_log/``, a ``uniform:`` entry's warehouse, namespace and table.

The protocol lets a share name a table before it exists (``mc table share`` and the seeds do: a
recipient gets an error until it is written), so by default every finding is a warning in the
answer. A client may ask for entries to be refused when they name what does not exist
(``requireExisting``); a Delta path in an existing bucket is still accepted then, with its warning,
as writing a Delta table there later is the usual order of work."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..store import NoSuchBucket
from ..store.base import ObjectStore
from ..tables import Catalog, IcebergError
from .errors import NotFound
from .shares import DELTA, TableSpec

_MISSING = {"NoSuchWarehouseException": "warehouse {warehouse!r} does not exist",
            "NoSuchNamespaceException": "namespace {namespace!r} does not exist in warehouse {warehouse!r}",
            "NoSuchTableException": "Iceberg table {namespace}.{table} does not exist in warehouse {warehouse!r}"}


@dataclass(frozen=True)
class Finding:
    message: str
    later: bool  # may legitimately come into being after the share names it


class EntryChecks:
    def __init__(self, store: ObjectStore, catalog: Catalog):
        self._store = store
        self._catalog = catalog

    def __call__(self, spec: TableSpec) -> Finding | None:
        return self._delta(spec) if spec.kind == DELTA else self._iceberg(spec)

    def _delta(self, spec: TableSpec) -> Finding | None:
        try:
            self._store.get_bucket(spec.bucket)
        except NoSuchBucket:
            return Finding(f"table {spec.name!r}: bucket {spec.bucket!r} does not exist; create it and write the "
                           f"Delta table at {spec.location} first", later=False)
        if self._store.list_objects(spec.bucket, prefix=f"{spec.path}/_delta_log/", max_keys=1).objects:
            return None
        return Finding(f"table {spec.name!r}: {spec.location} holds no Delta table yet (no _delta_log/); "
                       "recipients get an error until one is written there", later=True)

    def _iceberg(self, spec: TableSpec) -> Finding | None:
        try:  # the namespace first: a table's load does not say which of the two is missing
            self._catalog.namespaces.exists(spec.warehouse, list(spec.namespace))
            self._catalog.tables.load(spec.warehouse, list(spec.namespace), spec.table)
        except IcebergError as exc:
            missing = _MISSING.get(exc.type, "{message}")
            text = missing.format(warehouse=spec.warehouse, namespace=".".join(spec.namespace), table=spec.table,
                                  message=exc.message)
            return Finding(f"table {spec.name!r}: {text}", later=False)
        return None


def checked(vet: Callable[[TableSpec], None], checks: EntryChecks, require_existing: bool,
            warnings: list[str]) -> Callable[[TableSpec], None]:
    """``vet`` (the caller's rights), then the entry's lookup: refused when ``require_existing`` and
    what it names cannot come later, else its finding joins ``warnings``."""
    def vet_and_check(spec: TableSpec) -> None:
        vet(spec)
        finding = checks(spec)
        if finding is None:
            return
        if require_existing and not finding.later:
            raise NotFound(finding.message)
        warnings.append(finding.message)

    return vet_and_check
