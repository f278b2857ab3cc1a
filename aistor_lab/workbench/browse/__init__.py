"""What the side panel browses beyond the catalog tree: buckets and objects, Delta tables in buckets,
the search over everything, and a shared table as its recipients see it. Plain Python over the
workbench's clients; ``workbench/jupyter`` answers it as JSON."""

from __future__ import annotations

from ..client import ServiceError


class BadRequest(ServiceError):
    """Input the panel should not have sent (a bad key, limit or filter): a 400, nothing changed."""

    def __init__(self, message: str):
        super().__init__(message, 400, "BadRequest")
