"""The Iceberg ("uniform") table source of the sharing server: Iceberg metadata as Delta answers.

Tables are written with PyIceberg through the real server; the source reads them in this process
through a second LocalStore on the server's data directory, and its answers are checked against what
PyIceberg itself plans and reads. Row-level deletes that PyIceberg cannot write (v3 deletion vectors,
v2 position and equality delete files) are committed with PyIceberg's own Avro writers and the REST
catalog. Deletion vector files are decoded here per delta-io/delta PROTOCOL.md, independently of the
product's code.
"""

from __future__ import annotations

import datetime
import io
import json
import random
import uuid
import zlib
from decimal import Decimal

import delta_sharing
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.avro.file import AvroOutputFile
from pyiceberg.catalog import load_catalog
from pyiceberg.conversions import to_bytes
from pyiceberg.manifest import (
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestContent,
    ManifestEntry,
    ManifestEntryStatus,
    ManifestListWriterV2,
    ManifestWriterV2,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.typedef import Record
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)
from pyroaring import BitMap64

from aistor_lab.sharing import iceberg_dv
from aistor_lab.sharing.errors import InvalidParameter, NotFound, UnsupportedOperation
from aistor_lab.sharing.iceberg_files import ManifestRow
from aistor_lab.sharing.iceberg_partitions import partition_value
from aistor_lab.sharing.iceberg_schema import delta_schema
from aistor_lab.sharing.iceberg_source import IcebergSource
from aistor_lab.sharing.iceberg_stats import DeltaStats
from aistor_lab.store import LocalStore
from aistor_lab.tables import Catalog

from .conftest import catalog_call, seed_catalog_properties
from .sharing_support import share_profile

WAREHOUSE = "sharing-iceberg"
DELTA_DV_MAGIC = 1681511377
PUFFIN_MAGIC = b"PFA1"
DV_MAGIC_BYTES = bytes([0xD1, 0xD3, 0x39, 0x64])  # puffin-spec.md, deletion-vector-v1
POS_FILE_PATH_ID, POS_POS_ID = 2147483546, 2147483545  # reserved field ids of position delete files

SIMPLE = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType()))


# -- fixtures and helpers ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def iceberg(server):
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    return load_catalog("aistor", **seed_catalog_properties(server, WAREHOUSE))


@pytest.fixture(scope="module")
def local(server):
    """The server's store and catalog, opened a second time in this process (as the sharing service
    inside the server opens them)."""
    store = LocalStore(server.data_dir)
    yield Catalog(store), store
    store.close()


@pytest.fixture
def namespace(iceberg):
    name = f"ns_{uuid.uuid4().hex[:8]}"
    iceberg.create_namespace(name)
    return name


def source(local, namespace: str, table: str) -> IcebergSource:
    catalog, store = local
    return IcebergSource(catalog, store, WAREHOUSE, [namespace], table)


