"""Compaction and manifest rewriting of the service's own tables, in process: the real LocalStore and
catalog, tables written and read by real PyIceberg (through ServiceCatalog, as the runner does).

Position delete files, which PyIceberg 0.12 cannot write, are written with pyarrow and committed with
PyIceberg's Avro writers (the helpers of the sharing source's tests), as another engine would.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import uuid
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.manifest import (
    DataFileContent,
    FileFormat,
    ManifestEntry,
    ManifestEntryStatus,
    ManifestListWriterV2,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.snapshots import Operation
from pyiceberg.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from pyiceberg.transforms import IdentityTransform, TruncateTransform
from pyiceberg.types import LongType, NestedField, StringType

from aistor_lab.store import LocalStore
from aistor_lab.tables.catalog import Catalog
from aistor_lab.tables.maintenance.compaction import compact, plan_compaction, run_compaction
from aistor_lab.tables.maintenance.manifest_rewrite import (
    MIN_SMALL_MANIFESTS,
    plan_manifest_rewrite,
    rewrite_manifests,
    run_manifest_rewrite,
)
from aistor_lab.tables.maintenance.report import OperationReport
from aistor_lab.tables.maintenance.service_catalog import ServiceCatalog
from aistor_lab.tables.maintenance.settings import resolve
from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.jupyter.process import ServiceProcess
from aistor_lab.workbench.service_config import ServiceConfig
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, service_with
from .spark_support import run_spark_sql
from .test_sharing_iceberg_source import DeleteManifestWriter, delete_file, position_deletes, write_file

WAREHOUSE = "whouse"
SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "region", StringType(), required=False),
    NestedField(3, "note", StringType(), required=False),
)
BY_REGION = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "region"))
REGIONS = ("eu", "us", "ap")


class Service:
    def __init__(self, tmp_path):
        self.store = LocalStore(tmp_path)
        self.catalog = Catalog(self.store)
        self.catalog.warehouses.create({"name": WAREHOUSE})
        self.catalog.namespaces.create(WAREHOUSE, {"namespace": ["ns"]})

    def create(self, name: str, *, spec: PartitionSpec | None = None, sort_order: SortOrder | None = None,
               properties: dict | None = None):
        body = {"name": name, "schema": json.loads(SCHEMA.model_dump_json()), "properties": properties or {}}
        if spec is not None:
            body["partition-spec"] = json.loads(spec.model_dump_json())
        if sort_order is not None:
            body["write-order"] = json.loads(sort_order.model_dump_json())
        self.catalog.tables.create(WAREHOUSE, ["ns"], body)
        return self.load(name)

    def load(self, name: str):
        """A new table object, as a second writer would have: its own catalog, its own metadata."""
        return ServiceCatalog(self.catalog.tables, self.store, WAREHOUSE).load_table(("ns", name))

    def listing(self) -> dict[str, str]:
        """Every object of the warehouse: key -> etag."""
        objects, marker = {}, ""
        while True:
            page = self.store.list_objects(WAREHOUSE, start_after=marker)
            objects.update({o.key: o.etag for o in page.objects})
            if not page.is_truncated:
                return objects
            marker = page.next_marker


@pytest.fixture
def service(tmp_path):
    return Service(tmp_path)


def spark_conf(server) -> dict[str, str]:
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD)
    return aistor_spark.spark_conf(WAREHOUSE, service=service, kit=ensure_kit())


def settings(target: int = 1024 * 1024, min_input_files: int = 5):
    return resolve({}, {"write.target-file-size-bytes": str(target),
                        "maintenance.compaction.min-input-files": str(min_input_files)})


def batch(ids: list[int], region: str | list[str]) -> pa.Table:
    regions = region if isinstance(region, list) else [region] * len(ids)
    return pa.table({"id": pa.array(ids, pa.int64()), "region": regions, "note": [f"row {i}" for i in ids]})


def fill(table, appends: int, partitioned: bool, start: int = 0) -> None:
    """``appends`` small commits, each of a few rows (in every region when partitioned)."""
    for n in range(appends):
        ids = list(range(start + n * 10, start + n * 10 + 10))
        table.append(batch(ids, [REGIONS[i % 3] for i in ids] if partitioned else "eu"))


def checksum(rows: pa.Table) -> tuple[int, str]:
    """Row count and a digest of the rows in a canonical order."""
    ordered = sorted(rows.to_pylist(), key=lambda r: (r["id"], r["region"] or "", r["note"] or ""))
    return len(ordered), hashlib.sha256(json.dumps(ordered).encode()).hexdigest()


def data_files(table) -> list:
    return [task.file for task in table.scan().plan_files()]


def files_per_partition(table) -> Counter:
    return Counter(str(f.partition) for f in data_files(table))


def assert_unchanged(service: Service, table, before_listing: dict, before_location: str) -> None:
    assert service.listing() == before_listing
    assert service.load(table.name()[-1]).metadata_location == before_location


# -- 1. bin-packing small files ---------------------------------------------------------------------
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_compaction_rewrites_small_files_into_one_per_partition(service, partitioned):
    table = service.create("t", spec=BY_REGION if partitioned else None)
    fill(table, 60, partitioned)
    rows_before = checksum(table.scan().to_arrow())
    old_snapshot = table.current_snapshot()
    assert set(files_per_partition(table).values()) == {60}
    listing, location = service.listing(), table.metadata_location

    preview = compact(table, settings(), dry_run=True)
    assert_unchanged(service, table, listing, location)
    assert preview.skipped is None and preview.snapshot_id is None
    groups = 3 if partitioned else 1
    assert len(preview.removed_files) == 60 * groups
    assert [f.path for f in preview.added_files] == ["(new file)"] * groups
    partitions = preview.details["partitions"]
    assert [p["partition"] for p in partitions] == (
        ["region=ap", "region=eu", "region=us"] if partitioned else ["(unpartitioned)"])
    assert {(p["files-before"], p["files-rewritten"], p["files-after"]) for p in partitions} == {(60, 60, 1)}
    histogram = preview.details["histogram"]
    assert sum(histogram["before"]) == 60 * groups and sum(histogram["after"]) == groups

    report = compact(table, settings(), dry_run=False)
    assert report.skipped is None and report.snapshot_id is not None
    assert sorted(f.path for f in report.removed_files) == sorted(f.path for f in preview.removed_files)
    assert len(report.added_files) == groups and report.details["partitions"] == partitions
    assert report.details["rows-rewritten"] == rows_before[0]

    reloaded = service.load("t")
    assert reloaded.current_snapshot().snapshot_id == report.snapshot_id
    assert set(files_per_partition(reloaded).values()) == {1} and len(files_per_partition(reloaded)) == groups
    assert sorted(f.file_path for f in data_files(reloaded)) == sorted(f.path for f in report.added_files)
    assert checksum(reloaded.scan().to_arrow()) == rows_before
    # Time travel across the compaction: the old snapshot still reads its own files.
    assert checksum(reloaded.scan(snapshot_id=old_snapshot.snapshot_id).to_arrow()) == rows_before
    summary = reloaded.current_snapshot().summary
    assert summary.operation == Operation.REPLACE
    assert summary["added-data-files"] == str(groups) and summary["deleted-data-files"] == str(60 * groups)
    assert summary["added-records"] == summary["deleted-records"] == str(rows_before[0])
    assert summary["total-records"] == str(rows_before[0]) and summary["total-data-files"] == str(groups)
    # The rewritten files stay in the store for the older snapshots (expiry removes them later).
    keys = [f.path.removeprefix(f"s3://{WAREHOUSE}/") for f in report.removed_files]
    assert all(service.store.get_object_info(WAREHOUSE, key) for key in keys)

    again = compact(reloaded, settings(), dry_run=False)
    assert again.skipped == "no partition has 5 data files under 786432 bytes or a data file with deletes"
    assert again.snapshot_id is None
    assert service.load("t").current_snapshot().snapshot_id == report.snapshot_id


def test_compaction_leaves_partitions_with_few_small_files_and_large_files(service):
    table = service.create("t", spec=BY_REGION)
    fill(table, 6, partitioned=False)  # region eu: 6 small files
    table.append(batch(list(range(100, 104)), "us"))  # region us: 1 file
    plan = plan_compaction(table, settings(min_input_files=6))
    assert [g.label for g in plan.rewritten_groups] == ["region=eu"]
    assert plan_compaction(table, settings(min_input_files=7)).nothing_to_do
    # Files above 3/4 of the target are not small: a 1 KiB target makes none of them small.
    tiny = plan_compaction(table, settings(target=1024, min_input_files=2))
    assert all(f.file_size_in_bytes < 768 for f in tiny.rewritten_files)


def test_bins_respect_the_target_size(service):
    table = service.create("t")
    fill(table, 12, partitioned=False)
    size = max(f.file_size_in_bytes for f in data_files(table))
    report = compact(table, settings(target=4 * size + 10, min_input_files=2), dry_run=False)
    assert report.skipped is None
    assert len(report.added_files) == 3  # 12 files, 4 to a bin
    assert checksum(service.load("t").scan().to_arrow())[0] == 120



def test_compaction_writes_old_spec_files_in_the_current_spec(service):
    table = service.create("t")
    fill(table, 6, partitioned=True)  # unpartitioned files holding every region
    with table.update_spec() as update:
        update.add_identity("region")
    fill(table, 6, partitioned=True, start=1000)
    rows = checksum(table.scan().to_arrow())
    assert Counter(f.spec_id for f in data_files(table)) == {0: 6, 1: 18}

    report = compact(table, settings(), dry_run=False)
    assert report.skipped is None
    assert [p["partition"] for p in report.details["partitions"]] == [
        "(unpartitioned)", "region=ap", "region=eu", "region=us"]
    table = service.load("t")
    assert checksum(table.scan().to_arrow()) == rows
    # The old spec's rows land in the current spec's partitions, beside that partition's new file.
    assert Counter(f.spec_id for f in data_files(table)) == {1: 6}
    assert set(files_per_partition(table).values()) == {2}


def test_compaction_of_a_format_1_table(service):
    table = service.create("t", properties={"format-version": "1"})
    assert table.format_version == 1
    fill(table, 8, partitioned=False)
    report = compact(table, settings(), dry_run=False)
    table = service.load("t")
    assert report.skipped is None and len(data_files(table)) == 1
    assert table.current_snapshot().summary.operation == Operation.REPLACE
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == list(range(80))

# -- 2. position deletes -----------------------------------------------------------------------------
def commit_position_deletes(service: Service, table, deletes: dict[str, list[int]]) -> None:
    """A position delete file (pyarrow) in a snapshot of operation delete (PyIceberg's Avro writers),
    committed through the catalog as any engine's commit."""
    data = position_deletes(deletes)
    location = write_file(table, "deletes.parquet", data)
    records = sum(len(p) for p in deletes.values())
    deletes_file = delete_file(location, len(data), records, DataFileContent.POSITION_DELETES,
                               FileFormat.PARQUET, 2)
    parent = table.current_snapshot()
    snapshot_id = random.getrandbits(62)
    manifest = f"{table.location()}/metadata/{uuid.uuid4().hex}-m0.avro"
    with DeleteManifestWriter(2, table.spec(), table.schema(), table.io.new_output(manifest), snapshot_id,
                              "deflate") as writer:
        writer.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=snapshot_id,
                                           data_file=deletes_file))
    manifest_list = f"{table.location()}/metadata/snap-{snapshot_id}-0-{uuid.uuid4().hex}.avro"
    sequence_number = table.metadata.last_sequence_number + 1
    with ManifestListWriterV2(table.io.new_output(manifest_list), snapshot_id, parent.snapshot_id,
                              sequence_number, "deflate") as lists:
        lists.add_manifests([*parent.manifests(table.io), writer.to_manifest_file()])
    summary = {"operation": "delete", "added-delete-files": "1", "added-position-deletes": str(records),
               "total-delete-files": "1", "total-position-deletes": str(records),
               "total-records": parent.summary["total-records"],
               "total-data-files": parent.summary["total-data-files"]}
    snapshot = {"snapshot-id": snapshot_id, "parent-snapshot-id": parent.snapshot_id,
                "sequence-number": sequence_number, "timestamp-ms": parent.timestamp_ms + 1,
                "manifest-list": manifest_list, "summary": summary, "schema-id": table.schema().schema_id}
    service.catalog.tables.commit(WAREHOUSE, ["ns"], table.name()[-1], {
        "requirements": [
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent.snapshot_id},
        ],
        "updates": [
            {"action": "add-snapshot", "snapshot": snapshot},
            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": snapshot_id},
        ],
    })


