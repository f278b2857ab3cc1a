"""Spark on a standalone cluster (a master and two one-core workers on loopback, benchmarks/spark_cluster.py)
against a running aistor-lab: the jar kit reaches the executors, they read and write through S3A and
S3FileIO with the session's keys or the catalog's vended credentials, and the TPC-H tutorial's pipeline
(benchmarks/tpch_spark_job.py) gives local[2]'s answer, which is the sample data's, in a session, as a
spark-submit batch job and through ``%aistor spark`` with nothing but ``AISTOR_SPARK_MASTER`` set.

One cluster and one in-process SparkSession on it serve the module (after a local[2] one for the
reference answer); the batch job and the magic run in processes of their own (Spark keeps one session
per process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections import defaultdict
from decimal import Decimal

import pyarrow.parquet as pq
import pytest

from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.jupyter.extension import AIStorLabApp, kernel_environment
from aistor_lab.workbench.sample_data import default_data_dir
from aistor_lab.workbench.service_config import ServiceConfig, spark_catalog_conf, spark_master
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import ROOT_PASSWORD, ROOT_USER, catalog_call, make_s3_client
from .spark_cluster_support import PIPELINE_SCRIPT, spark_cluster, tpch_spark_job

WAREHOUSE = "spark-cluster"
SOURCE_BUCKET = "spark-cluster-tpch"
SOURCE = f"s3a://{SOURCE_BUCKET}/tpch"
JOB_TIMEOUT = 400  # a JVM start and the pipeline on a loaded 2-core machine


@pytest.fixture(scope="module")
def service(server) -> ServiceConfig:
    """The server, its warehouse, and the TPC-H Parquet files the pipeline loads, in a bucket."""
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    s3 = make_s3_client(server.endpoint)
    s3.create_bucket(Bucket=SOURCE_BUCKET)
    for table in tpch_spark_job.TABLES:
        s3.upload_file(str(default_data_dir() / "tpch" / f"{table}.parquet"), SOURCE_BUCKET, f"tpch/{table}.parquet")
    yield ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE)
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=SOURCE_BUCKET):
        for item in page.get("Contents", []):
            s3.delete_object(Bucket=SOURCE_BUCKET, Key=item["Key"])
    s3.delete_bucket(Bucket=SOURCE_BUCKET)
    assert catalog_call(server, "DELETE", f"/v1/warehouses/{WAREHOUSE}?force=true")[0] == 204


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, monkeypatch_module):
    # The driver binds to loopback too, where the executors reach it.
    monkeypatch_module.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    with spark_cluster.spark_cluster(tmp_path_factory.mktemp("spark-cluster")) as running:
        yield running


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def kit():
    return ensure_kit()


@pytest.fixture(scope="module")
def local_answer(service, kit) -> dict:
    """The pipeline's answer on ``local[2]``, in a session stopped before the cluster's starts (one
    SparkContext at a time in a process)."""
    session = aistor_spark.session(WAREHOUSE, app_name="aistor-lab-local-reference", master="local[2]",
                                   service=service, progress=False,
                                   **{"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false"})
    try:
        return tpch_spark_job.run_pipeline(session, SOURCE, f"local_{uuid.uuid4().hex[:8]}")
    finally:
        session.stop()


@pytest.fixture(scope="module")
def spark(service, cluster, kit, local_answer):
    # The driver's address for the executors, said here too: an earlier module's JVM, which this session
    # may be made in, did not start with SPARK_LOCAL_IP.
    session = aistor_spark.session(WAREHOUSE, app_name="aistor-lab-cluster-tests", master=cluster.master_url,
                                   service=service, progress=False,
                                   **{"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false",
                                      "spark.driver.host": "127.0.0.1"})
    yield session
    session.stop()


@pytest.fixture(scope="module")
def expected() -> dict:
    """The pipeline's answer computed from the sample data here, without Spark."""
    data = {table: pq.read_table(default_data_dir() / "tpch" / f"{table}.parquet").to_pylist()
            for table in tpch_spark_job.TABLES}
    nation_of = {c["c_custkey"]: c["c_nationkey"] for c in data["customer"]}
    customer_of = {o["o_orderkey"]: o["o_custkey"] for o in data["orders"]}
    names = {n["n_nationkey"]: n["n_name"] for n in data["nation"]}
    revenue: dict[str, Decimal] = defaultdict(Decimal)
    for item in data["lineitem"]:
        nation = names[nation_of[customer_of[item["l_orderkey"]]]]
        revenue[nation] += item["l_extendedprice"] * (1 - item["l_discount"])
    return {
        "loaded": {table: len(rows) for table, rows in data.items()},
        "revenue_by_nation": sorted(revenue.items()),
        "platinum_before": sum(c["c_mktsegment"] == "PLATINUM" for c in data["customer"]),
        "platinum_now": sum(c["c_mktsegment"] == "PLATINUM" or c["c_acctbal"] > 9500 for c in data["customer"]),
    }


def assert_answer(answer: dict, expected: dict) -> None:
    assert answer["loaded"] == expected["loaded"]
    assert [(nation, Decimal(revenue)) for nation, revenue in answer["revenue_by_nation"]] == \
        expected["revenue_by_nation"]
    assert (answer["platinum_before"], answer["platinum_now"]) == (expected["platinum_before"],
                                                                    expected["platinum_now"])
    assert answer["platinum_now"] > answer["platinum_before"] == 0
    assert answer["snapshots"] == 2  # the load and the update


