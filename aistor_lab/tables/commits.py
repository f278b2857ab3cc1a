"""The optimistic commit of one table or view: read the pointer, plan the new metadata (checking
requirements against what is current), write the new metadata file under a fresh name, then swap
the pointer conditionally on the ETag it was read with. A lost race re-reads and re-plans (the
requirements are checked again against the fresh metadata); a failed requirement is final."""

from __future__ import annotations

import logging
import random
import re
import time
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass

from ..store import StoreError
from .context import CatalogContext
from .errors import (
    BadRequestException,
    CommitFailedException,
    CommitStateUnknownException,
    IcebergError,
    ServiceFailureException,
)
from .pointers import Pointer

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 8
_VERSION_RE = re.compile(r"(?:^|/)(\d+)-[^/]*\.metadata\.json$")
_CODECS = {"none": ".metadata.json", "gzip": ".gz.metadata.json"}


@dataclass(frozen=True)
class Planned:
    metadata_location: str
    metadata: dict  # as serialized to the file
    pointer_body: dict | None  # None: nothing changed, ``metadata`` is the current metadata
    metadata_json: str | None = None  # the text of the file written, when one was


def metadata_file_location(
    location: str, properties: dict, previous: str | None, check_location: Callable[[str], str]
) -> str:
    """``<location>/metadata/<NNNNN>-<uuid>[.gz].metadata.json`` with the version after ``previous``
    (0 for the first file), in ``write.metadata.path`` when that property is set."""
    codec = properties.get("write.metadata.compression-codec", "none").lower()
    if codec not in _CODECS:
        raise BadRequestException(f"Invalid write.metadata.compression-codec: {codec!r} (none or gzip)")
    folder = check_location(properties.get("write.metadata.path") or f"{location}/metadata")
    match = _VERSION_RE.search(previous or "")
    version = int(match.group(1)) + 1 if match else (1 if previous else 0)
    return f"{folder}/{version:05d}-{uuidlib.uuid4()}{_CODECS[codec]}"


def write_metadata(ctx: CatalogContext, location: str, metadata: dict) -> str:
    """Write a new metadata file and return its JSON text; a failure here changes nothing, so it is
    not "unknown"."""
    try:
        return ctx.files.write_json(location, metadata)
    except (StoreError, OSError) as exc:
        raise ServiceFailureException(f"Cannot write metadata file {location}: {exc}") from exc


def commit_with_retries(
    ctx: CatalogContext, key: str, missing: Callable[[], IcebergError], plan: Callable[[Pointer], Planned]
) -> Planned:
    with ctx.commit_lock(key):
        for attempt in range(MAX_ATTEMPTS):
            pointer = ctx.pointers.settled(key)
            if pointer is None:
                raise missing()
            planned = plan(pointer)
            if planned.pointer_body is None or swap_pointer(ctx, pointer, planned.pointer_body):
                return planned
            ctx.files.delete(planned.metadata_location)
            backoff(attempt)
    raise CommitFailedException("Commit lost the race against concurrent commits too many times; retry")


def swap_pointer(ctx: CatalogContext, pointer: Pointer, body: dict) -> bool:
    """Swap; True if our body is now current, False if someone else's commit won. When the store
    fails mid-write, read back to learn the outcome; only if that fails too is it unknown."""
    try:
        return ctx.pointers.swap(pointer, body) is not None
    except (StoreError, OSError) as exc:
        log.warning("pointer swap of %s failed, checking the outcome: %s", pointer.key, exc)
        try:
            current = ctx.docs.get(pointer.key)
        except (StoreError, OSError) as again:
            raise CommitStateUnknownException(f"Commit outcome unknown: {exc}") from again
        return current is not None and current.body.get("metadata-location") == body["metadata-location"]


def backoff(attempt: int) -> None:
    time.sleep(random.uniform(0, 0.005 * 2**attempt))
