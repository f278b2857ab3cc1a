"""Unreferenced-file removal on real tables (LocalStore, the catalog, PyIceberg in process): stray files
are marked once older than the grace period and deleted once marked for the deletion delay; files a
writer is still committing, or has committed since, are never deleted; a dry run changes nothing;
a nested table's files are not the outer table's orphans. The clock is the ``now_ms`` passed."""

from __future__ import annotations

import io
import json
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.schema import Schema
from pyiceberg.table import Table
from pyiceberg.table.statistics import StatisticsFile
from pyiceberg.types import LongType, NestedField, StringType

from aistor_lab.store import LocalStore
from aistor_lab.tables.catalog import Catalog
from aistor_lab.tables.maintenance.service_catalog import ServiceCatalog
from aistor_lab.tables.maintenance.settings import resolve
from aistor_lab.tables.maintenance.unreferenced import remove_unreferenced

WAREHOUSE = "whouse"
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))
SETTINGS = resolve({}, {})  # grace period 3 days, deletion delay 10 days
GRACE, DELAY = SETTINGS.unreferenced_grace_ms, SETTINGS.unreferenced_delay_ms


@pytest.fixture
def setup(tmp_path):
    store = LocalStore(tmp_path)
    catalog = Catalog(store)
    catalog.warehouses.create({"name": WAREHOUSE})
    catalog.namespaces.create(WAREHOUSE, {"namespace": ["ns"]})
    return store, catalog


def create_table(setup, name: str, **request) -> Table:
    _, catalog = setup
    catalog.tables.create(WAREHOUSE, ["ns"], {"name": name, "schema": json.loads(SCHEMA.model_dump_json()), **request})
    return load(setup, name)


def load(setup, name: str) -> Table:
    store, catalog = setup
    return ServiceCatalog(catalog.tables, store, WAREHOUSE).load_table(("ns", name))


def rows(first: int, count: int) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids], pa.string())})


def parquet_bytes(data: pa.Table) -> bytes:
    out = io.BytesIO()
    pq.write_table(data, out)
    return out.getvalue()


def objects(store: LocalStore) -> dict[str, str]:
    """Every object of the warehouse bucket: key -> ETag."""
    found, start_after = {}, ""
    while True:
        page = store.list_objects(WAREHOUSE, start_after=start_after)
        found.update({o.key: o.etag for o in page.objects})
        if not page.is_truncated:
            return found
        start_after = page.next_marker


def put_stray(store: LocalStore, table: Table, relative: str, data: bytes) -> str:
    """A file under the table's location that no metadata names; its s3:// path."""
    path = f"{table.location().rstrip('/')}/{relative}"
    store.put_bytes(WAREHOUSE, path.removeprefix(f"s3://{WAREHOUSE}/"), data)
    return path


def snapshot_ids(table: Table) -> list[int]:
    return [s.snapshot_id for s in table.metadata.snapshots]


def every_snapshot_reads(table: Table) -> dict[int, list[int]]:
    """The sorted ids each snapshot reads (time travel over all of them)."""
    return {sid: sorted(table.scan(snapshot_id=sid).to_arrow()["id"].to_pylist()) for sid in snapshot_ids(table)}


def run(table, store, marks, now_ms, *, dry_run=False, other_locations=()):
    return remove_unreferenced(table, store, SETTINGS, marks, dry_run=dry_run, now_ms=now_ms,
                               other_locations=other_locations)


def now() -> int:
    return int(time.time() * 1000)


