"""PySpark with the catalog configured (sessions.py), started quietly with progress (startup.py), the
progress of long actions (job_progress.py) and the offline jar kit it runs with (jars/)."""

from .job_progress import job_progress
from .sessions import CATALOG, delta_sharing_table, delta_table, session, spark_conf
from .startup import jvm_log

__all__ = ["CATALOG", "delta_sharing_table", "delta_table", "job_progress", "jvm_log", "session", "spark_conf"]
