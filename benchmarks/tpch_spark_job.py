"""The TPC-H tutorial's pipeline as one Spark job, the same wherever it runs (``local[2]``, a
``spark://`` cluster, spark-submit): load the sample data's Parquet files from S3 (S3A) into Iceberg
tables (S3FileIO), the four-table join (revenue by nation), an update (the customers with a balance over
9,500 become PLATINUM) and time travel (the count before the update, by snapshot). Sums stay decimal,
so every run's answer is exactly comparable.

As a batch job, the service and warehouse from the environment (``AISTOR_*``), the answer as JSON:

    spark-submit --master spark://HOST:7077 --jars KIT_JARS tpch_spark_job.py \\
        s3a://BUCKET/tpch ANALYTICS_WAREHOUSE NAMESPACE answer.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TABLES = ("nation", "customer", "orders", "lineitem")
REVENUE_BY_NATION = """
    SELECT n.n_name AS nation, SUM(l.l_extendedprice * (1 - l.l_discount)) AS revenue
    FROM {ns}.lineitem l
    JOIN {ns}.orders o ON l.l_orderkey = o.o_orderkey
    JOIN {ns}.customer c ON o.o_custkey = c.c_custkey
    JOIN {ns}.nation n ON c.c_nationkey = n.n_nationkey
    GROUP BY n.n_name ORDER BY n.n_name
"""
PLATINUM = "SELECT COUNT(*) FROM {table} WHERE c_mktsegment = 'PLATINUM'"


def run_pipeline(spark: SparkSession, source: str, namespace: str) -> dict:
    """Run the pipeline in ``spark``'s default catalog, tables in ``namespace`` (replaced if there);
    ``source`` is where ``<table>.parquet`` files are (``s3a://bucket/prefix``). Returns its answer."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {namespace}")
    loaded = {}
    for table in TABLES:
        frame = spark.read.parquet(f"{source}/{table}.parquet")
        frame.writeTo(f"{namespace}.{table}").createOrReplace()
        loaded[table] = spark.table(f"{namespace}.{table}").count()
    revenue = [[row.nation, str(row.revenue)] for row in spark.sql(REVENUE_BY_NATION.format(ns=namespace)).collect()]
    customer = f"{namespace}.customer"
    before = _current_snapshot(spark, customer)
    spark.sql(f"UPDATE {customer} SET c_mktsegment = 'PLATINUM' WHERE c_acctbal > 9500")
    return {
        "loaded": loaded,
        "revenue_by_nation": revenue,
        "platinum_now": spark.sql(PLATINUM.format(table=customer)).first()[0],
        "platinum_before": spark.sql(PLATINUM.format(table=f"{customer} VERSION AS OF {before}")).first()[0],
        "snapshots": spark.sql(f"SELECT COUNT(*) FROM {customer}.snapshots").first()[0],
    }


def _current_snapshot(spark: SparkSession, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.history WHERE is_current_ancestor "
                     "ORDER BY made_current_at DESC LIMIT 1").first()[0]


def main(argv: list[str]) -> int:
    from aistor_lab.workbench.spark import session

    source, warehouse, namespace, answer_path = argv
    spark = session(warehouse, app_name="tpch-pipeline", progress=False)
    started = time.monotonic()
    answer = run_pipeline(spark, source, namespace)
    answer["seconds"] = time.monotonic() - started  # the pipeline's own, without the JVM's start
    answer["master"] = spark.sparkContext.master
    answer["application"] = spark.sparkContext.applicationId
    Path(answer_path).write_text(json.dumps(answer))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
