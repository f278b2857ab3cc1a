"""``table migrate``: the Iceberg tables of another catalog (REST, SQL, or a directory of Hadoop tables)
copied into a warehouse of the service and registered there, as Iceberg's ``rewrite_table_path`` and
``register_table`` do together. ``sources`` reads the source, ``manifests`` and ``metadata_file``
rewrite a table's files for its new folder (``paths``), ``objects`` copies them resumably, ``parity``
counts source and target, ``runner`` runs it all per table."""

from .runner import ALREADY, CONFLICT, COPIED, FAILED, IN_PLACE, REFUSED, UPDATED, Migration, TableReport
from .sources import MigrationError, Source, open_source, rest_properties

__all__ = ["ALREADY", "CONFLICT", "COPIED", "FAILED", "IN_PLACE", "REFUSED", "UPDATED", "Migration",
           "MigrationError", "Source", "TableReport", "open_source", "rest_properties"]
