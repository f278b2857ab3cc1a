"""The data files of the local store: where object bytes live, who owns unfinished ones, and the
startup sweep that removes what a crashed writer left behind.

Layout under the data dir::

    tmp/<name>            bytes being written, not yet published
    objects/<xx>/<name>   published files; the index references them once their write commits
    owners/<token>.lock   one per open LocalStore, flock-ed for as long as it lives

A file name is ``<uuid hex>-<owner token>``. Published files are immutable and never renamed, so an
open descriptor keeps reading the bytes it was opened on even after the file is unlinked.

Several processes may share one data dir. A file that is not (yet) referenced by the index may be
in the middle of someone's write, so the sweep only removes it when its owner is gone: the owner's
lock file is no longer locked. Unlike a pid, such a lock cannot be mistaken for a reused one.
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

TMP_DIR = "tmp"
OBJECTS_DIR = "objects"
OWNERS_DIR = "owners"
LOCK_SUFFIX = ".lock"

# A published file waits for its transaction only briefly (at most the SQLite busy timeout); one
# still unreferenced after this long is garbage whoever made it.
STALE_UNREFERENCED_SECONDS = 3600


# (data file name, offset in it, length): a piece of an object's content.
Segment = tuple[str, int, int]

_datasync = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


def _copy_range(source: int, target: int, offset: int, length: int) -> None:
    """Append ``length`` bytes of ``source`` from ``offset`` to ``target``; in the kernel when the
    platform and the file system can, else through a buffer."""
    in_kernel = hasattr(os, "copy_file_range")
    while length:
        copied = 0
        if in_kernel:
            try:
                copied = os.copy_file_range(source, target, length, offset)
            except OSError as error:
                if error.errno not in (errno.EXDEV, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL):
                    raise
                in_kernel = False
        if not in_kernel:
            copied = os.write(target, os.pread(source, min(length, 1 << 20), offset))
        if not copied:
            raise OSError(f"data file ended {length} bytes early")
        offset += copied
        length -= copied


def _owner_of(name: str) -> str:
    return name.rpartition("-")[2]


def _unlink_quietly(path: str | Path) -> None:
    """Unlink; another sweeper or the last reference's remover may have been faster."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _mtime(entry: os.DirEntry) -> float:
    try:
        return entry.stat().st_mtime
    except FileNotFoundError:
        return float("inf")


class _Owner:
    """This store's token, which other processes see alive while its lock file stays locked."""

    def __init__(self, owners_dir: Path):
        while True:
            self.token = secrets.token_hex(6)
            self.path = owners_dir / f"{self.token}{LOCK_SUFFIX}"
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            # A sweeper may have taken the new, still unlocked file for a dead owner's and unlinked it.
            try:
                if os.stat(self.path).st_ino == os.fstat(self._fd).st_ino:
                    return
            except FileNotFoundError:
                pass
            os.close(self._fd)

    def release(self) -> None:
        if self._fd >= 0:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = -1


def _reap_if_dead(lock_path: Path) -> bool:
    """True when no live store holds this lock file; a dead owner's lock file is removed."""
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        lock_path.unlink(missing_ok=True)
        return True
    finally:
        os.close(fd)


class DataFiles:
    """Creates, publishes, opens and removes the data files under one data dir."""

    def __init__(self, root: Path):
        self._tmp = root / TMP_DIR
        self._objects = root / OBJECTS_DIR
        self._owners = root / OWNERS_DIR
        for directory in (self._tmp, self._objects, self._owners):
            directory.mkdir(parents=True, exist_ok=True)
        self._owner = _Owner(self._owners)

    def _path(self, name: str) -> str:
        return os.path.join(self._objects, name[:2], name)

    def create_temp(self) -> tuple[str, BinaryIO]:
        """A new, empty temp file of ours and its future data file name."""
        name = f"{uuid.uuid4().hex}-{self._owner.token}"
        return name, open(self._tmp / name, "xb")  # the Staging owns and closes it

    def discard_temp(self, name: str) -> None:
        (self._tmp / name).unlink(missing_ok=True)

    def publish(self, name: str, file: BinaryIO) -> None:
        """Make a temp file durable (flush, fdatasync, close) and move it to its data file path."""
        with file:
            file.flush()
            _datasync(file.fileno())
        target = self._path(name)
        try:
            os.rename(self._tmp / name, target)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.rename(self._tmp / name, target)

    def _create(self, fill: Callable[[BinaryIO], object]) -> str:
        """A new published data file with what ``fill`` writes into it."""
        name, file = self.create_temp()
        try:
            fill(file)
            self.publish(name, file)
        except BaseException:
            file.close()
            self.discard_temp(name)
            raise
        return name

    def write(self, data: bytes | memoryview) -> str:
        """A new published data file holding ``data``."""
        return self._create(lambda file: file.write(data))

    def concatenate(self, segments: list[Segment]) -> str:
        """A new published data file holding the segments one after the other, copied by the kernel."""

        def copy(file: BinaryIO) -> None:
            for name, offset, length in segments:
                source = self.open(name)
                try:
                    _copy_range(source, file.fileno(), offset, length)
                finally:
                    os.close(source)

        return self._create(copy)

    def open(self, name: str) -> int:
        """A read-only descriptor; raises FileNotFoundError once the file was removed."""
        return os.open(self._path(name), os.O_RDONLY)

    def remove(self, names: Iterable[str]) -> None:
        for name in names:
            _unlink_quietly(self._path(name))

    def sweep(self, referenced: Callable[[], set[str]]) -> None:
        """Remove temp files of dead owners and data files no index row references.

        ``referenced`` is called after the directories are listed: a file published later is not
        a candidate, and a dead owner's file unreferenced at that point can never gain a reference.
        """
        alive: dict[str, bool] = {}

        def owner_alive(name: str) -> bool:
            token = _owner_of(name)
            if token not in alive:
                alive[token] = not _reap_if_dead(self._owners / f"{token}{LOCK_SUFFIX}")
            return alive[token]

        for entry in os.scandir(self._tmp):
            if not owner_alive(entry.name):
                _unlink_quietly(entry.path)
        published = [entry for sub in os.scandir(self._objects) if sub.is_dir() for entry in os.scandir(sub)]
        keep = referenced()
        stale_before = time.time() - STALE_UNREFERENCED_SECONDS
        for entry in published:
            if entry.name not in keep and (not owner_alive(entry.name) or _mtime(entry) < stale_before):
                _unlink_quietly(entry.path)
        for entry in os.scandir(self._owners):
            if entry.name.endswith(LOCK_SUFFIX):
                _reap_if_dead(Path(entry.path))

    def close(self) -> None:
        self._owner.release()