def test_compaction_applies_position_deletes_and_drops_the_delete_file(service):
    table = service.create("t")
    fill(table, 3, partitioned=False)  # ids 0..29 in 3 files of 10 rows
    by_first_id = {pq.read_table(table.io.new_input(f.file_path).open())["id"][0].as_py(): f.file_path
                   for f in data_files(table)}
    commit_position_deletes(service, table, {by_first_id[0]: [0, 3], by_first_id[10]: [9]})
    table = service.load("t")
    expected = sorted(set(range(30)) - {0, 3, 19})
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == expected
    with_deletes = table.current_snapshot().snapshot_id

    # Fewer small files than the minimum: the files with deletes are rewritten all the same.
    preview = compact(table, settings(min_input_files=10), dry_run=True)
    assert preview.skipped is None and preview.details["delete-files-removed"] == 1
    report = compact(table, settings(min_input_files=10), dry_run=False)
    assert sorted(f.path for f in report.removed_files) == sorted(f.path for f in preview.removed_files)
    # The delete file has no path bounds, so it applies to every file of the partition (Iceberg's rule).
    assert len(report.removed_files) == 4  # three data files and the delete file

    table = service.load("t")
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == expected  # deleted rows stay deleted
    assert all(not task.delete_files for task in table.scan().plan_files())
    summary = table.current_snapshot().summary
    assert summary.operation == Operation.REPLACE
    assert summary["removed-delete-files"] == "1" and summary["total-delete-files"] == "0"
    assert summary["total-position-deletes"] == "0"
    assert summary["deleted-records"] == "30" and summary["added-records"] == "27"
    assert summary["total-records"] == "27" and summary["total-data-files"] == "1"
    assert not table.inspect.delete_files().num_rows
    assert sorted(table.scan(snapshot_id=with_deletes).to_arrow()["id"].to_pylist()) == expected