def simple_rows(ids: list[int]) -> pa.Table:
    return pa.table(
        {"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids]},
        schema=pa.schema([pa.field("id", pa.int64(), False), pa.field("name", pa.string())]),
    )


def read_object(local, location: str) -> bytes:
    bucket, key = location.removeprefix("s3://").split("/", 1)
    return local[1].get_bytes(bucket, key)[1]


def delta_dv_positions(local, descriptor: dict) -> list[int]:
    """Decode a Delta deletion vector file as delta-io/delta PROTOCOL.md specifies it."""
    assert descriptor["storageType"] == "p"
    data = read_object(local, descriptor["pathOrInlineDv"])
    assert data[0] == 1  # the file format version
    at = descriptor["offset"]
    size = int.from_bytes(data[at : at + 4], "big")
    assert size == descriptor["sizeInBytes"]
    body = data[at + 4 : at + 4 + size]
    assert int.from_bytes(body[:4], "little") == DELTA_DV_MAGIC
    assert zlib.crc32(body) == int.from_bytes(data[at + 4 + size : at + 8 + size], "big")
    positions = BitMap64.deserialize(body[4:])
    assert len(positions) == descriptor["cardinality"]
    return list(positions)


def shared_rows(local, files) -> list[dict]:
    """The rows a Delta reader sees: each listed Parquet file, less its deletion vector."""
    rows = []
    for action in files:
        table = pq.read_table(io.BytesIO(read_object(local, action.path)))
        deleted = set(delta_dv_positions(local, action.deletion_vector)) if action.deletion_vector else set()
        rows += [row for i, row in enumerate(table.to_pylist()) if i not in deleted]
    return sorted(rows, key=lambda r: r["id"])


def iceberg_rows(table, snapshot_id: int | None = None) -> list[dict]:
    return sorted(table.scan(snapshot_id=snapshot_id).to_arrow().to_pylist(), key=lambda r: r["id"])


def planned_paths(table, snapshot_id: int | None = None) -> set[str]:
    return {task.file.file_path for task in table.scan(snapshot_id=snapshot_id).plan_files()}


class DeleteManifestWriter(ManifestWriterV2):
    """A delete manifest of format v2 or v3 (PyIceberg 0.12 writes data manifests of v1/v2 only)."""

    def __init__(self, format_version: int, *args):
        super().__init__(*args)
        self._format_version = format_version

    def content(self) -> ManifestContent:
        return ManifestContent.DELETES

    @property
    def version(self):
        return self._format_version

    @property
    def _meta(self) -> dict[str, str]:
        return {**super()._meta, "content": "deletes"}

    def new_writer(self) -> AvroOutputFile[ManifestEntry]:
        schema = self._with_partition(self._format_version)
        return AvroOutputFile[ManifestEntry](
            output_file=self._output_file, file_schema=schema, record_schema=schema,
            schema_name="manifest_entry", metadata=self._meta,
        )


class ManifestListWriterV3(ManifestListWriterV2):
    def __init__(self, *args):
        super().__init__(*args)
        self._format_version = 3
        self._meta["format-version"] = "3"


def write_file(table, name: str, data: bytes) -> str:
    location = f"{table.location()}/data/{uuid.uuid4().hex}-{name}"
    with table.io.new_output(location).create() as out:
        out.write(data)
    return location


def commit_delete_files(server, namespace: str, name: str, table, delete_files: list[DataFile]) -> None:
    """Commit a snapshot that adds delete files: a delete manifest and a manifest list written with
    PyIceberg's Avro writers, committed with add-snapshot + set-snapshot-ref through the REST catalog."""
    version = table.metadata.format_version
    parent = table.current_snapshot()
    snapshot_id = random.getrandbits(62)
    manifest = f"{table.location()}/metadata/{uuid.uuid4().hex}-m0.avro"
    with DeleteManifestWriter(
        version, table.spec(), table.schema(), table.io.new_output(manifest), snapshot_id, "deflate"
    ) as writer:
        for delete_file in delete_files:
            writer.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=snapshot_id,
                                               data_file=delete_file))
    manifest_list = f"{table.location()}/metadata/snap-{snapshot_id}-0-{uuid.uuid4().hex}.avro"
    list_writer = ManifestListWriterV3 if version == 3 else ManifestListWriterV2
    sequence_number = table.metadata.last_sequence_number + 1
    with list_writer(table.io.new_output(manifest_list), snapshot_id, parent.snapshot_id, sequence_number,
                     "deflate") as lists:
        lists.add_manifests([*parent.manifests(table.io), writer.to_manifest_file()])
    snapshot = {
        "snapshot-id": snapshot_id, "parent-snapshot-id": parent.snapshot_id,
        "sequence-number": sequence_number, "timestamp-ms": parent.timestamp_ms + 1,
        "manifest-list": manifest_list, "summary": {"operation": "delete"},
        "schema-id": table.schema().schema_id,
    }
    status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/{name}", {
        "requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent.snapshot_id}],
        "updates": [
            {"action": "add-snapshot", "snapshot": snapshot},
            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": snapshot_id},
        ],
    })
    assert status == 200, body


def puffin_with_deletion_vector(data_file: str, positions: list[int]) -> tuple[bytes, int, int]:
    """A Puffin file with one deletion-vector-v1 blob, built per puffin-spec.md: (file, offset, length)."""
    vector = DV_MAGIC_BYTES + BitMap64(positions).serialize()  # the portable 64-bit Roaring format
    blob = len(vector).to_bytes(4, "big") + vector + zlib.crc32(vector).to_bytes(4, "big")
    footer = json.dumps({"blobs": [{
        "type": "deletion-vector-v1", "fields": [2147483645], "snapshot-id": -1, "sequence-number": -1,
        "offset": 4, "length": len(blob),
        "properties": {"referenced-data-file": data_file, "cardinality": str(len(positions))},
    }]}).encode()
    data = PUFFIN_MAGIC + blob + PUFFIN_MAGIC + footer + len(footer).to_bytes(4, "little") + bytes(4) + PUFFIN_MAGIC
    return data, 4, len(blob)


def parquet_bytes(table: pa.Table) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def position_deletes(deletes: dict[str, list[int]]) -> bytes:
    schema = pa.schema([
        pa.field("file_path", pa.string(), False, metadata={b"PARQUET:field_id": str(POS_FILE_PATH_ID).encode()}),
        pa.field("pos", pa.int64(), False, metadata={b"PARQUET:field_id": str(POS_POS_ID).encode()}),
    ])
    pairs = sorted((path, pos) for path, positions in deletes.items() for pos in positions)
    return parquet_bytes(pa.table({"file_path": [p for p, _ in pairs], "pos": [p for _, p in pairs]}, schema=schema))


def delete_file(location: str, size: int, records: int, content: DataFileContent, file_format: FileFormat,
                format_version: int, **fields) -> DataFile:
    return DataFile.from_args(
        _table_format_version=format_version, content=content, file_path=location, file_format=file_format,
        partition=Record(), record_count=records, file_size_in_bytes=size, **fields,
    )


