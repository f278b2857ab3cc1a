"""Where the service is and who we are to it (``ServiceConfig``), and the one place that turns that
into each client's settings: PyIceberg's catalog properties, Spark's catalog, S3A and JVM trust
properties, boto3's arguments and deltalake's storage options.

The environment the Jupyter extension exports to kernels names the service:

    AISTOR_ENDPOINT      where it is (``ServiceConfig.from_env`` answers None when unset, unless a
                         default endpoint is given: ``session()`` falls back to http://127.0.0.1:9000)
    AISTOR_ACCESS_KEY    else AISTOR_ROOT_USER, else AWS_ACCESS_KEY_ID, else minioadmin
    AISTOR_SECRET_KEY    else AISTOR_ROOT_PASSWORD, else AWS_SECRET_ACCESS_KEY, else minioadmin
    AISTOR_REGION        else AWS_REGION, else us-east-1 (the service accepts any)
    AISTOR_WAREHOUSE     the default warehouse: commands, ``load_catalog()`` and ``session()`` use it
                         when none is named
    AISTOR_CA_BUNDLE     for an https endpoint with a private CA: the PEM file Python clients verify with
    AISTOR_TRUSTSTORE    the same CA as a PKCS12 truststore, for Spark's JVM
    AISTOR_SPARK_MASTER  where ``session()`` runs Spark (``spark://host:7077``, ``local[2]``...) when
                         not told: unset, Spark's default (``local[*]``, or spark-submit's ``--master``)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..settings import DEFAULT_ADDRESS, DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USER
from ..tls import java_trust_options

DEFAULT_REGION = "us-east-1"
LOCAL_ENDPOINT = f"http://{DEFAULT_ADDRESS}"  # where `aistor-lab server` listens by default
CATALOG_SIGNING_NAME = "s3tables"
SPARK_MASTER_ENV = "AISTOR_SPARK_MASTER"


def _first(env: Mapping[str, str], *names: str) -> str | None:
    return next((env[name] for name in names if env.get(name)), None)


@dataclass(frozen=True)
class ServiceConfig:
    """Where the service is and who we are to it."""

    endpoint: str
    access_key: str
    secret_key: str
    region: str = DEFAULT_REGION
    warehouse: str | None = None  # the default warehouse, when one is known
    # The PEM file of the CAs to verify an https endpoint with; None: $AWS_CA_BUNDLE, else certifi's.
    ca_bundle: str | None = None
    # The same CAs as a PKCS12 truststore for the JVM (Spark); None: the JVM's own CAs.
    truststore: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *,
                 default_endpoint: str | None = None) -> ServiceConfig | None:
        """The service the environment names (see the module), or None when it names none and no
        ``default_endpoint`` is given."""
        env = os.environ if environ is None else environ
        endpoint = env.get("AISTOR_ENDPOINT") or default_endpoint
        if not endpoint:
            return None
        return cls(
            endpoint=endpoint.rstrip("/"),
            access_key=_first(env, "AISTOR_ACCESS_KEY", "AISTOR_ROOT_USER", "AWS_ACCESS_KEY_ID") or DEFAULT_ROOT_USER,
            secret_key=_first(env, "AISTOR_SECRET_KEY", "AISTOR_ROOT_PASSWORD", "AWS_SECRET_ACCESS_KEY")
            or DEFAULT_ROOT_PASSWORD,
            region=_first(env, "AISTOR_REGION", "AWS_REGION") or DEFAULT_REGION,
            warehouse=env.get("AISTOR_WAREHOUSE") or None,
            ca_bundle=env.get("AISTOR_CA_BUNDLE") or None,
            truststore=env.get("AISTOR_TRUSTSTORE") or None,
        )

    def replace(self, **given: str | None) -> ServiceConfig:
        """This config with the fields ``given`` a value (None and "" leave a field as it is)."""
        values = {name: value for name, value in given.items() if value}
        if "endpoint" in values:
            values["endpoint"] = values["endpoint"].rstrip("/")
        return dataclasses.replace(self, **values)

    @property
    def https(self) -> bool:
        return self.endpoint.startswith("https:")

    @property
    def verify(self) -> str | bool:
        """What Python clients verify the certificate of an https endpoint with (a PEM file, or True:
        the default CAs). botocore's clients read $AWS_CA_BUNDLE themselves, its bare HTTP session
        and requests' do not, so it is read here."""
        return self.ca_bundle or os.environ.get("AWS_CA_BUNDLE") or True


# -- Python clients -------------------------------------------------------------------------------