def test_a_large_file_with_deletes_is_rewritten_too(service):
    table = service.create("t")
    fill(table, 2, partitioned=False)
    big = list(range(1000, 21000))  # one file above the small-file size of a 64 KiB target
    table.append(batch(big, "eu"))
    paths = {pq.read_table(table.io.new_input(f.file_path).open())["id"][0].as_py(): f.file_path
             for f in data_files(table)}
    commit_position_deletes(service, table, {paths[0]: [1], paths[1000]: [0]})
    table = service.load("t")
    plan = plan_compaction(table, settings(target=64 * 1024, min_input_files=2))
    assert sorted(f.file_path for f in plan.rewritten_files) == sorted([paths[0], paths[10], paths[1000]])
    # The big file has deletes too, so it is rewritten, and then the delete file can go.
    assert len(plan.removable_deletes) == 1
    report = compact(table, settings(target=64 * 1024, min_input_files=2), dry_run=False)
    assert report.skipped is None
    table = service.load("t")
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == sorted(set(range(20)) - {1} | set(big[1:]))



@pytest.mark.timeout(1200)
@pytest.mark.parametrize("format_version", ["2", "3"], ids=["position-deletes", "deletion-vectors"])
def test_spark_deletes_compacted_then_read_and_written_by_spark(tmp_path_factory, format_version):
    """Spark (Iceberg's Java library) writes merge-on-read deletes through a server: position delete
    files at format-version 2, deletion vectors at 3. With the server stopped, the service's
    maintenance runs in process on its data (at v3 its manifests are first merged, then compaction
    keeps every row's id); a server on the same data then serves Spark, which reads the same rows
    (and row ids) and commits on top of the replace snapshots."""
    conf = {}

    def spark(statements: list[str]) -> list[list]:
        return run_spark_sql(conf["current"], statements)

    lineage = "SELECT id, _row_id, _last_updated_sequence_number FROM ns.t ORDER BY id"
    with service_with(tmp_path_factory, {}) as server:
        data = server.data_dir
        conf["current"] = spark_conf(server)
        assert catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})[0] == 200
        inserts = [f"INSERT INTO ns.t VALUES ({i * 3}, 'eu'), ({i * 3 + 1}, 'us'), ({i * 3 + 2}, 'eu')"
                   for i in range(MIN_SMALL_MANIFESTS)]
        before = spark([
            "CREATE NAMESPACE ns",
            ("CREATE TABLE ns.t (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region) "
             f"TBLPROPERTIES ('format-version'='{format_version}', 'write.delete.mode'='merge-on-read')"),
            *inserts,
            "DELETE FROM ns.t WHERE id % 5 = 0",
            "SELECT count(*), sum(id) FROM ns.t",
        ])
        row_ids = spark([lineage]) if format_version == "3" else None
    assert before == [[24, 435 - (0 + 5 + 10 + 15 + 20 + 25)]]

    store = LocalStore(data)
    try:
        table = ServiceCatalog(Catalog(store).tables, store, WAREHOUSE).load_table(("ns", "t"))
        assert table.format_version == int(format_version)
        tasks = [task for group in plan_compaction(table, settings()).groups for task in group.tasks]
        assert sum(len(task.delete_files) > 0 for task in tasks) == 6  # the files Spark deleted from
        if format_version == "3":
            merged = rewrite_manifests(table, settings(), dry_run=False)
            assert merged.skipped is None and len(merged.added_files) == 1
            table.refresh()
        report = compact(table, settings(), dry_run=False)
        assert report.skipped is None and report.details["delete-files-removed"] >= 1
    finally:
        store.close()

    with ServiceProcess(data, log_path=data / "second-server.log") as server:
        conf["current"] = spark_conf(server)
        assert spark(["SELECT count(*), sum(id) FROM ns.t"]) == before
        assert spark(["SELECT content, count(*) FROM ns.t.files GROUP BY content"]) == [[0, 2]]
        assert spark(["SELECT operation FROM ns.t.snapshots ORDER BY committed_at DESC LIMIT 1"]) == [["replace"]]
        if format_version == "3":
            assert spark([lineage]) == row_ids
        assert spark(["DELETE FROM ns.t WHERE id = 1", "INSERT INTO ns.t VALUES (1000, 'ap')",
                      "SELECT count(*), sum(id) FROM ns.t"]) == [[24, 435 - 75 - 1 + 1000]]

