"""Table maintenance through the catalog's API on a real server, with PyIceberg writing the tables:
configuration per warehouse and per table, dry runs that change nothing, snapshot expiry that honours
refs and limits, the history, who may do what, and the background pass."""

from __future__ import annotations

import time
import uuid

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from aistor_lab.workbench.client import ServiceConfig, ServiceError
from aistor_lab.workbench.commands.actions import UsageError
from aistor_lab.workbench.commands.registry import execute, panel_front

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    catalog_call,
    make_s3_client,
    make_user,
    seed_catalog_properties,
    service_with,
)

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))


def batch(first: int, rows: int = 3) -> pa.Table:
    return pa.table({"id": pa.array(range(first, first + rows), pa.int64()),
                     "name": [f"row-{i}" for i in range(first, first + rows)]})


MADE: list[tuple] = []  # (server, warehouse) made by the running test


@pytest.fixture(autouse=True)
def drop_made_warehouses():
    """Each test's warehouses go with it (purged): the shared server stays as small as the other tests
    expect it (the panel's search walks all of it within a budget of calls)."""
    yield
    while MADE:
        server, warehouse = MADE.pop()
        if server.healthy():  # a server of the test's own is gone already
            assert catalog_call(server, "DELETE", f"/v1/warehouses/{warehouse}?force=true")[0] == 204


def new_table(server, appends: int, properties: dict | None = None):
    """A new warehouse with a table of ``appends`` appends of 3 rows; (warehouse, PyIceberg catalog, table)."""
    warehouse = f"maint-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    MADE.append((server, warehouse))
    catalog = load_catalog("maintenance", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.events", SCHEMA, properties=properties or {})
    for number in range(appends):
        table.append(batch(number * 3))
    return warehouse, catalog, table


def table_path(warehouse: str, suffix: str = "") -> str:
    return f"/v1/{warehouse}/namespaces/ns/tables/events/maintenance{suffix}"


def object_keys(server, warehouse: str) -> set[str]:
    s3 = make_s3_client(server.endpoint)
    return {o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=warehouse)
            for o in page.get("Contents", [])}


EXPIRE_ALL_BUT_3 = {"history.expire.min-snapshots-to-keep": "3", "history.expire.max-snapshot-age-ms": "1"}


def test_warehouse_settings_round_trip_and_bad_input(server):
    warehouse, _, _ = new_table(server, 0)
    status, body = catalog_call(server, "GET", f"/v1/warehouses/{warehouse}/maintenance")
    assert status == 200 and body["settings"] == {}
    assert body["effective"]["write.target-file-size-bytes"] == str(512 * 1024 * 1024)
    status, body = catalog_call(server, "PUT", f"/v1/warehouses/{warehouse}/maintenance",
                                {"settings": {"write.target-file-size-bytes": 1048576,
                                              "maintenance.compaction.enabled": False}})
    assert status == 200, body
    assert body["settings"] == {"write.target-file-size-bytes": "1048576", "maintenance.compaction.enabled": "false"}
    status, body = catalog_call(server, "PUT", f"/v1/warehouses/{warehouse}/maintenance",
                                {"settings": {"maintenance.compaction.enabled": None}})
    assert body["settings"] == {"write.target-file-size-bytes": "1048576"}
    before = catalog_call(server, "GET", f"/v1/warehouses/{warehouse}/maintenance")[1]
    for bad in ({"settings": {"no.such.setting": "1"}}, {"settings": {"write.target-file-size-bytes": "big"}},
                {"settings": {"history.expire.min-snapshots-to-keep": 0}}, {"settings": []}, {"nothing": 1}):
        status, body = catalog_call(server, "PUT", f"/v1/warehouses/{warehouse}/maintenance", bad)
        assert status == 400 and body["error"]["type"] == "BadRequestException", (bad, body)
    assert catalog_call(server, "GET", f"/v1/warehouses/{warehouse}/maintenance")[1] == before
    assert catalog_call(server, "GET", "/v1/warehouses/no-such-warehouse-x/maintenance")[0] == 404


