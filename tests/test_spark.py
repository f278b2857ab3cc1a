"""Spark, through PySpark and the offline jar kit, against a running aistor-lab: the Iceberg REST catalog
(SigV4, s3tables), S3FileIO and S3A; interop with PyIceberg; the seeds' Spark configuration and SQL.

One SparkSession serves the whole module (a JVM start costs seconds); every test works in its own
namespace of one warehouse.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import textwrap
import uuid

import pyarrow as pa
import pytest
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog
from pyspark.errors import AnalysisException

from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.service_config import ServiceConfig, delta_storage_options
from aistor_lab.workbench.spark import startup
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, seed_catalog_properties
from .sharing_support import share_profile, storage_options

# Seed 002 names its warehouse "ai_platform"; warehouses are buckets here, so the name takes a hyphen.
WAREHOUSE = "ai-platform"

# Seed 001's Spark configuration, as published; the test changes the host, the credentials and the
# jars line (Maven is out of reach here: the offline kit's jars instead).
SEED_001_CONFIG = '''
config = {
# Catalog definition
"spark.sql.catalog.aistor": "org.apache.iceberg.spark.SparkCatalog",
"spark.sql.catalog.aistor.type": "rest",
"spark.sql.catalog.aistor.uri": "https://aistor.example.net:9000/_iceberg",
"spark.sql.catalog.aistor.warehouse": "analytics",
# REST catalog SigV4 signing
"spark.sql.catalog.aistor.rest.endpoint": "https://aistor.example.net:9000",
"spark.sql.catalog.aistor.rest.access-key-id": "YOUR-ACCESS-KEY",
"spark.sql.catalog.aistor.rest.secret-access-key": "YOUR-SECRET-KEY",
"spark.sql.catalog.aistor.rest.sigv4-enabled": "true",
"spark.sql.catalog.aistor.rest.signing-name": "s3tables",
"spark.sql.catalog.aistor.rest.signing-region": "local", # required, value unused
# S3 data access
"spark.sql.catalog.aistor.s3.endpoint": "https://aistor.example.net:9000",
"spark.sql.catalog.aistor.s3.access-key-id": "YOUR-ACCESS-KEY",
"spark.sql.catalog.aistor.s3.secret-access-key": "YOUR-SECRET-KEY",
"spark.sql.catalog.aistor.s3.path-style-access": "true",
"spark.sql.catalog.aistor.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
# Iceberg extensions and runtime JARs
"spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
"spark.sql.defaultCatalog": "aistor",
"spark.jars.packages": (
"org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.1,"
"org.apache.iceberg:iceberg-aws-bundle:1.10.1"
),
}
'''
SEED_PACKAGES_LINES = '''"spark.jars.packages": (
"org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.1,"
"org.apache.iceberg:iceberg-aws-bundle:1.10.1"
),'''


@pytest.fixture(scope="module")
def kit():
    return ensure_kit()


@pytest.fixture(scope="module")
def spark(server, kit):
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    session = aistor_spark.session(
        WAREHOUSE,
        app_name="aistor-lab-tests",
        master="local[2]",
        endpoint=server.endpoint,
        access_key=ROOT_USER,
        secret_key=ROOT_PASSWORD,
        **{"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"},
    )
    yield session
    session.stop()


@pytest.fixture
def ns(spark):
    name = f"ns_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE NAMESPACE {name}")
    return name


@pytest.fixture(scope="module")
def pyiceberg(server, spark):
    return load_catalog("pyiceberg", **seed_catalog_properties(server, WAREHOUSE))


def rows(spark, sql: str) -> list[tuple]:
    return [tuple(row) for row in spark.sql(sql).collect()]


def test_session_is_configured_from_arguments_and_kit(spark, server, kit):
    conf = spark.sparkContext.getConf()
    assert spark.sparkContext.master == "local[2]"
    assert conf.get("spark.sql.defaultCatalog") == "aistor"
    assert conf.get("spark.sql.catalog.aistor.uri") == f"{server.endpoint}/_iceberg"
    assert conf.get("spark.sql.catalog.aistor.warehouse") == WAREHOUSE
    assert conf.get("spark.jars").split(",") == [str(jar) for jar in kit]
    assert conf.get("spark.jars.packages") is None
    assert spark.catalog.currentCatalog() == "aistor"


def test_session_keeps_the_jvm_output_out_of_the_process_output(spark):
    spark.sql("SHOW NAMESPACES").collect()  # the catalog's client starts, with its settings
    log = aistor_spark.jvm_log()
    jvm = spark.sparkContext._jvm.ProcessHandle.current().pid()
    assert os.readlink(f"/proc/{jvm}/fd/1") == os.readlink(f"/proc/{jvm}/fd/2") == str(log)
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.ui.showConsoleProgress") == "false"
    assert f"-Dlog4j2.configurationFile={startup.LOG4J2_PROPERTIES.as_uri()}" in conf.get(
        "spark.driver.extraJavaOptions")
    # our log4j2 configuration holds, and our settings draw no deprecation warning
    text = log.read_text()
    assert "NativeCodeLoader" not in text and "Setting default log level" not in text
    assert "deprecated" not in text


def test_session_start_in_a_terminal_shows_progress_and_no_jvm_output(server, kit, tmp_path):
    script = tmp_path / "start.py"
    script.write_text(textwrap.dedent(f"""
        from aistor_lab.workbench import spark as aistor_spark
        spark = aistor_spark.session({WAREHOUSE!r}, master="local[1]", endpoint={server.endpoint!r},
                                     access_key={ROOT_USER!r}, secret_key={ROOT_PASSWORD!r}, progress=True)
        print(len(spark.sql("SHOW NAMESPACES").collect()) >= 0)
        spark.stop()
    """))
    result = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Spark: starting the JVM" in result.stderr and "Spark: creating the session" in result.stderr
    assert re.fullmatch(rf"Spark 3\.5\.\d+ ready in \d+ s: catalog 'aistor' on warehouse '{WAREHOUSE}'\.\nTrue\n",
                        result.stdout)
    for noise in ("WARN", "Setting default log level", "log4j", ":: loading settings"):
        assert noise not in result.stderr + result.stdout


def test_a_jvm_that_does_not_start_is_one_error_with_its_last_words(server, kit, tmp_path):
    script = tmp_path / "broken.py"
    script.write_text(textwrap.dedent(f"""
        from aistor_lab.workbench import spark as aistor_spark
        from aistor_lab.workbench.spark.startup import SparkStartError
        try:
            aistor_spark.session({WAREHOUSE!r}, endpoint={server.endpoint!r}, progress=False,
                                 **{{"spark.driver.memory": "1k"}})
        except SparkStartError as exc:
            print(exc)
    """))
    result = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True,
                            timeout=600)
    assert result.stdout.startswith("Spark's JVM did not start. Its output (")
    assert "Too small maximum heap" in result.stdout and "verbose=True" in result.stdout
    assert result.stderr == ""


def test_job_progress_follows_the_tasks_of_the_block(spark):
    with aistor_spark.job_progress(spark, "counting", enabled=True) as bar:
        assert spark.range(0, 1000, 1, 4).selectExpr("sum(id)").collect()[0][0] == sum(range(1000))
    assert bar.total >= 4 and bar.n == bar.total
    assert spark.sparkContext.getLocalProperty("spark.jobGroup.id") is None  # the thread's group is back


def test_conf_from_environment_and_maven_route(monkeypatch):
    monkeypatch.setenv("AISTOR_ENDPOINT", "http://lab.example:9100/")
    monkeypatch.setenv("AISTOR_ACCESS_KEY", "ak")
    monkeypatch.setenv("AISTOR_SECRET_KEY", "sk")
    monkeypatch.setenv("AISTOR_WAREHOUSE", "lab")
    conf = aistor_spark.spark_conf(kit=None, extra_conf={"spark.sql.shuffle.partitions": 3})
    assert conf["spark.sql.catalog.aistor.uri"] == "http://lab.example:9100/_iceberg"
    assert conf["spark.sql.catalog.aistor.warehouse"] == "lab"
    assert conf["spark.sql.catalog.aistor.s3.endpoint"] == "http://lab.example:9100"
    assert conf["spark.sql.catalog.aistor.rest.access-key-id"] == "ak"
    assert conf["spark.hadoop.fs.s3a.secret.key"] == "sk"
    assert conf["spark.sql.shuffle.partitions"] == "3"
    packages = conf["spark.jars.packages"].split(",")
    assert [p.rsplit(":", 1)[0] for p in packages] == [
        "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12", "org.apache.iceberg:iceberg-aws-bundle",
        "org.apache.hadoop:hadoop-aws", "io.delta:delta-spark_2.12"]
    assert "io.delta.sql.DeltaSparkSessionExtension" in conf["spark.sql.extensions"]
    monkeypatch.delenv("AISTOR_WAREHOUSE")
    with pytest.raises(ValueError, match="warehouse"):
        aistor_spark.spark_conf(kit=None)


def test_partitioned_table_lives_in_the_warehouse(spark, ns, s3):
    spark.sql(f"""CREATE TABLE {ns}.events (id BIGINT, category STRING, ts TIMESTAMP, amount DOUBLE)
                  USING iceberg PARTITIONED BY (category, days(ts))""")
    spark.sql(f"""INSERT INTO {ns}.events VALUES
        (1, 'a', TIMESTAMP '2024-03-15 10:00:00', 1.5), (2, 'b', TIMESTAMP '2024-03-15 11:00:00', 2.5),
        (3, 'a', TIMESTAMP '2024-03-16 09:00:00', 3.5)""")
    assert rows(spark, f"SELECT id, category, amount FROM {ns}.events ORDER BY id") == [
        (1, "a", 1.5), (2, "b", 2.5), (3, "a", 3.5)]
    assert rows(spark, f"SELECT count(*) FROM {ns}.events WHERE category = 'a'") == [(2,)]
    partitions = rows(spark, f"SELECT partition.category, partition.ts_day FROM {ns}.events.partitions "
                             "ORDER BY 1, 2")
    assert partitions == [("a", datetime.date(2024, 3, 15)), ("a", datetime.date(2024, 3, 16)),
                          ("b", datetime.date(2024, 3, 15))]
    files = [row[0] for row in rows(spark, f"SELECT file_path FROM {ns}.events.files")]
    assert len(files) == 3 and all(path.startswith(f"s3://{WAREHOUSE}/") for path in files)
    bucket, key = files[0][len("s3://"):].split("/", 1)
    assert s3.head_object(Bucket=bucket, Key=key)["ContentLength"] > 0


def test_merge_into(spark, ns):
    spark.sql(f"CREATE TABLE {ns}.target (id BIGINT, name STRING, qty INT) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.target VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30)")
    spark.createDataFrame([(2, "TWO", 22, False), (3, None, 0, True), (4, "four", 40, False)],
                          "id BIGINT, name STRING, qty INT, gone BOOLEAN").createOrReplaceTempView("changes")
    spark.sql(f"""MERGE INTO {ns}.target t USING changes c ON t.id = c.id
                  WHEN MATCHED AND c.gone THEN DELETE
                  WHEN MATCHED THEN UPDATE SET t.name = c.name, t.qty = c.qty
                  WHEN NOT MATCHED THEN INSERT (id, name, qty) VALUES (c.id, c.name, c.qty)""")
    assert rows(spark, f"SELECT * FROM {ns}.target ORDER BY id") == [
        (1, "one", 10), (2, "TWO", 22), (4, "four", 40)]


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_update_and_delete(spark, ns, mode):
    spark.sql(f"""CREATE TABLE {ns}.items (id BIGINT, status STRING) USING iceberg
                  TBLPROPERTIES ('format-version'='2', 'write.update.mode'='{mode}',
                                 'write.delete.mode'='{mode}', 'write.merge.mode'='{mode}')""")
    spark.sql(f"INSERT INTO {ns}.items SELECT id, 'new' FROM range(10)")
    spark.sql(f"UPDATE {ns}.items SET status = 'done' WHERE id < 3")
    spark.sql(f"DELETE FROM {ns}.items WHERE id >= 8")
    assert rows(spark, f"SELECT status, count(*) FROM {ns}.items GROUP BY status ORDER BY status") == [
        ("done", 3), ("new", 5)]
    delete_files = rows(spark, f"SELECT count(*) FROM {ns}.items.delete_files")[0][0]
    assert (delete_files > 0) == (mode == "merge-on-read")


def test_schema_evolution(spark, ns):
    spark.sql(f"CREATE TABLE {ns}.people (id INT, name STRING, age INT) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.people VALUES (1, 'ada', 36)")
    spark.sql(f"ALTER TABLE {ns}.people ADD COLUMN email STRING")
    spark.sql(f"ALTER TABLE {ns}.people RENAME COLUMN name TO full_name")
    spark.sql(f"ALTER TABLE {ns}.people ALTER COLUMN id TYPE BIGINT")
    spark.sql(f"ALTER TABLE {ns}.people DROP COLUMN age")
    spark.sql(f"INSERT INTO {ns}.people VALUES (2, 'grace', 'grace@example.com')")
    table = spark.table(f"{ns}.people")
    assert [(f.name, f.dataType.simpleString()) for f in table.schema.fields] == [
        ("id", "bigint"), ("full_name", "string"), ("email", "string")]
    assert rows(spark, f"SELECT * FROM {ns}.people ORDER BY id") == [
        (1, "ada", None), (2, "grace", "grace@example.com")]


def test_time_travel(spark, ns):
    spark.sql(f"CREATE TABLE {ns}.tt (id INT) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.tt VALUES (1)")
    spark.sql(f"INSERT INTO {ns}.tt VALUES (2)")
    spark.sql(f"DELETE FROM {ns}.tt WHERE id = 1")
    snapshots = rows(spark, f"""SELECT snapshot_id, date_format(committed_at, 'yyyy-MM-dd HH:mm:ss.SSS')
                                FROM {ns}.tt.snapshots ORDER BY committed_at""")
    assert len(snapshots) == 3
    (first, first_at), (second, _), _ = snapshots
    assert rows(spark, f"SELECT id FROM {ns}.tt VERSION AS OF {first}") == [(1,)]
    assert rows(spark, f"SELECT id FROM {ns}.tt VERSION AS OF {second} ORDER BY id") == [(1,), (2,)]
    assert rows(spark, f"SELECT id FROM {ns}.tt TIMESTAMP AS OF '{first_at}'") == [(1,)]
    assert rows(spark, f"SELECT id FROM {ns}.tt") == [(2,)]


def test_rewrite_data_files_and_expire_snapshots(spark, ns):
    table = f"{ns}.small_files"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING iceberg")
    for start in range(0, 40, 10):
        spark.sql(f"INSERT INTO {table} SELECT id FROM range({start}, {start + 10}, 1, 1)")  # one file each
    assert rows(spark, f"SELECT count(*) FROM {table}.files") == [(4,)]
    rewritten = spark.sql(f"CALL aistor.system.rewrite_data_files(table => '{table}', "
                          "options => map('min-input-files', '2'))").collect()[0]
    assert rewritten.rewritten_data_files_count == 4 and rewritten.added_data_files_count == 1
    assert rows(spark, f"SELECT count(*) FROM {table}.files") == [(1,)]
    now = spark.sql("SELECT current_timestamp()").collect()[0][0]
    expired = spark.sql(f"CALL aistor.system.expire_snapshots(table => '{table}', "
                        f"older_than => TIMESTAMP '{now:%Y-%m-%d %H:%M:%S.%f}', retain_last => 1)").collect()[0]
    assert expired.deleted_data_files_count == 4
    assert rows(spark, f"SELECT count(*) FROM {table}.snapshots") == [(1,)]
    assert rows(spark, f"SELECT count(*), sum(id) FROM {table}") == [(40, sum(range(40)))]


def test_view_through_rest_view_endpoints(spark, ns, server):
    spark.sql(f"CREATE TABLE {ns}.orders (id BIGINT, amount DOUBLE) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.orders VALUES (1, 5.0), (2, 50.0), (3, 500.0)")
    spark.sql(f"CREATE VIEW {ns}.big_orders AS SELECT id FROM {ns}.orders WHERE amount > 10")
    assert rows(spark, f"SELECT * FROM {ns}.big_orders ORDER BY id") == [(2,), (3,)]
    status, view = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{ns}/views/big_orders")
    assert status == 200
    representation = view["metadata"]["versions"][-1]["representations"][0]
    assert representation["dialect"] == "spark" and "amount > 10" in representation["sql"]
    views = spark.sql(f"SHOW VIEWS IN {ns}").collect()
    assert [row.viewName for row in views if not row.isTemporary] == ["big_orders"]
    spark.sql(f"DROP VIEW {ns}.big_orders")
    status, _ = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/{ns}/views/big_orders")
    assert status == 404


def test_seed_002_asset_catalog(spark):
    # The seed's statements and queries, verbatim (the INSERT's timestamps aside, see below).
    spark.sql("CREATE NAMESPACE IF NOT EXISTS asset_catalog")
    spark.sql("""