# -- conversions on values the specs define ------------------------------------------------------------
def test_schema_conversion():
    schema = Schema(
        NestedField(1, "id", LongType(), required=True, doc="the key"),
        NestedField(2, "n", IntegerType()),
        NestedField(3, "flag", BooleanType(), required=True),
        NestedField(4, "f", FloatType()),
        NestedField(5, "d", DoubleType()),
        NestedField(6, "amount", DecimalType(38, 9)),
        NestedField(7, "day", DateType()),
        NestedField(8, "local", TimestampType()),
        NestedField(9, "instant", TimestamptzType()),
        NestedField(10, "key", UUIDType()),
        NestedField(11, "hash", FixedType(16)),
        NestedField(12, "tags", ListType(13, StringType(), element_required=True)),
        NestedField(14, "attrs", MapType(15, StringType(), 16, LongType(), value_required=False)),
        NestedField(17, "point", StructType(NestedField(18, "x", DoubleType(), required=True))),
    )
    fields = {f["name"]: f for f in delta_schema(schema)["fields"]}
    assert fields["id"] == {"name": "id", "type": "long", "nullable": False, "metadata": {"comment": "the key"}}
    assert [fields[n]["type"] for n in ("n", "flag", "f", "d", "amount", "day", "local", "instant", "key", "hash")] \
        == ["integer", "boolean", "float", "double", "decimal(38,9)", "date", "timestamp_ntz", "timestamp",
            "binary", "binary"]
    assert fields["flag"]["nullable"] is False and fields["n"]["nullable"] is True
    assert fields["tags"]["type"] == {"type": "array", "elementType": "string", "containsNull": False}
    assert fields["attrs"]["type"] == {"type": "map", "keyType": "string", "valueType": "long",
                                       "valueContainsNull": True}
    assert fields["point"]["type"] == {"type": "struct", "fields": [
        {"name": "x", "type": "double", "nullable": False, "metadata": {}}]}
    with pytest.raises(UnsupportedOperation, match="time"):
        delta_schema(Schema(NestedField(1, "t", TimeType())))


def test_partition_value_serialization():
    assert partition_value(DateType(), 19723) == "2024-01-01"
    assert partition_value(TimestampType(), 1704103323456789) == "2024-01-01 10:02:03.456789"
    assert partition_value(TimestamptzType(), 0) == "1970-01-01T00:00:00.000000Z"
    assert partition_value(DecimalType(10, 2), Decimal("-3.25")) == "-3.25"
    assert partition_value(DecimalType(10, 0), Decimal("1E+2")) == "100"
    assert partition_value(BooleanType(), True) == "true"
    assert partition_value(LongType(), -7) == "-7"
    assert partition_value(DoubleType(), float("nan")) == "NaN"
    assert partition_value(StringType(), "a b") == "a b"
    assert partition_value(StringType(), None) is None


def manifest_row(lower: dict, upper: dict, nulls: dict, records: int = 5) -> ManifestRow:
    return ManifestRow(
        status=1, snapshot_id=1, sequence_number=1, content=0, path="s3://b/f.parquet", file_format="PARQUET",
        spec_id=0, partition=(), record_count=records, size=10, null_counts=nulls, lower_bounds=lower,
        upper_bounds=upper, referenced_data_file=None, content_offset=None, content_size=None,
    )


def test_stats_from_manifest_bounds():
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "ts", TimestamptzType()),
        NestedField(3, "price", DecimalType(10, 2)),
        NestedField(4, "huge", DecimalType(38, 0)),
        NestedField(5, "point", StructType(NestedField(6, "x", DoubleType()))),
        NestedField(7, "raw", FixedType(4)),
        NestedField(8, "tags", ListType(9, StringType())),
    )
    ts_min, ts_max = 1704103323456789, 1704103323457001  # microseconds
    row = manifest_row(
        lower={1: to_bytes(IntegerType(), 3),  # written as int before a promotion to long: 4 bytes
               2: to_bytes(TimestamptzType(), ts_min), 3: to_bytes(DecimalType(10, 2), Decimal("1.05")),
               4: to_bytes(DecimalType(38, 0), Decimal(10**30)), 6: to_bytes(DoubleType(), -1.5),
               7: b"\x00\x01\x02\x03", 9: b"a"},
        upper={1: to_bytes(LongType(), 2**40), 2: to_bytes(TimestamptzType(), ts_max),
               3: to_bytes(DecimalType(10, 2), Decimal("99.99")), 6: to_bytes(DoubleType(), float("inf"))},
        nulls={1: 0, 2: 1, 6: 2, 8: 0},
    )
    stats = json.loads(DeltaStats(schema)(row))
    assert stats == {
        "numRecords": 5,
        # milliseconds, minimum rounded down, maximum up; no bound for 31-digit decimals, infinities,
        # fixed, or fields inside lists
        "minValues": {"id": 3, "ts": "2024-01-01T10:02:03.456Z", "price": 1.05, "point": {"x": -1.5}},
        "maxValues": {"id": 2**40, "ts": "2024-01-01T10:02:03.458Z", "price": 99.99},
        "nullCount": {"id": 0, "ts": 1, "point": {"x": 2}},
    }
    assert json.loads(DeltaStats(schema)(row, tight=False))["tightBounds"] is False


