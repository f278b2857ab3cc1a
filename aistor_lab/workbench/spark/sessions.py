"""PySpark sessions that already talk to the aistor-lab catalog and store.

``session()`` returns a SparkSession with the Iceberg REST catalog ``aistor`` (SigV4, signing name
``s3tables``), Iceberg's SQL extensions, ``aistor`` as the default catalog, and Hadoop S3A for
plain ``s3a://`` paths. Where the service is, and as whom, comes from the arguments, else from the
environment the Jupyter extension gives kernels:

    AISTOR_ENDPOINT      http://127.0.0.1:9000 if unset
    AISTOR_ACCESS_KEY    else AISTOR_ROOT_USER, else minioadmin
    AISTOR_SECRET_KEY    else AISTOR_ROOT_PASSWORD, else minioadmin
    AISTOR_WAREHOUSE     the catalog's warehouse (required, here or as an argument)
    AISTOR_REGION        the region to sign with, us-east-1 if unset (the service accepts any)
    AISTOR_TRUSTSTORE    for an https endpoint with a private CA: the PKCS12 truststore the JVM is to
                         trust (``aistor-lab certs create`` writes one); the JVM's own CAs if unset

Jars: an offline kit (``aistor-lab spark-jars build``) when ``AISTOR_SPARK_JARS`` names one or one
is in the default place; otherwise the standard Maven coordinates, Delta Lake's included.

Delta tables reach Spark without Delta's jars through ``delta_table()`` and ``delta_sharing_table()``,
which read with deltalake or the delta-sharing client and hand Spark the rows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...settings import DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USER
from ...tls import java_trust_options
from ..client import ServiceConfig, delta_storage_options
from .jars import find_kit

if TYPE_CHECKING:
    import pyarrow
    from pyspark.sql import DataFrame, SparkSession

CATALOG = "aistor"
DEFAULT_ENDPOINT = "http://127.0.0.1:9000"
DEFAULT_REGION = "us-east-1"
ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DELTA_EXTENSIONS = "io.delta.sql.DeltaSparkSessionExtension"
# For Spark 3.5 and Scala 2.12, as pyspark 3.5 is; hadoop-aws matches pyspark's Hadoop client.
MAVEN_PACKAGES = (
    "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2",
    "org.apache.iceberg:iceberg-aws-bundle:1.10.2",
    "org.apache.hadoop:hadoop-aws:3.3.4",
    "io.delta:delta-spark_2.12:3.3.2",
)


@dataclass(frozen=True)
class Service:
    """Where the aistor-lab service is and the credentials to use with it."""

    endpoint: str
    access_key: str
    secret_key: str
    region: str = DEFAULT_REGION
    truststore: str | None = None  # see the module: AISTOR_TRUSTSTORE

    @classmethod
    def from_env(
        cls,
        endpoint: str | None = None,
        access_key: str | None = None,
        secret_key: str | None = None,
        region: str | None = None,
        truststore: str | None = None,
    ) -> Service:
        env = os.environ
        return cls(
            endpoint=(endpoint or env.get("AISTOR_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/"),
            access_key=access_key or env.get("AISTOR_ACCESS_KEY") or env.get("AISTOR_ROOT_USER")
            or DEFAULT_ROOT_USER,
            secret_key=secret_key or env.get("AISTOR_SECRET_KEY") or env.get("AISTOR_ROOT_PASSWORD")
            or DEFAULT_ROOT_PASSWORD,
            region=region or env.get("AISTOR_REGION") or DEFAULT_REGION,
            truststore=truststore or env.get("AISTOR_TRUSTSTORE") or None,
        )

    @classmethod
    def of_session(cls, spark: SparkSession) -> Service:
        """The service a session from ``session()`` talks to (read back from its S3A settings)."""
        conf = spark.sparkContext.getConf()
        endpoint = conf.get("spark.hadoop.fs.s3a.endpoint")
        if not endpoint:
            raise ValueError("this SparkSession was not made by aistor_lab.workbench.spark.session()")
        return cls(
            endpoint=endpoint,
            access_key=conf.get("spark.hadoop.fs.s3a.access.key"),
            secret_key=conf.get("spark.hadoop.fs.s3a.secret.key"),
            region=conf.get("spark.hadoop.fs.s3a.endpoint.region") or DEFAULT_REGION,
        )

    def storage_options(self) -> dict[str, str]:
        """Options for deltalake (the Rust object_store) to reach the service's S3 API."""
        return delta_storage_options(ServiceConfig(self.endpoint, self.access_key, self.secret_key, self.region))


