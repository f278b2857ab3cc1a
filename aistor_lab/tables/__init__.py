"""AIStor Tables: the Iceberg REST catalog core (no HTTP), with its state in the object store.

See catalog.Catalog for the operations, layout for the storage layout, pointers and transactions
for the commit protocol.
"""

from .catalog import ENDPOINTS, Catalog
from .errors import IcebergError
from .table_metadata import normalize as normalize_metadata
from .table_result import TableResult

__all__ = ["ENDPOINTS", "Catalog", "IcebergError", "TableResult", "normalize_metadata"]
