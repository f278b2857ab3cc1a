"""The backend in front of an existing S3-compatible endpoint (store.py says how the interface maps
onto S3; wire.py translates headers and errors)."""

from .conditional_writes import ConditionalWritesIgnored
from .store import RemoteS3Store

__all__ = ["ConditionalWritesIgnored", "RemoteS3Store"]