def test_stray_files_are_marked_after_the_grace_period_and_deleted_after_the_delay(setup):
    store, _ = setup
    # previous-versions-max=1: older metadata files drop out of the log, leaving them unreferenced
    table = create_table(setup, "t", properties={"write.metadata.previous-versions-max": "1"})
    for first in (0, 10, 20, 30):
        table.append(rows(first, 10))
    expired = table.metadata.snapshots[0]
    table.maintenance.expire_snapshots().by_id(expired.snapshot_id).commit()  # its files stay behind
    table.refresh()
    statistics = put_stray(store, table, "metadata/stats.puffin", b"PFA1 statistics")
    table.update_statistics().set_statistics(StatisticsFile(
        snapshot_id=table.metadata.current_snapshot_id, statistics_path=statistics, file_size_in_bytes=15,
        file_footer_size_in_bytes=4, blob_metadata=[])).commit()
    aborted = put_stray(store, table, "data/00000-0-aborted.parquet", parquet_bytes(rows(100, 5)))
    old_metadata = put_stray(store, table, "metadata/00000-lost.metadata.json", b"{}")
    strays = {aborted, old_metadata, expired.manifest_list}
    dropped_from_log = {f"s3://{WAREHOUSE}/{key}" for key in objects(store)
                        if key.endswith(".metadata.json")} - {table.metadata_location, old_metadata}
    dropped_from_log -= {entry.metadata_file for entry in table.metadata.metadata_log}
    assert dropped_from_log  # commits whose metadata files the log no longer names
    strays |= dropped_from_log
    expected = every_snapshot_reads(table)
    assert len(expected) == 3 and expected[table.metadata.current_snapshot_id] == list(range(40))

    start = now()
    report, marks = run(table, store, {}, start)  # everything is younger than the grace period
    assert marks == {} and report.marked_files == [] and report.details["young"] >= len(strays)

    report, marks = run(table, store, marks, start + GRACE + 1)
    assert {f.path for f in report.marked_files} == set(marks) == strays
    assert report.removed_files == [] and report.details["marked-total"] == len(strays)
    assert report.details["young"] == 0 and report.details["referenced"] == report.details["listed"] - len(strays)

    report, marks = run(table, store, marks, start + GRACE + DELAY)  # not yet: marked 1 ms too late
    assert report.removed_files == [] and report.marked_files == [] and set(marks) == strays

    before = objects(store)
    report, marks = run(table, store, marks, start + GRACE + 1 + DELAY)
    assert {f.path for f in report.removed_files} == strays and marks == {}
    assert set(before) - set(objects(store)) == {p.removeprefix(f"s3://{WAREHOUSE}/") for p in strays}
    assert statistics.removeprefix(f"s3://{WAREHOUSE}/") in objects(store)  # the metadata names it
    assert report.bytes_freed > 0

    reloaded = load(setup, "t")
    assert reloaded.metadata_location == table.metadata_location
    assert every_snapshot_reads(reloaded) == expected
    report, marks = run(reloaded, store, marks, start + GRACE + DELAY * 3)  # nothing left to do
    assert report.skipped and report.removed_files == [] and marks == {}


def test_a_slow_writers_file_is_never_marked_and_is_kept_once_committed(setup):
    store, _ = setup
    table = create_table(setup, "t")
    table.append(rows(0, 10))
    start = now()
    written = put_stray(store, table, "data/slow-writer.parquet", parquet_bytes(rows(10, 5)))

    report, marks = run(table, store, {}, start)
    assert marks == {} and report.details["young"] == 1 and report.marked_files == []

    table.add_files([written])  # the writer commits it
    # a mark from a run that saw it unreferenced (as if the grace period had been too short) ...
    report, marks = run(load(setup, "t"), store, {written: start + GRACE + 1}, start + GRACE + 1 + DELAY)
    assert written not in marks and report.removed_files == []  # ... is dropped: it is referenced
    assert store.get_object_info(WAREHOUSE, written.removeprefix(f"s3://{WAREHOUSE}/")).size > 0
    assert sorted(load(setup, "t").scan().to_arrow()["id"].to_pylist()) == list(range(15))


def test_a_file_committed_after_the_listing_is_kept_by_the_recheck(setup):
    store, _ = setup
    table = create_table(setup, "t")
    table.append(rows(0, 10))
    late = put_stray(store, table, "data/late-commit.parquet", parquet_bytes(rows(10, 5)))
    start = now()  # after the writes: last-modified times are the store's clock
    report, marks = run(table, store, {}, start + GRACE + 1)
    assert set(marks) == {late}

    load(setup, "t").add_files([late])  # committed while ``table`` still holds the older metadata
    stale_location = table.metadata_location
    report, marks = run(table, store, marks, start + GRACE + 1 + DELAY)
    assert report.removed_files == [] and marks == {}
    assert table.metadata_location != stale_location  # the run re-loaded the table before deleting
    assert sorted(load(setup, "t").scan().to_arrow()["id"].to_pylist()) == list(range(15))