def test_table_overrides_are_table_properties_and_win_over_the_warehouse(server):
    warehouse, catalog, _ = new_table(server, 2)
    catalog_call(server, "PUT", f"/v1/warehouses/{warehouse}/maintenance",
                 {"settings": {"history.expire.min-snapshots-to-keep": "4", "write.target-file-size-bytes": "2097152"}})
    status, body = catalog_call(server, "PUT", table_path(warehouse), {"settings": {"history.expire.min-snapshots-to-keep": 2}})
    assert status == 200, body
    settings = body["settings"]
    assert settings["history.expire.min-snapshots-to-keep"] == {**settings["history.expire.min-snapshots-to-keep"],
                                                               "value": "2", "source": "table"}
    assert settings["write.target-file-size-bytes"]["source"] == "warehouse"
    assert settings["maintenance.compaction.min-input-files"]["source"] == "default"
    assert catalog.load_table("ns.events").properties["history.expire.min-snapshots-to-keep"] == "2"
    health = body["health"]
    assert health["snapshots"] == 2 and health["data-files"] == 2 and health["small-files"] == 2
    assert sum(health["histogram"]["counts"]) == 2
    catalog_call(server, "PUT", table_path(warehouse), {"settings": {"history.expire.min-snapshots-to-keep": None}})
    assert "history.expire.min-snapshots-to-keep" not in catalog.load_table("ns.events").properties


def test_dry_run_changes_nothing_and_expiry_does_what_it_showed(server):
    warehouse, catalog, table = new_table(server, 8, EXPIRE_ALL_BUT_3)
    snapshots = [s.snapshot_id for s in table.metadata.snapshots]
    table.manage_snapshots().create_tag(snapshots[1], "audit").commit()  # an old snapshot a tag holds
    keys_before, location_before = object_keys(server, warehouse), catalog.load_table("ns.events").metadata_location

    status, preview = catalog_call(server, "POST", table_path(warehouse, "/runs"),
                                   {"operations": ["expire-snapshots"], "dry-run": True})
    assert status == 200, preview
    assert object_keys(server, warehouse) == keys_before
    assert catalog.load_table("ns.events").metadata_location == location_before
    (report,) = preview["operations"]
    expected_gone = {str(s) for s in snapshots[:5]} - {str(snapshots[1])}
    assert set(report["removed-snapshots"]) == expected_gone
    assert report["removed-files"]["count"] == 4  # one manifest list each: their data files live on

    status, run = catalog_call(server, "POST", table_path(warehouse, "/runs"), {"operations": ["expire-snapshots"]})
    assert status == 200 and not run["errors"], run
    assert run["operations"][0]["removed-snapshots"] == report["removed-snapshots"]
    assert run["operations"][0]["removed-files"] == report["removed-files"]
    table = catalog.load_table("ns.events")
    assert [s.snapshot_id for s in table.metadata.snapshots] == [snapshots[1], *snapshots[5:]]
    assert table.scan().to_arrow().num_rows == 24
    assert table.scan(snapshot_id=snapshots[1]).to_arrow().num_rows == 6  # the tag still time-travels
    assert table.scan(snapshot_id=snapshots[5]).to_arrow().num_rows == 18
    gone = {f["path"].split("/", 3)[3] for f in report["removed-files"]["files"]}
    assert gone and gone <= keys_before and not gone & object_keys(server, warehouse)

    status, history = catalog_call(server, "GET", table_path(warehouse, "/runs"))
    assert status == 200 and history["runs"][0]["id"] == run["id"] and not history["runs"][0]["dry-run"]
    assert len(history["runs"]) == 1  # dry runs are not recorded
    again = catalog_call(server, "POST", table_path(warehouse, "/runs"), {"operations": ["expire-snapshots"]})[1]
    assert again["operations"][0]["skipped"] and not again["operations"][0]["removed-snapshots"]


