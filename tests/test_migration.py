"""``aistor table migrate`` and ``aistor table register`` through the real CLI against a real server:
from a PyIceberg SQL catalog (SQLite) on local files, from another aistor-lab server (REST, SigV4), from a
directory of Hadoop tables written by Spark (partitioned, with position deletes). Each checks the rows
(checksums), time travel to an old snapshot, refs, properties and history on the target; a second run
copies and registers nothing; a run that fails half way is resumed by the next; a dry run changes nothing."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import DoubleType, LongType, NestedField, StringType

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    catalog_call,
    make_s3_client,
    seed_catalog_properties,
    service_with,
)

CLI = [sys.executable, "-m", "aistor_lab.workbench.aistor_cli"]
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "city", StringType(), required=False))
ROWS = [pa.table({"id": pa.array(range(start, start + 5), pa.int64()),
                  "city": pa.array([city] * 5, pa.string())}) for start, city in ((0, "Lisbon"), (5, "Oslo"), (10, "Porto"))]


def checksum(table: pa.Table) -> str:
    """Of the rows, whatever their order and the files they came from."""
    rows = sorted(json.dumps(row, sort_keys=True, default=str) for row in table.to_pylist())
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


@pytest.fixture
def aistor(server, tmp_path):
    """The CLI, with the server as the alias ``target``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AISTOR_", "AWS_"))}
    env["AISTOR_CONFIG_DIR"] = str(tmp_path / "aistor-config")

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run([*CLI, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                                check=False)
        assert not check or result.returncode == 0, result.stderr + result.stdout
        return result

    run("alias", "set", "target", server.endpoint, ROOT_USER, ROOT_PASSWORD)
    return run


@pytest.fixture
def target_warehouse(server):
    name = f"migrated-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] == 200
    yield name
    catalog_call(server, "DELETE", f"/v1/warehouses/{name}?force=true")


def target_catalog(server, warehouse: str):
    return load_catalog("target", **seed_catalog_properties(server, warehouse))


def migrate(aistor, *args: str, check: bool = True) -> dict | subprocess.CompletedProcess:
    result = aistor("table", "migrate", "target", *args, "--json", check=check)
    return json.loads(result.stdout) if check else result


def by_table(report: dict) -> dict[str, dict]:
    return {row["table"]: row for row in report["tables"]}


def target_objects(server, warehouse: str) -> list[str]:
    s3 = make_s3_client(server.endpoint)
    return [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=warehouse)
            for o in page.get("Contents", [])]


def expected(table) -> dict:
    """What a target must show of a source table: rows of every snapshot, refs, properties, schemas, specs."""
    metadata = table.metadata
    return {
        "rows": {s.snapshot_id: checksum(table.scan(snapshot_id=s.snapshot_id).to_arrow()) for s in metadata.snapshots},
        "current": checksum(table.scan().to_arrow()), "current-id": metadata.current_snapshot_id,
        "refs": metadata.refs, "properties": metadata.properties, "schemas": metadata.schemas,
        "specs": metadata.partition_specs, "sort-orders": metadata.sort_orders, "log": metadata.snapshot_log,
    }


def assert_same_table(wanted: dict, target_table, warehouse: str) -> None:
    """The target's table shows what the source's did, reading only files of the warehouse."""
    metadata = target_table.metadata
    assert {s.snapshot_id for s in metadata.snapshots} == set(wanted["rows"])
    for snapshot_id, rows in wanted["rows"].items():  # time travel, to every snapshot
        assert checksum(target_table.scan(snapshot_id=snapshot_id).to_arrow()) == rows
        for task in target_table.scan(snapshot_id=snapshot_id).plan_files():
            assert all(f.startswith(f"s3://{warehouse}/") for f in [task.file.file_path,
                                                                    *(d.file_path for d in task.delete_files)])
    assert checksum(target_table.scan().to_arrow()) == wanted["current"]
    assert metadata.current_snapshot_id == wanted["current-id"] and metadata.refs == wanted["refs"]
    assert metadata.properties == wanted["properties"]
    assert metadata.schemas == wanted["schemas"] and metadata.partition_specs == wanted["specs"]
    assert metadata.sort_orders == wanted["sort-orders"] and metadata.snapshot_log == wanted["log"]
    assert metadata.location.startswith(f"s3://{warehouse}/")


# -- a SQL catalog (SQLite) on local files ---------------------------------------------------------


def sqlite_catalog(tmp_path) -> SqlCatalog:
    (tmp_path / "files").mkdir(exist_ok=True)
    return SqlCatalog("default", uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=f"file://{tmp_path / 'files'}")