def test_deletion_vector_bytes_per_both_specs():
    positions = [0, 7, 65536, 2**32 + 5]
    data_file = "s3://b/t/data/f.parquet"
    puffin, offset, length = puffin_with_deletion_vector(data_file, positions)
    blob = iceberg_dv.check_frame(puffin[offset : offset + length])
    assert list(iceberg_dv.positions(blob)) == positions
    file = iceberg_dv.delta_file(blob)
    descriptor = iceberg_dv.descriptor("s3://b/t/dv.bin", blob, len(positions))
    # read back per the Delta spec: version byte, then at the offset: size, magic + bitmap, checksum
    assert file[0] == 1 and descriptor["offset"] == 1 and descriptor["storageType"] == "p"
    size = int.from_bytes(file[1:5], "big")
    assert size == descriptor["sizeInBytes"] == length - 8
    body = file[5 : 5 + size]
    assert int.from_bytes(body[:4], "little") == DELTA_DV_MAGIC
    assert zlib.crc32(body) == int.from_bytes(file[5 + size : 9 + size], "big")
    assert list(BitMap64.deserialize(body[4:])) == positions
    # and what the product frames itself reads back the same
    assert iceberg_dv.check_frame(iceberg_dv.frame(BitMap64(positions))) == blob
    corrupt = bytearray(blob)
    corrupt[-1] ^= 0xFF
    with pytest.raises(ValueError, match="checksum"):
        iceberg_dv.check_frame(bytes(corrupt))
    with pytest.raises(ValueError, match="length"):
        iceberg_dv.check_frame(blob[:-1])


# -- tables written by PyIceberg through the server ----------------------------------------------------
def test_empty_table_is_version_zero(local, iceberg, namespace):
    iceberg.create_table(f"{namespace}.empty", schema=SIMPLE, properties={"comment": "nothing yet"})
    shared = source(local, namespace, "empty")
    assert shared.latest_version() == 0 and shared.earliest_version() == 0
    version = shared.table_version()
    assert version.version == 0 and version.files == []
    assert version.protocol == {"minReaderVersion": 1, "minWriterVersion": 4}  # 4: change data feed
    assert version.metadata["description"] == "nothing yet"
    assert json.loads(version.metadata["schemaString"])["fields"][0] == {
        "name": "id", "type": "long", "nullable": False, "metadata": {}}
    [creation] = list(shared.changes(0))
    assert creation.version == 0 and creation.actions == [] and creation.metadata == version.metadata
    assert shared.version_timestamp(0) == version.metadata["createdTime"] == version.timestamp
    with pytest.raises(InvalidParameter):
        shared.table_version(1)


def test_versions_time_travel_and_files(local, iceberg, namespace):
    table = iceberg.create_table(f"{namespace}.events", schema=SIMPLE)
    for ids in ([1, 2], [3], [4, 5, 6]):
        table.append(simple_rows(ids))
    table.delete("id == 3")
    table = iceberg.load_table(f"{namespace}.events")
    snapshots = table.snapshots()
    shared = source(local, namespace, "events")

    # versions are the sequence numbers of main's snapshots; 0 is the table before them
    assert [s.sequence_number for s in snapshots] == [1, 2, 3, 4]
    assert shared.latest_version() == 4 and shared.earliest_version() == 0
    for snapshot in snapshots:
        version = shared.table_version(snapshot.sequence_number)
        assert version.timestamp == snapshot.timestamp_ms == shared.version_timestamp(snapshot.sequence_number)
        assert {f.path for f in version.files} == planned_paths(table, snapshot.snapshot_id)
        assert shared_rows(local, version.files) == iceberg_rows(table, snapshot.snapshot_id)
        assert shared.version_at(snapshot.timestamp_ms) == snapshot.sequence_number
    assert shared.version_at(snapshots[-1].timestamp_ms + 10_000) == 4
    assert shared.version_at(snapshots[0].timestamp_ms - 1) == 0
    with pytest.raises(InvalidParameter):
        shared.version_at(shared.version_timestamp(0) - 1)
    for bad in (-1, 5):
        with pytest.raises(InvalidParameter):
            shared.table_version(bad)

    latest = shared.table_version()
    assert latest.version == 4 and latest.metadata["partitionColumns"] == []
    assert latest.metadata["id"] == table.metadata.table_uuid.__str__()
    assert latest.metadata["configuration"]["delta.enableChangeDataFeed"] == "true"
    for action in latest.files:
        stats = json.loads(action.stats)
        ids = pq.read_table(io.BytesIO(read_object(local, action.path))).column("id").to_pylist()
        assert stats["numRecords"] == len(ids) and action.kind == "add" and action.data_change
        assert stats["minValues"]["id"] == min(ids) and stats["maxValues"]["id"] == max(ids)
        assert stats["nullCount"] == {"id": 0, "name": 0}
        assert action.size == len(read_object(local, action.path))

    # a second source (a new request, or a restarted server) numbers the versions the same way
    again = source(local, namespace, "events")
    assert [again.version_timestamp(v) for v in range(5)] == [shared.version_timestamp(v) for v in range(5)]


