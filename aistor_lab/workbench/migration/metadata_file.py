"""A table's metadata JSON, read as the source wrote it and rewritten with the target's paths. Every
other part (snapshots, schemas, partition specs and their history, sort orders, refs, properties,
snapshot log) is kept as it is; the metadata log is left out, since the earlier metadata files stay
behind in the source."""

from __future__ import annotations

import copy
import gzip
import json
from typing import Any

from .paths import PathMap
from .sources import MigrationError

# Properties that name where the table writes: they follow the table to its new folder.
_LOCATION_PROPERTIES = ("write.data.path", "write.metadata.path", "write.object-storage.path", "write.folder-storage.path")
SUPPORTED_FORMAT_VERSIONS = (1, 2)


def parse(data: bytes, location: str) -> dict[str, Any]:
    """The metadata JSON (gzipped as Hadoop tables may keep it, or plain)."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        metadata = json.loads(data)
    except ValueError as exc:
        raise MigrationError(f"not a metadata JSON file: {location}: {exc}") from None
    if not isinstance(metadata, dict) or "location" not in metadata:
        raise MigrationError(f"not a table metadata file: {location}")
    return metadata


def check_supported(metadata: dict[str, Any], table: str) -> None:
    version = metadata.get("format-version")
    if version not in SUPPORTED_FORMAT_VERSIONS:
        # PyIceberg 0.12 reads manifests as version 2: a copy would lose row lineage (first_row_id) and
        # deletion vectors' fields (referenced_data_file, content_offset, content_size_in_bytes).
        raise MigrationError(f"{table}: format version {version} is not migrated (only 1 and 2): its manifests "
                             "cannot be rewritten without losing version-3 fields")
    for snapshot in metadata.get("snapshots") or []:
        if "manifest-list" not in snapshot:
            raise MigrationError(f"{table}: snapshot {snapshot.get('snapshot-id')} lists its manifests inline "
                                 "(an early version-1 form), which is not migrated")


def rewritten(metadata: dict[str, Any], paths: PathMap) -> dict[str, Any]:
    """The metadata with every path the target reads moved by ``paths``."""
    result = copy.deepcopy(metadata)
    result["location"] = paths.target
    for snapshot in result.get("snapshots") or []:
        snapshot["manifest-list"] = paths(snapshot["manifest-list"])
    for key in ("statistics", "partition-statistics"):
        for statistics in result.get(key) or []:
            statistics["statistics-path"] = paths(statistics["statistics-path"])
    properties = result.get("properties") or {}
    for name in _LOCATION_PROPERTIES:
        if name in properties:
            properties[name] = paths(properties[name])
    result["metadata-log"] = []
    return result


def encoded(metadata: dict[str, Any]) -> bytes:
    """The same bytes for the same metadata, so a re-run finds its earlier file unchanged."""
    return json.dumps(metadata, separators=(",", ":")).encode()
