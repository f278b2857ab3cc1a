"""PySpark with the catalog configured (sessions.py) and the offline jar kit it runs with (jars/)."""

from .sessions import CATALOG, delta_sharing_table, delta_table, session, spark_conf

__all__ = ["CATALOG", "delta_sharing_table", "delta_table", "session", "spark_conf"]