def test_partitioned_nested_types(local, iceberg, namespace):
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "region", StringType()),
        NestedField(3, "day", DateType()),
        NestedField(4, "amount", DecimalType(12, 2)),
        NestedField(5, "local_ts", TimestampType()),
        NestedField(6, "utc_ts", TimestamptzType()),
        NestedField(7, "tags", ListType(8, StringType())),
        NestedField(9, "attrs", MapType(10, StringType(), 11, LongType())),
        NestedField(12, "point", StructType(NestedField(13, "x", DoubleType()), NestedField(14, "y", DoubleType()))),
    )
    spec = PartitionSpec(
        PartitionField(2, 1000, IdentityTransform(), "region"),
        PartitionField(3, 1001, IdentityTransform(), "day"),
        PartitionField(5, 1002, DayTransform(), "local_day"),
    )
    table = iceberg.create_table(f"{namespace}.sales", schema=schema, partition_spec=spec)
    utc = datetime.UTC
    table.append(pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "region": ["eu", "us", "eu", None],
        "day": [datetime.date(2024, 1, 1), datetime.date(2024, 1, 2), datetime.date(2024, 1, 1), None],
        "amount": pa.array([Decimal("1.50"), Decimal("-3.25"), None, Decimal("1000.00")], pa.decimal128(12, 2)),
        "local_ts": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 123456)] * 2 + [None] * 2, pa.timestamp("us")),
        "utc_ts": pa.array([datetime.datetime(2024, 1, 1, tzinfo=utc)] * 4, pa.timestamp("us", tz="UTC")),
        "tags": [["a", "b"], [], None, ["c"]],
        "attrs": [[("k", 1)], None, [], [("k", 2), ("j", 3)]],
        "point": [{"x": 1.0, "y": 2.0}, None, {"x": -1.0, "y": None}, {"x": 0.5, "y": 0.5}],
    }, schema=table.schema().as_arrow()))
    table = iceberg.load_table(f"{namespace}.sales")
    shared = source(local, namespace, "sales")
    version = shared.table_version()

    assert version.protocol == {"minReaderVersion": 3, "minWriterVersion": 7,
                                "readerFeatures": ["timestampNtz"], "writerFeatures": ["timestampNtz", "changeDataFeed"]}
    delta = json.loads(version.metadata["schemaString"])
    assert [(f["name"], f["type"] if isinstance(f["type"], str) else f["type"]["type"]) for f in delta["fields"]] == [
        ("id", "long"), ("region", "string"), ("day", "date"), ("amount", "decimal(12,2)"),
        ("local_ts", "timestamp_ntz"), ("utc_ts", "timestamp"), ("tags", "array"), ("attrs", "map"),
        ("point", "struct")]
    # identity partitions are partition columns; the day transform is not
    assert version.metadata["partitionColumns"] == ["region", "day"]
    assert {f.path for f in version.files} == planned_paths(table)
    tasks = {task.file.file_path: task.file for task in table.scan().plan_files()}
    for action in version.files:
        region, day, _ = tasks[action.path].partition._data
        expected_day = None if day is None else (datetime.date(1970, 1, 1) + datetime.timedelta(days=day)).isoformat()
        assert action.partition_values == {"region": region, "day": expected_day}
        data = pq.read_table(io.BytesIO(read_object(local, action.path)))
        stats = json.loads(action.stats)
        assert stats["numRecords"] == data.num_rows
        assert stats["nullCount"]["amount"] == data.column("amount").null_count
        # a null struct counts as a null x
        assert stats["nullCount"]["point"]["x"] == pa.compute.struct_field(data.column("point"), [0]).null_count
        if data.column("amount").null_count < data.num_rows:
            assert Decimal(str(stats["minValues"]["amount"])) == pa.compute.min(data.column("amount")).as_py()
            assert Decimal(str(stats["maxValues"]["amount"])) == pa.compute.max(data.column("amount")).as_py()
        assert "tags" not in stats["nullCount"] and "attrs" not in stats.get("minValues", {})
        if data.column("local_ts").null_count < data.num_rows:
            assert stats["minValues"]["local_ts"] == "2024-01-01T10:00:00.123"
            assert stats["maxValues"]["local_ts"] == "2024-01-01T10:00:00.124"
        assert stats["minValues"]["utc_ts"] == "2024-01-01T00:00:00.000Z"
    assert shared_rows(local, version.files) == iceberg_rows(table)


def test_change_data_feed(local, iceberg, namespace):
    table = iceberg.create_table(f"{namespace}.feed", schema=SIMPLE)
    table.append(simple_rows([1, 2]))
    table.append(simple_rows([3]))
    table.delete("id == 1")  # rewrites the file of 1 and 2: remove + add
    table.overwrite(simple_rows([10, 11]))  # PyIceberg: a delete snapshot, then an append snapshot
    with table.update_schema() as update:
        update.add_column("score", LongType())
    table.append(pa.table({"id": pa.array([20], pa.int64()), "name": ["x"], "score": pa.array([7], pa.int64())},
                          schema=table.schema().as_arrow()))
    table = iceberg.load_table(f"{namespace}.feed")
    shared = source(local, namespace, "feed")
    latest = shared.latest_version()
    assert latest == len(table.snapshots()) == 6

    changes = list(shared.changes(0))
    assert [c.version for c in changes] == list(range(7))
    assert changes[0].metadata is not None and changes[0].protocol is not None and changes[0].actions == []
    kinds = [sorted(a.kind for a in c.actions) for c in changes[1:]]
    assert kinds == [["add"], ["add"], ["add", "remove"], ["remove", "remove"], ["add"], ["add"]]
    # the schema change shows at the first version written with it
    assert [c.metadata is not None for c in changes[1:]] == [False, False, False, False, False, True]
    assert "score" in changes[6].metadata["schemaString"]
    # replaying the feed gives every version's files
    live: dict[str, object] = {}
    for change in changes:
        assert change.timestamp == shared.version_timestamp(change.version)
        for action in change.actions:
            assert action.data_change
            if action.kind == "add":
                live[action.path] = action
            else:
                assert live.pop(action.path).size == action.size  # removes name files that were live
        assert set(live) == {f.path for f in shared.table_version(change.version).files}
    # a range, and a range that starts after the start
    assert [c.version for c in shared.changes(2, 4)] == [2, 3, 4]
    with pytest.raises(InvalidParameter):
        list(shared.changes(4, 2))
    with pytest.raises(InvalidParameter):
        list(shared.changes(0, latest + 1))


