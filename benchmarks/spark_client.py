"""Spark as a client of the Iceberg REST catalogs: one local session (the product's
``aistor_lab.workbench.spark.session``, jars from the offline kit) with every catalog configured in it.

aistor-lab's catalog is the session's ``aistor`` catalog, as the product configures it; each other
REST catalog gets the same properties under its own name, only the ``uri`` differs. Spark's table
cache is off for every catalog, so each query loads the table from the catalog.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from peers import ACCESS_KEY, OURS, SECRET_KEY, ServerProcess
from py4j.protocol import Py4JJavaError

from aistor_lab.workbench.service_config import ServiceConfig, spark_catalog_conf
from aistor_lab.workbench.spark import CATALOG, session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

T = TypeVar("T")


class SparkFailed(Exception):
    """A Spark statement failed in the JVM; the message is the Java exception's, not py4j's call site."""


def _in_jvm(action: Callable[[], T]) -> T:
    try:
        return action()
    except Py4JJavaError as exc:
        raise SparkFailed(exc.java_exception.toString()) from exc


def catalog_name(server: ServerProcess) -> str:
    """The Spark catalog that reaches ``server``'s REST catalog (a name Spark SQL takes unquoted)."""
    return CATALOG if server.name == OURS else server.name.replace("-", "_")


def _catalog_conf(server: ServerProcess, warehouse: str) -> dict[str, str]:
    name = catalog_name(server)
    conf = spark_catalog_conf(ServiceConfig(server.endpoint, ACCESS_KEY, SECRET_KEY), warehouse, name)
    conf[f"spark.sql.catalog.{name}.uri"] = server.catalog_uri
    conf[f"spark.sql.catalog.{name}.cache-enabled"] = "false"
    return conf


class SparkCatalogs:
    """One local Spark session with the REST catalogs of ``servers``, made for aistor-lab's (or, without
    it, for the first server, whose ``aistor`` catalog then goes unused: Spark never loads it, as it
    is not the default catalog)."""

    def __init__(self, servers: list[ServerProcess], warehouse: str) -> None:
        ours = next((server for server in servers if server.name == OURS), servers[0])
        conf: dict[str, str] = {
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.defaultCatalog": catalog_name(ours),
        }
        for server in servers:
            conf.update(_catalog_conf(server, warehouse))
        self.spark: SparkSession = session(
            warehouse, app_name="catalog_bench", master="local[2]", endpoint=ours.endpoint,
            access_key=ACCESS_KEY, secret_key=SECRET_KEY, progress=False, **conf,
        )

    def version(self) -> str:
        return f"Spark {self.spark.version}"

    def count(self, server: ServerProcess, identifier: str) -> int:
        query = f"SELECT count(*) FROM {catalog_name(server)}.{identifier}"
        return _in_jvm(lambda: self.spark.sql(query).collect()[0][0])

    def insert(self, server: ServerProcess, identifier: str, rows: int) -> None:
        """One commit of ``rows`` new rows (``id`` long, ``name`` string)."""
        statement = (f"INSERT INTO {catalog_name(server)}.{identifier} "
                     f"SELECT id, concat('row-', id) FROM range({int(rows)})")
        _in_jvm(lambda: self.spark.sql(statement))

    def stop(self) -> None:
        self.spark.stop()