CREATE TABLE asset_catalog.media_assets (
asset_id STRING,
asset_type STRING,
file_path STRING,
file_size_bytes BIGINT,
created_timestamp TIMESTAMP,
processing_status STRING,
tags ARRAY<STRING>,
metadata MAP<STRING, STRING>
) USING iceberg
""")
    seed_insert = """
INSERT INTO asset_catalog.media_assets VALUES
('img_001', 'image', 's3://training-data-bucket/product_images/camera_001.jpg', 2048576, '2024-03-15T10:30:00', 'processed', array('product', 'camera'), map('resolution', '1920x1080', 'format', 'JPEG')),
('vid_001', 'video', 's3://training-data-bucket/demo_videos/demo_001.mp4', 104857600, '2024-03-15T11:45:00', 'ready', array('training', 'demo'), map('duration_sec', '120', 'codec', 'H.264')),
('doc_001', 'document', 's3://knowledge-base-bucket/manuals/user_guide.pdf', 1048576, '2024-03-15T12:15:00', 'indexed', array('documentation', 'user'), map('pages', '45', 'format', 'PDF'))
"""
    # As published, the INSERT gives a TIMESTAMP column string literals, which Spark 3.5 refuses for any
    # DSv2 table (its ANSI store assignment; the LEGACY policy is not allowed for DSv2): typed literals.
    with pytest.raises(AnalysisException, match="CANNOT_SAFELY_CAST"):
        spark.sql(seed_insert)
    spark.sql(re.sub(r"'(2024-03-15T[0-9:]+)'", r"TIMESTAMP '\1'", seed_insert))
    training_assets = spark.sql("""