def test_unknown_table(local, namespace):
    with pytest.raises(NotFound):
        source(local, namespace, "no_such_table").latest_version()
    with pytest.raises(NotFound):
        source(local, "no_such_namespace", "t").table_version()


def v3_table_with_deletion_vector(server, iceberg, namespace: str, name: str):
    """A table of two appends upgraded to v3, then a deletion vector on rows 1 and 3 of its 5-row file."""
    table = iceberg.create_table(f"{namespace}.{name}", schema=SIMPLE)
    table.append(simple_rows([1, 2, 3, 4, 5]))
    table.append(simple_rows([6, 7]))
    status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/{name}", {
        "requirements": [], "updates": [{"action": "upgrade-format-version", "format-version": 3}]})
    assert status == 200, body
    table = iceberg.load_table(f"{namespace}.{name}")
    assert table.metadata.format_version == 3
    target = next(t.file for t in table.scan().plan_files() if t.file.record_count == 5)
    puffin, offset, length = puffin_with_deletion_vector(target.file_path, [1, 3])
    location = write_file(table, "deletes.puffin", puffin)
    commit_delete_files(server, namespace, name, table, [delete_file(
        location, len(puffin), 2, DataFileContent.POSITION_DELETES, FileFormat.PUFFIN, 3,
        referenced_data_file=target.file_path, content_offset=offset, content_size_in_bytes=length)])
    return iceberg.load_table(f"{namespace}.{name}"), target.file_path, puffin[offset : offset + length]


def test_v3_deletion_vectors(server, local, iceberg, namespace):
    table, target, blob = v3_table_with_deletion_vector(server, iceberg, namespace, "dv")
    shared = source(local, namespace, "dv")

    version = shared.table_version()
    assert version.version == 3
    assert version.protocol["readerFeatures"] == ["deletionVectors"]
    [with_dv] = [f for f in version.files if f.deletion_vector]
    assert with_dv.path == target and json.loads(with_dv.stats)["tightBounds"] is False
    descriptor = with_dv.deletion_vector
    assert descriptor["pathOrInlineDv"].startswith(table.location() + "/")
    assert delta_dv_positions(local, descriptor) == [1, 3]
    # the Delta DV file holds the Puffin blob unchanged after its version byte
    assert read_object(local, descriptor["pathOrInlineDv"]) == b"\x01" + blob
    assert [r["id"] for r in shared_rows(local, version.files)] == [1, 3, 5, 6, 7]
    assert shared_rows(local, version.files) == iceberg_rows(table)
    assert shared.table_version(2).files[0].deletion_vector is None  # time travel: before the deletes

    # the feed: the data file is removed without and added with its deletion vector
    [change] = list(shared.changes(3))
    assert change.protocol["readerFeatures"] == ["deletionVectors"]
    assert [(a.kind, a.path, a.deletion_vector is not None) for a in change.actions] == [
        ("remove", target, False), ("add", target, True)]
    # a second request reuses the file it derived (same name, same bytes)
    again = source(local, namespace, "dv").table_version()
    assert [f.deletion_vector for f in again.files if f.deletion_vector] == [descriptor]

    # a later deletion vector on the other file: only that file is in the next version's feed
    other = next(f.path for f in version.files if f.path != target)
    puffin, offset, length = puffin_with_deletion_vector(other, [0])
    commit_delete_files(server, namespace, "dv", table, [delete_file(
        write_file(table, "more.puffin", puffin), len(puffin), 1, DataFileContent.POSITION_DELETES,
        FileFormat.PUFFIN, 3, referenced_data_file=other, content_offset=offset, content_size_in_bytes=length)])
    shared = source(local, namespace, "dv")
    [change] = list(shared.changes(4))
    assert [(a.kind, a.path, a.deletion_vector is not None) for a in change.actions] == [
        ("remove", other, False), ("add", other, True)]
    assert change.protocol is None  # deletion vectors were already a feature of version 3
    assert [r["id"] for r in shared_rows(local, shared.table_version().files)] == [1, 3, 5, 7]
    assert shared_rows(local, shared.table_version().files) == iceberg_rows(iceberg.load_table(f"{namespace}.dv"))


def test_v2_position_deletes_become_deletion_vectors(server, local, iceberg, namespace):
    table = iceberg.create_table(f"{namespace}.posdel", schema=SIMPLE)
    table.append(simple_rows([1, 2, 3]))
    table.append(simple_rows([4, 5]))
    files = sorted((t.file for t in table.scan().plan_files()), key=lambda f: f.record_count)
    small, large = files[0].file_path, files[1].file_path
    first = position_deletes({large: [0], small: [1]})
    second = position_deletes({large: [2]})
    commit_delete_files(server, namespace, "posdel", table, [
        delete_file(write_file(table, "pos-1.parquet", first), len(first), 2,
                    DataFileContent.POSITION_DELETES, FileFormat.PARQUET, 2),
        delete_file(write_file(table, "pos-2.parquet", second), len(second), 1,
                    DataFileContent.POSITION_DELETES, FileFormat.PARQUET, 2),
    ])
    table = iceberg.load_table(f"{namespace}.posdel")
    version = source(local, namespace, "posdel").table_version()
    vectors = {f.path: delta_dv_positions(local, f.deletion_vector) for f in version.files}
    assert vectors == {large: [0, 2], small: [1]}  # two delete files merged into one vector
    assert shared_rows(local, version.files) == iceberg_rows(table)
    assert [r["id"] for r in iceberg_rows(table)] == [2, 4]


