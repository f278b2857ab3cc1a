"""One description of where the service is: every client's settings derive from one ``ServiceConfig``,
and the environment reads into one the same way for every client."""

from __future__ import annotations

import pytest

from aistor_lab.tls import java_trust_options
from aistor_lab.workbench.service_config import (
    LOCAL_ENDPOINT,
    ServiceConfig,
    boto3_options,
    catalog_properties,
    delta_storage_options,
)
from aistor_lab.workbench.spark import CATALOG, spark_conf

CONFIG = ServiceConfig("https://lab.example:9443", "ak", "sk", "eu-west-1", "lake",
                       ca_bundle="/certs/ca-bundle.pem", truststore="/certs/truststore.p12")
SPARK_CATALOG = f"spark.sql.catalog.{CATALOG}."


def spark_catalog(conf: dict[str, str]) -> dict[str, str]:
    """The catalog's own properties in a Spark conf, without their prefix."""
    return {key.removeprefix(SPARK_CATALOG): value for key, value in conf.items() if key.startswith(SPARK_CATALOG)}


def test_pyiceberg_and_spark_catalogs_agree_key_for_key():
    pyiceberg = catalog_properties(CONFIG)
    spark = spark_conf(service=CONFIG, kit=None)
    catalog = spark_catalog(spark)
    # Every PyIceberg property but the CA (a nested value, Python's only) reaches Spark, unchanged; SigV4
    # is switched on in each client's own spelling (Iceberg's Java client warns rest.sigv4-enabled is
    # deprecated).
    python_only = {"ssl", "rest.sigv4-enabled"}
    assert set(pyiceberg) - set(catalog) == python_only
    assert {key: catalog[key] for key in pyiceberg if key not in python_only} == {
        k: v for k, v in pyiceberg.items() if k not in python_only}
    assert set(catalog) - set(pyiceberg) == {"type", "io-impl", "rest.auth.type"}
    assert (pyiceberg["rest.sigv4-enabled"], catalog["rest.auth.type"]) == ("true", "sigv4")
    expected = {
        "uri": "https://lab.example:9443/_iceberg", "s3.endpoint": "https://lab.example:9443", "warehouse": "lake",
        "rest.signing-region": "eu-west-1", "client.region": "eu-west-1", "s3.region": "eu-west-1",
        "rest.access-key-id": "ak", "client.access-key-id": "ak", "s3.access-key-id": "ak",
        "rest.secret-access-key": "sk", "client.secret-access-key": "sk", "s3.secret-access-key": "sk",
    }
    assert {key: pyiceberg[key] for key in expected} == expected
    # The CA: PyIceberg's REST session verifies with the PEM bundle, Spark's JVMs with the truststore.
    assert pyiceberg["ssl"] == {"cabundle": "/certs/ca-bundle.pem"}
    for side in ("driver", "executor"):
        assert spark[f"spark.{side}.extraJavaOptions"] == java_trust_options("/certs/truststore.p12")
    # S3A, boto3 and deltalake: the same endpoint, keys and region.
    assert (spark["spark.hadoop.fs.s3a.endpoint"], spark["spark.hadoop.fs.s3a.access.key"],
            spark["spark.hadoop.fs.s3a.secret.key"], spark["spark.hadoop.fs.s3a.endpoint.region"],
            spark["spark.hadoop.fs.s3a.connection.ssl.enabled"]) == ("https://lab.example:9443", "ak", "sk",
                                                                    "eu-west-1", "true")
    assert boto3_options(CONFIG) == {"endpoint_url": "https://lab.example:9443", "aws_access_key_id": "ak",
                                     "aws_secret_access_key": "sk", "region_name": "eu-west-1",
                                     "verify": "/certs/ca-bundle.pem"}
    assert delta_storage_options(CONFIG) == {"AWS_ENDPOINT_URL": "https://lab.example:9443",
                                             "AWS_ACCESS_KEY_ID": "ak", "AWS_SECRET_ACCESS_KEY": "sk",
                                             "AWS_REGION": "eu-west-1", "AWS_ALLOW_HTTP": "false"}


def test_a_named_warehouse_wins_over_the_default():
    assert catalog_properties(CONFIG, "other")["warehouse"] == "other"
    assert spark_catalog(spark_conf("other", service=CONFIG, kit=None))["warehouse"] == "other"
    no_default = ServiceConfig("http://127.0.0.1:9000", "ak", "sk")
    assert "warehouse" not in catalog_properties(no_default)
    with pytest.raises(ValueError, match="a warehouse is required"):
        spark_conf(service=no_default, kit=None)


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("AISTOR_ENDPOINT", "AISTOR_ACCESS_KEY", "AISTOR_SECRET_KEY", "AISTOR_ROOT_USER",
                 "AISTOR_ROOT_PASSWORD", "AISTOR_REGION", "AISTOR_WAREHOUSE", "AISTOR_CA_BUNDLE",
                 "AISTOR_TRUSTSTORE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_environment_reads_the_same_for_every_client(clean_env):
    clean_env.setenv("AISTOR_ENDPOINT", "https://lab.example:9443/")
    clean_env.setenv("AISTOR_ROOT_USER", "root")  # what the service itself was started with
    clean_env.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    clean_env.setenv("AWS_REGION", "eu-west-1")
    clean_env.setenv("AISTOR_WAREHOUSE", "lake")
    clean_env.setenv("AISTOR_CA_BUNDLE", "/certs/ca-bundle.pem")
    clean_env.setenv("AISTOR_TRUSTSTORE", "/certs/truststore.p12")
    config = ServiceConfig.from_env()
    assert config == ServiceConfig("https://lab.example:9443", "root", "aws-secret", "eu-west-1", "lake",
                                   "/certs/ca-bundle.pem", "/certs/truststore.p12")
    # session()'s properties, from the environment alone, are those of the same config
    assert spark_conf(kit=None) == spark_conf(service=config, kit=None)
    clean_env.setenv("AISTOR_ACCESS_KEY", "ak")
    assert ServiceConfig.from_env().access_key == "ak"


def test_without_an_endpoint_only_spark_falls_back_to_the_local_service(clean_env):
    assert ServiceConfig.from_env() is None
    local = ServiceConfig.from_env(default_endpoint=LOCAL_ENDPOINT)
    assert (local.endpoint, local.access_key, local.secret_key, local.region) == (
        "http://127.0.0.1:9000", "minioadmin", "minioadmin", "us-east-1")
    catalog = spark_catalog(spark_conf("lake", kit=None))
    assert catalog["uri"] == "http://127.0.0.1:9000/_iceberg" and catalog["s3.access-key-id"] == "minioadmin"
    assert delta_storage_options(local)["AWS_ALLOW_HTTP"] == "true"


def test_python_clients_fall_back_to_aws_ca_bundle(clean_env):
    plain = ServiceConfig("https://lab.example:9443", "ak", "sk")
    assert plain.verify is True and "ssl" not in catalog_properties(plain)
    clean_env.setenv("AWS_CA_BUNDLE", "/etc/company-ca.pem")
    assert plain.verify == "/etc/company-ca.pem"
    assert catalog_properties(plain)["ssl"] == {"cabundle": "/etc/company-ca.pem"}
    assert boto3_options(plain)["verify"] == "/etc/company-ca.pem"
