"""The Iceberg REST catalog core (aistor_lab.tables) against a real LocalStore, driven by requests
built with PyIceberg's own request and update classes, and with every response parsed back by
PyIceberg to prove a real client accepts it."""

from __future__ import annotations

import gzip
import io
import json
import threading
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import CreateTableRequest, CreateViewRequest, RegisterTableRequest
from pyiceberg.io import FileIO, InputFile, OutputFile
from pyiceberg.manifest import MANIFEST_LIST_FILE_SCHEMAS, ManifestContent, ManifestFile
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import (
    CommitTableRequest,
    CommitTableResponse,
    CreateTableTransaction,
    StagedTable,
    Table,
    TableIdentifier,
)
from pyiceberg.table.metadata import TableMetadataUtil
from pyiceberg.table.refs import SnapshotRefType
from pyiceberg.table.snapshots import Operation, Snapshot, Summary
from pyiceberg.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from pyiceberg.table.statistics import PartitionStatisticsFile, StatisticsFile
from pyiceberg.table.update import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSnapshotUpdate,
    AddSortOrderUpdate,
    AssertCreate,
    AssertCurrentSchemaId,
    AssertDefaultSortOrderId,
    AssertDefaultSpecId,
    AssertLastAssignedFieldId,
    AssertLastAssignedPartitionId,
    AssertRefSnapshotId,
    AssertTableUUID,
    AssignUUIDUpdate,
    RemovePartitionSpecsUpdate,
    RemovePartitionStatisticsUpdate,
    RemovePropertiesUpdate,
    RemoveSchemasUpdate,
    RemoveSnapshotRefUpdate,
    RemoveSnapshotsUpdate,
    RemoveStatisticsUpdate,
    SetCurrentSchemaUpdate,
    SetDefaultSortOrderUpdate,
    SetDefaultSpecUpdate,
    SetLocationUpdate,
    SetPartitionStatisticsUpdate,
    SetPropertiesUpdate,
    SetSnapshotRefUpdate,
    SetStatisticsUpdate,
    UpgradeFormatVersionUpdate,
)
from pyiceberg.transforms import BucketTransform, IdentityTransform
from pyiceberg.types import IntegerType, ListType, LongType, NestedField, StringType, StructType
from pyiceberg.view.metadata import SQLViewRepresentation, ViewMetadata, ViewRepresentation, ViewVersion

from aistor_lab.store import SYSTEM_BUCKET, NoSuchKey
from aistor_lab.store.local import LocalStore
from aistor_lab.tables import Catalog, TableResult, layout
from aistor_lab.tables.containers import DELETING
from aistor_lab.tables.errors import (
    AlreadyExistsException,
    BadRequestException,
    CommitFailedException,
    NamespaceNotEmptyException,
    NoSuchNamespaceException,
    NoSuchTableException,
    NoSuchViewException,
    NoSuchWarehouseException,
    UnprocessableEntityException,
    WarehouseNotEmptyException,
)
from aistor_lab.tables.json_files import split_location

WH = "lake"
NS = ["db"]
SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "ts", LongType(), required=False),
)

# What pyarrow tables without non-null declarations can be appended to.
OPTIONAL_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False)
)


# -- helpers --------------------------------------------------------------------------------
def as_dict(model) -> dict:
    """What PyIceberg's REST client puts on the wire for a request model."""
    return json.loads(model.model_dump_json())


def create_request(name: str, *, schema=SCHEMA, spec=None, order=None, properties=None, **kwargs) -> dict:
    return as_dict(
        CreateTableRequest(
            name=name,
            location=kwargs.get("location"),
            table_schema=schema,
            partition_spec=spec,
            write_order=order,
            stage_create=kwargs.get("stage_create", False),
            properties=properties or {},
        )
    )


def commit_request(name: str, requirements=(), updates=(), namespace=NS) -> dict:
    ident = TableIdentifier(namespace=namespace, name=name)
    return as_dict(CommitTableRequest(identifier=ident, requirements=requirements, updates=updates))


def parsed(result: TableResult | dict):
    """The response's metadata parsed by PyIceberg (raises if a client would reject it)."""
    body = result.body if isinstance(result, TableResult) else result
    return TableMetadataUtil.parse_raw(json.dumps(body["metadata"]))


def store_keys(store, location: str) -> list[str]:
    bucket, key = split_location(location)
    return [o.key for o in store.list_objects(bucket, prefix=key.rstrip("/") + "/").objects]


def snapshot(snapshot_id: int, seq: int, parent: int | None, manifest_list: str, **kwargs) -> Snapshot:
    return Snapshot(
        snapshot_id=snapshot_id,
        parent_snapshot_id=parent,
        sequence_number=seq,
        timestamp_ms=1_700_000_000_000 + snapshot_id,
        manifest_list=manifest_list,
        summary=Summary(Operation.APPEND),
        schema_id=0,
        **kwargs,
    )


def append(catalog: Catalog, name: str, snapshot_id: int, namespace=NS, **snapshot_fields) -> TableResult:
    """Commit what PyIceberg's fast append sends: add-snapshot + set main, asserting main's head."""
    metadata = parsed(catalog.tables.load(WH, namespace, name))
    head = metadata.current_snapshot_id
    snap = snapshot(
        snapshot_id,
        getattr(metadata, "last_sequence_number", 0) + 1,  # v1 metadata has none
        head,
        f"{metadata.location}/metadata/snap-{snapshot_id}.avro",
        **snapshot_fields,
    )
    request = commit_request(
        name,
        requirements=(
            AssertTableUUID(uuid=metadata.table_uuid),
            AssertRefSnapshotId(ref="main", snapshot_id=head),
        ),
        updates=(
            AddSnapshotUpdate(snapshot=snap),
            SetSnapshotRefUpdate(ref_name="main", snapshot_id=snapshot_id, type=SnapshotRefType.BRANCH),
        ),
        namespace=namespace,
    )
    return catalog.tables.commit(WH, namespace, name, request)


class StoreInput(InputFile):
    def __init__(self, store, location: str):
        super().__init__(location)
        self.store = store

    def __len__(self) -> int:
        return self.store.get_object_info(*split_location(self.location)).size

    def exists(self) -> bool:
        try:
            return len(self) >= 0
        except NoSuchKey:
            return False

    def open(self, seekable: bool = True):
        try:
            return io.BytesIO(self.store.get_bytes(*split_location(self.location))[1])
        except NoSuchKey as exc:
            raise FileNotFoundError(self.location) from exc


class StoreOutput(OutputFile):
    def __init__(self, store, location: str):
        super().__init__(location)
        self.store = store

    def __len__(self) -> int:
        return len(self.to_input_file())

    def exists(self) -> bool:
        return self.to_input_file().exists()

    def to_input_file(self) -> StoreInput:
        return StoreInput(self.store, self.location)

    def create(self, overwrite: bool = False):
        store, location = self.store, self.location

        class Upload(io.BytesIO):
            def close(self) -> None:
                if not self.closed:
                    store.put_bytes(*split_location(location), self.getvalue())
                super().close()

        return Upload()


class StoreFileIO(FileIO):
    """PyIceberg's file access, straight into the object store (no S3 endpoint here)."""

    def __init__(self, store):
        super().__init__({})
        self.store = store

    def new_input(self, location: str) -> StoreInput:
        return StoreInput(self.store, location)

    def new_output(self, location: str) -> StoreOutput:
        return StoreOutput(self.store, location)

    def delete(self, location) -> None:
        self.store.delete_object(*split_location(getattr(location, "location", location)))


