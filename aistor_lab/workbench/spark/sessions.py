"""PySpark sessions that already talk to the aistor-lab catalog and store.

``session()`` returns a SparkSession with the Iceberg REST catalog ``aistor`` (SigV4, signing name
``s3tables``), Iceberg's SQL extensions, ``aistor`` as the default catalog, and Hadoop S3A for
plain ``s3a://`` paths. Where the service is, as whom and with which warehouse comes from the
arguments, else from the environment the Jupyter extension gives kernels (``ServiceConfig.from_env``,
service_config.py, which also derives every property from it), else from the defaults of
``aistor-lab server`` (http://127.0.0.1:9000, minioadmin). A warehouse is required, as an argument
or as ``AISTOR_WAREHOUSE``; for an https endpoint with a private CA, ``AISTOR_TRUSTSTORE`` names
the PKCS12 truststore the JVM is to trust (``aistor-lab certs create`` writes one).

Start-up: a progress bar while the JVM starts (in a notebook or a terminal), then one line; the JVM's
own output goes to a log file unless ``verbose=True`` or ``AISTOR_SPARK_VERBOSE=1`` (startup.py).

Where Spark runs: ``master=...``, else ``AISTOR_SPARK_MASTER`` (a ``spark://`` standalone cluster, say),
else Spark's default; the same code runs on ``local[*]`` and on a cluster.

Jars: an offline kit (``aistor-lab spark-jars build``) when ``AISTOR_SPARK_JARS`` names one or one
is in the default place; otherwise the standard Maven coordinates, Delta Lake's included.

Delta tables reach Spark without Delta's jars through ``delta_table()`` and ``delta_sharing_table()``,
which read with deltalake or the delta-sharing client and hand Spark the rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..progress import progress_bar, ticking
from ..service_config import (
    DEFAULT_REGION,
    LOCAL_ENDPOINT,
    ServiceConfig,
    delta_storage_options,
    s3a_conf,
    spark_catalog_conf,
    spark_master,
    trust_conf,
)
from .jars import find_kit
from .startup import jvm_running, launch_jvm, launched_by_spark_submit, quiet_conf, wants_verbose

if TYPE_CHECKING:
    import pyarrow
    from pyspark.sql import DataFrame, SparkSession

CATALOG = "aistor"
ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DELTA_EXTENSIONS = "io.delta.sql.DeltaSparkSessionExtension"
# For Spark 3.5 and Scala 2.12, as pyspark 3.5 is; hadoop-aws matches pyspark's Hadoop client.
MAVEN_PACKAGES = (
    "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2",
    "org.apache.iceberg:iceberg-aws-bundle:1.10.2",
    "org.apache.hadoop:hadoop-aws:3.3.4",
    "io.delta:delta-spark_2.12:3.3.2",
)


def service_of(spark: SparkSession) -> ServiceConfig:
    """The service a session from ``session()`` talks to (read back from its S3A settings)."""
    conf = spark.sparkContext.getConf()
    endpoint = conf.get("spark.hadoop.fs.s3a.endpoint")
    if not endpoint:
        raise ValueError("this SparkSession was not made by aistor_lab.workbench.spark.session()")
    return ServiceConfig(endpoint, conf.get("spark.hadoop.fs.s3a.access.key"),
                         conf.get("spark.hadoop.fs.s3a.secret.key"),
                         conf.get("spark.hadoop.fs.s3a.endpoint.region") or DEFAULT_REGION)


def jars_conf(kit: list[Path] | None) -> dict[str, str]:
    """The kit's jars when there is a kit, else Maven packages (with Delta Lake, which needs its
    extension and its catalog as ``spark_catalog``)."""
    if kit:
        return {"spark.jars": ",".join(str(jar) for jar in kit), "spark.sql.extensions": ICEBERG_EXTENSIONS}
    return {
        "spark.jars.packages": ",".join(MAVEN_PACKAGES),
        "spark.sql.extensions": f"{ICEBERG_EXTENSIONS},{DELTA_EXTENSIONS}",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    }


def spark_conf(
    warehouse: str | None = None,
    *,
    service: ServiceConfig | None = None,
    kit: list[Path] | None = None,
    extra_conf: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The properties of the service's catalog and store that ``session()`` sets (it adds its start-up
    settings, startup.quiet_conf); ``service``: else the environment's (see the module); ``warehouse``:
    else the service's default one; ``kit`` is a jar kit's jars (None: Maven)."""
    service = service or ServiceConfig.from_env(default_endpoint=LOCAL_ENDPOINT)
    warehouse = warehouse or service.warehouse
    if not warehouse:
        raise ValueError("a warehouse is required: pass warehouse=... or set AISTOR_WAREHOUSE")
    return {
        **spark_catalog_conf(service, warehouse, CATALOG),
        **s3a_conf(service),
        **trust_conf(service),
        **jars_conf(kit),
        "spark.sql.defaultCatalog": CATALOG,
        **{key: str(value) for key, value in (extra_conf or {}).items()},
    }