SELECT asset_id, file_path, metadata['duration_sec'] as duration
FROM asset_catalog.media_assets
WHERE asset_type = 'video'
AND array_contains(tags, 'training')
AND processing_status = 'ready'
""").toPandas()
    product_images = spark.sql("""
SELECT file_path, metadata['resolution'] as resolution, file_size_bytes
FROM asset_catalog.media_assets
WHERE asset_type = 'image'
AND array_contains(tags, 'product')
AND metadata['format'] = 'JPEG'
""").toPandas()
    assert training_assets.to_dict("records") == [
        {"asset_id": "vid_001", "file_path": "s3://training-data-bucket/demo_videos/demo_001.mp4",
         "duration": "120"}]
    assert product_images.to_dict("records") == [
        {"file_path": "s3://training-data-bucket/product_images/camera_001.jpg", "resolution": "1920x1080",
         "file_size_bytes": 2048576}]
    stamps = rows(spark, "SELECT created_timestamp FROM asset_catalog.media_assets ORDER BY asset_id")
    assert stamps[0] == (datetime.datetime(2024, 3, 15, 12, 15),)


def test_spark_writes_pyiceberg_reads(spark, ns, pyiceberg):
    spark.sql(f"CREATE TABLE {ns}.from_spark (id BIGINT, name STRING, tags ARRAY<STRING>, day DATE) "
              "USING iceberg PARTITIONED BY (day)")
    spark.sql(f"""INSERT INTO {ns}.from_spark VALUES (1, 'a', array('x'), DATE '2024-01-01'),
                  (2, NULL, array(), DATE '2024-01-02')""")
    table = pyiceberg.load_table(f"{ns}.from_spark")
    assert [field.name for field in table.spec().fields] == ["day"]
    read = table.scan().to_arrow().sort_by("id").to_pylist()
    assert read == [
        {"id": 1, "name": "a", "tags": ["x"], "day": datetime.date(2024, 1, 1)},
        {"id": 2, "name": None, "tags": [], "day": datetime.date(2024, 1, 2)},
    ]


def test_pyiceberg_writes_spark_reads(spark, ns, pyiceberg):
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "price": [1.25, None, 3.5],
                     "label": ["x", "y", "z"]})
    table = pyiceberg.create_table(f"{ns}.from_pyiceberg", schema=data.schema)
    table.append(data)
    assert rows(spark, f"SELECT * FROM {ns}.from_pyiceberg ORDER BY id") == [
        (1, 1.25, "x"), (2, None, "y"), (3, 3.5, "z")]
    spark.sql(f"INSERT INTO {ns}.from_pyiceberg VALUES (4, 4.0, 'w')")  # and back again
    assert sorted(table.refresh().scan().to_arrow().column("id").to_pylist()) == [1, 2, 3, 4]


def test_s3a_paths(spark, s3, bucket):
    s3.put_object(Bucket=bucket, Key="in/people.csv", Body=b"id,name\n1,ada\n2,grace\n")
    people = spark.read.option("header", "true").csv(f"s3a://{bucket}/in/people.csv")
    assert sorted(tuple(row) for row in people.collect()) == [("1", "ada"), ("2", "grace")]
    spark.range(5).selectExpr("id", "id * id AS square").write.parquet(f"s3a://{bucket}/out/squares")
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=bucket, Prefix="out/squares/")["Contents"]]
    assert "out/squares/_SUCCESS" in keys and any(key.endswith(".parquet") for key in keys)
    assert rows(spark, f"SELECT sum(square) FROM parquet.`s3a://{bucket}/out/squares`") == [(30,)]


def test_delta_table_reaches_spark_without_delta_jars(spark, server, bucket):
    options = delta_storage_options(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    uri = f"s3://{bucket}/employees"
    write_deltalake(uri, pa.table({"id": [1, 2], "name": ["ada", None]}), storage_options=options)
    write_deltalake(uri, pa.table({"id": [3], "name": ["grace"]}), mode="append", storage_options=options)
    latest = aistor_spark.delta_table(spark, f"s3a://{bucket}/employees")
    assert [(f.name, f.dataType.simpleString()) for f in latest.schema.fields] == [
        ("id", "bigint"), ("name", "string")]
    assert sorted(tuple(row) for row in latest.collect()) == [(1, "ada"), (2, None), (3, "grace")]
    first = aistor_spark.delta_table(spark, uri, version=0)
    assert first.count() == 2


def test_delta_sharing_table_reaches_spark(spark, ns, server, bucket, tmp_path):
    """A Delta table and a Spark-written Iceberg table, shared side by side, read back into Spark."""
    write_deltalake(f"s3://{bucket}/employees", pa.table({"id": [1, 2], "name": ["ada", "grace"]}),
                    storage_options=storage_options(server))
    spark.sql(f"CREATE TABLE {ns}.scores (id BIGINT, score DOUBLE) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.scores VALUES (1, 9.5), (2, 7.0)")
    share, profile = share_profile(server, tmp_path, "hr", [
        f"employees:delta:{bucket}:employees/", f"scores:uniform:{WAREHOUSE}:{ns}:scores"])
    employees = aistor_spark.delta_sharing_table(spark, f"{profile}#{share}.hr.employees")
    scores = aistor_spark.delta_sharing_table(spark, f"{profile}#{share}.hr.scores")
    joined = employees.join(scores, "id").orderBy("id").select("name", "score")
    assert [tuple(row) for row in joined.collect()] == [("ada", 9.5), ("grace", 7.0)]


def test_seed_001_config_pasted_in_a_fresh_process(server, kit, tmp_path):
    assert SEED_PACKAGES_LINES in SEED_001_CONFIG
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": "analytics"})
    assert status in (200, 409), body
    jars = ",".join(str(jar) for jar in kit)
    config = (SEED_001_CONFIG.replace("https://aistor.example.net:9000", server.endpoint)
              .replace("YOUR-ACCESS-KEY", ROOT_USER).replace("YOUR-SECRET-KEY", ROOT_PASSWORD)
              .replace(SEED_PACKAGES_LINES, f'"spark.jars": "{jars}",'))
    table = f"seed001_{uuid.uuid4().hex[:8]}.trips"
    notebook = tmp_path / "notebook.py"
    notebook.write_text(config + textwrap.dedent(f"""
        import json
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.master("local[2]").config(map=config).getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        spark.sql("CREATE NAMESPACE IF NOT EXISTS {table.split('.')[0]}")
        spark.sql("CREATE TABLE {table} (id BIGINT, city STRING) USING iceberg")
        spark.sql("INSERT INTO {table} VALUES (1, 'Lisbon'), (2, 'Oslo')")
        spark.sql("UPDATE {table} SET city = 'Porto' WHERE id = 1")
        print(json.dumps([list(r) for r in spark.sql("SELECT * FROM {table} ORDER BY id").collect()]))
        spark.stop()
    """))
    # Nothing but the pasted configuration: no AWS or aistor settings in the environment.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AISTOR_"))}
    result = subprocess.run([sys.executable, str(notebook)], check=False, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [[1, "Porto"], [2, "Oslo"]]
    reader = load_catalog("check", **seed_catalog_properties(server, "analytics"))
    assert reader.load_table(table).scan().to_arrow().num_rows == 2