def catalog_conf(service: Service, warehouse: str, name: str = CATALOG) -> dict[str, str]:
    """The Spark properties of an Iceberg REST catalog on the service (the seeds' configuration)."""
    prefix = f"spark.sql.catalog.{name}"
    return {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "rest",
        f"{prefix}.uri": f"{service.endpoint}/_iceberg",
        f"{prefix}.warehouse": warehouse,
        f"{prefix}.rest.sigv4-enabled": "true",
        f"{prefix}.rest.signing-name": "s3tables",
        f"{prefix}.rest.signing-region": service.region,
        f"{prefix}.rest.access-key-id": service.access_key,
        f"{prefix}.rest.secret-access-key": service.secret_key,
        f"{prefix}.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        f"{prefix}.client.region": service.region,
        f"{prefix}.s3.endpoint": service.endpoint,
        f"{prefix}.s3.path-style-access": "true",
        f"{prefix}.s3.access-key-id": service.access_key,
        f"{prefix}.s3.secret-access-key": service.secret_key,
    }


def s3a_conf(service: Service) -> dict[str, str]:
    """Hadoop S3A properties for ``s3a://`` paths on the service (``s3://`` is mapped to S3A too)."""
    return {
        "spark.hadoop.fs.s3a.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3a.endpoint": service.endpoint,
        "spark.hadoop.fs.s3a.endpoint.region": service.region,
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": str(service.endpoint.startswith("https:")).lower(),
        "spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "spark.hadoop.fs.s3a.access.key": service.access_key,
        "spark.hadoop.fs.s3a.secret.key": service.secret_key,
    }


def trust_conf(service: Service) -> dict[str, str]:
    """For an https service with a truststore: JVM options that make the driver and the executors trust
    it. Iceberg's REST client, S3FileIO (AWS SDK v2) and S3A (SDK v1) all verify certificates with JSSE,
    which reads them; they only take effect in a JVM that Spark has not started yet."""
    if not (service.truststore and service.endpoint.startswith("https:")):
        return {}
    options = java_trust_options(service.truststore)
    return {"spark.driver.extraJavaOptions": options, "spark.executor.extraJavaOptions": options}


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
    service: Service | None = None,
    kit: list[Path] | None = None,
    extra_conf: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Every property ``session()`` sets; ``kit`` is a jar kit's jars (None: Maven)."""
    warehouse = warehouse or os.environ.get("AISTOR_WAREHOUSE")
    if not warehouse:
        raise ValueError("a warehouse is required: pass warehouse=... or set AISTOR_WAREHOUSE")
    service = service or Service.from_env()
    return {
        **catalog_conf(service, warehouse),
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
    **extra_conf: str,
) -> SparkSession:
    """A SparkSession configured for the service (see the module). ``master`` (``local[2]``,
    ``spark://host:7077``, ...) is left to Spark's defaults when None. ``extra_conf`` adds or overrides
    properties: ``session("analytics", **{"spark.sql.shuffle.partitions": "4"})``.

    Spark keeps one session per process: when one is already running, Spark returns it and ignores
    the jar settings."""
    from pyspark.sql import SparkSession

    conf = spark_conf(
        warehouse,
        service=Service.from_env(endpoint, access_key, secret_key, truststore=truststore),
        kit=find_kit(),
        extra_conf=extra_conf,
    )
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


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
        storage_options = Service.of_session(spark).storage_options()
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
