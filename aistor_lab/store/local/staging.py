"""Staging of the local store: small bodies stay in memory, bigger ones spill to a temp file."""

from __future__ import annotations

import hashlib
from typing import BinaryIO

from ..base import Staging
from .files import DataFiles


class LocalStaging(Staging):
    """Bytes of a future object or part; the MD5 is computed as they arrive.

    Up to ``spill_at`` bytes are kept in memory (the store keeps such objects inline in its index,
    with no file at all); past that, everything goes to a temp file that ``publish`` makes durable.
    """

    def __init__(self, files: DataFiles, spill_at: int):
        self._files = files
        self._spill_at = spill_at
        self._md5 = hashlib.md5()
        self._size = 0
        self._buffer = bytearray()
        self._name: str | None = None
        self._file: BinaryIO | None = None
        self._consumed = False

    def _check_usable(self) -> None:
        if self._consumed:
            raise ValueError("this staging was already consumed")

    def write(self, data: bytes | memoryview) -> None:
        self._check_usable()
        self._md5.update(data)
        self._size += len(data)
        if self._file is None:
            if self._size <= self._spill_at:
                self._buffer += data
                return
            self._spill()
        self._file.write(data)

    def _spill(self) -> None:
        self._name, self._file = self._files.create_temp()
        self._file.write(self._buffer)
        self._buffer = bytearray()

    @property
    def size(self) -> int:
        return self._size

    def md5_hex(self) -> str:
        return self._md5.hexdigest()

    def in_memory(self) -> bytes | None:
        """The whole content when it never spilled to a file."""
        self._check_usable()
        return None if self._file is not None else bytes(self._buffer)

    def publish(self) -> str:
        """Make the content a durable, published data file and return its name (consumes this)."""
        self._check_usable()
        if self._file is None:
            self._spill()
        self._files.publish(self._name, self._file)
        self._file = None
        self._consumed = True
        return self._name

    def discard(self) -> None:
        if self._file is not None:
            self._file.close()
            self._files.discard_temp(self._name)
            self._file = None
        self._buffer = bytearray()
        self._consumed = True
