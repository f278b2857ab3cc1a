"""A Spark standalone cluster on this machine: a master and workers started with the pip pyspark's
``bin/spark-class`` as separate processes on free loopback ports, each worker with its own cores,
memory and work directory; stopped (SIGTERM, then SIGKILL after a grace period) after.

    with spark_cluster(Path("/scratch/spark")) as cluster:
        spark = session("analytics", master=cluster.master_url)
        ...
        cluster.executors(spark.sparkContext.applicationId)  # where the app's executors ran
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyspark
from peers import HOST, ServerProcess, free_port, stop_all

SPARK_HOME = Path(pyspark.__file__).resolve().parent
SPARK_CLASS = SPARK_HOME / "bin" / "spark-class"
SPARK_SUBMIT = SPARK_HOME / "bin" / "spark-submit"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
STOP_GRACE_SECONDS = 10


@dataclass
class SparkCluster:
    """A running cluster: its master's URL for ``--master``, its web UI and its processes."""

    master_url: str
    web_url: str
    processes: list[ServerProcess]

    def state(self) -> dict:
        """The master's own account of the cluster (its web UI's JSON: workers, applications)."""
        with urllib.request.urlopen(f"{self.web_url}/json/", timeout=10) as answer:
            return json.load(answer)

    def alive_workers(self) -> list[dict]:
        return [worker for worker in self.state()["workers"] if worker["state"] == "ALIVE"]

    def executor_dirs(self, app_id: str) -> list[Path]:
        """The directories the workers made for the executors of application ``app_id`` (each holds the
        executor's stdout and stderr, and the jars the driver shipped it)."""
        return sorted(path for process in self.processes if process.name.startswith("worker")
                      for path in (Path(process.env["SPARK_WORKER_DIR"]) / app_id).glob("*") if path.is_dir())


def _environment(log_dir: Path) -> dict[str, str]:
    # Loopback only; the executors' Python workers run this Python. No AWS keys from our environment:
    # executors reach S3 with what the driver gives them (its keys, or the catalog's vended ones).
    return {"SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": HOST, "SPARK_LOG_DIR": str(log_dir),
            "PYSPARK_PYTHON": sys.executable, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "",
            "AWS_SESSION_TOKEN": ""}


def cluster_processes(workdir: Path, workers: int = 2, cores: int = 1, memory: str = "1g") -> list[ServerProcess]:
    """The master and ``workers`` workers (not started), their files under ``workdir``."""
    env = _environment(workdir / "logs")
    port, web_port = free_port(), free_port()
    master = ServerProcess("master", [str(SPARK_CLASS), MASTER_CLASS, "--host", HOST, "--port", str(port),
                                      "--webui-port", str(web_port)],
                           f"http://{HOST}:{web_port}", workdir / "master.log", pyspark.__version__, env=env)
    processes = [master]
    for index in range(1, workers + 1):
        work_dir = workdir / f"worker{index}"
        work_dir.mkdir(parents=True, exist_ok=True)
        worker_web = free_port()
        processes.append(ServerProcess(
            f"worker{index}",
            [str(SPARK_CLASS), WORKER_CLASS, "--host", HOST, "--port", str(free_port()), "--webui-port",
             str(worker_web), "--cores", str(cores), "--memory", memory, "--work-dir", str(work_dir),
             f"spark://{HOST}:{port}"],
            f"http://{HOST}:{worker_web}", workdir / f"worker{index}.log", pyspark.__version__,
            env={**env, "SPARK_WORKER_DIR": str(work_dir)}))
    return processes


def start(workdir: Path, workers: int = 2, cores: int = 1, memory: str = "1g", timeout: float = 120) -> SparkCluster:
    """Start the master, then the workers; return once the master counts them all alive. On failure
    every started process is stopped."""
    workdir.mkdir(parents=True, exist_ok=True)
    processes = cluster_processes(workdir, workers, cores, memory)
    master = processes[0]
    port = master.command[master.command.index("--port") + 1]
    cluster = SparkCluster(f"spark://{HOST}:{port}", master.endpoint, processes)
    try:
        for process in processes:
            process.start()
            process.wait_listening(timeout)
        deadline = time.monotonic() + timeout
        while len(cluster.alive_workers()) < workers:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{workers} workers not registered after {timeout} s\n"
                                   + "\n".join(p.log_tail(5) for p in processes))
            time.sleep(0.5)
    except BaseException:
        stop_all(processes, timeout=STOP_GRACE_SECONDS)
        raise
    return cluster


@contextmanager
def spark_cluster(workdir: Path, workers: int = 2, cores: int = 1, memory: str = "1g") -> Iterator[SparkCluster]:
    """A running cluster (see ``start``), stopped at the end of the block."""
    cluster = start(workdir, workers, cores, memory)
    try:
        yield cluster
    finally:
        stop_all(cluster.processes, timeout=STOP_GRACE_SECONDS)


def submit_command(master_url: str, script: Path, jars: list[Path], conf: dict[str, str], *args: str) -> list[str]:
    """``spark-submit`` of a Python script as a batch job on ``master_url``, the jars shipped with it."""
    command = [str(SPARK_SUBMIT), "--master", master_url, "--jars", ",".join(str(jar) for jar in jars)]
    for key, value in conf.items():
        command += ["--conf", f"{key}={value}"]
    return [*command, str(script), *args]


def submit_environment() -> dict[str, str]:
    """spark-submit's environment: the driver's Python and loopback addresses, as the cluster's."""
    return {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": HOST, "PYSPARK_PYTHON": sys.executable}