def session(
    warehouse: str | None = None,
    app_name: str = "aistor-lab",
    master: str | None = None,
    *,
    endpoint: str | None = None,
    access_key: str | None = None,
    secret_key: str | None = None,
    truststore: str | None = None,
    service: ServiceConfig | None = None,
    progress: bool | None = None,
    verbose: bool | None = None,
    **extra_conf: str,
) -> SparkSession:
    """A SparkSession configured for the service (see the module; ``service``: that one instead of the
    environment's, ``endpoint``... override either). ``master`` (``local[2]``, ``spark://host:7077``,
    ...): else ``AISTOR_SPARK_MASTER``, else Spark's default; under spark-submit, its ``--master`` rules
    unless ``master`` is given. On a cluster the driver ships the jar kit to the executors
    (``spark.jars``), and they reach the service with the session's credentials. ``extra_conf`` adds or
    overrides properties: ``session("analytics", **{"spark.sql.shuffle.partitions": "4"})``.
    ``progress``: show the start-up's progress (None: in a notebook or a terminal); ``verbose``: let the
    JVM's own output through (None: when ``AISTOR_SPARK_VERBOSE`` is set).

    Spark keeps one session per process: when one is already running, Spark returns it and ignores
    the jar settings."""
    from pyspark.sql import SparkSession

    service = service or ServiceConfig.from_env(default_endpoint=LOCAL_ENDPOINT)
    conf = quiet_conf(spark_conf(
        warehouse,
        service=service.replace(endpoint=endpoint, access_key=access_key, secret_key=secret_key,
                                truststore=truststore),
        kit=find_kit(),
        extra_conf=extra_conf,
    ))
    master = master or (None if launched_by_spark_submit() else spark_master())
    conf = {**conf, "spark.app.name": app_name, **({"spark.master": master} if master else {})}
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    if SparkSession.getActiveSession() is not None:
        return builder.getOrCreate()
    started = time.monotonic()
    bar = progress_bar(progress, total=2, desc="Spark: starting", bar_format="{desc} {bar} {elapsed}")
    shown = not bar.disable
    with bar, ticking(bar):
        if not jvm_running():
            # Maven's jars are fetched (or found in Ivy's cache) before the JVM starts: the long wait
            maven = "spark.jars.packages" in conf
            bar.set_description_str("Spark: fetching jars, starting the JVM" if maven else "Spark: starting the JVM")
            launch_jvm(conf, wants_verbose(verbose))
        bar.update(1)
        bar.set_description_str("Spark: creating the session")
        spark = builder.getOrCreate()
        bar.update(1)
    if shown:
        print(f"Spark {spark.version} ready in {time.monotonic() - started:.0f} s: catalog '{CATALOG}' on "
              f"warehouse '{conf[f'spark.sql.catalog.{CATALOG}.warehouse']}'.")
    return spark


def delta_table(
    spark: SparkSession,
    table_uri: str,
    *,
    version: int | None = None,
    storage_options: Mapping[str, str] | None = None,
) -> DataFrame:
    """A Delta table (``s3://bucket/path``, ``s3a://...`` or a local path) as a Spark DataFrame, read with
    deltalake on the driver; S3 paths reach the service the session talks to unless
    ``storage_options`` say otherwise."""
    from deltalake import DeltaTable

    if table_uri.startswith("s3a://"):
        table_uri = "s3://" + table_uri[len("s3a://"):]
    if storage_options is None and table_uri.startswith("s3://"):
        storage_options = delta_storage_options(service_of(spark))
    table = DeltaTable(table_uri, version=version, storage_options=dict(storage_options or {}))
    return arrow_to_spark(spark, table.to_pyarrow_table())


def delta_sharing_table(
    spark: SparkSession,
    url: str,
    *,
    version: int | None = None,
    timestamp: str | None = None,
    limit: int | None = None,
) -> DataFrame:
    """A shared table (``PROFILE#share.schema.table``) as a Spark DataFrame, read with the delta-sharing
    client on the driver (which hands over pandas)."""
    import delta_sharing
    import pyarrow as pa

    frame = delta_sharing.load_as_pandas(url, limit=limit, version=version, timestamp=timestamp)
    return arrow_to_spark(spark, pa.Table.from_pandas(frame, preserve_index=False))


def arrow_to_spark(spark: SparkSession, table: pyarrow.Table, batch_rows: int = 10_000) -> DataFrame:
    """A Spark DataFrame with the rows and schema of an Arrow table. The batches go to the JVM as an
    Arrow stream, as ``createDataFrame`` sends a pandas frame in Spark 3.5, minus pandas (whose 3.x
    string columns that path cannot convert)."""
    from pyspark.sql import DataFrame
    from pyspark.sql.pandas.serializers import ArrowStreamSerializer
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    schema = from_arrow_schema(table.schema)
    if table.num_rows == 0:
        return spark.createDataFrame([], schema)
    batches = table.cast(to_arrow_schema(schema)).to_batches(max_chunksize=batch_rows)
    utils = spark._jvm.PythonSQLUtils
    stream = spark.sparkContext._serialize_to_jvm(
        batches, ArrowStreamSerializer(), utils.readArrowStreamFromFile, spark._jvm.ArrowIteratorServer
    )
    return DataFrame(utils.toDataFrame(stream, schema.json(), spark._jsparkSession), spark)
