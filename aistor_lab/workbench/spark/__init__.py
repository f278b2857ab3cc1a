"""PySpark with the catalog configured (sessions.py) and the offline jar kit it runs with (jars/)."""

from .sessions import CATALOG, Service, delta_sharing_table, delta_table, session, spark_conf

__all__ = ["CATALOG", "Service", "delta_sharing_table", "delta_table", "session", "spark_conf"]
