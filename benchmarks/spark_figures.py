"""The same Spark job on ``local[2]`` and on a two-worker standalone cluster (one core each), against one
aistor-lab server: the TPC-H tutorial's pipeline (tpch_spark_job.py: load four tables from S3 into
Iceberg, the four-table join, an update, time travel), each run a ``spark-submit`` batch job of its own.
Prints the pipeline's time (without the JVM's start) and spark-submit's whole time for each, their ratio,
and whether both gave the same answer (it stops with an error if not).

    python benchmarks/spark_figures.py [--quick]     # --quick: one run each, else the median of three

On one 2-core machine the cluster cannot be faster: it adds executors in processes of their own, a
network hop for every shuffle and the shipping of the jar kit; the figures measure that overhead.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from peers import ACCESS_KEY, SECRET_KEY, aistor_lab, s3_client, stop_all
from spark_cluster import spark_cluster, submit_command, submit_environment
from tpch_spark_job import TABLES

from aistor_lab.workbench.client import AIStorClient
from aistor_lab.workbench.jupyter.extension import kernel_environment
from aistor_lab.workbench.sample_data import default_data_dir
from aistor_lab.workbench.service_config import ServiceConfig
from aistor_lab.workbench.spark.jars import ensure_kit

JOB = Path(__file__).with_name("tpch_spark_job.py")
WAREHOUSE = "spark-figures"
SOURCE_BUCKET = "spark-figures-tpch"
JOB_CONF = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4"}
JOB_TIMEOUT = 900
# What each run answers besides the pipeline's result.
RUN_FIELDS = ("master", "application", "seconds")


def _submit(master: str, service: ServiceConfig, workdir: Path) -> tuple[dict, float]:
    """One batch job on ``master``: its answer and spark-submit's wall time."""
    answer_path = workdir / f"answer-{uuid.uuid4().hex[:8]}.json"
    command = submit_command(master, JOB, ensure_kit(), JOB_CONF, f"s3a://{SOURCE_BUCKET}/tpch", WAREHOUSE,
                             f"run_{uuid.uuid4().hex[:8]}", str(answer_path))
    started = time.monotonic()
    done = subprocess.run(command, env={**submit_environment(), **kernel_environment(service)}, cwd=workdir,
                          capture_output=True, text=True, timeout=JOB_TIMEOUT, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"the job on {master} failed:\n{done.stderr[-3000:]}")
    return json.loads(answer_path.read_text()), wall


def _stage(service: ServiceConfig) -> None:
    """The warehouse and the TPC-H Parquet files the job loads."""
    AIStorClient(service).create_warehouse(WAREHOUSE)
    s3 = s3_client(service.endpoint)
    s3.create_bucket(Bucket=SOURCE_BUCKET)
    for table in TABLES:
        s3.upload_file(str(default_data_dir() / "tpch" / f"{table}.parquet"), SOURCE_BUCKET, f"tpch/{table}.parquet")


def run(quick: bool) -> None:
    """Time the job on ``local[2]`` and on the cluster (one run each when ``quick``, else the median of
    three) and print the table; raises RuntimeError when the two answers differ."""
    rounds = 1 if quick else 3
    root = Path(tempfile.mkdtemp(prefix="spark-figures-"))
    server = aistor_lab(root / "aistor-lab")
    try:
        server.start()
        server.wait_ready(60)
        service = ServiceConfig(server.endpoint, ACCESS_KEY, SECRET_KEY, warehouse=WAREHOUSE)
        _stage(service)
        with spark_cluster(root / "spark") as cluster:
            masters = {"local[2]": "local[2]", "cluster: 2 workers x 1 core": cluster.master_url}
            results = {label: [_submit(master, service, root) for _ in range(rounds)]
                       for label, master in masters.items()}
    finally:
        stop_all([server])
        shutil.rmtree(root, ignore_errors=True)
    _print(results)


def _print(results: dict[str, list[tuple[dict, float]]]) -> None:
    answers = [{k: v for k, v in answer.items() if k not in RUN_FIELDS} for runs in results.values()
               for answer, _ in runs]
    equal = all(answer == answers[0] for answer in answers)
    job = {label: statistics.median(answer["seconds"] for answer, _ in runs) for label, runs in results.items()}
    wall = {label: statistics.median(seconds for _, seconds in runs) for label, runs in results.items()}
    rows = len(results[next(iter(results))])
    print(f"Spark job: the TPC-H pipeline (load {', '.join(TABLES)}; join; update; time travel), "
          f"median of {rows} run(s)")
    print(f"{'where':32} {'pipeline s':>11} {'spark-submit s':>15}")
    for label in results:
        print(f"{label:32} {job[label]:11.1f} {wall[label]:15.1f}")
    local, clustered = job["local[2]"], job[list(results)[1]]
    print(f"cluster / local[2]: {clustered / local:.2f}x the pipeline's time; same answers: {equal}")
    if not equal:
        raise RuntimeError("the cluster's answer differs from local[2]'s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one run on each, not three")
    run(parser.parse_args().quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
