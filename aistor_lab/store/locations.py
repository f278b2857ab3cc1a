"""File locations (``s3://bucket/key``) and the rule that keeps the files a table names inside the
table's own location.

Table metadata is written by clients, so the paths a Delta log, an Iceberg metadata file, manifest
list, manifest or delete file names are untrusted; yet the services read them with their own rights,
and Delta Sharing presigns them for recipients. Every such path goes through a ``Scope`` first.

A location is inside a scope when it has an S3 scheme (``s3``, ``s3a`` or ``s3n``),
names the scope's bucket, and its key starts with the scope's folder and a ``/`` (so ``s3://b/t`` does
not admit ``s3://b/t2/x``) with something after it. Keys are compared as S3 compares them, literally,
but a key with a ``.`` or ``..`` segment is refused outright: S3 stores ``t/../u/x`` as it is, while
HTTP clients and path libraries resolve it to ``u/x``, so such a key names different objects for
different readers. Percent-decoding is the table format's business and happens before the check
(Delta paths are URIs; Iceberg paths are plain strings).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .base import ObjectStore

_SCHEMES = ("s3", "s3a", "s3n")


class OutsideScope(ValueError):
    """A location that is not inside the scope it must stay in; the message names both."""


def split_location(location: object) -> tuple[str, str]:
    """(bucket, key) of ``s3://bucket/key`` (or s3a://, s3n://); OutsideScope for anything else."""
    if isinstance(location, str):
        scheme, sep, rest = location.partition("://")
        bucket, _, key = rest.partition("/")
        if sep and scheme in _SCHEMES and bucket:
            return bucket, key
    raise OutsideScope(f"{location!r} is not an s3://bucket/key location")


def has_dot_segments(key: str) -> bool:
    padded = f"/{key}/"
    return "/./" in padded or "/../" in padded


@dataclass(frozen=True)
class Scope:
    """A folder of a bucket (the whole bucket when ``folder`` is empty) that locations must stay in."""

    bucket: str
    folder: str  # no slash at either end

    @classmethod
    def of(cls, location: str) -> Scope:
        """The scope of a table location; the location must be a folder, not a bucket's root."""
        bucket, key = split_location(location)
        folder = key.strip("/")
        if not folder or has_dot_segments(folder) or key.lstrip("/") != key:
            raise OutsideScope(f"{location!r} is not a folder of a bucket")
        return cls(bucket, folder)

    @cached_property
    def _prefix(self) -> str:
        return f"{self.root}/"

    @property
    def root(self) -> str:
        return f"s3://{self.bucket}/{self.folder}" if self.folder else f"s3://{self.bucket}"

    def check_key(self, key: str) -> str:
        """The key, if an object of this bucket with that key lies inside the scope."""
        prefix = f"{self.folder}/" if self.folder else ""
        if not key.startswith(prefix) or len(key) == len(prefix):
            raise OutsideScope(f"s3://{self.bucket}/{key} is outside {self.root}/")
        if has_dot_segments(key):
            raise OutsideScope(f"s3://{self.bucket}/{key} has a '.' or '..' segment")
        return key

    def check(self, location: str) -> str:
        """The location as ``s3://bucket/key``, if it lies inside the scope."""
        if location.startswith(self._prefix) and len(location) > len(self._prefix) \
                and not has_dot_segments(location):  # the common case, in one pass: it signs every URL
            return location
        bucket, key = split_location(location)
        if bucket != self.bucket:
            raise OutsideScope(f"{location} is outside {self.root}/")
        return f"s3://{bucket}/{self.check_key(key)}"


def table_scope(store: ObjectStore, location: str) -> Scope:
    """The scope of a table at ``location``, which may never be in the store's system bucket."""
    scope = Scope.of(location)
    if store.is_system_bucket(scope.bucket):
        raise OutsideScope(f"{location} is in a bucket that holds the service's own state")
    return scope