class InProcessRestCatalog:
    """What PyIceberg's RestCatalog does for Table commits, minus HTTP: serialize the commit
    request, call the catalog, parse the CommitTableResponse."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    def commit_table(self, table, requirements, updates) -> CommitTableResponse:
        *namespace, name = table.name()
        request = CommitTableRequest(
            identifier=TableIdentifier(namespace=namespace, name=name),
            requirements=requirements,
            updates=updates,
        )
        result = self.catalog.tables.commit(WH, namespace, name, as_dict(request))
        return CommitTableResponse.model_validate_json(json.dumps(result.body))

    def load(self, store, namespace: list[str], name: str) -> Table:
        body = self.catalog.tables.load(WH, namespace, name).body
        return Table((*namespace, name), parsed(body), body["metadata-location"], StoreFileIO(store), self)

    def _delete_old_metadata(self, *args) -> None:
        pass

    def supports_server_side_planning(self) -> bool:
        return False


@pytest.fixture
def store(tmp_path):
    store = LocalStore(tmp_path / "data")
    yield store
    store.close()


@pytest.fixture
def catalog(store) -> Catalog:
    catalog = Catalog(store)
    catalog.warehouses.create({"name": WH})
    catalog.namespaces.create(WH, {"namespace": NS})
    return catalog


@pytest.fixture
def table(catalog) -> str:
    catalog.tables.create(WH, NS, create_request("events"))
    return "events"


# -- warehouses and config ------------------------------------------------------------------
def test_warehouse_lifecycle_uses_a_bucket(store):
    catalog = Catalog(store)
    created = catalog.warehouses.create({"name": "sales"})
    assert created["name"] == "sales"
    assert store.get_bucket("sales").name == "sales"
    store.create_bucket("existing")
    with pytest.raises(AlreadyExistsException, match="not a warehouse"):
        catalog.warehouses.create({"name": "existing"})  # an existing bucket is adopted only when asked
    catalog.warehouses.create({"name": "existing", "upgrade-existing": True})
    assert catalog.warehouses.list() == {"warehouses": ["existing", "sales"], "next-page-token": None}
    assert catalog.warehouses.get("sales")["uuid"] == created["uuid"]
    with pytest.raises(AlreadyExistsException):
        catalog.warehouses.create({"name": "sales"})
    with pytest.raises(BadRequestException):
        catalog.warehouses.create({"name": "Bad_Name"})

    catalog.namespaces.create("sales", {"namespace": ["q1"]})
    with pytest.raises(WarehouseNotEmptyException) as refused:
        catalog.warehouses.delete("sales")
    assert refused.value.code == 409
    catalog.namespaces.drop("sales", ["q1"])
    catalog.warehouses.delete("sales")
    with pytest.raises(NoSuchWarehouseException):
        catalog.warehouses.get("sales")
    assert "sales" not in [b.name for b in store.list_buckets()]  # empty bucket removed


def test_a_force_delete_stopped_midway_is_finished_by_a_retry(catalog, table, store):
    """A crash right after the one conditional write that decides a force delete leaves the
    warehouse marked: gone for the catalog, nothing can be created in it, and the next force delete
    finishes the job. A refusal before that write takes the mark back."""
    seen: list = []

    def refuse(contents):
        seen.extend((c.kind, c.namespace, c.name) for c in contents)
        raise PermissionError("no")

    with pytest.raises(PermissionError):
        catalog.warehouses.purge(WH, authorize=refuse)
    assert sorted(seen) == [("namespace", NS, None), ("table", NS, table)]
    catalog.namespaces.create(WH, {"namespace": ["again"]})  # the mark was taken back

    key = layout.warehouse_key(WH)
    doc = catalog.ctx.docs.get(key)
    assert catalog.ctx.docs.replace(key, {**doc.body, DELETING: 1}, doc.etag)  # what the crash left
    for refused in (lambda: catalog.warehouses.get(WH), lambda: catalog.config(WH),
                    lambda: catalog.warehouses.delete(WH),
                    lambda: catalog.namespaces.create(WH, {"namespace": ["late"]}),
                    lambda: catalog.tables.create(WH, NS, create_request("late"))):
        with pytest.raises(NoSuchWarehouseException):
            refused()

    catalog.warehouses.purge(WH, authorize=lambda contents: None)
    assert catalog.ctx.docs.get(key) is None
    assert not list(catalog.ctx.docs.keys(layout.catalog_prefix(WH)))
    assert WH not in [b.name for b in store.list_buckets()]  # its files purged, the empty bucket removed
    with pytest.raises(NoSuchWarehouseException):
        catalog.warehouses.purge(WH, authorize=lambda contents: None)


def test_config_names_the_prefix_and_spec_endpoints(catalog):
    config = catalog.config(WH)
    assert config["overrides"]["prefix"] == WH
    assert config["defaults"] == {"view-endpoints-supported": "true"}
    assert "GET /v1/{prefix}/namespaces" in config["endpoints"]
    assert "POST /v1/{prefix}/transactions/commit" in config["endpoints"]
    assert "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}" in config["endpoints"]
    assert config["idempotency-key-lifetime"] == "PT1800S"
    with pytest.raises(NoSuchWarehouseException) as missing:
        catalog.config("nowhere")
    assert missing.value.to_json() == {
        "error": {
            "message": "Warehouse does not exist: nowhere",
            "type": "NoSuchWarehouseException",
            "code": 404,
        }
    }
    # Without a warehouse (the spec makes it optional): the defaults, and no prefix.
    defaults = catalog.config(None)
    assert "prefix" not in defaults["overrides"] and defaults["endpoints"] == config["endpoints"]


# -- namespaces -----------------------------------------------------------------------------
def test_namespaces_multi_level_properties_and_drop(catalog):
    with pytest.raises(NoSuchNamespaceException):
        catalog.namespaces.create(WH, {"namespace": ["a", "b"]})  # parent first
    catalog.namespaces.create(WH, {"namespace": ["a"], "properties": {"owner": "ann"}})
    catalog.namespaces.create(WH, {"namespace": ["a", "b"]})
    with pytest.raises(AlreadyExistsException):
        catalog.namespaces.create(WH, {"namespace": ["a"]})
    assert catalog.namespaces.list(WH)["namespaces"] == [["a"], ["db"]]
    assert catalog.namespaces.list(WH, ["a"])["namespaces"] == [["a", "b"]]
    assert catalog.namespaces.load(WH, ["a"]) == {"namespace": ["a"], "properties": {"owner": "ann"}}
    catalog.namespaces.exists(WH, ["a", "b"])
    with pytest.raises(NoSuchNamespaceException):
        catalog.namespaces.exists(WH, ["a", "x"])

    updated = catalog.namespaces.update_properties(
        WH, ["a"], {"updates": {"team": "t1"}, "removals": ["owner", "absent"]}
    )
    assert updated == {"updated": ["team"], "removed": ["owner"], "missing": ["absent"]}
    assert catalog.namespaces.load(WH, ["a"])["properties"] == {"team": "t1"}
    with pytest.raises(UnprocessableEntityException):
        catalog.namespaces.update_properties(WH, ["a"], {"updates": {"k": "v"}, "removals": ["k"]})

    with pytest.raises(NamespaceNotEmptyException):
        catalog.namespaces.drop(WH, ["a"])  # holds ["a", "b"]
    catalog.tables.create(WH, ["a", "b"], create_request("t"))
    with pytest.raises(NamespaceNotEmptyException):
        catalog.namespaces.drop(WH, ["a", "b"])  # holds a table
    catalog.tables.drop(WH, ["a", "b"], "t")
    catalog.namespaces.drop(WH, ["a", "b"])
    catalog.namespaces.drop(WH, ["a"])
    assert catalog.namespaces.list(WH)["namespaces"] == [["db"]]
    with pytest.raises(NoSuchNamespaceException):
        catalog.namespaces.drop(WH, ["a"])


def test_a_namespace_being_dropped_refuses_new_children_until_the_marker_is_stale(store, catalog):
    key = "iceberg/catalog/lake/db/!namespace.json"
    doc = catalog.ctx.docs.get(key)
    catalog.ctx.docs.replace(
        key, {**doc.body, "dropping-ms": catalog.ctx.now_ms()}, doc.etag
    )  # a dropper died here
    assert catalog.namespaces.load(WH, NS)["namespace"] == NS  # still exists for readers
    with pytest.raises(NoSuchNamespaceException):
        catalog.tables.create(WH, NS, create_request("t"))
    assert catalog.tables.list(WH, NS)["identifiers"] == []  # the creator backed out
    later = Catalog(store, now=lambda: catalog.ctx.now() + 120)
    later.tables.create(WH, NS, create_request("t"))
    assert later.tables.list(WH, NS)["identifiers"] == [{"namespace": NS, "name": "t"}]


def test_racing_drop_and_create_never_leave_orphans(store, catalog):
    other = Catalog(store)
    for i in range(10):
        namespace = [f"race{i}"]
        catalog.namespaces.create(WH, {"namespace": namespace})

        def drop_or_create(n: int, namespace=namespace):
            if n == 0:
                return catalog.namespaces.drop(WH, namespace)
            return other.tables.create(WH, namespace, create_request("t"))

        dropped, created = run_threads(2, drop_or_create)
        drop_ok = not isinstance(dropped, Exception)
        create_ok = isinstance(created, TableResult)
        assert not (drop_ok and create_ok)
        leftovers = [
            o.key for o in store.list_objects(SYSTEM_BUCKET, prefix=f"iceberg/catalog/{WH}/race{i}/").objects
        ]
        if drop_ok:
            assert leftovers == []
        else:
            assert f"iceberg/catalog/{WH}/race{i}/!namespace.json" in leftovers


@pytest.mark.parametrize("bad", [[], [""], ["a/b"], ["tab\x1fsep"], ["x" * 256], [".."], "db"])
def test_invalid_namespace_names_are_bad_requests(catalog, bad):
    with pytest.raises(BadRequestException):
        catalog.namespaces.create(WH, {"namespace": bad})


def test_unicode_names_round_trip(catalog):
    catalog.namespaces.create(WH, {"namespace": ["données"]})
    catalog.namespaces.create(WH, {"namespace": ["données", "2024 q1!"]})
    assert catalog.namespaces.list(WH, ["données"])["namespaces"] == [["données", "2024 q1!"]]
    catalog.tables.create(WH, ["données", "2024 q1!"], create_request("ventes%été"))
    listed = catalog.tables.list(WH, ["données", "2024 q1!"])
    assert listed["identifiers"] == [{"namespace": ["données", "2024 q1!"], "name": "ventes%été"}]


def test_listings_paginate_only_when_a_page_token_is_sent(catalog):
    for i in range(5):
        catalog.tables.create(WH, NS, create_request(f"t{i}"))
    everything = catalog.tables.list(WH, NS, page_size=2)
    assert len(everything["identifiers"]) == 5 and everything["next-page-token"] is None
    names, token, pages = [], "", 0
    while True:
        page = catalog.tables.list(WH, NS, page_token=token, page_size=2)
        names += [i["name"] for i in page["identifiers"]]
        pages += 1
        token = page["next-page-token"]
        if token is None:
            break
    assert names == [f"t{i}" for i in range(5)] and pages == 3
    with pytest.raises(BadRequestException):
        catalog.tables.list(WH, NS, page_token="not-a-token!", page_size=2)
    for i in range(3):
        catalog.namespaces.create(WH, {"namespace": [f"n{i}"]})
    first = catalog.namespaces.list(WH, page_token="", page_size=3)
    rest = catalog.namespaces.list(WH, page_token=first["next-page-token"], page_size=3)
    assert first["namespaces"] + rest["namespaces"] == [["db"], ["n0"], ["n1"], ["n2"]]
    assert rest["next-page-token"] is None


# -- creating tables ------------------------------------------------------------------------
def test_create_reassigns_fresh_ids_and_writes_metadata(catalog, store):
    odd_schema = Schema(
        NestedField(7, "id", LongType(), required=True),
        NestedField(9, "tags", ListType(11, StringType()), required=False),
        NestedField(
            4, "point", StructType(NestedField(5, "x", IntegerType()), NestedField(6, "y", IntegerType()))
        ),
        identifier_field_ids=[7],
    )
    spec = PartitionSpec(
        PartitionField(source_id=7, field_id=1005, transform=BucketTransform(16), name="id_bucket")
    )
    order = SortOrder(SortField(source_id=7, transform=IdentityTransform(), direction=SortDirection.DESC))
    result = catalog.tables.create(
        WH, NS, create_request("fresh", schema=odd_schema, spec=spec, order=order, properties={"owner": "me"})
    )
    metadata = parsed(result)
    fields = metadata.schema().fields
    assert [f.field_id for f in fields] == [1, 2, 3]  # struct fields first, then nested ids
    assert metadata.schema().find_field("tags").field_type.element_id == 4
    assert metadata.schema().identifier_field_ids == [1]
    assert metadata.last_column_id == 6
    assert metadata.spec().fields[0].source_id == 1 and metadata.spec().fields[0].field_id == 1000
    assert metadata.last_partition_id == 1000
    assert metadata.default_sort_order_id == 1 and metadata.sort_orders[0].fields[0].source_id == 1
    assert metadata.properties == {"owner": "me", "write.parquet.compression-codec": "zstd"}
    assert metadata.location == f"s3://{WH}/{metadata.table_uuid}"
    location = result.body["metadata-location"]
    assert location.startswith(f"s3://{WH}/{metadata.table_uuid}/metadata/00000-")
    assert location.endswith(".metadata.json")
    bucket, key = split_location(location)
    assert json.loads(store.get_bytes(bucket, key)[1])["table-uuid"] == str(metadata.table_uuid)
    assert result.etag.startswith('"') and result.body["config"] == {}


def test_create_format_versions_one_and_three(catalog):
    v1 = catalog.tables.create(WH, NS, create_request("v1", properties={"format-version": "1"})).body[
        "metadata"
    ]
    assert v1["format-version"] == 1 and "schema" in v1 and "partition-spec" in v1
    assert "last-sequence-number" not in v1 and v1["current-snapshot-id"] == -1
    assert "format-version" not in v1["properties"]
    v3 = catalog.tables.create(WH, NS, create_request("v3", properties={"format-version": "3"})).body[
        "metadata"
    ]
    assert v3["format-version"] == 3 and v3["next-row-id"] == 0 and v3["current-snapshot-id"] is None
    assert parsed({"metadata": v1}).format_version == 1 and parsed({"metadata": v3}).format_version == 3
    v1_after = append(catalog, "v1", 1).body["metadata"]
    assert v1_after["current-snapshot-id"] == 1 and "last-sequence-number" not in v1_after
    with pytest.raises(BadRequestException):
        catalog.tables.create(WH, NS, create_request("v9", properties={"format-version": "9"}))


def test_create_refusals(catalog, table):
    with pytest.raises(AlreadyExistsException):
        catalog.tables.create(WH, NS, create_request(table))
    with pytest.raises(NoSuchNamespaceException):
        catalog.tables.create(WH, ["nope"], create_request("t"))
    with pytest.raises(NoSuchWarehouseException):
        catalog.tables.create("other", NS, create_request("t"))
    with pytest.raises(BadRequestException):
        catalog.tables.create(WH, NS, create_request("t", location="s3://elsewhere/t"))
    with pytest.raises(BadRequestException):
        catalog.tables.create(WH, NS, create_request("t", location=f"s3://{WH}/"))
    inside = catalog.tables.create(WH, NS, create_request("t", location=f"s3://{WH}/custom/t/"))
    assert inside.body["metadata"]["location"] == f"s3://{WH}/custom/t"
    bad_spec = PartitionSpec(
        PartitionField(source_id=99, field_id=1000, transform=IdentityTransform(), name="x")
    )
    with pytest.raises(BadRequestException):
        catalog.tables.create(WH, NS, create_request("u", spec=bad_spec))


def test_stage_create_then_create_transaction_commit(catalog, store):
    staged = catalog.tables.create(WH, NS, create_request("ctas", stage_create=True, properties={"k": "v"}))
    assert staged.body["metadata-location"] is None
    with pytest.raises(NoSuchTableException):
        catalog.tables.load(WH, NS, "ctas")
    meta = parsed(staged)
    # exactly what PyIceberg's CreateTableTransaction._initial_changes sends, then an append
    updates = (
        AssignUUIDUpdate(uuid=meta.table_uuid),
        UpgradeFormatVersionUpdate(format_version=meta.format_version),
        AddSchemaUpdate(schema_=meta.schema()),
        SetCurrentSchemaUpdate(schema_id=-1),
        AddPartitionSpecUpdate(spec=meta.spec()),
        SetDefaultSpecUpdate(spec_id=-1),
        AddSortOrderUpdate(sort_order=meta.sort_order()),
        SetDefaultSortOrderUpdate(sort_order_id=-1),
        SetLocationUpdate(location=meta.location),
        SetPropertiesUpdate(updates=meta.properties),
        AddSnapshotUpdate(snapshot=snapshot(11, 1, None, f"{meta.location}/metadata/snap-11.avro")),
        SetSnapshotRefUpdate(ref_name="main", snapshot_id=11, type=SnapshotRefType.BRANCH),
    )
    request = commit_request("ctas", requirements=(AssertCreate(),), updates=updates)
    committed = catalog.tables.commit(WH, NS, "ctas", request)
    created = parsed(committed)
    assert created.table_uuid == meta.table_uuid and created.location == meta.location
    assert created.current_snapshot_id == 11 and created.last_sequence_number == 1
    assert created.properties["k"] == "v"
    assert [e.snapshot_id for e in created.snapshot_log] == [11]
    assert "/metadata/00000-" in committed.body["metadata-location"]
    assert parsed(catalog.tables.load(WH, NS, "ctas")).table_uuid == meta.table_uuid
    with pytest.raises(CommitFailedException):
        catalog.tables.commit(WH, NS, "ctas", request)  # assert-create on an existing table
    with pytest.raises(BadRequestException):
        bad = commit_request("x", requirements=(AssertCreate(), AssertCurrentSchemaId(current_schema_id=0)))
        catalog.tables.commit(WH, NS, "x", bad)


# -- loading --------------------------------------------------------------------------------
def test_load_snapshot_modes_and_etags(catalog, table):
    append(catalog, table, 1)
    append(catalog, table, 2)
    tagged = commit_request(
        table, updates=(SetSnapshotRefUpdate(ref_name="v1", snapshot_id=1, type=SnapshotRefType.TAG),)
    )
    catalog.tables.commit(WH, NS, table, tagged)
    append(catalog, table, 3)
    everything = catalog.tables.load(WH, NS, table)
    refs_only = catalog.tables.load(WH, NS, table, snapshots="refs")
    assert [s["snapshot-id"] for s in everything.body["metadata"]["snapshots"]] == [1, 2, 3]
    assert [s["snapshot-id"] for s in refs_only.body["metadata"]["snapshots"]] == [1, 3]
    assert parsed(refs_only).current_snapshot_id == 3
    assert everything.etag != refs_only.etag
    not_modified = catalog.tables.load(WH, NS, table, if_none_match=everything.etag)
    assert not_modified.body is None and not_modified.etag == everything.etag
    assert catalog.tables.load(WH, NS, table, if_none_match=f"W/{everything.etag}").body is None
    append(catalog, table, 4)
    changed = catalog.tables.load(WH, NS, table, if_none_match=everything.etag)
    assert changed.body is not None and changed.etag != everything.etag
    with pytest.raises(BadRequestException):
        catalog.tables.load(WH, NS, table, snapshots="some")
    catalog.tables.exists(WH, NS, table)
    with pytest.raises(NoSuchTableException):
        catalog.tables.exists(WH, NS, "missing")
    with pytest.raises(NoSuchTableException):  # as the spec's loadTable answers, namespace or not
        catalog.tables.load(WH, ["missing"], table)


# -- committing -----------------------------------------------------------------------------
def test_append_updates_sequence_numbers_logs_and_refs(catalog, table, store):
    created = catalog.tables.load(WH, NS, table)
    first = append(catalog, table, 100)
    meta = parsed(first)
    assert meta.current_snapshot_id == 100 and meta.last_sequence_number == 1
    assert meta.refs["main"].snapshot_id == 100
    assert [(e.snapshot_id, e.timestamp_ms) for e in meta.snapshot_log] == [(100, 1_700_000_000_100)]
    assert [e.metadata_file for e in meta.metadata_log] == [created.body["metadata-location"]]
    assert "/metadata/00001-" in first.body["metadata-location"]
    second = parsed(append(catalog, table, 200))
    assert second.last_sequence_number == 2 and second.snapshot_by_id(200).parent_snapshot_id == 100
    assert [e.snapshot_id for e in second.snapshot_log] == [100, 200]
    assert len(second.metadata_log) == 2
    assert len([k for k in store_keys(store, meta.location) if k.endswith(".metadata.json")]) == 3


def test_schema_spec_and_order_evolution_with_last_added(catalog, table):
    meta = parsed(catalog.tables.load(WH, NS, table))
    evolved = Schema(
        *meta.schema().fields, NestedField(4, "country", StringType(), required=False), schema_id=1
    )
    request = commit_request(
        table,
        requirements=(
            AssertCurrentSchemaId(current_schema_id=0),
            AssertLastAssignedFieldId(last_assigned_field_id=3),
        ),
        updates=(AddSchemaUpdate(schema_=evolved), SetCurrentSchemaUpdate(schema_id=-1)),
    )
    meta = parsed(catalog.tables.commit(WH, NS, table, request))
    assert meta.current_schema_id == 1 and meta.last_column_id == 4 and len(meta.schemas) == 2
    spec = PartitionSpec(
        PartitionField(source_id=4, field_id=1000, transform=IdentityTransform(), name="country")
    )
    order = SortOrder(SortField(source_id=1, transform=IdentityTransform(), null_order=NullOrder.NULLS_LAST))
    request = commit_request(
        table,
        requirements=(
            AssertLastAssignedPartitionId(last_assigned_partition_id=999),
            AssertDefaultSpecId(default_spec_id=0),
            AssertDefaultSortOrderId(default_sort_order_id=0),
        ),
        updates=(
            AddPartitionSpecUpdate(spec=spec),
            SetDefaultSpecUpdate(spec_id=-1),
            AddSortOrderUpdate(sort_order=order),
            SetDefaultSortOrderUpdate(sort_order_id=-1),
            SetPropertiesUpdate(updates={"a": "1", "b": "2"}),
            RemovePropertiesUpdate(removals=["b"]),
        ),
    )
    meta = parsed(catalog.tables.commit(WH, NS, table, request))
    assert meta.default_spec_id == 1 and meta.last_partition_id == 1000
    assert meta.default_sort_order_id == 1 and meta.sort_orders[-1].fields[0].source_id == 1
    assert meta.properties["a"] == "1" and "b" not in meta.properties
    # re-adding an existing schema/spec reuses its id; removing old ones
    again = commit_request(table, updates=(AddPartitionSpecUpdate(spec=spec),))
    assert len(parsed(catalog.tables.commit(WH, NS, table, again)).partition_specs) == 2
    cleanup = commit_request(
        table,
        updates=(RemoveSchemasUpdate(schema_ids=[0]), RemovePartitionSpecsUpdate(spec_ids=[0])),
    )
    meta = parsed(catalog.tables.commit(WH, NS, table, cleanup))
    assert [s.schema_id for s in meta.schemas] == [1] and [s.spec_id for s in meta.partition_specs] == [1]
    for forbidden in (RemoveSchemasUpdate(schema_ids=[1]), RemovePartitionSpecsUpdate(spec_ids=[1])):
        with pytest.raises(BadRequestException):
            catalog.tables.commit(WH, NS, table, commit_request(table, updates=(forbidden,)))
    with pytest.raises(BadRequestException):
        catalog.tables.commit(
            WH, NS, table, commit_request(table, updates=(SetCurrentSchemaUpdate(schema_id=-1),))
        )
    with pytest.raises(BadRequestException):  # a v3 type in a v2 table
        v3_type = {
            "action": "add-schema",
            "schema": {
                "type": "struct",
                "fields": [{"id": 9, "name": "v", "type": "variant", "required": False}],
            },
        }
        catalog.tables.commit(WH, NS, table, {"requirements": [], "updates": [v3_type]})


def test_refs_statistics_snapshot_expiry_and_location(catalog, table):
    for sid in (1, 2, 3):
        append(catalog, table, sid)
    stats = StatisticsFile(
        snapshot_id=3,
        statistics_path=f"s3://{WH}/x/stats-3.puffin",
        file_size_in_bytes=10,
        file_footer_size_in_bytes=5,
        blob_metadata=[],
    )
    pstats = PartitionStatisticsFile(
        snapshot_id=1, statistics_path=f"s3://{WH}/x/p1.parquet", file_size_in_bytes=3
    )
    request = commit_request(
        table,
        updates=(
            SetSnapshotRefUpdate(
                ref_name="audit", snapshot_id=2, type=SnapshotRefType.BRANCH, max_ref_age_ms=1000
            ),
            SetSnapshotRefUpdate(ref_name="release", snapshot_id=1, type=SnapshotRefType.TAG),
            SetStatisticsUpdate(statistics=stats),
            SetPartitionStatisticsUpdate(partition_statistics=pstats),
        ),
    )
    meta = parsed(catalog.tables.commit(WH, NS, table, request))
    assert (
        meta.refs["audit"].snapshot_id == 2 and meta.refs["release"].snapshot_ref_type == SnapshotRefType.TAG
    )
    assert meta.statistics[0].snapshot_id == 3 and meta.partition_statistics[0].snapshot_id == 1
    request = commit_request(
        table,
        updates=(
            RemoveSnapshotRefUpdate(ref_name="audit"),
            RemoveStatisticsUpdate(snapshot_id=3),
            RemovePartitionStatisticsUpdate(snapshot_id=1),
        ),
    )
    meta = parsed(catalog.tables.commit(WH, NS, table, request))
    assert "audit" not in meta.refs and meta.statistics == [] and meta.partition_statistics == []
    # expiring snapshot 1 drops the tag on it and the history before it
    meta = parsed(
        catalog.tables.commit(
            WH, NS, table, commit_request(table, updates=(RemoveSnapshotsUpdate(snapshot_ids=[1]),))
        )
    )
    assert [s.snapshot_id for s in meta.snapshots] == [2, 3] and "release" not in meta.refs
    assert [e.snapshot_id for e in meta.snapshot_log] == [2, 3]
    # a rollback is logged at the time of the change
    rollback = commit_request(
        table, updates=(SetSnapshotRefUpdate(ref_name="main", snapshot_id=2, type="branch"),)
    )
    meta = parsed(catalog.tables.commit(WH, NS, table, rollback))
    assert meta.current_snapshot_id == 2 and meta.snapshot_log[-1].snapshot_id == 2
    assert meta.snapshot_log[-1].timestamp_ms == meta.last_updated_ms
    with pytest.raises(BadRequestException):
        tag_main = commit_request(
            table, updates=(SetSnapshotRefUpdate(ref_name="main", snapshot_id=3, type="tag"),)
        )
        catalog.tables.commit(WH, NS, table, tag_main)
    with pytest.raises(BadRequestException):
        unknown = commit_request(
            table, updates=(SetSnapshotRefUpdate(ref_name="b", snapshot_id=99, type="branch"),)
        )
        catalog.tables.commit(WH, NS, table, unknown)
    moved = commit_request(table, updates=(SetLocationUpdate(location=f"s3://{WH}/moved/events"),))
    assert parsed(catalog.tables.commit(WH, NS, table, moved)).location == f"s3://{WH}/moved/events"
    with pytest.raises(BadRequestException):
        away = commit_request(table, updates=(SetLocationUpdate(location="s3://another-bucket/t"),))
        catalog.tables.commit(WH, NS, table, away)


def test_a_commit_that_changes_nothing_writes_nothing(catalog, table):
    before = catalog.tables.load(WH, NS, table).body["metadata-location"]
    same = catalog.tables.commit(
        WH, NS, table, commit_request(table, updates=(SetPropertiesUpdate(updates={}),))
    )
    assert same.body["metadata-location"] == before


def test_gzip_metadata_codec(catalog, table, store):
    request = commit_request(
        table, updates=(SetPropertiesUpdate(updates={"write.metadata.compression-codec": "gzip"}),)
    )
    location = catalog.tables.commit(WH, NS, table, request).body["metadata-location"]
    assert "/metadata/00001-" in location and location.endswith(".gz.metadata.json")
    bucket, key = split_location(location)
    assert (
        json.loads(gzip.decompress(store.get_bytes(bucket, key)[1]))["properties"][
            "write.metadata.compression-codec"
        ]
        == "gzip"
    )
    assert parsed(catalog.tables.load(WH, NS, table)).properties["write.metadata.compression-codec"] == "gzip"
    assert parsed(append(catalog, table, 5)).current_snapshot_id == 5


FAILING_REQUIREMENTS = [
    AssertTableUUID(uuid=uuid.uuid4()),
    AssertRefSnapshotId(ref="main", snapshot_id=999),  # main is at 1
    AssertRefSnapshotId(ref="main", snapshot_id=None),  # main exists
    AssertRefSnapshotId(ref="dev", snapshot_id=1),  # dev is missing
    AssertLastAssignedFieldId(last_assigned_field_id=2),
    AssertCurrentSchemaId(current_schema_id=5),
    AssertLastAssignedPartitionId(last_assigned_partition_id=1001),
    AssertDefaultSpecId(default_spec_id=3),
    AssertDefaultSortOrderId(default_sort_order_id=2),
]


@pytest.mark.parametrize("requirement", FAILING_REQUIREMENTS, ids=lambda r: f"{r.type}")
def test_every_failed_requirement_is_a_409_and_changes_nothing(catalog, table, requirement):
    append(catalog, table, 1)
    before = catalog.tables.load(WH, NS, table).body
    request = commit_request(
        table, requirements=(requirement,), updates=(SetPropertiesUpdate(updates={"x": "1"}),)
    )
    with pytest.raises(CommitFailedException) as failed:
        catalog.tables.commit(WH, NS, table, request)
    assert failed.value.code == 409 and failed.value.type == "CommitFailedException"
    assert catalog.tables.load(WH, NS, table).body == before


def test_unknown_actions_and_requirements_are_400_before_anything_else(catalog, table):
    before = catalog.tables.load(WH, NS, table).body["metadata-location"]
    failing = as_dict(AssertCurrentSchemaId(current_schema_id=7))
    for request in (
        {"requirements": [failing], "updates": [{"action": "make-it-fast"}]},
        {"requirements": [failing, {"type": "assert-nothing"}], "updates": []},
    ):
        with pytest.raises(BadRequestException) as refused:
            catalog.tables.commit(WH, NS, table, request)
        assert refused.value.code == 400
    with pytest.raises(BadRequestException):  # a table's uuid is fixed once created
        catalog.tables.commit(
            WH, NS, table, commit_request(table, updates=(AssignUUIDUpdate(uuid=uuid.uuid4()),))
        )
    assert catalog.tables.load(WH, NS, table).body["metadata-location"] == before
    with pytest.raises(NoSuchTableException):
        catalog.tables.commit(
            WH, NS, "missing", commit_request("missing", updates=(SetPropertiesUpdate(updates={"a": "b"}),))
        )


def test_stale_sequence_number_is_a_409(catalog, table):
    append(catalog, table, 1)
    append(catalog, table, 2)
    stale = snapshot(3, 2, 2, f"s3://{WH}/x/snap-3.avro")  # sequence number 2 is taken
    with pytest.raises(CommitFailedException):
        catalog.tables.commit(
            WH, NS, table, commit_request(table, updates=(AddSnapshotUpdate(snapshot=stale),))
        )


def test_upgrade_format_version_and_encryption_keys(catalog, table):
    append(catalog, table, 1)
    with pytest.raises(BadRequestException):
        catalog.tables.commit(
            WH, NS, table, commit_request(table, updates=(UpgradeFormatVersionUpdate(format_version=1),))
        )
    upgraded = catalog.tables.commit(
        WH, NS, table, commit_request(table, updates=(UpgradeFormatVersionUpdate(format_version=3),))
    )
    assert upgraded.body["metadata"]["format-version"] == 3 and upgraded.body["metadata"]["next-row-id"] == 0
    key = {"key-id": "k1", "encrypted-key-metadata": "c2VjcmV0", "properties": {"kms": "local"}}
    added = catalog.tables.commit(
        WH, NS, table, {"updates": [{"action": "add-encryption-key", "encryption-key": key}]}
    )
    assert added.body["metadata"]["encryption-keys"] == [key]
    removed = catalog.tables.commit(
        WH, NS, table, {"updates": [{"action": "remove-encryption-key", "key-id": "k1"}]}
    )
    assert "encryption-keys" not in removed.body["metadata"]


# -- v3 row lineage -------------------------------------------------------------------------
def write_v3_manifest_list(
    store, location: str, snapshot_id: int, manifests: list[tuple[str, int, int, int]]
):
    """A v3 manifest list (path, added rows, existing rows, first_row_id per data manifest)."""
    from pyiceberg.avro.file import AvroOutputFile

    class BytesOutput:  # a PyIceberg OutputFile that hands its bytes to the store
        def __init__(self):
            self.location = location

        def create(self, overwrite=False):
            import io

            buffer = io.BytesIO()
            close = buffer.close
            buffer.close = lambda: (store.put_bytes(*split_location(location), buffer.getvalue()), close())
            return buffer

    records = [
        ManifestFile.from_args(
            _table_format_version=3,
            manifest_path=path,
            manifest_length=100,
            partition_spec_id=0,
            content=ManifestContent.DATA,
            sequence_number=1,
            min_sequence_number=1,
            added_snapshot_id=snapshot_id,
            added_files_count=1,
            existing_files_count=0,
            deleted_files_count=0,
            added_rows_count=added,
            existing_rows_count=existing,
            deleted_rows_count=0,
            first_row_id=first,
        )
        for path, added, existing, first in manifests
    ]
    schema = MANIFEST_LIST_FILE_SCHEMAS[3]
    with AvroOutputFile[ManifestFile](BytesOutput(), schema, "manifest_file", record_schema=schema) as writer:
        writer.write_block(records)


def test_v3_row_lineage(catalog, store):
    catalog.tables.create(WH, NS, create_request("lineage", properties={"format-version": "3"}))
    meta = parsed(append(catalog, "lineage", 1, first_row_id=0, added_rows=10))
    assert meta.next_row_id == 10 and meta.snapshot_by_id(1).first_row_id == 0
    meta = parsed(append(catalog, "lineage", 2, first_row_id=10, added_rows=5))
    assert meta.next_row_id == 15
    with pytest.raises(CommitFailedException):  # first-row-id behind next-row-id: retry with fresh metadata
        append(catalog, "lineage", 3, first_row_id=12, added_rows=1)
    # a client that leaves first-row-id and added-rows out: the server assigns and counts them
    manifest_list = f"{meta.location}/metadata/snap-4.avro"
    write_v3_manifest_list(store, manifest_list, 4, [(f"{meta.location}/metadata/m1.avro", 7, 3, 15)])
    snap = snapshot(4, meta.last_sequence_number + 1, 2, manifest_list)
    request = commit_request(
        "lineage",
        updates=(
            AddSnapshotUpdate(snapshot=snap),
            SetSnapshotRefUpdate(ref_name="main", snapshot_id=4, type="branch"),
        ),
    )
    meta = parsed(catalog.tables.commit(WH, NS, "lineage", request))
    assert meta.snapshot_by_id(4).first_row_id == 15 and meta.snapshot_by_id(4).added_rows == 10
    assert meta.next_row_id == 25
    # next-row-id moves even for a snapshot that is not on main
    side = snapshot(
        5,
        meta.last_sequence_number + 1,
        4,
        f"{meta.location}/metadata/snap-5.avro",
        first_row_id=25,
        added_rows=4,
    )
    branch = commit_request(
        "lineage",
        updates=(
            AddSnapshotUpdate(snapshot=side),
            SetSnapshotRefUpdate(ref_name="dev", snapshot_id=5, type="branch"),
        ),
    )
    meta = parsed(catalog.tables.commit(WH, NS, "lineage", branch))
    assert meta.next_row_id == 29 and meta.current_snapshot_id == 4


# -- concurrency ----------------------------------------------------------------------------
def run_threads(count: int, work) -> list:
    results: list = [None] * count
    barrier = threading.Barrier(count)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - collected and asserted by the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_concurrent_compatible_commits_all_land(store, catalog, table):
    # one catalog per thread stands for one server process each: no shared in-process lock
    catalogs = [Catalog(store) for _ in range(8)]

    def work(i: int):
        request = commit_request(table, updates=(SetPropertiesUpdate(updates={f"k{i}": str(i)}),))
        return catalogs[i].tables.commit(WH, NS, table, request)

    results = run_threads(8, work)
    assert all(isinstance(r, TableResult) for r in results), results
    meta = parsed(catalog.tables.load(WH, NS, table))
    assert {f"k{i}" for i in range(8)} <= set(meta.properties)
    assert len(meta.metadata_log) == 8  # every commit wrote one version on top of the previous


def interleave_commit_before_swap(catalog: Catalog, competitor) -> list[str]:
    """Make ``catalog``'s next commit lose its first race: right after it planned (and wrote its
    new metadata file), ``competitor()`` commits through another catalog. Returns the locations
    planned, in order."""
    planned: list[str] = []
    plan = catalog.tables.plan

    def plan_then_race(*args):
        result = plan(*args)
        planned.append(result.metadata_location)
        if len(planned) == 1:
            competitor()
        return result

    catalog.tables.plan = plan_then_race
    return planned


def test_a_lost_race_is_replanned_on_fresh_metadata(store, catalog, table):
    other = Catalog(store)
    planned = interleave_commit_before_swap(
        catalog,
        lambda: other.tables.commit(
            WH, NS, table, commit_request(table, updates=(SetPropertiesUpdate(updates={"theirs": "1"}),))
        ),
    )
    ours = commit_request(
        table,
        requirements=(AssertCurrentSchemaId(current_schema_id=0),),
        updates=(SetPropertiesUpdate(updates={"ours": "1"}),),
    )
    result = catalog.tables.commit(WH, NS, table, ours)
    meta = parsed(result)
    assert meta.properties["ours"] == "1" and meta.properties["theirs"] == "1"
    assert len(planned) == 2 and result.body["metadata-location"] == planned[1]
    assert "/metadata/00002-" in planned[1]
    with pytest.raises(NoSuchKey):  # the loser's metadata file was removed
        store.get_object_info(*split_location(planned[0]))


def test_a_lost_race_whose_requirement_no_longer_holds_is_a_409(store, catalog, table):
    other = Catalog(store)
    evolved = Schema(*SCHEMA.fields, NestedField(4, "extra", StringType(), required=False))
    interleave_commit_before_swap(
        catalog,
        lambda: other.tables.commit(
            WH,
            NS,
            table,
            commit_request(
                table, updates=(AddSchemaUpdate(schema_=evolved), SetCurrentSchemaUpdate(schema_id=-1))
            ),
        ),
    )
    ours = commit_request(
        table,
        requirements=(AssertCurrentSchemaId(current_schema_id=0),),
        updates=(SetPropertiesUpdate(updates={"ours": "1"}),),
    )
    with pytest.raises(CommitFailedException):
        catalog.tables.commit(WH, NS, table, ours)
    assert "ours" not in parsed(catalog.tables.load(WH, NS, table)).properties


def test_concurrent_appends_on_the_same_head_one_wins(store, catalog, table):
    other = Catalog(store)
    catalogs = [catalog, other]
    meta = parsed(catalog.tables.load(WH, NS, table))

    def work(i: int):
        snap = snapshot(1000 + i, 1, None, f"{meta.location}/metadata/snap-{i}.avro")
        request = commit_request(
            table,
            requirements=(AssertRefSnapshotId(ref="main", snapshot_id=None),),
            updates=(
                AddSnapshotUpdate(snapshot=snap),
                SetSnapshotRefUpdate(ref_name="main", snapshot_id=1000 + i, type="branch"),
            ),
        )
        return catalogs[i % 2].tables.commit(WH, NS, table, request)

    results = run_threads(6, work)
    winners = [r for r in results if isinstance(r, TableResult)]
    losers = [r for r in results if isinstance(r, CommitFailedException)]
    assert len(winners) == 1 and len(losers) == 5
    final = parsed(catalog.tables.load(WH, NS, table))
    assert len(final.snapshots) == 1 and final.current_snapshot_id == parsed(winners[0]).current_snapshot_id
    # losers left no metadata files behind
    assert len([k for k in store_keys(store, meta.location) if k.endswith(".metadata.json")]) == 2


# -- multi-table transactions ---------------------------------------------------------------
def test_transaction_commits_all_tables(catalog):
    for name in ("a", "b"):
        catalog.tables.create(WH, NS, create_request(name))
    changes = [
        commit_request(name, updates=(SetPropertiesUpdate(updates={"batch": "7"}),)) for name in ("a", "b")
    ]
    assert catalog.transactions.commit(WH, {"table-changes": changes}) is None
    for name in ("a", "b"):
        assert parsed(catalog.tables.load(WH, NS, name)).properties["batch"] == "7"
    # the decision document is gone once every pointer is final
    assert not catalog.ctx.docs.list("iceberg/transactions/").objects


def test_transaction_is_all_or_nothing(catalog, store):
    for name in ("a", "b"):
        catalog.tables.create(WH, NS, create_request(name))
    before = {n: catalog.tables.load(WH, NS, n).body["metadata-location"] for n in ("a", "b")}
    good = commit_request("a", updates=(SetPropertiesUpdate(updates={"x": "1"}),))
    bad = commit_request(
        "b",
        requirements=(AssertCurrentSchemaId(current_schema_id=9),),
        updates=(SetPropertiesUpdate(updates={"x": "1"}),),
    )
    with pytest.raises(CommitFailedException):
        catalog.transactions.commit(WH, {"table-changes": [good, bad]})
    missing = commit_request("zzz", updates=(SetPropertiesUpdate(updates={"x": "1"}),))
    with pytest.raises(NoSuchTableException):
        catalog.transactions.commit(WH, {"table-changes": [good, missing]})
    with pytest.raises(BadRequestException):
        catalog.transactions.commit(WH, {"table-changes": [good, good]})
    with pytest.raises(BadRequestException):
        catalog.transactions.commit(WH, {"table-changes": [{"requirements": [], "updates": []}]})
    after = {n: catalog.tables.load(WH, NS, n).body["metadata-location"] for n in ("a", "b")}
    assert after == before
    location = parsed(catalog.tables.load(WH, NS, "a")).location
    assert len([k for k in store_keys(store, location) if k.endswith(".metadata.json")]) == 1


def prepared_but_undecided(catalog: Catalog, name: str) -> tuple[str, str]:
    """Leave table ``name`` prepared by a transaction whose coordinator died before deciding;
    returns (transaction id, the new metadata location it would have committed)."""
    key = catalog.tables.entries.key(WH, NS, name, "table")
    pointer = catalog.ctx.pointers.settled(key)
    planned = catalog.tables.plan(WH, pointer, [], [as_dict(SetPropertiesUpdate(updates={"txn": "yes"}))])
    txn = str(uuid.uuid4())
    assert catalog.ctx.pointers.prepare(pointer, planned.pointer_body, txn) is not None
    return txn, planned.metadata_location


def test_pending_transaction_is_invisible_until_decided_then_rolled_forward(catalog, table):
    before = catalog.tables.load(WH, NS, table).body["metadata-location"]
    txn, new_location = prepared_but_undecided(catalog, table)
    assert catalog.tables.load(WH, NS, table).body["metadata-location"] == before
    catalog.ctx.docs.create(f"iceberg/transactions/{txn}.json", {"state": "committed"})  # the commit point
    assert catalog.tables.load(WH, NS, table).body["metadata-location"] == new_location
    meta = parsed(append(catalog, table, 1))  # a writer rolls the pointer forward first
    assert meta.properties["txn"] == "yes" and meta.metadata_log[-1].metadata_file == new_location


def test_stale_pending_transaction_is_aborted_by_the_next_writer(store, table, catalog):
    before = catalog.tables.load(WH, NS, table).body["metadata-location"]
    txn, _ = prepared_but_undecided(catalog, table)
    clock = [catalog.ctx.now() + 120]  # two minutes later: the coordinator is gone
    later = Catalog(store, now=lambda: clock[0])
    meta = parsed(append(later, table, 1))
    assert "txn" not in meta.properties and meta.metadata_log[-1].metadata_file == before
    assert later.ctx.pointers.decision(txn) == "aborted"


def test_young_pending_transaction_makes_writers_wait_then_409(store, catalog, table):
    prepared_but_undecided(catalog, table)
    catalog.ctx.pointers._settle_wait_s = 0.1
    with pytest.raises(CommitFailedException):
        catalog.tables.commit(
            WH, NS, table, commit_request(table, updates=(SetPropertiesUpdate(updates={"a": "b"}),))
        )


# -- drop, rename, register -----------------------------------------------------------------
def test_drop_with_and_without_purge(catalog, store):
    kept = catalog.tables.create(WH, NS, create_request("kept")).body["metadata"]["location"]
    catalog.tables.drop(WH, NS, "kept")
    assert store_keys(store, kept)  # files stay
    with pytest.raises(NoSuchTableException):
        catalog.tables.load(WH, NS, "kept")
    catalog.tables.create(WH, NS, create_request("purged"))
    append(catalog, "purged", 1)
    location = parsed(catalog.tables.load(WH, NS, "purged")).location
    store.put_bytes(WH, split_location(location)[1] + "/data/part-0.parquet", b"rows")
    assert len(store_keys(store, location)) == 3
    catalog.tables.drop(WH, NS, "purged", purge=True)
    assert store_keys(store, location) == []
    with pytest.raises(NoSuchTableException):
        catalog.tables.drop(WH, NS, "purged")


def test_purge_skips_files_shared_with_another_table(catalog, store):
    catalog.tables.create(WH, NS, create_request("outer", location=f"s3://{WH}/shared"))
    catalog.tables.create(WH, NS, create_request("inner", location=f"s3://{WH}/shared/inner"))
    catalog.tables.drop(WH, NS, "outer", purge=True)
    assert store_keys(store, f"s3://{WH}/shared/inner")


def test_rename_within_and_across_namespaces(catalog, table):
    uuid_before = parsed(catalog.tables.load(WH, NS, table)).table_uuid
    rename = {"source": {"namespace": NS, "name": table}, "destination": {"namespace": NS, "name": "renamed"}}
    catalog.tables.rename(WH, rename)
    assert parsed(catalog.tables.load(WH, NS, "renamed")).table_uuid == uuid_before
    with pytest.raises(NoSuchTableException):
        catalog.tables.load(WH, NS, table)
    catalog.namespaces.create(WH, {"namespace": ["archive"]})
    across = {
        "source": {"namespace": NS, "name": "renamed"},
        "destination": {"namespace": ["archive"], "name": "old"},
    }
    catalog.tables.rename(WH, across)
    assert parsed(catalog.tables.load(WH, ["archive"], "old")).table_uuid == uuid_before
    assert parsed(append(catalog, "old", 1, namespace=["archive"])).current_snapshot_id == 1
    with pytest.raises(NoSuchTableException):
        catalog.tables.rename(WH, rename)
    with pytest.raises(NoSuchNamespaceException):
        catalog.tables.rename(
            WH,
            {
                "source": {"namespace": ["archive"], "name": "old"},
                "destination": {"namespace": ["nope"], "name": "x"},
            },
        )
    catalog.tables.create(WH, NS, create_request("taken"))
    with pytest.raises(AlreadyExistsException):
        catalog.tables.rename(
            WH,
            {
                "source": {"namespace": ["archive"], "name": "old"},
                "destination": {"namespace": NS, "name": "taken"},
            },
        )


def test_register_existing_metadata(catalog, table):
    location = append(catalog, table, 1).body["metadata-location"]
    catalog.tables.drop(WH, NS, table)
    request = as_dict(RegisterTableRequest(name="restored", metadata_location=location, overwrite=False))
    restored = catalog.tables.register(WH, NS, request)
    assert restored.body["metadata-location"] == location
    assert parsed(restored).current_snapshot_id == 1
    assert parsed(append(catalog, "restored", 2)).metadata_log[-1].metadata_file == location
    with pytest.raises(AlreadyExistsException):
        catalog.tables.register(WH, NS, request)
    overwrite = as_dict(RegisterTableRequest(name="restored", metadata_location=location, overwrite=True))
    assert catalog.tables.register(WH, NS, overwrite).body["metadata-location"] == location
    assert catalog.tables.load(WH, NS, "restored").body["metadata-location"] == location
    with pytest.raises(BadRequestException):
        catalog.tables.register(WH, NS, {"name": "x", "metadata-location": "s3://elsewhere/m.metadata.json"})
    with pytest.raises(BadRequestException):
        catalog.tables.register(WH, NS, {"name": "x", "metadata-location": f"s3://{WH}/none/0.metadata.json"})


def test_report_metrics_is_accepted_in_existing_namespaces(catalog, table):
    report = {
        "report-type": "commit-report",
        "table-name": f"db.{table}",
        "snapshot-id": 1,
        "sequence-number": 1,
        "operation": "append",
        "metrics": {},
    }
    assert catalog.tables.report_metrics(WH, NS, table, report) is None
    # a staged create reports before its table exists
    assert catalog.tables.report_metrics(WH, NS, "staged", report) is None
    with pytest.raises(NoSuchNamespaceException):
        catalog.tables.report_metrics(WH, ["missing"], table, report)
    with pytest.raises(BadRequestException):
        catalog.tables.report_metrics(WH, NS, table, {"metrics": {}})


# -- views ----------------------------------------------------------------------------------
def view_version(sql: str, dialect: str = "spark", schema_id: int = 0) -> ViewVersion:
    return ViewVersion(
        version_id=1,
        schema_id=schema_id,
        summary={"engine-name": "spark"},
        representations=[ViewRepresentation(SQLViewRepresentation(type="sql", sql=sql, dialect=dialect))],
        default_namespace=NS,
    )


def test_views_lifecycle(catalog, table):
    request = as_dict(
        CreateViewRequest(
            name="recent",
            location=None,
            view_schema=SCHEMA,
            view_version=view_version("select * from events"),
            properties={"comment": "last day"},
        )
    )
    created = catalog.views.create(WH, NS, request)
    meta = ViewMetadata.model_validate(created["metadata"])
    assert meta.current_version_id == 1 and meta.versions[0].schema_id == 0 and len(meta.version_log) == 1
    assert created["metadata-location"].startswith(f"s3://{WH}/{meta.view_uuid}/metadata/00000-")
    assert catalog.views.list(WH, NS)["identifiers"] == [{"namespace": NS, "name": "recent"}]
    assert catalog.tables.list(WH, NS)["identifiers"] == [{"namespace": NS, "name": table}]
    catalog.views.exists(WH, NS, "recent")
    with pytest.raises(AlreadyExistsException):  # tables and views share names
        catalog.views.create(WH, NS, {**request, "name": table})
    with pytest.raises(AlreadyExistsException):
        catalog.tables.create(WH, NS, create_request("recent"))
    with pytest.raises(NoSuchTableException):
        catalog.tables.load(WH, NS, "recent")

    evolved = Schema(*SCHEMA.fields, NestedField(4, "day", StringType(), required=False))
    replace = {
        "requirements": [{"type": "assert-view-uuid", "uuid": meta.view_uuid}],
        "updates": [
            as_dict(AddSchemaUpdate(schema_=evolved)),
            {
                "action": "add-view-version",
                "view-version": as_dict(view_version("select *, day from events", schema_id=-1)),
            },
            {"action": "set-current-view-version", "view-version-id": -1},
            {"action": "set-properties", "updates": {"owner": "bi"}},
        ],
    }
    replaced = catalog.views.replace(WH, NS, "recent", replace)
    meta = ViewMetadata.model_validate(replaced["metadata"])
    assert meta.current_version_id == 2 and meta.versions[1].schema_id == 1
    assert [e.version_id for e in meta.version_log] == [1, 2] and meta.properties["owner"] == "bi"
    assert "/metadata/00001-" in replaced["metadata-location"]
    assert catalog.views.load(WH, NS, "recent") == replaced

    wrong_uuid = {"requirements": [{"type": "assert-view-uuid", "uuid": str(uuid.uuid4())}], "updates": []}
    with pytest.raises(CommitFailedException):
        catalog.views.replace(WH, NS, "recent", wrong_uuid)
    with pytest.raises(BadRequestException):
        catalog.views.replace(WH, NS, "recent", {"updates": [{"action": "add-snapshot", "snapshot": {}}]})
    dropped_dialect = {
        "updates": [
            {
                "action": "add-view-version",
                "view-version": as_dict(view_version("select 1", dialect="trino", schema_id=1)),
            },
            {"action": "set-current-view-version", "view-version-id": -1},
        ]
    }
    with pytest.raises(BadRequestException):
        catalog.views.replace(WH, NS, "recent", dropped_dialect)

    catalog.views.rename(
        WH, {"source": {"namespace": NS, "name": "recent"}, "destination": {"namespace": NS, "name": "daily"}}
    )
    assert catalog.views.load(WH, NS, "daily")["metadata"]["view-uuid"] == meta.view_uuid
    catalog.views.drop(WH, NS, "daily")
    with pytest.raises(NoSuchViewException):
        catalog.views.load(WH, NS, "daily")


# -- idempotency ----------------------------------------------------------------------------
def test_idempotency_key_replays_the_first_response(catalog):
    key = str(uuid.uuid4())
    first = catalog.tables.create(WH, NS, create_request("once"), idempotency_key=key)
    again = catalog.tables.create(WH, NS, create_request("once"), idempotency_key=key)
    assert again == first
    with pytest.raises(AlreadyExistsException):
        catalog.tables.create(WH, NS, create_request("once"))  # without the key it really runs
    with pytest.raises(UnprocessableEntityException):
        catalog.namespaces.create(WH, {"namespace": ["other"]}, idempotency_key=key)

    failed_key = str(uuid.uuid4())
    with pytest.raises(NoSuchNamespaceException):
        catalog.tables.create(WH, ["later"], create_request("t"), idempotency_key=failed_key)
    catalog.namespaces.create(WH, {"namespace": ["later"]})
    with pytest.raises(NoSuchNamespaceException):  # a finalized 4xx is replayed too
        catalog.tables.create(WH, ["later"], create_request("t"), idempotency_key=failed_key)

    commit_key = str(uuid.uuid4())
    request = commit_request("once", updates=(SetPropertiesUpdate(updates={"n": "1"}),))
    done = catalog.tables.commit(WH, NS, "once", request, idempotency_key=commit_key)
    assert catalog.tables.commit(WH, NS, "once", request, idempotency_key=commit_key) == done
    assert len(parsed(catalog.tables.load(WH, NS, "once")).metadata_log) == 1  # applied once


def test_idempotency_is_shared_across_catalog_instances(store, catalog):
    key = str(uuid.uuid4())
    catalog.namespaces.create(WH, {"namespace": ["shared"]}, idempotency_key=key)
    replay = Catalog(store).namespaces.create(WH, {"namespace": ["shared"]}, idempotency_key=key)
    assert replay == {"namespace": ["shared"], "properties": {}}


# -- PyIceberg's own table API, end to end ------------------------------------------------
def test_pyiceberg_table_api_end_to_end(catalog, store):
    client = InProcessRestCatalog(catalog)
    catalog.tables.create(WH, NS, create_request("orders", schema=OPTIONAL_SCHEMA))
    orders = client.load(store, NS, "orders")
    orders.append(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}))
    with orders.update_schema() as update:
        update.add_column("country", StringType())
    with orders.update_spec() as update:
        update.add_identity("country")
    with orders.update_sort_order() as update:
        update.asc("id", IdentityTransform())
    orders.manage_snapshots().create_tag(orders.metadata.current_snapshot_id, "first").commit()
    with orders.transaction() as tx:
        tx.set_properties(owner="sales")
        tx.append(pa.table({"id": [4], "name": ["d"], "country": ["nl"]}))

    fresh = client.load(store, NS, "orders")
    assert fresh.scan().to_arrow().num_rows == 4
    assert fresh.metadata.default_spec_id == 1 and fresh.metadata.default_sort_order_id == 1
    assert fresh.metadata.properties["owner"] == "sales" and "first" in fresh.metadata.refs
    assert [e.snapshot_id for e in fresh.metadata.snapshot_log] == [
        s.snapshot_id for s in fresh.metadata.snapshots
    ]

    stale = client.load(store, NS, "orders")
    fresh.append(pa.table({"id": [5], "name": ["e"], "country": ["be"]}))
    with pytest.raises(CommitFailedException):  # main moved under the stale client
        stale.append(pa.table({"id": [6], "name": ["f"], "country": ["fr"]}))
    assert client.load(store, NS, "orders").scan().to_arrow().num_rows == 5


def test_pyiceberg_create_table_transaction(catalog, store):
    client = InProcessRestCatalog(catalog)
    staged_body = catalog.tables.create(
        WH, NS, create_request("ctas2", schema=OPTIONAL_SCHEMA, stage_create=True)
    ).body
    staged = StagedTable(("db", "ctas2"), parsed(staged_body), None, StoreFileIO(store), client)
    tx = CreateTableTransaction(staged)
    tx.append(pa.table({"id": [1, 2], "name": ["x", "y"]}))
    created = tx.commit_transaction()
    assert created.metadata.table_uuid == parsed(staged_body).table_uuid
    assert client.load(store, NS, "ctas2").scan().to_arrow().num_rows == 2


# -- table-aware protection -----------------------------------------------------------------
def test_is_referenced_covers_metadata_manifest_lists_and_manifests(catalog, store):
    client = InProcessRestCatalog(catalog)
    catalog.tables.create(WH, NS, create_request("guarded", schema=OPTIONAL_SCHEMA))
    first_metadata = catalog.tables.load(WH, NS, "guarded").body["metadata-location"]
    assert catalog.is_referenced(*split_location(first_metadata))
    guarded = client.load(store, NS, "guarded")
    guarded.append(pa.table({"id": [1], "name": ["a"]}))
    current = catalog.tables.load(WH, NS, "guarded").body["metadata-location"]
    snapshot_ = guarded.metadata.current_snapshot()
    manifests = snapshot_.manifests(guarded.io)
    data_file = next(iter(manifests[0].fetch_manifest_entry(guarded.io))).data_file.file_path

    assert catalog.is_referenced(*split_location(current))
    assert catalog.is_referenced(*split_location(snapshot_.manifest_list))
    assert all(catalog.is_referenced(*split_location(m.manifest_path)) for m in manifests)
    assert not catalog.is_referenced(*split_location(first_metadata))  # superseded
    assert not catalog.is_referenced(*split_location(data_file))  # data files are not covered
    assert not catalog.is_referenced(WH, "unrelated/snap-1.avro")
    assert not catalog.is_referenced("not-a-warehouse", "x.metadata.json")
    catalog.tables.drop(WH, NS, "guarded")
    assert not catalog.is_referenced(*split_location(manifests[0].manifest_path))


def test_is_referenced_reads_only_new_manifest_lists_until_snapshots_expire(catalog, store, monkeypatch):
    client = InProcessRestCatalog(catalog)
    catalog.tables.create(WH, NS, create_request("growing", schema=OPTIONAL_SCHEMA))
    growing = client.load(store, NS, "growing")
    lists_read: list[str] = []  # the manifest lists the catalog reads (its metadata files are JSON)
    read_bytes = catalog.ctx.files.read_bytes

    def reading(location: str) -> bytes:
        if location.endswith(".avro"):
            lists_read.append(location)
        return read_bytes(location)

    monkeypatch.setattr(catalog.ctx.files, "read_bytes", reading)
    for row in range(3):
        growing.append(pa.table({"id": [row], "name": ["a"]}))
        newest = growing.metadata.current_snapshot()
        lists_read.clear()
        assert catalog.is_referenced(*split_location(newest.manifest_list))
        assert lists_read == [newest.manifest_list]  # one commit, one new list: the older ones are known
    for snapshot_ in growing.metadata.snapshots:
        assert catalog.is_referenced(*split_location(snapshot_.manifest_list))
        assert all(catalog.is_referenced(*split_location(m.manifest_path)) for m in snapshot_.manifests(growing.io))

    first, *kept = growing.metadata.snapshots
    expire = commit_request("growing", updates=(RemoveSnapshotsUpdate(snapshot_ids=[first.snapshot_id]),))
    catalog.tables.commit(WH, NS, "growing", expire)
    lists_read.clear()
    assert not catalog.is_referenced(*split_location(first.manifest_list))  # expired: no longer protected
    assert sorted(lists_read) == sorted(s.manifest_list for s in kept)  # every remaining list read again
    # the first snapshot's manifest is carried by the later lists, so it stays protected
    assert all(catalog.is_referenced(*split_location(m.manifest_path)) for m in first.manifests(growing.io))


def test_catalog_state_lives_in_the_system_bucket(catalog, table, store):
    keys = [o.key for o in store.list_objects(SYSTEM_BUCKET, prefix="iceberg/").objects]
    assert f"iceberg/warehouses/{WH}.json" in keys
    assert f"iceberg/catalog/{WH}/db/!namespace.json" in keys
    assert f"iceberg/catalog/{WH}/db/!tables/{table}.json" in keys
    pointer = json.loads(store.get_bytes(SYSTEM_BUCKET, f"iceberg/catalog/{WH}/db/!tables/{table}.json")[1])
    assert pointer["metadata-location"] == catalog.tables.load(WH, NS, table).body["metadata-location"]
    # a second catalog on the same store sees everything
    assert Catalog(store).tables.list(WH, NS)["identifiers"] == [{"namespace": NS, "name": table}]
