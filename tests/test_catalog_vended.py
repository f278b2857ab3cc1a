"""Vended credentials: clients configured with catalog credentials only (no ``s3.*`` keys) read and write
tables through temporary S3 credentials the catalog hands out with ``loadTable``/``createTable`` and
``GET .../credentials``; the S3 API holds those credentials to their table, their rights and their expiry.
"""

from __future__ import annotations

import time
import uuid

import pyarrow as pa
import pytest
import requests
from botocore.exceptions import ClientError
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.service_config import ServiceConfig
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    admin_call,
    catalog_call,
    make_s3_client,
    make_user,
    seed_catalog_properties,
    service_with,
)
from .spark_support import run_spark_sql

WAREHOUSE = "vended-lab"
DELEGATION = {"X-Iceberg-Access-Delegation": "vended-credentials"}
SCHEMA = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType(), required=False))
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


def rows(ids) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"name-{i}" for i in ids]}, schema=ARROW_SCHEMA)


def vended_properties(server, access_key: str = ROOT_USER, secret_key: str = ROOT_PASSWORD) -> dict:
    """The seed's PyIceberg configuration without any s3.* key, asking for vended credentials."""
    properties = seed_catalog_properties(server, WAREHOUSE, access_key, secret_key)
    return {**{k: v for k, v in properties.items() if not k.startswith("s3.")},
            "header.X-Iceberg-Access-Delegation": "vended-credentials"}


def table_path(namespace: str, table: str) -> str:
    return f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/{table}"


def vend(server, namespace: str, table: str, credentials=None) -> dict:
    """loadTable with the delegation header, as a SigV4 client; returns the LoadTableResult."""
    status, body = catalog_call(server, "GET", table_path(namespace, table), headers=DELEGATION,
                                credentials=credentials)
    assert status == 200, body
    return body


