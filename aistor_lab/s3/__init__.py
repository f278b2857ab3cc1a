"""The S3 REST API (path-style) over the store: routing, operations, XML, errors."""

from .handler import S3Handler

__all__ = ["S3Handler"]
