"""The lines of metadata, query and changes answers, in ``parquet`` or ``delta`` response format.

Parquet format (PROTOCOL.md "API Response Actions in Parquet Format"): ``protocol`` with
minReaderVersion 1, a ``metaData`` whose schema keeps only column comments and whose configuration
only says whether CDF is on, then ``file`` lines (snapshots) or ``add``/``cdf``/``remove`` lines
(changes) with presigned ``url`` fields. Delta format wraps the Delta actions themselves
(``deltaProtocol``, ``deltaMetadata``, ``deltaSingleAction``) with the path replaced by the
presigned URL, deletion vectors included, so a Delta reader can replay them as a log.

File ids are the MD5 (parquet) or SHA-256 (delta) of the file's location unless the client picks
the scheme with the ``fileidhash`` header, as the reference server does.
"""

from __future__ import annotations

import hashlib
import json

from .presign import UrlSigner
from .protocol import DELTA, PARQUET
from .source import FileAction

_CDF_PROPERTY = "delta.enableChangeDataFeed"
_PARQUET_KIND = {"add": "add", "remove": "remove", "cdc": "cdf"}


class ResponseLines:
    """Builds the JSON lines of one answer; every URL in it is signed by one ``UrlSigner``."""

    def __init__(self, response_format: str, signer: UrlSigner, file_id_hash: str | None = None):
        self.format = response_format
        self._signer = signer
        self._id_scheme = file_id_hash or response_format

    @property
    def expiration_ms(self) -> int:
        return self._signer.expiration_ms

    def protocol(self, protocol: dict, *, plain: bool = False) -> dict:
        """``plain``: the client declared no reader features, and the table needs none it would
        have to declare, so it is shown as the simplest protocol (as the reference server does)."""
        if self.format == PARQUET:
            return {"protocol": {"minReaderVersion": 1}}
        if plain:
            writer = protocol.get("minWriterVersion", 2)
            return {"protocol": {"deltaProtocol": {"minReaderVersion": 1,
                                                   "minWriterVersion": writer if writer < 7 else 2}}}
        return {"protocol": {"deltaProtocol": protocol}}

    def metadata(self, metadata: dict, *, version: int | None = None, size: int | None = None,
                 num_files: int | None = None) -> dict:
        extra = {k: v for k, v in (("version", version), ("size", size), ("numFiles", num_files)) if v is not None}
        if self.format == DELTA:
            fields = ("id", "name", "description", "format", "schemaString", "partitionColumns",
                      "configuration", "createdTime")
            delta = {k: metadata[k] for k in fields if metadata.get(k) is not None}
            return {"metaData": {"deltaMetadata": delta, **extra}}
        parquet = {k: metadata[k] for k in ("id", "name", "description") if metadata.get(k) is not None}
        cdf = metadata.get("configuration", {}).get(_CDF_PROPERTY, "false").lower() == "true"
        parquet.update(format={"provider": metadata.get("format", {}).get("provider", "parquet")},
                       schemaString=_comments_only(metadata["schemaString"]),
                       partitionColumns=list(metadata.get("partitionColumns", [])),
                       configuration={"enableChangeDataFeed": "true"} if cdf else {})
        return {"metaData": {**parquet, **extra}}

    def snapshot_file(self, action: FileAction, *, version: int | None = None,
                      timestamp: int | None = None) -> dict:
        """A live file of a snapshot query (``version``/``timestamp`` only for time travel)."""
        stamp = {k: v for k, v in (("version", version), ("timestamp", timestamp)) if v is not None}
        if self.format == DELTA:
            return {"file": {"id": self._file_id(action), **stamp, "expirationTimestamp": self.expiration_ms,
                             "deltaSingleAction": self._delta_action(action)}}
        line = self._parquet_file(action)
        if action.stats is not None:
            line["stats"] = action.stats
        return {"file": {**line, **stamp}}

    def change(self, action: FileAction, version: int, timestamp: int) -> dict:
        """An add, remove or cdc file of one commit (change data feed, streaming queries)."""
        if self.format == DELTA:
            return {"file": {"id": self._file_id(action), "version": version, "timestamp": timestamp,
                             "expirationTimestamp": self.expiration_ms,
                             "deltaSingleAction": self._delta_action(action)}}
        line = {**self._parquet_file(action), "timestamp": timestamp, "version": version}
        if action.kind == "add" and action.stats is not None:
            line["stats"] = action.stats
        return {_PARQUET_KIND[action.kind]: line}

    def end_stream(self, next_page_token: str | None, refresh_token: str | None = None) -> dict:
        end = {"minUrlExpirationTimestamp": self.expiration_ms}
        if next_page_token:
            end["nextPageToken"] = next_page_token
        if refresh_token:
            end["refreshToken"] = refresh_token
        return {"endStreamAction": end}

    # -- pieces ------------------------------------------------------------------------------
    def _parquet_file(self, action: FileAction) -> dict:
        return {"url": self._signer.url(action.path), "id": self._file_id(action),
                "partitionValues": action.partition_values, "size": action.size,
                "expirationTimestamp": self.expiration_ms}

    def _delta_action(self, action: FileAction) -> dict:
        fields: dict = {"path": self._signer.url(action.path), "partitionValues": action.partition_values,
                        "size": action.size, "dataChange": action.data_change}
        if action.kind == "add":
            fields["modificationTime"] = action.modification_time
            if action.stats is not None:
                fields["stats"] = action.stats
        if action.deletion_vector:
            fields["deletionVector"] = self._deletion_vector(action.deletion_vector)
        fields.update(action.extra)
        return {action.kind: fields}

    def _deletion_vector(self, dv: dict) -> dict:
        if dv.get("storageType") == "p" and str(dv.get("pathOrInlineDv", "")).startswith("s3://"):
            return {**dv, "pathOrInlineDv": self._signer.url(dv["pathOrInlineDv"])}
        return dv

    def _file_id(self, action: FileAction) -> str:
        digest = hashlib.sha256 if self._id_scheme == DELTA else hashlib.md5
        return digest(action.path.encode()).hexdigest()


def _comments_only(schema_string: str) -> str:
    """The schema with column metadata cut to comments: the rest (column mapping ids, physical
    names, ...) is Delta-internal and parquet-format readers must not see it."""
    schema = json.loads(schema_string)
    for field in schema.get("fields", []):
        metadata = field.get("metadata") or {}
        field["metadata"] = {"comment": metadata["comment"]} if "comment" in metadata else {}
    return json.dumps(schema, separators=(",", ":"))
