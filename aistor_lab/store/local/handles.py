"""Reading objects of the local store: inline bytes, or an ordered list of data file segments.

A multipart object is the list of its parts' files and a copy shares its source's files, so an
object's content is described by segments ``(data file name, offset, length)`` rather than by one
file. Handles open every file they need up front: an unlinked file stays readable through an
open descriptor, which makes a handle a snapshot that later overwrites and deletes do not touch.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..base import ObjectHandle
from ..errors import StoreError
from ..types import ObjectInfo
from .files import DataFiles, Segment


def slice_segments(segments: list[Segment], start: int, end: int) -> list[Segment]:
    """The segments holding bytes ``[start, end)`` of the content ``segments`` describe."""
    sliced: list[Segment] = []
    position = 0
    for name, offset, length in segments:
        low, high = max(start, position), min(end, position + length)
        if low < high:
            sliced.append((name, offset + low - position, high - low))
        position += length
        if position >= end:
            break
    return sliced


def clamp_range(start: int, end: int | None, size: int) -> tuple[int, int]:
    end = size if end is None else max(0, min(end, size))
    return min(max(0, start), end), end


class InlineHandle(ObjectHandle):
    """An object small enough to live in its index row."""

    segments: list[Segment] | None = None

    def __init__(self, info: ObjectInfo, data: bytes):
        self.info = info
        self._data = data

    def iter_range(
        self, start: int = 0, end: int | None = None, chunk_size: int = 1 << 20
    ) -> Iterator[bytes]:
        start, end = clamp_range(start, end, len(self._data))
        for offset in range(start, end, chunk_size):
            yield self._data[offset : min(offset + chunk_size, end)]

    def close(self) -> None:
        pass


class FileHandle(ObjectHandle):
    """An object whose bytes are segments of data files, all opened when the handle is made.

    Raises FileNotFoundError when a file was removed between reading the index and opening it;
    the caller then reads the index again.
    """

    def __init__(self, info: ObjectInfo, segments: list[Segment], files: DataFiles):
        self.info = info
        self.segments = segments
        self._fds: dict[str, int] = {}
        try:
            for name, _, _ in segments:
                if name not in self._fds:
                    self._fds[name] = files.open(name)
        except BaseException:
            self.close()
            raise

    def iter_range(
        self, start: int = 0, end: int | None = None, chunk_size: int = 1 << 20
    ) -> Iterator[bytes]:
        start, end = clamp_range(start, end, self.info.size)
        for name, offset, length in slice_segments(self.segments, start, end):
            fd = self._fds[name]
            while length:
                data = os.pread(fd, min(chunk_size, length), offset)
                if not data:
                    raise StoreError(f"data file {name} is shorter than the index says")
                yield data
                offset += len(data)
                length -= len(data)

    def close(self) -> None:
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)
