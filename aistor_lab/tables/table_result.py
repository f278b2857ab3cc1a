"""What table-loading operations return: the response body and its ETag."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TableResult:
    """A LoadTableResult / CommitTableResponse body with the ETag header value that names it.

    ``body`` is None when the caller's If-None-Match already names this version (HTTP 304).
    """

    body: dict | None
    etag: str
    # The JSON text of ``body["metadata"]`` when the load had it encoded already (the bulk of a reply).
    metadata_json: str | None = field(default=None, compare=False)

    def encoded(self, body: dict) -> str:
        """``body`` (this result's, perhaps with more keys) as JSON, the metadata's text spliced in."""
        if self.metadata_json is None or body.get("metadata") is not (self.body or {}).get("metadata"):
            return json.dumps(body)
        rest = json.dumps({key: value for key, value in body.items() if key != "metadata"})
        return '{"metadata": ' + self.metadata_json + (", " + rest[1:] if rest != "{}" else "}")

    def to_json(self) -> dict:
        return {"body": self.body, "etag": self.etag}

    @classmethod
    def from_json(cls, data: dict) -> TableResult:
        return cls(data["body"], data["etag"])


def table_etag(metadata_location: str | None, snapshots: str, metadata: dict | None = None) -> str:
    """A strong ETag (quoted, ready for the header) for one version of a table in one ``snapshots``
    mode. A committed version is named by its metadata file; a staged one by its content."""
    basis = metadata_location if metadata_location else json.dumps(metadata, sort_keys=True)
    return '"' + hashlib.sha256(f"{basis}|{snapshots}".encode()).hexdigest()[:32] + '"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header value names ``etag`` (weak or strong, a list, or ``*``)."""
    if not if_none_match:
        return False
    candidates = [c.strip() for c in if_none_match.split(",")]
    return "*" in candidates or any(c.removeprefix("W/") == etag for c in candidates)
