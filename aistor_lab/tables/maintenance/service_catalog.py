"""The service's own tables as PyIceberg tables: maintenance uses PyIceberg's readers, writers and
snapshot producers (with their commit retries and conflict checks) on a warehouse, in process.

``ServiceCatalog`` is a PyIceberg catalog of one warehouse whose loads and commits are the catalog's
own ``Tables.load`` and ``Tables.commit`` (the same checks and the same conditional pointer swap as a
client's REST commit), and whose FileIO reads and writes the store directly (store_filesystem.py).
Only what maintenance needs is implemented.
"""

from __future__ import annotations

import json
from functools import lru_cache

from pyarrow import fs
from pyiceberg import exceptions as pyiceberg_errors
from pyiceberg.catalog import Catalog as PyIcebergCatalog
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.table import CommitTableRequest, CommitTableResponse, Table
from pyiceberg.table.metadata import TableMetadataUtil
from pyiceberg.table.update import TableRequirement, TableUpdate
from pyiceberg.typedef import Identifier

from ...store import ObjectStore
from ..errors import CommitFailedException, NoSuchTableException
from ..tables import Tables
from .store_filesystem import StoreFileSystem

_STORE_SCHEMES = ("s3", "s3a", "s3n")


class StoreFileIO(PyArrowFileIO):
    """PyArrowFileIO whose ``s3://`` locations are the store's objects."""

    def __init__(self, store: ObjectStore):
        self._filesystem = fs.PyFileSystem(StoreFileSystem(store))
        super().__init__()
        self.fs_by_scheme = lru_cache(self._store_filesystem)

    def _store_filesystem(self, scheme: str, netloc: str | None = None) -> fs.FileSystem:
        if scheme not in _STORE_SCHEMES:
            raise ValueError(f"Table files must be s3:// objects of the store, not {scheme}://")
        return self._filesystem


class ServiceCatalog(PyIcebergCatalog):
    def __init__(self, tables: Tables, store: ObjectStore, warehouse: str):
        super().__init__(warehouse)
        self._tables = tables
        self.warehouse = warehouse
        self.io = StoreFileIO(store)

    def load_table(self, identifier: str | Identifier) -> Table:
        namespace, name = _split(identifier)
        try:
            result = self._tables.load(self.warehouse, namespace, name)
        except NoSuchTableException as exc:
            raise pyiceberg_errors.NoSuchTableError(str(exc)) from exc
        return self._table(namespace, name, result.body)

    def _table(self, namespace: list[str], name: str, body: dict) -> Table:
        metadata = TableMetadataUtil.parse_obj(body["metadata"])
        return Table((*namespace, name), metadata, body["metadata-location"], self.io, self)

    def commit_table(
        self, table: Table, requirements: tuple[TableRequirement, ...], updates: tuple[TableUpdate, ...]
    ) -> CommitTableResponse:
        namespace, name = _split(table.name())
        request = CommitTableRequest(
            identifier={"namespace": namespace, "name": name}, requirements=requirements, updates=updates
        )
        body = json.loads(request.model_dump_json())
        try:
            result = self._tables.commit(self.warehouse, namespace, name, body)
        except CommitFailedException as exc:
            raise pyiceberg_errors.CommitFailedException(str(exc)) from exc
        except NoSuchTableException as exc:
            raise pyiceberg_errors.NoSuchTableError(str(exc)) from exc
        return CommitTableResponse(
            metadata=TableMetadataUtil.parse_obj(result.body["metadata"]),
            metadata_location=result.body["metadata-location"],
        )

    def supports_server_side_planning(self) -> bool:
        return False

    # What maintenance never does through this catalog.
    def _unsupported(self, *args, **kwargs):
        raise NotImplementedError("the service's own catalog only loads and commits tables")

    create_table = create_table_transaction = register_table = drop_table = purge_table = _unsupported
    rename_table = create_namespace = drop_namespace = list_tables = list_namespaces = _unsupported
    load_namespace_properties = update_namespace_properties = list_views = drop_view = _unsupported
    view_exists = namespace_exists = table_exists = load_view = register_view = create_view = _unsupported


def _split(identifier: str | Identifier) -> tuple[list[str], str]:
    parts = tuple(identifier.split(".")) if isinstance(identifier, str) else tuple(identifier)
    return list(parts[:-1]), parts[-1]