def evolving_table(catalog, namespace: str, name: str):
    """Partitioned by city; three appends, a schema change, a copy-on-write delete, a tag and a branch."""
    table = catalog.create_table(
        (namespace, name), SCHEMA,
        partition_spec=PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "city")),
        properties={"owner": "migration-test", "format-version": "2"})
    table.append(ROWS[0])
    table.append(ROWS[1])
    table.manage_snapshots().create_tag(table.current_snapshot().snapshot_id, "first-two").commit()
    with table.update_schema() as update:
        update.add_column("score", DoubleType())
    table = catalog.load_table((namespace, name))
    table.append(ROWS[2].append_column("score", pa.array([1.5] * 5, pa.float64())))
    table.delete("id = 7")
    table.manage_snapshots().create_branch(table.current_snapshot().snapshot_id, "audit").commit()
    return catalog.load_table((namespace, name))


def test_from_a_sqlite_catalog_dry_run_then_migrate_then_again(server, aistor, target_warehouse, tmp_path):
    source = sqlite_catalog(tmp_path)
    source.create_namespace("sales", {"comment": "the sales tables"})
    source.create_namespace(("sales", "eu"))
    orders = evolving_table(source, "sales", "orders")
    evolving_table(source, "sales.eu", "returns")
    uri = f"sqlite:///{tmp_path / 'catalog.db'}"

    plan = migrate(aistor, uri, target_warehouse, "--dry-run")
    assert plan["dry-run"] and set(by_table(plan)) == {"sales.orders", "sales.eu.returns"}
    assert all(row["files-copied"] > 0 and row["outcome"] == "copied and registered" for row in plan["tables"])
    assert target_objects(server, target_warehouse) == []
    assert catalog_call(server, "GET", f"/v1/{target_warehouse}/namespaces")[1]["namespaces"] == []

    wanted = {name: expected(source.load_table(name)) for name in ("sales.orders", "sales.eu.returns")}
    report = by_table(migrate(aistor, uri, target_warehouse))
    assert all(row["parity"] is True for row in report.values()), report
    assert report["sales.orders"]["source"]["snapshots"] == len(orders.metadata.snapshots) == 4
    # The target reads its own copies: the source's files may go.
    shutil.move(tmp_path / "files", tmp_path / "files-aside")
    target = target_catalog(server, target_warehouse)
    for name, table_wanted in wanted.items():
        assert_same_table(table_wanted, target.load_table(name), target_warehouse)
    shutil.move(tmp_path / "files-aside", tmp_path / "files")
    assert target.load_namespace_properties("sales")["comment"] == "the sales tables"
    # The target's table is an ordinary one: it takes new commits.
    target.load_table("sales.orders").append(ROWS[0].append_column("score", pa.array([0.0] * 5, pa.float64())))

    again = migrate(aistor, uri, target_warehouse, "--namespace", "sales.eu")
    assert [row["table"] for row in again["tables"]] == ["sales.eu.returns"]
    row = again["tables"][0]
    assert row["outcome"] == "already registered" and row["files-copied"] == 0 and row["parity"] is True
    # The source moved on: the next run copies what is new and moves the target's table on with it.
    returns = source.load_table("sales.eu.returns")
    returns.append(ROWS[0].append_column("score", pa.array([2.5] * 5, pa.float64())))
    wanted_now = expected(source.load_table("sales.eu.returns"))
    row = migrate(aistor, uri, target_warehouse, "--namespace", "sales.eu")["tables"][0]
    assert row["outcome"] == "updated to the source's newer metadata" and row["files-copied"] == 1, row
    assert row["parity"] is True
    assert_same_table(wanted_now, target_catalog(server, target_warehouse).load_table("sales.eu.returns"),
                      target_warehouse)
    # A table changed in the target since is left alone, not overwritten.
    orders_row = by_table(migrate(aistor, uri, target_warehouse))["sales.orders"]
    assert orders_row["outcome"] == "exists with other metadata" and orders_row["files-copied"] == 0


