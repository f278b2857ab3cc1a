"""What the explorer shows of an Iceberg view: its SQL (every dialect of the current version), its
schema, its versions and properties, from the catalog's loadView."""

from __future__ import annotations

from ..client import AIStorClient


def view_details(client: AIStorClient, warehouse: str, namespace: str, view: str) -> dict:
    loaded = client.load_view(warehouse, namespace, view)
    metadata = loaded["metadata"]
    current_id = metadata.get("current-version-id")
    versions = metadata.get("versions") or []
    current = next((v for v in versions if v.get("version-id") == current_id), {})
    schema = next((s for s in metadata.get("schemas") or [] if s.get("schema-id") == current.get("schema-id")), {})
    return {
        "warehouse": warehouse,
        "namespace": namespace,
        "view": view,
        "location": metadata.get("location"),
        "sql": [{"dialect": r.get("dialect"), "sql": r.get("sql")}
                for r in current.get("representations") or [] if r.get("type") == "sql"],
        "schema": schema,
        "versions": [{"versionId": v.get("version-id"), "timestampMs": v.get("timestamp-ms"),
                      "summary": v.get("summary") or {}} for v in versions],
        "currentVersionId": current_id,
        "properties": metadata.get("properties") or {},
    }
