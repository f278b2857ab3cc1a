"""A pyarrow filesystem over the service's own store, so that PyIceberg's readers and writers (Parquet
data files with their deletes applied, Avro manifests and manifest lists) work on a warehouse's
objects in process, without going through the S3 API and its request signing.

Paths are ``bucket/key``, as PyIceberg's PyArrowFileIO makes them from ``s3://bucket/key``.
"""

from __future__ import annotations

import io

import pyarrow as pa
from pyarrow import fs

from ...store import NoSuchBucket, NoSuchKey, ObjectHandle, ObjectStore
from ...store.staging_file import StagingFile


def split_path(path: str) -> tuple[str, str]:
    bucket, _, key = path.lstrip("/").partition("/")
    return bucket, key


class _ObjectReader(io.RawIOBase):
    """Random access to one object version (the handle keeps reading it even if it is replaced)."""

    def __init__(self, handle: ObjectHandle):
        self._handle = handle
        self._size = handle.info.size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def read(self, size: int = -1) -> bytes:
        end = self._size if size is None or size < 0 else min(self._size, self._position + size)
        if end <= self._position:
            return b""
        data = self._handle.read(self._position, end)
        self._position = end
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._handle.close()
        super().close()


class _ObjectWriter(StagingFile):
    """Bytes staged as they are written, made the object's content when the file is closed."""

    def __init__(self, store: ObjectStore, bucket: str, key: str):
        super().__init__(store.stage_for(bucket, key))
        self._store = store
        self._bucket, self._key = bucket, key

    def close(self) -> None:
        if not self.closed:
            try:
                self._store.put_object(self._bucket, self._key, self.staging)
            finally:
                self.staging.discard()
        super().close()


class StoreFileSystem(fs.FileSystemHandler):
    def __init__(self, store: ObjectStore):
        self.store = store

    def get_type_name(self) -> str:
        return "aistor-store"

    def normalize_path(self, path: str) -> str:
        return path

    def __eq__(self, other) -> bool:
        return isinstance(other, StoreFileSystem) and other.store is self.store

    def __ne__(self, other) -> bool:
        return not self == other

    def get_file_info(self, paths: list[str]) -> list[fs.FileInfo]:
        return [self._info(path) for path in paths]

    def _info(self, path: str) -> fs.FileInfo:
        bucket, key = split_path(path)
        try:
            info = self.store.get_object_info(bucket, key)
        except (NoSuchKey, NoSuchBucket):
            return fs.FileInfo(path, fs.FileType.NotFound)
        return fs.FileInfo(path, fs.FileType.File, size=info.size, mtime=info.last_modified)

    def get_file_info_selector(self, selector: fs.FileSelector) -> list[fs.FileInfo]:
        bucket, prefix = split_path(selector.base_dir)
        prefix = prefix.rstrip("/") + "/" if prefix else ""
        return [fs.FileInfo(f"{bucket}/{o.key}", fs.FileType.File, size=o.size, mtime=o.last_modified)
                for o in self.store.iter_objects(bucket, prefix)]

    def open_input_file(self, path: str) -> pa.PythonFile:
        bucket, key = split_path(path)
        try:
            return pa.PythonFile(_ObjectReader(self.store.open_object(bucket, key)), mode="r")
        except (NoSuchKey, NoSuchBucket) as exc:
            raise FileNotFoundError(f"Cannot open {path}: it does not exist") from exc

    open_input_stream = open_input_file

    def open_output_stream(self, path: str, metadata=None) -> pa.PythonFile:
        bucket, key = split_path(path)
        return pa.PythonFile(_ObjectWriter(self.store, bucket, key), mode="w")

    def delete_file(self, path: str) -> None:
        bucket, key = split_path(path)
        self.store.delete_object(bucket, key)

    # Object stores have no directories: these are no-ops, as in pyarrow's S3 filesystem.
    def create_dir(self, path: str, recursive: bool) -> None:
        pass

    def delete_dir(self, path: str) -> None:
        raise NotImplementedError("the service deletes table files one by one")

    def delete_dir_contents(self, path: str, missing_dir_ok: bool = False) -> None:
        raise NotImplementedError("the service deletes table files one by one")

    def delete_root_dir_contents(self) -> None:
        raise NotImplementedError("the service never deletes a whole store")

    def move(self, src: str, dest: str) -> None:
        raise NotImplementedError("table files are never moved")

    def copy_file(self, src: str, dest: str) -> None:
        raise NotImplementedError("table files are never copied")

    def open_append_stream(self, path: str, metadata=None) -> pa.PythonFile:
        raise NotImplementedError("objects cannot be appended to")
