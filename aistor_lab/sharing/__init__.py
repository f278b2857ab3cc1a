"""AIStor Table Sharing: a read-only Delta Sharing server for Delta tables in buckets and Iceberg
tables of the catalog ("uniform"), with shares, tokens, OAuth clients and an audit log.

``SharingService`` holds the state and the operations; ``handlers.routes`` serves the protocol at
``/delta-sharing``; ``aistor_lab.admin.sharing_handlers`` serves the admin API.
"""

from .service import SharingService

__all__ = ["SharingService"]