def test_a_run_that_fails_half_way_is_resumed_by_the_next(server, aistor, target_warehouse, tmp_path):
    source = sqlite_catalog(tmp_path)
    source.create_namespace("logs")
    table = source.create_table(("logs", "events"), SCHEMA)
    for rows in ROWS:
        table.append(rows)
    wanted = expected(source.load_table("logs.events"))
    table = source.load_table("logs.events")
    previous = table.metadata.snapshots[-2].snapshot_id
    files = {snapshot_id: {task.file.file_path for task in table.scan(snapshot_id=snapshot_id).plan_files()}
             for snapshot_id in (previous, table.metadata.current_snapshot_id)}
    (missing,) = files[table.metadata.current_snapshot_id] - files[previous]  # the last append's file
    aside = tmp_path / "aside.parquet"
    shutil.move(missing.removeprefix("file://"), aside)
    uri = f"sqlite:///{tmp_path / 'catalog.db'}"

    failed = migrate(aistor, uri, target_warehouse, check=False)
    assert failed.returncode == 1 and "Run the command again to resume" in failed.stderr
    assert catalog_call(server, "GET", f"/v1/{target_warehouse}/namespaces/logs/tables/events")[0] == 404
    copied_before = [key for key in target_objects(server, target_warehouse) if key.endswith(".parquet")]
    assert len(copied_before) == 2  # the two earlier appends' files made it

    shutil.move(aside, missing.removeprefix("file://"))
    row = migrate(aistor, uri, target_warehouse)["tables"][0]
    assert row["outcome"] == "copied and registered" and row["parity"] is True
    assert row["files-present"] == 2 and row["files-copied"] == 1
    assert_same_table(wanted, target_catalog(server, target_warehouse).load_table("logs.events"), target_warehouse)


def test_register_a_metadata_file_of_the_warehouse(server, aistor, target_warehouse, tmp_path):
    source = sqlite_catalog(tmp_path)
    source.create_namespace("shop")
    items = source.create_table(("shop", "items"), SCHEMA, properties={"format-version": "1"})
    items.append(ROWS[0])
    items.append(ROWS[1])
    wanted = expected(source.load_table("shop.items"))
    source.create_table(("shop", "empty"), SCHEMA)  # no snapshot at all
    report = by_table(migrate(aistor, f"sqlite:///{tmp_path / 'catalog.db'}", target_warehouse))
    assert report["shop.empty"]["parity"] is True and report["shop.empty"]["target"]["snapshots"] == 0
    row = report["shop.items"]
    assert row["parity"] is True  # a format-version 1 table: v1 manifests and manifest lists written
    assert_same_table(wanted, target_catalog(server, target_warehouse).load_table("shop.items"), target_warehouse)

    answer = json.loads(aistor("table", "register", "target", target_warehouse, "shop", "items_again",
                               row["metadata-location"], "--json").stdout)
    assert answer["metadata-location"] == row["metadata-location"]
    again = target_catalog(server, target_warehouse).load_table("shop.items_again")
    assert checksum(again.scan().to_arrow()) == wanted["current"]

    # A table that exists, or a file outside the warehouse: refused, nothing changes.
    taken = aistor("table", "register", "target", target_warehouse, "shop", "items", row["metadata-location"],
                   check=False)
    assert taken.returncode == 1 and "exists" in taken.stderr.lower()
    outside = aistor("table", "register", "target", target_warehouse, "shop", "elsewhere",
                     "s3://another-bucket/t/metadata/v1.metadata.json", check=False)
    assert outside.returncode == 1 and "outside warehouse" in outside.stderr
    assert catalog_call(server, "GET", f"/v1/{target_warehouse}/namespaces/shop/tables/elsewhere")[0] == 404


def test_bad_sources_are_refused_with_a_reason(server, aistor, target_warehouse, tmp_path):
    for source, reason in ((str(tmp_path / "no-such-dir"), "no directory of Hadoop tables"),
                           ("nobody/lake", "unknown alias 'nobody'"),
                           ("ftp://example.com/catalog", "unknown source")):
        result = migrate(aistor, source, target_warehouse, check=False)
        assert result.returncode != 0 and reason in result.stderr, result.stderr
    broken = tmp_path / "lake" / "ns" / "broken" / "metadata"  # a version hint naming a file that is not there
    broken.mkdir(parents=True)
    (broken / "version-hint.text").write_text("7")
    result = migrate(aistor, str(tmp_path / "lake"), target_warehouse, check=False)
    assert result.returncode == 1 and "0 of 1 tables migrated; failed: ns.broken:" in result.stderr, result.stderr
    assert "names version 7, whose metadata file is missing" in result.stderr
    missing_target = migrate(aistor, str(tmp_path), "no-such-warehouse", check=False)
    assert missing_target.returncode == 1 and "no warehouse 'no-such-warehouse'" in missing_target.stderr
    both = migrate(aistor, "https://example.com/catalog", target_warehouse, "--credential", "a:b",
                   "--sigv4", "k", "s", "us-east-1", check=False)
    assert both.returncode == 2 and "not both" in both.stderr