def test_expiry_keeps_young_snapshots_and_branches(server):
    warehouse, catalog, table = new_table(server, 4)  # defaults: 5 days, nothing is old enough
    first = table.metadata.snapshots[0].snapshot_id
    table.manage_snapshots().create_branch(first, "audit-branch").commit()
    status, run = catalog_call(server, "POST", table_path(warehouse, "/runs"), {"operations": ["expire-snapshots"]})
    assert status == 200 and run["operations"][0]["skipped"]
    catalog_call(server, "PUT", table_path(warehouse), {"settings": EXPIRE_ALL_BUT_3})
    catalog_call(server, "POST", table_path(warehouse, "/runs"), {"operations": ["expire-snapshots"]})
    table = catalog.load_table("ns.events")
    assert first in {s.snapshot_id for s in table.metadata.snapshots}  # the branch's head
    assert len(table.metadata.snapshots) == 4 and table.scan().to_arrow().num_rows == 12


def test_unknown_operation_and_table_are_clear_errors(server):
    warehouse, _, _ = new_table(server, 1)
    status, body = catalog_call(server, "POST", table_path(warehouse, "/runs"), {"operations": ["defragment"]})
    assert status == 400 and "defragment" in body["error"]["message"]
    status, body = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/ns/tables/nope/maintenance/runs", {})
    assert status == 404 and body["error"]["type"] == "NoSuchTableException"
    status, body = catalog_call(server, "POST", table_path(warehouse, "/runs"), {"dry-run": "yes"})
    assert status == 400


