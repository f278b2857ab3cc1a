"""Spark's own progress for a long action, as a bar in the cell: the tasks of the jobs a block starts,
read from Spark's status tracker (what the Spark UI shows), since its console bar is off.

    with aistor_spark.job_progress(spark, "Loading orders"):
        spark.sql("INSERT INTO sales.orders SELECT ...")
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..progress import progress_bar

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JOB_GROUP = "spark.jobGroup.id"
JOB_DESCRIPTION = "spark.job.description"


def _tasks(tracker, group: str) -> tuple[int, int]:
    """(completed, total) tasks of the group's jobs. A running job counts the tasks of all its stages;
    an ended one only those that ran (stages it could skip, their output being there, ran none)."""
    done = total = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        stages = [tracker.getStageInfo(stage_id) for stage_id in (job.stageIds if job else ())]
        completed = sum(stage.numCompletedTasks for stage in stages if stage)
        done += completed
        total += sum(stage.numTasks for stage in stages if stage) if job.status == "RUNNING" else completed
    return done, total


@contextlib.contextmanager
def job_progress(spark: SparkSession, description: str = "Spark", *, enabled: bool | None = None,
                 interval: float = 0.5) -> Iterator[Any]:
    """Show the progress of the Spark jobs the block runs (in this thread) as one bar of their tasks,
    which it yields (tqdm's: ``n`` tasks done of ``total``); ``enabled`` None: in a notebook or a
    terminal."""
    context = spark.sparkContext
    previous = {key: context.getLocalProperty(key) for key in (JOB_GROUP, JOB_DESCRIPTION)}
    group = f"aistor-lab-{uuid.uuid4().hex}"
    context.setJobGroup(group, description)
    tracker = context.statusTracker()
    bar = progress_bar(enabled, desc=description, total=0, unit=" tasks")
    done = threading.Event()

    def update() -> None:
        completed, total = _tasks(tracker, group)
        bar.total, bar.n = total, completed
        bar.refresh()

    def follow() -> None:
        while not done.wait(interval):
            update()

    thread = threading.Thread(target=follow, name="spark-job-progress", daemon=True)
    if not bar.disable:
        thread.start()
    try:
        yield bar
    finally:
        done.set()
        if thread.is_alive():
            thread.join()
            update()  # the block's last tasks, which may have ended since the last look
        bar.close()
        for key, value in previous.items():
            context.setLocalProperty(key, value)
