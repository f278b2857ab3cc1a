"""The explorer's views of an Iceberg table's metadata, as pure functions of the catalog's JSON
(workbench/explore/overview.py) and of PyIceberg's parsed metadata (time_travel.py)."""

from __future__ import annotations

import pytest
from pyiceberg.table.metadata import TableMetadataUtil

from aistor_lab.workbench.commands.actions import UsageError
from aistor_lab.workbench.explore.overview import schema_changes, schema_history, table_overview, table_refs
from aistor_lab.workbench.explore.time_travel import parse_time_ms, resolve_snapshot

BEFORE = {"schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "int", "required": True},
    {"id": 2, "name": "address", "required": False, "type": {"type": "struct", "fields": [
        {"id": 3, "name": "city", "type": "string", "required": False},
        {"id": 4, "name": "zip", "type": "string", "required": False},
    ]}},
    {"id": 5, "name": "tags", "required": False,
     "type": {"type": "list", "element-id": 6, "element": "string", "element-required": False}},
    {"id": 7, "name": "scores", "required": False, "type": {"type": "map", "key-id": 8, "key": "string",
                                                            "value-id": 9, "value": "float", "value-required": False}},
]}
AFTER = {"schema-id": 1, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": True, "doc": "the order id"},
    {"id": 2, "name": "place", "required": True, "type": {"type": "struct", "fields": [
        {"id": 3, "name": "city", "type": "string", "required": False},
        {"id": 10, "name": "country", "type": "string", "required": False},
    ]}},
    {"id": 5, "name": "tags", "required": False,
     "type": {"type": "list", "element-id": 6, "element": "string", "element-required": False}},
    {"id": 7, "name": "scores", "required": False, "type": {"type": "map", "key-id": 8, "key": "string",
                                                            "value-id": 9, "value": "double", "value-required": False}},
]}


def test_schema_changes_across_nested_fields():
    assert schema_changes(BEFORE, AFTER) == [
        {"change": "type", "fieldId": 1, "path": "id", "from": "int", "to": "long"},
        {"change": "doc", "fieldId": 1, "path": "id", "from": None, "to": "the order id"},
        {"change": "renamed", "fieldId": 2, "path": "place", "from": "address", "to": "place"},
        {"change": "required", "fieldId": 2, "path": "place"},
        {"change": "added", "fieldId": 10, "path": "place.country", "to": "string"},
        {"change": "type", "fieldId": 9, "path": "scores.value", "from": "float", "to": "double"},
        {"change": "removed", "fieldId": 4, "path": "address.zip", "from": "string"},
    ]


def test_schema_history_is_oldest_first_and_starts_with_every_field_added():
    history = schema_history({"schemas": [AFTER, BEFORE]})
    assert [entry["schemaId"] for entry in history] == [0, 1]
    assert [c["path"] for c in history[0]["changes"]] == [
        "id", "address", "address.city", "address.zip", "tags", "tags.element", "scores", "scores.key", "scores.value"]
    assert history[1]["changes"] == schema_changes(BEFORE, AFTER)


def test_overview_of_a_table_without_snapshots_counts_zero():
    metadata = {"location": "s3://w/t", "format-version": 2, "partition-specs": [{"spec-id": 0, "fields": []}],
                "default-spec-id": 0, "sort-orders": [{"order-id": 0, "fields": []}], "default-sort-order-id": 0,
                "last-updated-ms": 5, "snapshots": []}
    overview = table_overview({"metadata": metadata})
    assert overview == {"format": "iceberg", "location": "s3://w/t", "formatVersion": 2, "totalSizeBytes": 0,
                        "fileCount": 0, "rowCount": 0, "deleteFileCount": 0,
                        "partitionSpec": {"spec-id": 0, "fields": []}, "sortOrder": {"order-id": 0, "fields": []},
                        "lastUpdated": 5}
    assert table_refs(metadata) == {}


def test_refs_carry_ids_as_text():
    big = 2**62 + 1
    assert table_refs({"current-snapshot-id": big, "refs": {"audit": {"type": "tag", "snapshot-id": 7}}}) == {
        "audit": {"type": "tag", "snapshotId": "7"}, "main": {"type": "branch", "snapshotId": str(big)}}


@pytest.mark.parametrize(("text", "ms"), [
    ("1714564800000", 1714564800000),
    ("2024-05-01T12:00:00Z", 1714564800000),
    ("2024-05-01T12:00:00", 1714564800000),
    ("2024-05-01T14:00:00+02:00", 1714564800000),
    ("2024-05-01", 1714521600000),
])
def test_parse_time_ms(text, ms):
    assert parse_time_ms(text) == ms


def metadata_with_snapshots():
    snapshots = [{"snapshot-id": sid, "timestamp-ms": ts, "sequence-number": n, "manifest-list": f"s3://w/{sid}.avro",
                  "summary": {"operation": "append"}, "schema-id": 0}
                 for n, (sid, ts) in enumerate([(11, 1000), (22, 2000), (33, 3000)], start=1)]
    return TableMetadataUtil.parse_obj({
        "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1", "location": "s3://w/t",
        "last-sequence-number": 3, "last-updated-ms": 3000, "last-column-id": 1,
        "schemas": [{"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long",
                                                                   "required": True}]}],
        "current-schema-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "default-spec-id": 0,
        "last-partition-id": 999, "sort-orders": [{"order-id": 0, "fields": []}], "default-sort-order-id": 0,
        "current-snapshot-id": 33, "snapshots": snapshots,
        "snapshot-log": [{"snapshot-id": 11, "timestamp-ms": 1000}, {"snapshot-id": 22, "timestamp-ms": 2000},
                         {"snapshot-id": 33, "timestamp-ms": 3000}],
        "refs": {"main": {"snapshot-id": 33, "type": "branch"}, "before": {"snapshot-id": 11, "type": "tag"}},
    })


@pytest.mark.parametrize(("options", "snapshot_id"), [
    ({}, 33), ({"snapshot": "22"}, 22), ({"as_of": "2999"}, 22), ({"as_of": "2000"}, 22), ({"as_of": "99999"}, 33),
    ({"ref": "before"}, 11),
])
def test_resolve_snapshot(options, snapshot_id):
    assert resolve_snapshot(metadata_with_snapshots(), **options) == snapshot_id


@pytest.mark.parametrize(("options", "message"), [
    ({"as_of": "999"}, "before the table's first snapshot (1970-01-01T00:00:01.000+00:00)"),
    ({"snapshot": "44"}, "no snapshot 44"),
    ({"snapshot": "abc"}, "a snapshot id"),
    ({"ref": "nope"}, "(it has: before, main)"),
    ({"ref": "before", "snapshot": "11"}, "not snapshot and ref"),
])
def test_resolve_snapshot_refuses(options, message):
    with pytest.raises(UsageError) as refused:
        resolve_snapshot(metadata_with_snapshots(), **options)
    assert message in refused.value.message