def test_who_may_preview_run_and_configure(server):
    warehouse, _, _ = new_table(server, 2)
    arn = f"arn:aws:s3tables:::bucket/{warehouse}"
    viewer = make_user(server, {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Resource": [arn, f"{arn}/table/*"],
        "Action": ["s3tables:GetTableMaintenanceConfiguration", "s3tables:GetTableMaintenanceJobStatus"]}]})
    assert catalog_call(server, "GET", table_path(warehouse), credentials=viewer)[0] == 200
    assert catalog_call(server, "POST", table_path(warehouse, "/runs"), {"dry-run": True}, credentials=viewer)[0] == 200
    assert catalog_call(server, "GET", table_path(warehouse, "/runs"), credentials=viewer)[0] == 200
    for method, path, body in (("POST", table_path(warehouse, "/runs"), {}),
                               ("PUT", table_path(warehouse), {"settings": {}}),
                               ("GET", f"/v1/warehouses/{warehouse}/maintenance", None),
                               ("PUT", f"/v1/warehouses/{warehouse}/maintenance", {"settings": {}})):
        status, answer = catalog_call(server, method, path, body, credentials=viewer)
        assert status == 403 and answer["error"]["type"] == "ForbiddenException", (method, path)


def test_the_background_pass_maintains_tables_and_remembers_it(tmp_path_factory):
    with service_with(tmp_path_factory, {"AISTOR_MAINTENANCE_INTERVAL_SECONDS": "1"}) as server:
        warehouse, catalog, _ = new_table(server, 6, EXPIRE_ALL_BUT_3)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            runs = catalog_call(server, "GET", table_path(warehouse, "/runs"))[1]["runs"]
            if any(run["trigger"] == "schedule" for run in runs):
                break
            time.sleep(0.5)
        else:
            pytest.fail("the background pass did not run within 60 s")
        assert len(catalog.load_table("ns.events").metadata.snapshots) == 3


def test_the_commands_show_set_preview_run_and_look_back(server):
    warehouse, catalog, _ = new_table(server, 5)
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=warehouse)

    def aistor(*argv: str):
        return execute(list(argv), panel_front(), service=service)[1]  # as the side panel sends them

    shown = aistor("table", "maintenance", "show", "ns", "events")
    assert "Small files:" in shown.text() and "5 (100%" in shown.text()
    assert shown.data()["health"]["data-files"] == 5
    changed = aistor("table", "maintenance", "set", "ns", "events", "-p", "history.expire.min-snapshots-to-keep=2",
                     "-p", "history.expire.max-snapshot-age-ms=1")
    assert changed.data()["settings"]["history.expire.min-snapshots-to-keep"]["source"] == "table"
    preview = aistor("table", "maintenance", "run", "ns", "events", "-o", "expire-snapshots", "--dry-run")
    assert preview.text().startswith("Dry run: nothing was changed")
    assert len(catalog.load_table("ns.events").metadata.snapshots) == 5
    run = aistor("table", "maintenance", "run", "ns", "events", "-o", "expire-snapshots")
    assert run.data()["operations"][0]["removed-snapshots"] == preview.data()["operations"][0]["removed-snapshots"]
    assert len(catalog.load_table("ns.events").metadata.snapshots) == 2
    history = aistor("table", "maintenance", "history", "ns", "events")
    assert len(history.data()) == 1 and "expire-snapshots" in history.text()
    aistor("warehouse", "maintenance", "set", "-p", "maintenance.compaction.min-input-files=8")
    assert aistor("warehouse", "maintenance", "show").data()["settings"] == {"maintenance.compaction.min-input-files": "8"}
    with pytest.raises(UsageError):
        aistor("table", "maintenance", "set", "ns", "events")  # nothing to change
    with pytest.raises(ServiceError) as refused:
        aistor("warehouse", "maintenance", "set", "-p", "history.expire.min-snapshots-to-keep=none")
    assert "whole number" in str(refused.value)


def test_unreferenced_files_are_marked_then_removed_through_the_api(server):
    warehouse, catalog, table = new_table(server, 3)
    s3 = make_s3_client(server.endpoint)
    location = table.location().removeprefix(f"s3://{warehouse}/")
    stray = f"{location}/data/00000-aborted-write.parquet"
    s3.put_object(Bucket=warehouse, Key=stray, Body=b"left by a writer that crashed before committing")
    runs = table_path(warehouse, "/runs")
    # Young: inside the default grace period of 3 days, never marked.
    young = catalog_call(server, "POST", runs, {"operations": ["remove-unreferenced-files"]})[1]["operations"][0]
    assert young["marked-files"]["count"] == 0 and young["details"]["young"] == 1
    catalog_call(server, "PUT", table_path(warehouse), {"settings": {
        "maintenance.unreferenced-files.grace-period-ms": 0, "maintenance.unreferenced-files.deletion-delay-ms": 0}})
    preview = catalog_call(server, "POST", runs, {"operations": ["remove-unreferenced-files"], "dry-run": True})[1]
    assert s3.head_object(Bucket=warehouse, Key=stray)
    marked = catalog_call(server, "POST", runs, {"operations": ["remove-unreferenced-files"]})[1]["operations"][0]
    assert [f["path"] for f in marked["marked-files"]["files"]] == [f"s3://{warehouse}/{stray}"]
    assert preview["operations"][0]["marked-files"]["files"] == marked["marked-files"]["files"]
    removed = catalog_call(server, "POST", runs, {"operations": ["remove-unreferenced-files"]})[1]["operations"][0]
    assert [f["path"] for f in removed["removed-files"]["files"]] == [f"s3://{warehouse}/{stray}"]
    assert stray not in object_keys(server, warehouse)
    table = catalog.load_table("ns.events")
    assert table.scan().to_arrow().num_rows == 9
    for snapshot in table.metadata.snapshots:  # every snapshot still reads
        assert table.scan(snapshot_id=snapshot.snapshot_id).to_arrow().num_rows > 0


def test_the_widget_previews_then_applies_what_it_previewed(server):
    from aistor_lab.workbench.client import AIStorClient
    from aistor_lab.workbench.maintenance_widget import MaintenanceWidget, bin_labels

    warehouse, catalog, _ = new_table(server, 6, EXPIRE_ALL_BUT_3)
    widget = MaintenanceWidget("ns", "events", client=AIStorClient(ServiceConfig(server.endpoint, ROOT_USER,
                                                                                 ROOT_PASSWORD, warehouse=warehouse)))
    assert "Data files" in widget.health.value and widget.chart.value.startswith("<svg")
    assert "&lt; 1.0KiB" in widget.chart.value and widget.apply_button.disabled
    assert bin_labels([1024, 2048]) == ["< 1.0KiB", "1.0KiB-2.0KiB", "> 2.0KiB"]
    widget.preview()
    assert "Dry run: nothing was changed" in widget.plan.value and "3 snapshots would go" in widget.plan.value
    assert "after maintenance" in widget.chart.value and not widget.apply_button.disabled
    assert len(catalog.load_table("ns.events").metadata.snapshots) == 6
    widget.apply()
    assert len(catalog.load_table("ns.events").metadata.snapshots) == 3
    assert widget.status.value == "Done." and widget.apply_button.disabled
    assert "expire-snapshots" in widget.history.value
    widget.preview()  # nothing left to do
    assert widget.apply_button.disabled and "Nothing to do" in widget.status.value


def test_500_small_appends_are_compacted_and_nothing_is_lost_or_changed(server, tmp_path):
    """The issue's proof: a table of 500 small PyIceberg appends compacted through the API while a writer
    appends: every row (theirs too) is there once, old snapshots still read as they did, and the Delta
    Sharing answer is the same table."""
    import threading

    import delta_sharing

    from .sharing_support import share_profile

    # Merged manifests keep each append's commit small (PyIceberg's merge append): 500 data files still.
    warehouse, catalog, _ = new_table(server, 500, {"commit.manifest-merge.enabled": "true"})
    before = catalog.load_table("ns.events")
    middle = before.metadata.snapshots[249].snapshot_id
    rows_at_middle = before.scan(snapshot_id=middle).to_arrow().sort_by("id")
    share, profile = share_profile(server, tmp_path, "sales", [f"events:uniform:{warehouse}:ns:events"])
    shared_before = delta_sharing.load_as_pandas(f"{profile}#{share}.sales.events").sort_values("id")
    assert len(shared_before) == 1500
    health = catalog_call(server, "GET", table_path(warehouse))[1]["health"]
    assert health["data-files"] == 500 and health["small-files"] == 500

    writer = load_catalog("writer", **seed_catalog_properties(server, warehouse)).load_table("ns.events")
    writing = threading.Thread(target=lambda: [writer.append(batch(10_000 + 3 * n)) for n in range(20)])
    writing.start()
    status, run = catalog_call(server, "POST", table_path(warehouse, "/runs"), {"operations": ["compact"]})
    writing.join()
    assert status == 200 and not run["errors"], run
    report = run["operations"][0]
    assert report["removed-files"]["count"] >= 500 - 20 and report["added-files"]["count"] >= 1

    after = catalog.load_table("ns.events")
    rows = after.scan().to_arrow().sort_by("id")
    expected_ids = sorted([*range(1500), *(10_000 + i for i in range(60))])
    assert rows["id"].to_pylist() == expected_ids  # each row once, the writer's 60 included
    assert rows["name"].to_pylist() == [f"row-{i}" for i in expected_ids]
    assert after.scan(snapshot_id=middle).to_arrow().sort_by("id").equals(rows_at_middle)
    assert "replace" in {s.summary.operation.value for s in after.metadata.snapshots}
    health = catalog_call(server, "GET", table_path(warehouse))[1]["health"]
    assert health["data-files"] <= 1 + 20  # one compacted file, and what the writer added after the plan
    shared_after = delta_sharing.load_as_pandas(f"{profile}#{share}.sales.events").sort_values("id")
    assert shared_after["id"].tolist() == expected_ids and shared_after["name"].tolist() == rows["name"].to_pylist()
