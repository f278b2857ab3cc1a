"""The Spark standalone cluster and the TPC-H pipeline job of the benchmarks (benchmarks/spark_cluster.py,
benchmarks/tpch_spark_job.py), for tests that run Spark on a cluster."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
# The benchmarks import each other by module name (peers), as scripts run from their folder do.
if str(BENCHMARKS) not in sys.path:
    sys.path.append(str(BENCHMARKS))

import spark_cluster
import tpch_spark_job

PIPELINE_SCRIPT = Path(tpch_spark_job.__file__)

__all__ = ["PIPELINE_SCRIPT", "spark_cluster", "tpch_spark_job"]