# -- 3. concurrent writers ---------------------------------------------------------------------------
def test_an_append_between_plan_and_commit_is_kept(service):
    table = service.create("t", spec=BY_REGION)
    fill(table, 10, partitioned=True)
    plan = plan_compaction(table, settings())
    writer = service.load("t")
    writer.append(batch(list(range(1000, 1010)), "eu"))  # commits after the plan: ours fails once
    appended = writer.current_snapshot().snapshot_id

    report = run_compaction(table, plan, OperationReport("compact", False))
    assert report.skipped is None
    table = service.load("t")
    assert table.current_snapshot().snapshot_id == report.snapshot_id
    assert table.current_snapshot().parent_snapshot_id == appended  # re-based onto the writer's commit
    ids = table.scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(100)) + list(range(1000, 1010))  # every row, exactly once
    assert files_per_partition(table) == Counter({"Record[eu]": 2, "Record[us]": 1, "Record[ap]": 1})


def test_a_concurrent_delete_of_a_rewritten_file_fails_cleanly(service):
    table = service.create("t", spec=BY_REGION)
    fill(table, 10, partitioned=True)
    plan = plan_compaction(table, settings())
    writer = service.load("t")
    writer.delete("region == 'eu'")  # drops files the plan rewrites
    listing, location = service.listing(), writer.metadata_location

    report = run_compaction(table, plan, OperationReport("compact", False))
    assert report.snapshot_id is None and report.removed_files == [] and report.added_files == []
    assert report.skipped.startswith("a concurrent commit conflicts with the rewrite, nothing was changed")
    assert_unchanged(service, table, listing, location)  # our data files and manifests removed


