"""Where each file of a migrated table goes: the source table's folder becomes the target's, as
Iceberg's ``rewrite_table_path`` maps a source prefix to a target prefix."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit


def canonical(location: str) -> str:
    """One spelling per location: ``file:/x``, ``file:///x`` and a bare ``/x`` are the same file, and
    ``s3a://``/``s3n://`` (Hadoop's) are ``s3://``; no trailing slash."""
    parts = urlsplit(location)
    if parts.scheme in ("", "file"):
        return "file:" + parts.path.rstrip("/")
    scheme = "s3" if parts.scheme in ("s3a", "s3n") else parts.scheme
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}"


@dataclass(frozen=True)
class PathMap:
    """``source``: the source table's location; ``target``: its folder in the target warehouse."""

    source: str
    target: str

    def __call__(self, path: str) -> str:
        source, path = canonical(self.source), canonical(path)
        if path == source or path.startswith(source + "/"):
            return self.target + path[len(source):]
        # A file outside the table's folder (writers may put data anywhere): kept apart inside the target.
        parts = urlsplit(path)
        return f"{self.target}/external/{parts.netloc}/{parts.path.lstrip('/')}".replace("external//", "external/")

    def metadata_file(self, metadata_location: str) -> str:
        """The target of the table's metadata JSON: the same file name in the target's metadata folder (the
        rewritten file is plain JSON, so without a ``.gz`` the source's name may have)."""
        name = metadata_location.rstrip("/").rsplit("/", 1)[-1].replace(".gz.metadata.json", ".metadata.json")
        return f"{self.target}/metadata/{name}"
