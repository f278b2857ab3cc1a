"""The paths of the object commands, as mc writes them: ``ALIAS/BUCKET/KEY`` in the CLI, and in a
notebook with a default service ``BUCKET/KEY``. Where a command takes local paths too (``cp``), the
CLI decides as mc does (the first segment names a known alias: remote, else local); a notebook takes
paths that start with ``/``, ``.`` or ``~``, or whose first segment exists here, as local."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .. import aliases
from ..client import ServiceConfig
from ..objects import ObjectClient, object_client
from .actions import Context, UsageError


@dataclass(frozen=True)
class Remote:
    """A bucket or object (or a prefix) of a service; ``bucket`` "" is the service itself."""

    service: ServiceConfig
    alias: str  # "" when the path was written without one
    bucket: str
    key: str

    @property
    def store(self) -> ObjectClient:
        return object_client(self.service)

    def url(self, key: str | None = None) -> str:
        """How the path is shown: ``alias/bucket/key``, as it was written (``key``: another key)."""
        key = self.key if key is None else key
        parts = [part for part in (self.alias, self.bucket) if part]
        return "/".join(parts + ([key] if key and self.bucket else []))

    def need_bucket(self) -> Remote:
        if not self.bucket:
            raise UsageError(f"'{self.url() or '/'}' names no bucket: expected {_form_hint(self)}BUCKET")
        return self

    def need_key(self) -> Remote:
        if not self.need_bucket().key:
            raise UsageError(f"'{self.url()}' names no object: expected {_form_hint(self)}BUCKET/KEY")
        return self

    @property
    def directory(self) -> str:
        """The key's "directory": up to its last ``/`` (listings show keys relative to it, as mc does)."""
        return self.key[: self.key.rfind("/") + 1]


@dataclass(frozen=True)
class Local:
    path: str


def _form_hint(path: Remote) -> str:
    return "ALIAS/" if path.alias else ""


def _split(rest: str) -> tuple[str, str]:
    bucket, _, key = rest.lstrip("/").partition("/")
    return bucket, key


def remote(ctx: Context, text: str) -> Remote:
    """A path that must name the service's side."""
    if ctx.with_alias:
        alias, _, rest = text.partition("/")
        if not alias:
            raise UsageError(f"'{text}' names no service: expected ALIAS/BUCKET[/KEY]")
        return Remote(aliases.resolve(alias), alias, *_split(rest))
    if ctx.service is None:
        raise UsageError("no default AIStor service: set AISTOR_ENDPOINT or name a service by alias")
    return Remote(ctx.service, "", *_split(text))


def _looks_local(ctx: Context, text: str) -> bool:
    first = text.split("/", 1)[0]
    if ctx.with_alias:
        return first not in aliases.list_aliases()
    return text.startswith(("/", ".", "~")) or (bool(first) and os.path.lexists(first))


def any_path(ctx: Context, text: str) -> Remote | Local:
    """A path of ``cp``: local or on a service (see the module)."""
    if _looks_local(ctx, text):
        return Local(str(Path(text).expanduser()) + ("/" if text.endswith("/") and text != "/" else ""))
    return remote(ctx, text)