def test_concurrent_deletes_for_a_rewritten_file_fail_cleanly(service):
    table = service.create("t")
    fill(table, 6, partitioned=False)
    plan = plan_compaction(table, settings())
    commit_position_deletes(service, table, {plan.rewritten_files[0].file_path: [2]})
    listing, location = service.listing(), service.load("t").metadata_location

    report = run_compaction(table, plan, OperationReport("compact", False))
    assert report.snapshot_id is None and "new delete" in report.skipped
    assert_unchanged(service, table, listing, location)
    assert len(service.load("t").scan().to_arrow()) == 59  # the writer's delete stands


def test_appends_while_compacting_are_all_kept(service):
    table = service.create("t")
    fill(table, 30, partitioned=False)
    writer = service.load("t")
    errors = []

    def append_more():
        try:
            for n in range(15):
                writer.append(batch(list(range(10_000 + n * 3, 10_000 + n * 3 + 3)), "eu"))
        except Exception as exc:  # noqa: BLE001 (reported by the assertion below)
            errors.append(exc)

    thread = threading.Thread(target=append_more)
    thread.start()
    report = compact(table, settings(), dry_run=False)
    thread.join()
    assert not errors and report.skipped is None
    ids = service.load("t").scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(300)) + list(range(10_000, 10_045))


