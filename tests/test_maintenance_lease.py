"""Two servers in front of one store never maintain the same table at once: the runner of each holds
the table's lease (a conditional write) for a run, and the other one is refused, or skips the table in
its background pass, until the run is over. Two runners over one real store (LocalStore, the catalog,
PyIceberg), as two server processes would have."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from aistor_lab.store import LocalStore
from aistor_lab.tables.catalog import Catalog
from aistor_lab.tables.errors import CommitFailedException
from aistor_lab.tables.maintenance.runner import Maintenance
from aistor_lab.tables.maintenance.service_catalog import ServiceCatalog

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False))


@pytest.fixture
def store_with_table(tmp_path):
    store = LocalStore(tmp_path)
    catalog = Catalog(store)
    catalog.warehouses.create({"name": "whouse"})
    catalog.namespaces.create("whouse", {"namespace": ["ns"]})
    catalog.tables.create("whouse", ["ns"], {"name": "t", "schema": json.loads(SCHEMA.model_dump_json()),
                                             "properties": {"history.expire.max-snapshot-age-ms": "1"}})
    table = ServiceCatalog(catalog.tables, store, "whouse").load_table(("ns", "t"))
    for number in range(4):
        table.append(pa.table({"id": pa.array([number], pa.int64())}))
    return store, catalog, str(table.metadata.table_uuid)


def test_a_table_held_by_one_server_is_refused_to_the_other(store_with_table):
    store, catalog, table_uuid = store_with_table
    first, second = Maintenance(catalog, store, pause_seconds=0), Maintenance(catalog, store, pause_seconds=0)
    held = first._states.claim(table_uuid)  # the first server is in the middle of a run
    assert held is not None
    with pytest.raises(CommitFailedException, match="running on another server"):
        second.run("whouse", ["ns"], "t", ["expire-snapshots"])
    second.run_due()  # the background pass skips it
    assert second.history("whouse", ["ns"], "t")["runs"] == []
    assert len(ServiceCatalog(catalog.tables, store, "whouse").load_table(("ns", "t")).metadata.snapshots) == 4
    # A dry run takes no lease: it changes nothing.
    assert second.run("whouse", ["ns"], "t", ["expire-snapshots"], dry_run=True)["dry-run"]
    first._states.release(table_uuid, *held)
    record = second.run("whouse", ["ns"], "t", ["expire-snapshots"])
    assert len(record["operations"][0]["removed-snapshots"]) == 3


def test_the_background_pass_remembers_across_restarts(store_with_table):
    store, catalog, _ = store_with_table
    Maintenance(catalog, store, interval_seconds=3600, pause_seconds=0).run_due()
    restarted = Maintenance(catalog, store, interval_seconds=3600, pause_seconds=0)  # a new process
    restarted.run_due()  # ran less than an interval ago: not due
    runs = restarted.history("whouse", ["ns"], "t")["runs"]
    assert [run["trigger"] for run in runs] == ["schedule"]
    expiry = next(r for r in runs[0]["operations"] if r["operation"] == "expire-snapshots")
    assert len(expiry["removed-snapshots"]) == 3