def test_a_dry_run_changes_nothing_and_lists_what_a_run_would_delete(setup):
    store, _ = setup
    table = create_table(setup, "t")
    table.append(rows(0, 10))
    stray = put_stray(store, table, "data/stray.parquet", parquet_bytes(rows(10, 5)))
    start = now()  # after the writes: last-modified times are the store's clock
    _, marks = run(table, store, {}, start + GRACE + 1)
    later = put_stray(store, table, "data/later-stray.parquet", b"x" * 10)
    before, location = objects(store), table.metadata_location
    given = dict(marks)

    report, returned = run(table, store, given, start + GRACE + 1 + DELAY, dry_run=True)
    assert report.dry_run and [f.path for f in report.removed_files] == [stray]
    assert [f.path for f in report.marked_files] == [later] and report.details["marked-total"] == 1
    assert returned == marks == given and objects(store) == before
    assert load(setup, "t").metadata_location == location

    report, marks = run(table, store, marks, start + GRACE + 1 + DELAY)  # the run it previewed
    assert [f.path for f in report.removed_files] == [stray] and set(marks) == {later}


def test_a_nested_tables_files_are_not_the_outer_tables_orphans(setup):
    store, _ = setup
    outer = create_table(setup, "outer", location=f"s3://{WAREHOUSE}/outer")
    inner = create_table(setup, "inner", location=f"s3://{WAREHOUSE}/outer/inner")
    outer.append(rows(0, 10))
    inner.append(rows(100, 10))
    inner_stray = put_stray(store, inner, "data/inner-stray.parquet", b"x")
    outer_stray = put_stray(store, outer, "data/outer-stray.parquet", b"y")
    inner_files = {k for k in objects(store) if k.startswith("outer/inner/")}
    start = now()

    marks: dict[str, int] = {}
    for at in (start + GRACE + 1, start + GRACE + 1 + DELAY):
        report, marks = run(outer, store, marks, at, other_locations=[inner.location()])
    assert [f.path for f in report.removed_files] == [outer_stray] and marks == {}
    assert report.details["other-tables"] == len(inner_files)
    assert {k for k in objects(store) if k.startswith("outer/inner/")} == inner_files

    # the inner table's own run is skipped: the outer table's metadata may name files under it
    report, inner_marks = run(inner, store, {}, start + GRACE + 1, other_locations=[outer.location()])
    assert report.skipped and "inside another table" in report.skipped and inner_marks == {}
    assert inner_stray.removeprefix(f"s3://{WAREHOUSE}/") in objects(store)
    assert sorted(load(setup, "inner").scan().to_arrow()["id"].to_pylist()) == list(range(100, 110))
    assert sorted(load(setup, "outer").scan().to_arrow()["id"].to_pylist()) == list(range(10))


def test_a_file_rewritten_after_it_was_marked_is_marked_anew(setup):
    store, _ = setup
    table = create_table(setup, "t")
    table.append(rows(0, 10))
    stray = put_stray(store, table, "data/rewritten.parquet", b"second content")
    start = now()
    marked_before_the_rewrite = {stray: start - 60_000}
    report, marks = run(table, store, marked_before_the_rewrite, start + GRACE + DELAY)
    assert report.removed_files == [] and marks == {stray: start + GRACE + DELAY}
    assert [f.path for f in report.marked_files] == [stray]


def test_a_location_that_also_holds_a_delta_log_is_left_alone(setup):
    store, _ = setup
    table = create_table(setup, "t")
    table.append(rows(0, 10))
    delta_file = put_stray(store, table, "part-00000.parquet", parquet_bytes(rows(50, 5)))
    put_stray(store, table, "_delta_log/00000000000000000000.json", b"{}")
    before = objects(store)
    start = now()
    report, marks = run(table, store, {delta_file: start - GRACE}, start + GRACE + DELAY)
    assert report.skipped and "Delta log" in report.skipped
    assert marks == {delta_file: start - GRACE} and objects(store) == before


def test_listings_of_many_pages_are_read_to_the_end(setup):
    store, _ = setup
    table = create_table(setup, "t")
    table.append(rows(0, 10))
    strays = {put_stray(store, table, f"data/aborted-{i:05}.parquet", b"x") for i in range(2500)}
    start = now()
    report, marks = run(table, store, {}, start + GRACE + 1)
    assert set(marks) == strays and report.details["listed"] == len(strays) + report.details["referenced"]
    report, marks = run(table, store, marks, start + GRACE + 1 + DELAY)
    assert {f.path for f in report.removed_files} == strays and marks == {}
    assert sorted(load(setup, "t").scan().to_arrow()["id"].to_pylist()) == list(range(10))