# -- 4. sort order -----------------------------------------------------------------------------------
def test_compacted_files_follow_the_sort_order(service):
    table = service.create("t", sort_order=SortOrder(SortField(source_id=1, transform=IdentityTransform())))
    ids = list(range(200))
    random.Random(7).shuffle(ids)
    for n in range(10):
        table.append(batch(ids[n * 20:(n + 1) * 20], "eu"))
    report = compact(table, settings(), dry_run=False)
    assert len(report.added_files) == 1
    written = pq.read_table(table.io.new_input(report.added_files[0].path).open())
    assert written["id"].to_pylist() == list(range(200))



def test_compacted_files_follow_a_descending_transformed_sort_order(service):
    order = SortOrder(
        SortField(source_id=3, transform=TruncateTransform(3), direction=SortDirection.DESC,
                  null_order=NullOrder.NULLS_FIRST),
        SortField(source_id=1, transform=IdentityTransform()),
    )
    table = service.create("t", sort_order=order)
    ids = list(range(60))
    random.Random(3).shuffle(ids)
    for n in range(6):
        rows = batch(ids[n * 10:(n + 1) * 10], "eu")
        notes = [None if i % 7 == 0 else f"{'abc'[i % 3]}{i}" for i in rows["id"].to_pylist()]
        table.append(rows.set_column(2, "note", pa.array(notes, pa.string())))
    report = compact(table, settings(), dry_run=False)
    written = pq.read_table(table.io.new_input(report.added_files[0].path).open()).to_pylist()
    expected = sorted(written, key=lambda r: r["id"])
    expected.sort(key=lambda r: (r["note"] is not None, "" if r["note"] is None else r["note"][:3]))
    nulls = [r for r in expected if r["note"] is None]
    others = sorted([r for r in expected if r["note"] is not None], key=lambda r: r["id"])
    others.sort(key=lambda r: r["note"][:3], reverse=True)
    assert written == nulls + others

# -- what compaction does not do ---------------------------------------------------------------------
@pytest.mark.parametrize("format_version", ["2", "3"])
def test_tables_without_snapshots_are_skipped(service, format_version):
    empty = service.create(f"empty{format_version}", properties={"format-version": format_version})
    assert compact(empty, settings(), dry_run=False).skipped == "the table has no snapshot yet"
    assert rewrite_manifests(empty, settings(), dry_run=False).skipped == "the table has no snapshot yet"


