"""A PyIceberg InputFile over bytes already read from the store, so PyIceberg's Avro readers can
parse manifest lists and manifests without a FileIO of their own."""

from __future__ import annotations

import io

from pyiceberg.io import InputFile


class BytesInputFile(InputFile):
    def __init__(self, location: str, data: bytes):
        super().__init__(location)
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    def exists(self) -> bool:
        return True

    def open(self, seekable: bool = True) -> io.BytesIO:
        return io.BytesIO(self._data)