def test_gzipped_metadata_and_files_outside_the_table_folder(server, aistor, target_warehouse, tmp_path):
    """A Hadoop table whose metadata is gzipped (``v1.gz.metadata.json``) and whose data files lie outside its
    folder (here: the SQL catalog's): the files go under the target's ``external/``, the metadata is plain."""
    source = sqlite_catalog(tmp_path)
    source.create_namespace("raw")
    table = source.create_table(("raw", "clicks"), SCHEMA)
    table.append(ROWS[0])
    table.append(ROWS[1])
    wanted = expected(source.load_table("raw.clicks"))
    folder = tmp_path / "hadoop" / "raw" / "clicks" / "metadata"
    folder.mkdir(parents=True)
    metadata = json.loads(Path(table.metadata_location.removeprefix("file://")).read_text())
    metadata["location"] = f"file://{folder.parent}"  # the table's folder; its files stay in the SQL catalog's
    (folder / "v1.gz.metadata.json").write_bytes(gzip.compress(json.dumps(metadata).encode()))
    (folder / "version-hint.text").write_text("1\n")

    row = migrate(aistor, f"file://{tmp_path / 'hadoop'}", target_warehouse)["tables"][0]
    assert row["parity"] is True and row["metadata-location"].endswith("/metadata/v1.metadata.json"), row
    migrated = target_catalog(server, target_warehouse).load_table("raw.clicks")
    assert all("/external/" in task.file.file_path for task in migrated.scan().plan_files())
    shutil.rmtree(tmp_path / "files")
    assert_same_table(wanted, migrated, target_warehouse)


def test_format_version_3_is_refused_with_a_reason(server, aistor, target_warehouse, tmp_path):
    """PyIceberg 0.12 reads manifests as version 2: a v3 table (here a Hadoop directory's) is not half-copied."""
    source = sqlite_catalog(tmp_path)
    source.create_namespace("v2")
    table = source.create_table(("v2", "lineage"), SCHEMA)
    table.append(ROWS[0])
    metadata = json.loads(Path(table.metadata_location.removeprefix("file://")).read_text())
    metadata.update({"format-version": 3, "next-row-id": 5})
    folder = tmp_path / "hadoop" / "v3" / "lineage" / "metadata"
    folder.mkdir(parents=True)
    (folder / "v1.metadata.json").write_text(json.dumps(metadata))
    (folder / "version-hint.text").write_text("1")
    row = migrate(aistor, str(tmp_path / "hadoop"), target_warehouse)["tables"][0]
    assert row["table"] == "v3.lineage" and row["outcome"] == "refused" and "format version 3" in row["message"]
    assert target_objects(server, target_warehouse) == []


# -- another aistor-lab, over REST --------------------------------------------------------------------


def test_from_another_aistor_lab_over_rest(server, aistor, target_warehouse, tmp_path_factory):
    """OAuth2 (``--credential``) with the catalog's URI, the files read with the credentials it vends, and
    SigV4 through an alias (``ALIAS/WAREHOUSE``)."""
    with service_with(tmp_path_factory, {}) as other:
        assert catalog_call(other, "POST", "/v1/warehouses", {"name": "old-lake"})[0] == 200
        source = load_catalog("other", **seed_catalog_properties(other, "old-lake"))
        source.create_namespace("crm")
        wanted = expected(evolving_table(source, "crm", "customers"))
        aistor("alias", "set", "old", other.endpoint, ROOT_USER, ROOT_PASSWORD)

        plan = migrate(aistor, "old/old-lake", target_warehouse, "--dry-run")
        assert [row["table"] for row in plan["tables"]] == ["crm.customers"]
        assert plan["tables"][0]["files-copied"] > 0 and target_objects(server, target_warehouse) == []

        # No storage settings: the source catalog vends credentials (and its endpoint) with each table.
        report = migrate(aistor, f"{other.endpoint}/_iceberg", target_warehouse, "--source-warehouse", "old-lake",
                         "--credential", f"{ROOT_USER}:{ROOT_PASSWORD}")
        row = report["tables"][0]
        assert row["outcome"] == "copied and registered" and row["parity"] is True, row
    # The source service is gone: the target reads its own copies.
    assert_same_table(wanted, target_catalog(server, target_warehouse).load_table("crm.customers"), target_warehouse)