def assert_ran_on_both_workers(cluster, app_id: str, kit) -> None:
    """Each worker ran an executor of ``app_id`` that got the kit's jars from the driver and finished tasks
    (its own log says so)."""
    dirs = cluster.executor_dirs(app_id)
    assert sorted(path.parent.parent.name for path in dirs) == ["worker1", "worker2"]
    for path in dirs:
        assert sorted(jar.name for jar in path.glob("*.jar")) == sorted(jar.name for jar in kit)
        assert "Finished task" in (path / "stderr").read_text(errors="replace")


def test_spark_master_is_one_setting_the_extension_exports(service):
    assert spark_master({"AISTOR_SPARK_MASTER": " spark://10.0.0.5:7077 "}) == "spark://10.0.0.5:7077"
    assert spark_master({"AISTOR_SPARK_MASTER": ""}) is None and spark_master({}) is None
    assert kernel_environment(service, spark_master="spark://10.0.0.5:7077")["AISTOR_SPARK_MASTER"] == \
        "spark://10.0.0.5:7077"
    assert "AISTOR_SPARK_MASTER" not in kernel_environment(service)
    assert AIStorLabApp.class_traits()["spark_master"].default_value == ""


def test_cluster_has_two_one_core_workers_on_loopback(cluster):
    workers = cluster.alive_workers()
    assert [(w["host"], w["cores"]) for w in workers] == [("127.0.0.1", 1), ("127.0.0.1", 1)]
    assert cluster.master_url.startswith("spark://127.0.0.1:")


# The batch job and the magic run first: the module's session, made on first use, keeps both workers'
# cores until the module ends (a standalone app takes every free core), and an app waits for cores.


def test_spark_submit_batch_job_gives_the_same_answer(service, cluster, kit, expected, local_answer, tmp_path):
    answer_path = tmp_path / "answer.json"
    command = spark_cluster.submit_command(
        cluster.master_url, PIPELINE_SCRIPT, kit, {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4"},
        SOURCE, WAREHOUSE, f"batch_{uuid.uuid4().hex[:8]}", str(answer_path))
    # A kernel's AISTOR_SPARK_MASTER does not override spark-submit's --master.
    env = {**spark_cluster.submit_environment(), **kernel_environment(service, spark_master="local[1]")}
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=JOB_TIMEOUT,
                          check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    answer = json.loads(answer_path.read_text())
    assert answer.pop("master") == cluster.master_url
    assert_ran_on_both_workers(cluster, answer.pop("application"), kit)
    del answer["seconds"]
    assert answer == local_answer
    assert_answer(answer, expected)


def test_magic_runs_spark_on_the_cluster_aistor_spark_master_names(service, cluster, kit, tmp_path):
    """``%aistor spark`` in a shell whose environment is the Jupyter extension's with the cluster named:
    no code names the master."""
    script = textwrap.dedent("""
        import json
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("%load_ext aistor_lab")
        shell.run_cell("%aistor spark", store_history=False)
        for line in ['spark.sql("CREATE NAMESPACE IF NOT EXISTS magic")',
                     'spark.range(0, 1000, numPartitions=4).writeTo("magic.numbers").createOrReplace()',
                     'total = spark.sql("SELECT SUM(id) FROM magic.numbers").first()[0]']:
            shell.run_cell(line, store_history=False).raise_error()
        spark = shell.user_ns["spark"]
        print(json.dumps({"master": spark.sparkContext.master, "total": shell.user_ns["total"],
                          "application": spark.sparkContext.applicationId}))
        spark.stop()
    """)
    env = {**os.environ, **kernel_environment(service, spark_master=cluster.master_url)}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=JOB_TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["master"], seen["total"]) == (cluster.master_url, sum(range(1000)))
    assert_ran_on_both_workers(cluster, seen["application"], kit)


def test_tpch_pipeline_runs_on_the_cluster_as_on_local_and_gives_the_sample_data_answer(spark, cluster, kit,
                                                                                       expected, local_answer):
    assert spark.sparkContext.master == cluster.master_url
    answer = tpch_spark_job.run_pipeline(spark, SOURCE, f"tpch_{uuid.uuid4().hex[:8]}")
    assert answer == local_answer
    assert_answer(answer, expected)
    app_id = spark.sparkContext.applicationId
    # The master's account: this application holds both workers' cores; each worker's executor got the kit.
    [app] = [a for a in cluster.state()["activeapps"] if a["id"] == app_id]
    assert app["cores"] == 2
    assert_ran_on_both_workers(cluster, app_id, kit)


def test_executors_write_with_vended_credentials_only(spark, service):
    """A catalog with no S3 keys: the executors (whose environment holds none either) write and read the
    table's files with the credentials the catalog vends."""
    prefix = "spark.sql.catalog.vended"
    conf = spark_catalog_conf(service, WAREHOUSE, "vended")
    for key in (f"{prefix}.s3.access-key-id", f"{prefix}.s3.secret-access-key"):
        del conf[key]
    conf[f"{prefix}.header.X-Iceberg-Access-Delegation"] = "vended-credentials"
    for key, value in conf.items():
        spark.conf.set(key, value)
    namespace = f"vended_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE NAMESPACE vended.{namespace}")
    spark.sql(f"CREATE TABLE vended.{namespace}.numbers (id BIGINT, half BIGINT) USING iceberg")
    spark.range(0, 10_000, numPartitions=4).selectExpr("id", "id DIV 2 AS half") \
        .writeTo(f"vended.{namespace}.numbers").append()
    [row] = spark.sql(f"SELECT COUNT(*) AS n, SUM(half) AS total FROM vended.{namespace}.numbers").collect()
    assert (row.n, row.total) == (10_000, sum(i // 2 for i in range(10_000)))
    files = spark.sql(f"SELECT COUNT(*) FROM vended.{namespace}.numbers.files").first()[0]
    assert files >= 2  # written by the tasks of the executors, not one file from the driver
