"""A writable file over a Staging, for writers that want a file object (pyarrow's ParquetWriter,
``pyarrow.PythonFile``): the bytes are staged as they are written; making them an object is the
caller's step (``put_object``), with whatever condition it needs."""

from __future__ import annotations

import io

from .base import Staging


class StagingFile(io.RawIOBase):
    def __init__(self, staging: Staging):
        self.staging = staging
        self._written = 0

    def writable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._written

    def write(self, data) -> int:
        size = memoryview(data).nbytes
        self.staging.write(data)
        self._written += size
        return size