# -- a directory of Hadoop tables, written by Spark -------------------------------------------------------


@pytest.mark.timeout(1200)
def test_from_a_hadoop_directory_with_position_deletes(server, aistor, target_warehouse, tmp_path):
    """Spark's hadoop catalog: a partitioned v2 table with merge-on-read deletes and an update (position
    delete files, whose paths are rewritten), a tag, a partition spec evolved and table statistics."""
    from pyiceberg.table import StaticTable

    from aistor_lab.workbench.spark.jars.kit import ensure_kit

    from .spark_support import run_spark_sql

    lake = tmp_path / "lake"
    conf = {
        "spark.jars": ",".join(str(jar) for jar in ensure_kit()),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.hc": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.hc.type": "hadoop",
        "spark.sql.catalog.hc.warehouse": f"file://{lake}",
    }
    run_spark_sql(conf, [
        "CREATE NAMESPACE hc.sales",
        ("CREATE TABLE hc.sales.orders (id BIGINT, city STRING, amount DOUBLE) USING iceberg PARTITIONED BY (city) "
         "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read', "
         "'write.update.mode'='merge-on-read', 'team'='sales')"),
        "INSERT INTO hc.sales.orders VALUES (1, 'Lisbon', 10.0), (2, 'Lisbon', 20.0), (3, 'Oslo', 30.0), (4, 'Porto', 40.0)",
        "INSERT INTO hc.sales.orders VALUES (5, 'Oslo', 50.0), (6, 'Porto', 60.0)",
        "ALTER TABLE hc.sales.orders CREATE TAG `before-deletes`",
        "DELETE FROM hc.sales.orders WHERE id IN (2, 5)",
        "UPDATE hc.sales.orders SET amount = 99.0 WHERE id = 4",
        "ALTER TABLE hc.sales.orders ADD PARTITION FIELD bucket(4, id)",
        "INSERT INTO hc.sales.orders VALUES (7, 'Lisbon', 70.0)",
        "CALL hc.system.compute_table_stats(table => 'sales.orders')",  # a Puffin statistics file
    ])
    folder = lake / "sales" / "orders" / "metadata"
    version = (folder / "version-hint.text").read_text().strip()
    source = StaticTable.from_metadata(f"file://{folder}/v{version}.metadata.json")
    wanted = expected(source)
    assert sorted(source.scan().to_arrow().column("id").to_pylist()) == [1, 3, 4, 6, 7]
    assert any(task.delete_files for task in source.scan().plan_files())  # position deletes, really

    row = migrate(aistor, f"file://{lake}", target_warehouse)["tables"][0]
    assert row["table"] == "sales.orders" and row["parity"] is True, row
    assert row["source"]["delete_files"] > 0
    again = migrate(aistor, str(lake), target_warehouse)["tables"][0]  # a plain path names the directory too
    assert again["outcome"] == "already registered" and again["files-copied"] == 0
    shutil.rmtree(lake)
    migrated = target_catalog(server, target_warehouse).load_table("sales.orders")
    assert_same_table(wanted, migrated, target_warehouse)
    assert len(migrated.metadata.partition_specs) == 2 and "before-deletes" in migrated.metadata.refs
    (statistics,) = migrated.metadata.statistics
    assert statistics.statistics_path.startswith(f"s3://{target_warehouse}/")
    with migrated.io.new_input(statistics.statistics_path).open() as puffin:
        data = puffin.read()
    assert len(data) == statistics.file_size_in_bytes and data.startswith(b"PFA1")


# -- SeaweedFS's REST catalog -------------------------------------------------------------------------------


def test_from_seaweedfs_rest_catalog(server, aistor, target_warehouse, tmp_path):
    """SeaweedFS's Iceberg REST catalog (SigV4), started as the benchmarks start it."""
    scripts = Path(sysconfig.get_path("scripts"))
    if shutil.which("weed") is None and not (scripts / "weed").exists():
        pytest.skip("SeaweedFS's `weed` binary is not installed here (benchmarks/peers.py starts it when it is)")
    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    import catalogs
    import peers

    seaweed = catalogs.start_server("seaweedfs", tmp_path / "seaweedfs")
    try:
        source = catalogs.open_catalog("seaweedfs", tmp_path / "seaweedfs", seaweed, timeout=120).catalog
        source.create_namespace("weed")
        table = source.create_table(("weed", "events"), SCHEMA)
        table.append(ROWS[0])
        table.append(ROWS[1])
        wanted = expected(source.load_table(("weed", "events")))
        properties = catalogs.rest_properties(seaweed)
        storage = [f"-P{key}={properties[key]}" for key in
                   ("s3.endpoint", "s3.path-style-access", "s3.access-key-id", "s3.secret-access-key")]
        report = migrate(aistor, properties["uri"], target_warehouse, "--source-warehouse", properties["warehouse"],
                         "--sigv4", peers.ACCESS_KEY, peers.SECRET_KEY, properties["rest.signing-region"],
                         "--signing-name", properties["rest.signing-name"], *storage)
        assert report["tables"][0]["parity"] is True, report
    finally:
        peers.stop_all([seaweed])
    assert_same_table(wanted, target_catalog(server, target_warehouse).load_table("weed.events"), target_warehouse)