def _iceberg_properties(config: ServiceConfig, warehouse: str | None) -> dict[str, str]:
    """The Iceberg REST catalog's properties as PyIceberg and Iceberg's Java client (Spark) both
    take them (the product documentation's). Where the two spell the signer's keys differently,
    both spellings are here: each client ignores the other's."""
    properties = {
        "uri": f"{config.endpoint}/_iceberg",
        "rest.sigv4-enabled": "true",
        "rest.signing-name": CATALOG_SIGNING_NAME,
        "rest.signing-region": config.region,
        "rest.access-key-id": config.access_key,  # Java's signer
        "rest.secret-access-key": config.secret_key,
        "client.access-key-id": config.access_key,  # PyIceberg's signer
        "client.secret-access-key": config.secret_key,
        "client.region": config.region,
        "s3.endpoint": config.endpoint,
        "s3.region": config.region,
        "s3.path-style-access": "true",
        "s3.access-key-id": config.access_key,
        "s3.secret-access-key": config.secret_key,
    }
    if warehouse or config.warehouse:
        properties["warehouse"] = warehouse or config.warehouse
    return properties


def catalog_properties(config: ServiceConfig, warehouse: str | None = None) -> dict[str, Any]:
    """PyIceberg's configuration of the service's catalog (``warehouse``: else the default one)."""
    properties: dict[str, Any] = _iceberg_properties(config, warehouse)
    if isinstance(config.verify, str):
        properties["ssl"] = {"cabundle": config.verify}  # PyIceberg's REST session verifies with it
    return properties


def boto3_options(config: ServiceConfig) -> dict[str, Any]:
    """Keyword arguments of ``boto3.client("s3", ...)`` for the service."""
    return {"endpoint_url": config.endpoint, "aws_access_key_id": config.access_key,
            "aws_secret_access_key": config.secret_key, "region_name": config.region, "verify": config.verify}


def delta_storage_options(config: ServiceConfig) -> dict[str, str]:
    """Options for deltalake (the Rust object_store) to reach the service's S3 API; they are also the
    standard AWS variables that boto3 and s3fs read from the environment."""
    return {
        "AWS_ENDPOINT_URL": config.endpoint,
        "AWS_ACCESS_KEY_ID": config.access_key,
        "AWS_SECRET_ACCESS_KEY": config.secret_key,
        "AWS_REGION": config.region,
        # object_store refuses http:// endpoints unless told.
        "AWS_ALLOW_HTTP": "false" if config.https else "true",
    }


# -- Spark ----------------------------------------------------------------------------------------


def spark_master(environ: Mapping[str, str] | None = None) -> str | None:
    """The Spark master the environment names (``AISTOR_SPARK_MASTER``), None when it names none."""
    env = os.environ if environ is None else environ
    return env.get(SPARK_MASTER_ENV, "").strip() or None


def spark_catalog_conf(config: ServiceConfig, warehouse: str, name: str) -> dict[str, str]:
    """The Spark properties of an Iceberg REST catalog ``name`` on the service."""
    prefix = f"spark.sql.catalog.{name}"
    properties = _iceberg_properties(config, warehouse)
    # Iceberg's Java client (1.10) warns that rest.sigv4-enabled is deprecated: its own spelling instead.
    del properties["rest.sigv4-enabled"]
    return {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.type": "rest",
        f"{prefix}.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        f"{prefix}.rest.auth.type": "sigv4",
        **{f"{prefix}.{key}": value for key, value in properties.items()},
    }


def s3a_conf(config: ServiceConfig) -> dict[str, str]:
    """Hadoop S3A properties for ``s3a://`` paths on the service (``s3://`` is mapped to S3A too)."""
    return {
        "spark.hadoop.fs.s3a.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3a.endpoint": config.endpoint,
        "spark.hadoop.fs.s3a.endpoint.region": config.region,
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": str(config.https).lower(),
        "spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "spark.hadoop.fs.s3a.access.key": config.access_key,
        "spark.hadoop.fs.s3a.secret.key": config.secret_key,
    }


def trust_conf(config: ServiceConfig) -> dict[str, str]:
    """For an https service with a truststore: JVM options that make the driver and the executors trust
    it. Iceberg's REST client, S3FileIO (AWS SDK v2) and S3A (SDK v1) all verify certificates with JSSE,
    which reads them; they only take effect in a JVM that Spark has not started yet."""
    if not (config.truststore and config.https):
        return {}
    options = java_trust_options(config.truststore)
    return {"spark.driver.extraJavaOptions": options, "spark.executor.extraJavaOptions": options}