def session_client(server, config: dict, signature_version: str | None = None, **overrides):
    """boto3 with the vended credentials of a storage credential's ``config`` (``key``/``token`` replaced
    when given)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3", endpoint_url=server.endpoint, region_name="us-east-1",
        aws_access_key_id=overrides.get("key", config["s3.access-key-id"]),
        aws_secret_access_key=config["s3.secret-access-key"],
        aws_session_token=overrides.get("token", config["s3.session-token"]),
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1},
                      signature_version=signature_version),
    )


def error_code(call) -> str:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value.response["Error"]["Code"]


def catalog_policy(*actions: str, s3_actions: str | list[str] = "s3:*") -> dict:
    return {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": list(actions),
         "Resource": [f"arn:aws:s3tables:::bucket/{WAREHOUSE}", f"arn:aws:s3tables:::bucket/{WAREHOUSE}/table/*"]},
        {"Effect": "Allow", "Action": s3_actions, "Resource": [f"arn:aws:s3:::{WAREHOUSE}", f"arn:aws:s3:::{WAREHOUSE}/*"]},
    ]}


READ_ACTIONS = ("s3tables:GetTableBucket", "s3tables:ListNamespaces", "s3tables:GetNamespace", "s3tables:ListTables",
                "s3tables:GetTable")


@pytest.fixture(scope="module")
def warehouse(server):
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    return WAREHOUSE


@pytest.fixture(scope="module")
def catalog(server, warehouse):
    return load_catalog("vended", **vended_properties(server))


@pytest.fixture
def namespace(catalog):
    name = f"ns_{uuid.uuid4().hex[:8]}"
    catalog.create_namespace(name)
    return name


def test_pyiceberg_writes_and_reads_through_vended_credentials(server, catalog, namespace):
    table = catalog.create_table(f"{namespace}.events", schema=SCHEMA)
    io = table.io.properties
    assert io["s3.access-key-id"].startswith("ASIA") and io["s3.session-token"]
    assert io["s3.endpoint"] == server.endpoint and io["s3.path-style-access"] == "true"
    table.append(rows([1, 2]))
    table.append(rows([3]))
    loaded = catalog.load_table(f"{namespace}.events")
    # Reused while at least half their hour is left (as Polaris caches them), and scoped to one table.
    assert loaded.io.properties["s3.access-key-id"] == io["s3.access-key-id"]
    other = catalog.create_table(f"{namespace}.others", schema=SCHEMA)
    assert other.io.properties["s3.access-key-id"] != io["s3.access-key-id"]
    assert sorted(loaded.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    # what was sent: the spec's storage-credentials for the table's location, and the same in config
    body = vend(server, namespace, "events")
    [credential] = body["storage-credentials"]
    assert credential["prefix"] == body["metadata"]["location"].rstrip("/")
    expires_at_ms = int(credential["config"]["s3.session-token-expires-at-ms"])
    assert 3500 <= expires_at_ms / 1000 - time.time() <= 3700
    assert {k: body["config"][k] for k in credential["config"]} == credential["config"]
    assert body["config"]["client.refresh-credentials-endpoint"] == (
        f"v1/{WAREHOUSE}/namespaces/{namespace}/tables/events/credentials")


def test_stage_create_vends_too_and_nothing_is_vended_unasked(server, catalog, namespace):
    status, staged = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables",
                                  {"name": "staged", "schema": SCHEMA.model_dump(by_alias=True), "stage-create": True},
                                  headers=DELEGATION)
    assert status == 200 and staged["storage-credentials"][0]["config"]["s3.session-token"]
    catalog.create_table(f"{namespace}.plain", schema=SCHEMA)
    status, plain = catalog_call(server, "GET", table_path(namespace, "plain"))
    assert status == 200 and "storage-credentials" not in plain
    assert not [key for key in plain["config"] if key.startswith("s3.")]


def test_vended_credentials_stay_within_their_table(server, catalog, namespace):
    catalog.create_table(f"{namespace}.mine", schema=SCHEMA).append(rows([1]))
    catalog.create_table(f"{namespace}.other", schema=SCHEMA).append(rows([2]))
    mine, other = vend(server, namespace, "mine"), vend(server, namespace, "other")
    config = mine["storage-credentials"][0]["config"]
    prefix = mine["storage-credentials"][0]["prefix"].removeprefix(f"s3://{WAREHOUSE}/") + "/"
    other_file = other["metadata-location"].removeprefix(f"s3://{WAREHOUSE}/")
    s3 = session_client(server, config)
    own = s3.list_objects_v2(Bucket=WAREHOUSE, Prefix=prefix)["Contents"]
    assert own and all(item["Key"].startswith(prefix) for item in own)
    assert s3.get_object(Bucket=WAREHOUSE, Key=own[0]["Key"])["Body"].read()
    s3.put_object(Bucket=WAREHOUSE, Key=prefix + "data/extra.bin", Body=b"x")  # its user may write the table
    s3.delete_object(Bucket=WAREHOUSE, Key=prefix + "data/extra.bin")
    assert error_code(lambda: s3.get_object(Bucket=WAREHOUSE, Key=other_file)) == "AccessDenied"
    assert error_code(lambda: s3.put_object(Bucket=WAREHOUSE, Key=other_file + ".x", Body=b"x")) == "AccessDenied"
    assert error_code(lambda: s3.list_objects_v2(Bucket=WAREHOUSE)) == "AccessDenied"
    assert error_code(lambda: s3.list_objects_v2(Bucket=WAREHOUSE, Prefix=other_file[:36])) == "AccessDenied"
    assert error_code(s3.list_buckets) == "AccessDenied"
    # presigned URLs (SigV2 and SigV4) carry the token too, and are held to the same scope
    for signer in (s3, session_client(server, config, signature_version="s3v4")):
        url = signer.generate_presigned_url("get_object", Params={"Bucket": WAREHOUSE, "Key": own[0]["Key"]})
        assert requests.get(url, timeout=10).status_code == 200
        url = signer.generate_presigned_url("get_object", Params={"Bucket": WAREHOUSE, "Key": other_file})
        assert requests.get(url, timeout=10).status_code == 403


def test_session_keys_need_their_own_token(server, catalog, namespace):
    catalog.create_table(f"{namespace}.keyed", schema=SCHEMA).append(rows([1]))
    first = vend(server, namespace, "keyed")["storage-credentials"][0]["config"]
    # another session of the same user and table: a refresh issues new credentials
    second = catalog_call(server, "GET", table_path(namespace, "keyed") + "/credentials")[1]
    second = second["storage-credentials"][0]["config"]
    assert second["s3.access-key-id"] != first["s3.access-key-id"]
    key = vend(server, namespace, "keyed")["metadata-location"].removeprefix(f"s3://{WAREHOUSE}/")
    without_token = make_s3_client(server.endpoint, first["s3.access-key-id"], first["s3.secret-access-key"])
    assert error_code(lambda: without_token.get_object(Bucket=WAREHOUSE, Key=key)) == "InvalidAccessKeyId"
    foreign_token = session_client(server, first, token=second["s3.session-token"])
    assert error_code(lambda: foreign_token.get_object(Bucket=WAREHOUSE, Key=key)) == "InvalidToken"
    forged = first["s3.session-token"][:-6] + ("A" * 6 if not first["s3.session-token"].endswith("A" * 6) else "B" * 6)
    assert error_code(lambda: session_client(server, first, token=forged).get_object(Bucket=WAREHOUSE, Key=key)) \
        == "InvalidToken"
    root_with_token = session_client(server, first, key=ROOT_USER)
    assert error_code(lambda: root_with_token.get_object(Bucket=WAREHOUSE, Key=key)) == "InvalidToken"
    for signature_version in (None, "s3"):  # SigV4, and SigV2 header auth
        foreign_token = session_client(server, first, signature_version, token=second["s3.session-token"])
        assert error_code(lambda c=foreign_token: c.get_object(Bucket=WAREHOUSE, Key=key)) == "InvalidToken"
        assert session_client(server, first, signature_version).get_object(Bucket=WAREHOUSE, Key=key)["Body"].read()


def test_session_credentials_are_refused_by_the_catalog_and_admin_apis(server, catalog, namespace):
    catalog.create_table(f"{namespace}.apis", schema=SCHEMA)
    config = vend(server, namespace, "apis")["storage-credentials"][0]["config"]
    credentials = (config["s3.access-key-id"], config["s3.secret-access-key"], config["s3.session-token"])
    status, body = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces", credentials=credentials)
    assert status == 401 and body["error"]["type"] == "NotAuthorizedException"
    status, _ = admin_call(server, "GET", "/users", credentials=credentials)
    assert status in (401, 403)


def test_read_rights_vend_read_only_credentials_bounded_by_the_user(server, catalog, namespace):
    catalog.create_table(f"{namespace}.shared", schema=SCHEMA).append(rows([1]))
    key = vend(server, namespace, "shared")["metadata-location"].removeprefix(f"s3://{WAREHOUSE}/")
    reader = make_user(server, catalog_policy(*READ_ACTIONS))  # s3:* on the warehouse, catalog read-only
    config = vend(server, namespace, "shared", credentials=reader)["storage-credentials"][0]["config"]
    s3 = session_client(server, config)
    assert s3.get_object(Bucket=WAREHOUSE, Key=key)["Body"].read()
    assert error_code(lambda: s3.put_object(Bucket=WAREHOUSE, Key=key + ".x", Body=b"x")) == "AccessDenied"
    assert error_code(lambda: s3.delete_object(Bucket=WAREHOUSE, Key=key)) == "AccessDenied"
    # a writer of the table without S3 rights of its own gets credentials that can do nothing more
    writer = make_user(server, catalog_policy(*READ_ACTIONS, "s3tables:UpdateTableMetadataLocation",
                                              s3_actions=["s3:ListBucket"]))
    config = vend(server, namespace, "shared", credentials=writer)["storage-credentials"][0]["config"]
    s3 = session_client(server, config)
    assert error_code(lambda: s3.get_object(Bucket=WAREHOUSE, Key=key)) == "AccessDenied"
    assert error_code(lambda: s3.put_object(Bucket=WAREHOUSE, Key=key + ".x", Body=b"x")) == "AccessDenied"


def test_credentials_endpoint_refreshes(server, catalog, namespace):
    table = catalog.create_table(f"{namespace}.refreshed", schema=SCHEMA)
    table.append(rows([1]))
    status, body = catalog_call(server, "GET", table_path(namespace, "refreshed") + "/credentials")
    assert status == 200
    [credential] = body["storage-credentials"]
    assert credential["prefix"] == table.location().rstrip("/")
    assert credential["config"]["s3.access-key-id"] != table.io.properties["s3.access-key-id"]
    key = table.metadata_location.removeprefix(f"s3://{WAREHOUSE}/")
    assert session_client(server, credential["config"]).get_object(Bucket=WAREHOUSE, Key=key)["Body"].read()
    # PyIceberg's own call, and the right it takes: reading the table
    assert catalog.load_credentials((namespace, "refreshed"), table.location())["s3.session-token"]
    outsider = make_user(server, catalog_policy("s3tables:GetTableBucket"))
    status, body = catalog_call(server, "GET", table_path(namespace, "refreshed") + "/credentials", credentials=outsider)
    assert status == 403 and body["error"]["type"] == "ForbiddenException"
    status, body = catalog_call(server, "GET", table_path(namespace, "missing") + "/credentials")
    assert status == 404


@pytest.fixture(scope="module")
def short_lived(tmp_path_factory):
    """A server whose vended credentials live two seconds."""
    with service_with(tmp_path_factory, {"AISTOR_VENDED_CREDENTIALS_TTL": "2"}) as service:
        yield service


def test_expired_credentials_are_refused(short_lived):
    assert catalog_call(short_lived, "POST", "/v1/warehouses", {"name": WAREHOUSE})[0] == 200
    catalog = load_catalog("short", **vended_properties(short_lived))
    catalog.create_namespace("brief")
    table = catalog.create_table("brief.lived", schema=SCHEMA)
    config = vend(short_lived, "brief", "lived")["storage-credentials"][0]["config"]
    key = table.metadata_location.removeprefix(f"s3://{WAREHOUSE}/")
    s3 = session_client(short_lived, config)
    assert s3.get_object(Bucket=WAREHOUSE, Key=key)["Body"].read()
    time.sleep(max(0.0, int(config["s3.session-token-expires-at-ms"]) / 1000 + 0.5 - time.time()))
    with pytest.raises(ClientError) as caught:
        s3.get_object(Bucket=WAREHOUSE, Key=key)
    assert caught.value.response["Error"]["Code"] == "ExpiredToken"
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    # a fresh load vends fresh credentials
    fresh = vend(short_lived, "brief", "lived")["storage-credentials"][0]["config"]
    assert session_client(short_lived, fresh).get_object(Bucket=WAREHOUSE, Key=key)["Body"].read()


@pytest.mark.timeout(1200)
def test_spark_writes_and_reads_through_vended_credentials(server, catalog, warehouse):
    """The session of aistor_lab.workbench.spark minus the catalog's s3.* keys, plus the delegation header: S3FileIO
    can only reach the data with what the catalog vends (no AWS settings in the job's environment)."""
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD)
    conf = aistor_spark.spark_conf(warehouse, service=service, kit=ensure_kit())
    catalog_prefix = f"spark.sql.catalog.{aistor_spark.CATALOG}."
    conf = {k: v for k, v in conf.items() if not k.startswith(catalog_prefix + "s3.")}
    conf[catalog_prefix + "header.X-Iceberg-Access-Delegation"] = "vended-credentials"
    namespace = f"spark_{uuid.uuid4().hex[:8]}"
    result = run_spark_sql(conf, [
        f"CREATE NAMESPACE {namespace}",
        f"CREATE TABLE {namespace}.trips (id BIGINT, city STRING) USING iceberg",
        f"INSERT INTO {namespace}.trips VALUES (1, 'Lisbon'), (2, 'Oslo')",
        f"UPDATE {namespace}.trips SET city = 'Porto' WHERE id = 1",
        f"SELECT id, city FROM {namespace}.trips ORDER BY id",
    ])
    assert result == [[1, "Porto"], [2, "Oslo"]]
    table = catalog.load_table(f"{namespace}.trips")
    assert sorted(table.scan().to_arrow().column("city").to_pylist()) == ["Oslo", "Porto"]