def test_tables_already_in_the_warehouse_are_registered_in_place(server, aistor, target_warehouse, tmp_path):
    """A SQL catalog that kept its tables in the warehouse's bucket (the service as storage only, the first
    step of a gradual move): nothing is copied, the metadata file is registered where it is."""
    storage = {"s3.endpoint": server.endpoint, "s3.access-key-id": ROOT_USER, "s3.secret-access-key": ROOT_PASSWORD,
               "s3.path-style-access": "true", "s3.region": "us-east-1"}
    source = SqlCatalog("default", uri=f"sqlite:///{tmp_path / 'catalog.db'}",
                        warehouse=f"s3://{target_warehouse}/external-catalog", **storage)
    source.create_namespace("ops")
    table = source.create_table(("ops", "jobs"), SCHEMA)
    table.append(ROWS[0])
    table.append(ROWS[1])
    objects_before = sorted(target_objects(server, target_warehouse))

    result = aistor("table", "migrate", "target", f"sqlite:///{tmp_path / 'catalog.db'}", target_warehouse,
                    *(f"-P{key}={value}" for key, value in storage.items()))
    assert "registered in place" in result.stdout and "yes" in result.stdout  # the text report
    assert result.stderr == ""  # no progress bar where nobody watches
    assert sorted(target_objects(server, target_warehouse)) == objects_before
    loaded = catalog_call(server, "GET", f"/v1/{target_warehouse}/namespaces/ops/tables/jobs")[1]
    assert loaded["metadata-location"] == source.load_table("ops.jobs").metadata_location
    migrated = target_catalog(server, target_warehouse).load_table("ops.jobs")
    assert checksum(migrated.scan().to_arrow()) == checksum(pa.concat_tables(ROWS[:2]))


def test_a_killed_run_is_resumed_by_the_next(server, aistor, target_warehouse, tmp_path):
    """The CLI killed (SIGKILL) while it copies 300 files: nothing registered, no partial object, and the next
    run copies only what is missing."""
    source = sqlite_catalog(tmp_path)
    source.create_namespace("big")
    spec = PartitionSpec(PartitionField(1, 1000, IdentityTransform(), "id"))
    table = source.create_table(("big", "many"), SCHEMA, partition_spec=spec)
    files = 300
    table.append(pa.table({"id": pa.array(range(files), pa.int64()), "city": pa.array(["x"] * files, pa.string())}))
    wanted = expected(source.load_table("big.many"))
    command = [*CLI, "table", "migrate", "target", f"sqlite:///{tmp_path / 'catalog.db'}", target_warehouse, "--json"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AISTOR_", "AWS_"))}
    env["AISTOR_CONFIG_DIR"] = str(tmp_path / "aistor-config")
    s3 = make_s3_client(server.endpoint)
    process = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while process.poll() is None and not s3.list_objects_v2(Bucket=target_warehouse).get("KeyCount"):
            pass  # until the first copy lands
    finally:
        process.kill()
        process.wait()
    copied = [key for key in target_objects(server, target_warehouse) if key.endswith(".parquet")]
    assert 0 < len(copied) < files
    for key in copied:  # each object there is a whole file
        body = s3.get_object(Bucket=target_warehouse, Key=key)["Body"].read()
        assert pq.read_table(pa.BufferReader(body)).num_rows == 1
    assert catalog_call(server, "GET", f"/v1/{target_warehouse}/namespaces/big/tables/many")[0] == 404

    row = migrate(aistor, f"sqlite:///{tmp_path / 'catalog.db'}", target_warehouse)["tables"][0]
    assert row["parity"] is True and row["files-present"] >= len(copied)
    assert row["files-copied"] + row["files-present"] == files
    assert_same_table(wanted, target_catalog(server, target_warehouse).load_table("big.many"), target_warehouse)
