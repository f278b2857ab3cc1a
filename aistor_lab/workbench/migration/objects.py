"""Copying one file of a table from the source's storage to the target's, keyed by the target path: a
file already there with the expected size is complete (objects appear whole on S3), so a re-run after a
crash copies only what is missing."""

from __future__ import annotations

import shutil
from typing import Any

CHUNK = 8 * 1024 * 1024  # bounded memory: files stream through in chunks this size


def stored_size(io: Any, path: str) -> int | None:
    """The size of the file at ``path`` (None: there is none)."""
    try:
        return len(io.new_input(path))
    except FileNotFoundError:
        return None


def copy_file(source_io: Any, source: str, target_io: Any, target: str, size: int | None = None) -> bool:
    """Copy ``source`` to ``target`` unless a complete copy is there already (``size``: the source's,
    when the manifest says it). True when bytes were copied."""
    present = stored_size(target_io, target)
    if present is not None and present == (size if size is not None else len(source_io.new_input(source))):
        return False
    with source_io.new_input(source).open() as reader, target_io.new_output(target).create(overwrite=True) as writer:
        shutil.copyfileobj(reader, writer, CHUNK)
    return True


def read_bytes(io: Any, path: str) -> bytes:
    with io.new_input(path).open() as reader:
        return reader.read()


def write_bytes(io: Any, path: str, data: bytes) -> bool:
    """Write ``data`` at ``path`` unless the same bytes are there. True when written."""
    if stored_size(io, path) == len(data) and read_bytes(io, path) == data:
        return False
    with io.new_output(path).create(overwrite=True) as writer:
        writer.write(data)
    return True
