"""A shared table as its recipients see it, read through the sharing server itself with the Delta
Sharing client they use: its metadata (schema, partitioning, version), its first rows, the versions
they may read, and the share's audit entries for it.

Reading as a recipient needs a recipient's credential: a bearer token of the share, made for this
read, valid for minutes and revoked as soon as the read is done. It gives nothing the caller did not
have (the caller may make tokens of the share, and read its tables, already), and the read shows in
the audit log as any recipient's would."""

from __future__ import annotations

import json

import pyarrow as pa

from ..client import AIStorClient, ServiceError
from ..explore import grid

PREVIEW_ROWS = 20
VERSIONS_SHOWN = 50  # the newest; a recipient may read any from the earliest on
AUDIT_READ = 500  # the newest records of the share searched for this table's
_TOKEN_LIFETIME = "10m"
_TOKEN_DESCRIPTION = "side panel: a recipient's view of a table (revoked after the read)"


def _entry(info: dict, schema: str, table: str) -> tuple[str, dict]:
    for stored in info.get("schemas") or []:
        if stored["name"].lower() == schema.lower():
            for entry in stored["tables"]:
                if entry["name"].lower() == table.lower():
                    return stored["name"], entry
    raise ServiceError(f"share {info['name']!r} has no table {schema}.{table}", 404, "NotFound")


def _source(entry: dict) -> str:
    if entry["kind"] == "delta":
        return f"s3://{entry['bucket']}/{entry['location']}"
    return f"{entry['warehouse']}:{entry['namespace']}:{entry['table']}"


def _read_as_recipient(client: AIStorClient, profile: dict, share: str, schema: str, table: str):
    """(metadata answer, first rows as a DataFrame) through the sharing protocol."""
    from delta_sharing.protocol import DeltaSharingProfile, Table
    from delta_sharing.reader import DeltaSharingReader
    from delta_sharing.rest_client import DataSharingRestClient
    from requests.exceptions import RequestException

    # The service's own address: a profile names the public one, which this server may not reach.
    profile = {**profile, "endpoint": f"{client.config.endpoint}/delta-sharing"}
    rest = DataSharingRestClient(DeltaSharingProfile.from_json(json.dumps(profile)))
    shared = Table(name=table, share=share, schema=schema)
    try:
        return rest.query_table_metadata(shared), DeltaSharingReader(shared, rest, limit=PREVIEW_ROWS).to_pandas()
    except RequestException as exc:
        raise ServiceError(f"the sharing server refused to read {share}.{schema}.{table}: {exc}", 502) from None
    finally:
        rest.close()


def _fields(schema_string: str | None) -> list[dict]:
    fields = json.loads(schema_string or "{}").get("fields", [])
    return [{"name": f["name"], "type": f["type"], "nullable": f.get("nullable", True)} for f in fields]


def shared_table(client: AIStorClient, share: str, schema: str, table: str) -> dict:
    info = client.get_share(share)
    schema, entry = _entry(info, schema, table)
    token = client.create_token(info["name"], _TOKEN_LIFETIME, _TOKEN_DESCRIPTION)
    try:
        answer, frame = _read_as_recipient(client, token["profile"], info["name"], schema, entry["name"])
    finally:
        client.revoke_token(info["name"], token["id"])
    rows = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = answer.metadata
    audit = [record for record in client.share_audit(info["name"], AUDIT_READ)
             if str(record.get("schema", "")).lower() == schema.lower()
             and str(record.get("table", "")).lower() == entry["name"].lower()]
    versions = client.shared_table_versions(info["name"], schema, entry["name"], VERSIONS_SHOWN)["versions"]
    return {
        "versions": versions,  # [{version, timestamp (ms)}], newest first
        "share": info["name"], "schema": schema, "table": entry["name"], "kind": entry["kind"],
        "source": _source(entry), "format": metadata.format.provider, "version": answer.delta_table_version,
        "schemaFields": _fields(metadata.schema_string), "partitionColumns": list(metadata.partition_columns),
        "preview": {"columns": grid.column_types(rows.schema), "rows": grid.render_table(rows)},
        "audit": audit,
    }