def test_equality_deletes_are_refused(server, local, iceberg, namespace):
    table = iceberg.create_table(f"{namespace}.eqdel", schema=SIMPLE)
    table.append(simple_rows([1, 2]))
    ids = pa.schema([pa.field("id", pa.int64(), False, metadata={b"PARQUET:field_id": b"1"})])
    data = parquet_bytes(pa.table({"id": pa.array([1], pa.int64())}, schema=ids))
    commit_delete_files(server, namespace, "eqdel", table, [delete_file(
        write_file(table, "eq.parquet", data), len(data), 1, DataFileContent.EQUALITY_DELETES,
        FileFormat.PARQUET, 2, equality_ids=[1])])
    shared = source(local, namespace, "eqdel")
    assert shared.latest_version() == 2
    with pytest.raises(UnsupportedOperation, match="equality deletes"):
        shared.table_version()
    with pytest.raises(UnsupportedOperation, match="equality deletes"):
        list(shared.changes(2))
    assert len(shared.table_version(1).files) == 1  # versions before the deletes are still served


# -- end to end: the released delta-sharing client reading uniform tables through a share --------------
def comparable(frame) -> list[dict]:
    """Rows by id, nulls as None, so the client's and PyIceberg's pandas frames compare by value."""
    frame = frame.sort_values("id").reset_index(drop=True)
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def test_released_client_reads_uniform_tables(server, iceberg, namespace, tmp_path):
    customer_schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType()),
        NestedField(3, "region", StringType()),
        NestedField(4, "balance", DecimalType(12, 2)),
        NestedField(5, "joined", DateType()),
        NestedField(6, "updated", TimestamptzType()),
    )
    customer = iceberg.create_table(
        f"{namespace}.customer", schema=customer_schema,
        partition_spec=PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "region")))

    def customers(ids: list[int]) -> pa.Table:
        return pa.table({
            "id": pa.array(ids, pa.int64()), "name": [f"c{i}" for i in ids],
            "region": [("eu", "us", None)[i % 3] for i in ids],
            "balance": pa.array([Decimal(i) / 4 for i in ids], pa.decimal128(12, 2)),
            "joined": [datetime.date(2024, 1, 1 + i) for i in ids],
            "updated": pa.array([datetime.datetime(2024, 2, 1, i, tzinfo=datetime.UTC) for i in ids],
                                pa.timestamp("us", tz="UTC")),
        }, schema=customer.schema().as_arrow())

    customer.append(customers([1, 2, 3]))
    customer.append(customers([4, 5, 6]))
    customer.delete("id == 2")
    customer = iceberg.load_table(f"{namespace}.customer")
    first = customer.snapshots()[0]
    local_times = iceberg.create_table(f"{namespace}.local_times", schema=Schema(
        NestedField(1, "id", LongType(), required=True), NestedField(2, "at", TimestampType())))
    local_times.append(pa.table({"id": pa.array([1, 2], pa.int64()),
                                 "at": pa.array([datetime.datetime(2024, 5, 1, 12, 30), None], pa.timestamp("us"))},
                                schema=local_times.schema().as_arrow()))
    deleted, _, _ = v3_table_with_deletion_vector(server, iceberg, namespace, "with_dv")
    kinds_schema = Schema(
        NestedField(1, "id", LongType(), required=True), NestedField(2, "tz", TimestamptzType()),
        NestedField(3, "ntz", TimestampType()), NestedField(4, "dec", DecimalType(10, 2)),
        NestedField(5, "flag", BooleanType()), NestedField(6, "ratio", DoubleType()), NestedField(7, "n", IntegerType()))
    kinds = iceberg.create_table(f"{namespace}.partition_kinds", schema=kinds_schema, partition_spec=PartitionSpec(
        *[PartitionField(f.field_id, 999 + f.field_id, IdentityTransform(), f.name) for f in kinds_schema.fields[1:]]))
    kinds.append(pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "tz": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=datetime.UTC), None],
                       pa.timestamp("us", tz="UTC")),
        "ntz": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 654321), None], pa.timestamp("us")),
        "dec": pa.array([Decimal("-1.25"), None], pa.decimal128(10, 2)),
        "flag": [True, None], "ratio": [1.5, None], "n": pa.array([7, None], pa.int32()),
    }, schema=kinds.schema().as_arrow()))
    iceberg.create_namespace((namespace, "sales"))  # a multi-level namespace: dotted in the table spec
    revenue = iceberg.create_table((namespace, "sales", "revenue"), schema=SIMPLE)
    revenue.append(simple_rows([8, 9]))
    share, profile = share_profile(server, tmp_path, "tpch", [
        f"customer:uniform:{WAREHOUSE}:{namespace}:customer",
        f"local_times:uniform:{WAREHOUSE}:{namespace}:local_times",
        f"with_dv:uniform:{WAREHOUSE}:{namespace}:with_dv",
        f"partition_kinds:uniform:{WAREHOUSE}:{namespace}:partition_kinds",
        f"revenue:uniform:{WAREHOUSE}:{namespace}.sales:revenue",
    ])
    client = delta_sharing.SharingClient(profile)
    assert sorted(t.name for t in client.list_all_tables()) == ["customer", "local_times", "partition_kinds",
                                                                "revenue", "with_dv"]
    url = f"{profile}#{share}.tpch."
    assert comparable(delta_sharing.load_as_pandas(url + "revenue")) == comparable(revenue.scan().to_pandas())

    expected = comparable(customer.scan().to_pandas())
    assert [r["id"] for r in expected] == [1, 3, 4, 5, 6]
    assert comparable(delta_sharing.load_as_pandas(url + "customer")) == expected  # parquet format
    assert comparable(delta_sharing.load_as_pandas(url + "customer", use_delta_format=True)) == expected
    assert len(delta_sharing.load_as_pandas(url + "customer", limit=1)) == 1
    as_of_first = comparable(customer.scan(snapshot_id=first.snapshot_id).to_pandas())
    assert comparable(delta_sharing.load_as_pandas(url + "customer", version=1)) == as_of_first
    first_time = datetime.datetime.fromtimestamp(first.timestamp_ms / 1000, datetime.UTC)
    assert comparable(delta_sharing.load_as_pandas(
        url + "customer", timestamp=first_time.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")) == as_of_first

    for delta_format in (False, True):
        changes = delta_sharing.load_table_changes_as_pandas(
            url + "customer", starting_version=1, ending_version=3, use_delta_format=delta_format)
        summary = sorted(zip(changes["_commit_version"], changes["_change_type"], changes["id"]))
        # version 3 deleted id 2, alone in its partition's file: the file is removed
        assert summary == [(1, "insert", 1), (1, "insert", 2), (1, "insert", 3), (2, "insert", 4),
                           (2, "insert", 5), (2, "insert", 6), (3, "delete", 2)]

    # delta-kernel takes partition columns from the partition values: every kind parses back to the data
    expected_kinds = comparable(kinds.scan().to_pandas())
    assert comparable(delta_sharing.load_as_pandas(url + "partition_kinds", use_delta_format=True)) == expected_kinds

    # timestamp without zone and deletion vectors need reader features: the client reads them in delta format
    assert comparable(delta_sharing.load_as_pandas(url + "local_times")) == comparable(
        iceberg.load_table(f"{namespace}.local_times").scan().to_pandas())
    assert comparable(delta_sharing.load_as_pandas(url + "with_dv")) == comparable(deleted.scan().to_pandas())
    assert [r["id"] for r in comparable(delta_sharing.load_as_pandas(url + "with_dv"))] == [1, 3, 5, 6, 7]
    # the deletion vector's commit in the feed: delta-kernel turns the remove/add pair into the deleted rows
    changes = delta_sharing.load_table_changes_as_pandas(url + "with_dv", starting_version=3, use_delta_format=True)
    assert sorted(zip(changes["_change_type"], changes["id"])) == [("delete", 2), ("delete", 4)]


def test_branch_commits_and_expired_snapshots(local, iceberg, namespace):
    table = iceberg.create_table(f"{namespace}.branched", schema=SIMPLE)
    table.append(simple_rows([1]))
    table.manage_snapshots().create_branch(table.current_snapshot().snapshot_id, "dev").commit()
    table.append(simple_rows([100]), branch="dev")  # sequence number 2, not on main
    table.append(simple_rows([2]))  # main: sequence number 3
    table = iceberg.load_table(f"{namespace}.branched")
    shared = source(local, namespace, "branched")
    assert shared.latest_version() == 3
    assert [c.version for c in shared.changes(0)] == [0, 1, 3]
    # the table as of 2 is main as it was then: version 1
    assert {f.path for f in shared.table_version(2).files} == {f.path for f in shared.table_version(1).files}
    assert shared.version_timestamp(2) == shared.version_timestamp(1)
    assert [r["id"] for r in shared_rows(local, shared.table_version().files)] == [1, 2]

    # expiring main's first snapshot moves the earliest version up; the others keep their numbers
    first = table.snapshots()[0].snapshot_id
    table.manage_snapshots().remove_branch("dev").commit()
    table.maintenance.expire_snapshots().by_id(first).commit()
    shared = source(local, namespace, "branched")
    assert shared.earliest_version() == 3 and shared.latest_version() == 3
    assert [c.version for c in shared.changes(3)] == [3]
    with pytest.raises(InvalidParameter):
        shared.table_version(1)


def test_v1_table_versions_are_positions(local, iceberg, namespace):
    table = iceberg.create_table(f"{namespace}.old", schema=SIMPLE, properties={"format-version": "1"})
    table.append(simple_rows([1]))
    table.append(simple_rows([2]))
    table = iceberg.load_table(f"{namespace}.old")
    assert table.metadata.format_version == 1
    shared = source(local, namespace, "old")
    assert shared.latest_version() == 2  # no sequence numbers in v1: the snapshots' positions
    assert [len(shared.table_version(v).files) for v in (0, 1, 2)] == [0, 1, 2]
    assert shared_rows(local, shared.table_version().files) == iceberg_rows(table)