# -- manifest rewriting ------------------------------------------------------------------------------
def live_files(table, snapshot_id: int | None = None) -> list[tuple[str, int]]:
    tasks = table.scan(snapshot_id=snapshot_id).plan_files()
    return sorted((t.file.file_path, t.file.record_count) for t in tasks)


def manifests(table) -> list:
    return table.current_snapshot().manifests(table.io)


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_manifest_rewrite_merges_small_manifests_without_changing_data(service, partitioned):
    table = service.create("t", spec=BY_REGION if partitioned else None)
    fill(table, 30, partitioned)
    assert len(manifests(table)) == 30  # one per append
    files, rows = live_files(table), checksum(table.scan().to_arrow())
    old_snapshot = table.current_snapshot()
    listing, location = service.listing(), table.metadata_location

    preview = rewrite_manifests(table, settings(), dry_run=True)
    assert_unchanged(service, table, listing, location)
    assert preview.skipped is None and len(preview.removed_files) == 30
    assert sorted(f.path for f in preview.removed_files) == sorted(m.manifest_path for m in manifests(table))
    assert [f.path for f in preview.added_files] == ["(new manifest)"]
    assert preview.details["specs"] == [{"spec-id": 0, "manifests-rewritten": 30, "bytes-rewritten": sum(
        m.manifest_length for m in manifests(table)), "files": 90 if partitioned else 30}]

    report = rewrite_manifests(table, settings(), dry_run=False)
    assert report.skipped is None and report.snapshot_id is not None
    assert sorted(f.path for f in report.removed_files) == sorted(f.path for f in preview.removed_files)
    table = service.load("t")
    assert [m.manifest_path for m in manifests(table)] == [f.path for f in report.added_files]
    assert live_files(table) == files and checksum(table.scan().to_arrow()) == rows
    assert live_files(table, old_snapshot.snapshot_id) == files
    summary = table.current_snapshot().summary
    assert summary.operation == Operation.REPLACE
    for total in ("total-records", "total-data-files", "total-files-size", "total-delete-files"):
        assert summary[total] == old_snapshot.summary[total]
    # Entries keep the snapshot that added them: incremental readers still see when each file came.
    entries = manifests(table)[0].fetch_manifest_entry(table.io)
    assert {e.status for e in entries} == {ManifestEntryStatus.EXISTING}
    assert len({e.snapshot_id for e in entries}) == 30

    again = rewrite_manifests(table, settings(), dry_run=False)
    assert again.skipped == "no partition spec has 10 data manifests under 4194304 bytes"


def test_manifest_rewrite_keeps_a_concurrent_append(service):
    table = service.create("t")
    fill(table, 12, partitioned=False)
    plan = plan_manifest_rewrite(table)
    writer = service.load("t")
    writer.append(batch([500, 501], "eu"))
    report = run_manifest_rewrite(table, plan, OperationReport("rewrite-manifests", False))
    assert report.skipped is None
    table = service.load("t")
    assert len(manifests(table)) == 2  # the merged one and the writer's
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == list(range(120)) + [500, 501]


def test_manifest_rewrite_after_a_concurrent_rewrite_fails_cleanly(service):
    table = service.create("t")
    fill(table, 12, partitioned=False)
    plan = plan_manifest_rewrite(table)
    assert compact(service.load("t"), settings(), dry_run=False).snapshot_id  # rewrites the manifests too
    listing, location = service.listing(), service.load("t").metadata_location
    report = run_manifest_rewrite(table, plan, OperationReport("rewrite-manifests", False))
    assert report.snapshot_id is None and "replaced concurrently" in report.skipped
    assert_unchanged(service, table, listing, location)
    # The same with a table loaded after the other rewrite: the plan's manifests are not in its snapshot.
    report = run_manifest_rewrite(service.load("t"), plan, OperationReport("rewrite-manifests", False))
    assert report.snapshot_id is None and "replaced concurrently" in report.skipped
    assert_unchanged(service, table, listing, location)


def test_manifest_rewrite_needs_enough_small_manifests(service):
    table = service.create("t")
    fill(table, 9, partitioned=False)
    assert rewrite_manifests(table, settings(), dry_run=True).skipped.startswith("no partition spec has 10")
