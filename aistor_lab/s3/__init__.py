"""The S3 REST API (path and virtual-host style) over the store: routing, operations, XML, errors."""

from .handler import S3Handler

__all__ = ["S3Handler"]
