"""One Spark job in a fresh Python process: a session built from nothing but the given properties (no AWS or
aistor settings in its environment), some SQL statements, and the rows of the last one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

JOB = textwrap.dedent("""
    import json, sys
    from pyspark.sql import SparkSession

    job = json.loads(sys.stdin.read())
    spark = SparkSession.builder.master("local[1]").config(map=job["conf"]).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    result = None
    for statement in job["sql"]:
        result = spark.sql(statement)
    print(json.dumps([list(row) for row in result.collect()]))
    spark.stop()
""")


def run_spark_sql(conf: dict[str, str], statements: list[str], timeout: float = 1100) -> list[list]:
    """The rows of the last statement, after running them all in order in one session."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AISTOR_"))}
    conf = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "1", **conf}
    result = subprocess.run([sys.executable, "-c", JOB], input=json.dumps({"conf": conf, "sql": statements}),
                            env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
