"""OAuth2 on the catalog: the client-credentials token endpoint, bearer tokens mapped to the same user and
policies as SigV4, and the clients that use them (PyIceberg's ``credential``, Spark's ``credential`` and
``oauth2-server-uri``)."""

from __future__ import annotations

import time
import uuid

import pyarrow as pa
import pytest
import requests
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import ForbiddenError
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
    documented_read_only_user,
    seed_catalog_properties,
    service_with,
)
from .spark_support import run_spark_sql

WAREHOUSE = "oauth-lab"
SCHEMA = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType(), required=False))
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


def rows(ids) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"name-{i}" for i in ids]}, schema=ARROW_SCHEMA)


def token_url(server) -> str:
    return f"{server.endpoint}/_iceberg/v1/oauth/tokens"


def fetch_token(server, form: dict, **kwargs) -> requests.Response:
    return requests.post(token_url(server), data=form, timeout=10, **kwargs)


def bearer_get(server, path: str, token: str) -> requests.Response:
    return requests.get(f"{server.endpoint}/_iceberg{path}", headers={"Authorization": f"Bearer {token}"}, timeout=10)


def oauth_properties(server, access_key: str = ROOT_USER, secret_key: str = ROOT_PASSWORD) -> dict:
    """PyIceberg with OAuth2 instead of SigV4: the seed's configuration minus its rest.*/client.* signing
    keys, plus ``credential``; data still through the seed's S3 keys."""
    properties = seed_catalog_properties(server, WAREHOUSE, access_key, secret_key)
    for key in ("rest.sigv4-enabled", "rest.signing-name", "rest.signing-region", "client.access-key-id",
                "client.secret-access-key"):
        del properties[key]
    return {**properties, "credential": f"{access_key}:{secret_key}", "oauth2-server-uri": token_url(server)}


@pytest.fixture(scope="module")
def warehouse(server):
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    return WAREHOUSE


@pytest.fixture
def namespace(server, warehouse):
    name = f"ns_{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": [name]})[0] == 200
    return name


@pytest.fixture(scope="module")
def reader(server, warehouse):
    return documented_read_only_user(server, warehouse)


def test_client_credentials_grant_answers_an_oauth_token_response(server, warehouse):
    response = fetch_token(server, {"grant_type": "client_credentials", "client_id": ROOT_USER,
                                    "client_secret": ROOT_PASSWORD, "scope": "catalog"})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["token_type"] == "bearer" and answer["issued_token_type"] == TOKEN_TYPE
    assert answer["expires_in"] == 3600 and answer["scope"] == "catalog"
    assert response.headers["Cache-Control"] == "no-store"
    config = bearer_get(server, f"/v1/config?warehouse={warehouse}", answer["access_token"])
    assert config.status_code == 200 and config.json()["overrides"]["prefix"] == warehouse
    # the same client in a Basic Authorization header, as OAuth2 recommends
    basic = fetch_token(server, {"grant_type": "client_credentials"}, auth=(ROOT_USER, ROOT_PASSWORD))
    assert basic.status_code == 200 and bearer_get(server, "/v1/warehouses", basic.json()["access_token"]).ok


def test_bad_clients_and_grants_get_oauth_errors(server):
    for form in ({"grant_type": "client_credentials", "client_id": ROOT_USER, "client_secret": "wrong-secret"},
                 {"grant_type": "client_credentials", "client_id": "nobody-here", "client_secret": ROOT_PASSWORD},
                 {"grant_type": "client_credentials", "client_secret": ROOT_PASSWORD}):
        response = fetch_token(server, form)
        assert response.status_code == 401, form
        assert response.json()["error"] == "invalid_client" and response.json()["error_description"]
    response = fetch_token(server, {"grant_type": "password", "username": ROOT_USER, "password": ROOT_PASSWORD})
    assert response.status_code == 400 and response.json()["error"] == "unsupported_grant_type"
    response = fetch_token(server, {"client_id": ROOT_USER, "client_secret": ROOT_PASSWORD})
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"


def test_token_exchange_refreshes_a_live_token(server, warehouse):
    token = fetch_token(server, {"grant_type": "client_credentials", "client_id": ROOT_USER,
                                 "client_secret": ROOT_PASSWORD}).json()["access_token"]
    exchange = {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": token,
                "subject_token_type": TOKEN_TYPE}
    refreshed = fetch_token(server, exchange, headers={"Authorization": f"Bearer {token}"})
    assert refreshed.status_code == 200 and refreshed.json()["access_token"] != token
    assert bearer_get(server, "/v1/warehouses", refreshed.json()["access_token"]).status_code == 200
    forged = fetch_token(server, {**exchange, "subject_token": token[:-4] + "AAAA"})
    assert forged.status_code == 400 and forged.json()["error"] == "invalid_grant"


def test_pyiceberg_with_credential_creates_and_commits(server, warehouse, namespace):
    catalog = load_catalog("oauth", **oauth_properties(server))
    table = catalog.create_table(f"{namespace}.events", schema=SCHEMA)
    table.append(rows([1, 2]))
    table.append(rows([3]))
    assert sorted(catalog.load_table(f"{namespace}.events").scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    status, loaded = catalog_call(server, "GET", f"/v1/{warehouse}/namespaces/{namespace}/tables/events")
    assert status == 200 and len(loaded["metadata"]["snapshots"]) == 2  # the same table to a SigV4 client


def test_policies_hold_the_same_as_with_sigv4(server, warehouse, namespace, reader):
    load_catalog("owner", **oauth_properties(server)).create_table(f"{namespace}.guarded", schema=SCHEMA).append(
        rows([1]))
    user, secret = reader
    by_oauth = load_catalog("reader-oauth", **oauth_properties(server, user, secret))
    by_sigv4 = load_catalog("reader-sigv4", **seed_catalog_properties(server, warehouse, user, secret))
    for catalog in (by_oauth, by_sigv4):
        assert (namespace, "guarded") in catalog.list_tables(namespace)
        table = catalog.load_table(f"{namespace}.guarded")
        assert table.scan().to_arrow().column("id").to_pylist() == [1]
        with pytest.raises(ForbiddenError):
            catalog.create_table(f"{namespace}.not_allowed", schema=SCHEMA)
        with pytest.raises(ForbiddenError):
            catalog.drop_table(f"{namespace}.guarded")
        # PyIceberg asks for vended credentials, which are read-only for a reader: no data is written
        with pytest.raises(OSError, match="ACCESS_DENIED"):
            table.append(rows([2]))
    token = fetch_token(server, {"grant_type": "client_credentials", "client_id": user,
                                 "client_secret": secret}).json()["access_token"]
    path = f"/v1/{warehouse}/namespaces/{namespace}/tables/guarded"
    commit = {"requirements": [], "updates": [{"action": "set-properties", "updates": {"owner": "reader"}}]}
    by_bearer = requests.post(f"{server.endpoint}/_iceberg{path}", json=commit,
                              headers={"Authorization": f"Bearer {token}"}, timeout=10)
    signed_status, signed = catalog_call(server, "POST", path, commit, credentials=(user, secret))
    assert by_bearer.status_code == signed_status == 403
    assert by_bearer.json()["error"]["type"] == signed["error"]["type"] == "ForbiddenException"
    assert catalog_call(server, "GET", path)[1]["metadata"]["properties"].get("owner") is None


def test_unknown_forged_and_disabled_bearer_tokens_are_401(server, warehouse):
    user, secret = f"oauth-gone-{uuid.uuid4().hex[:6]}", "gone-secret-123"
    assert admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret,
                                                 "policies": ["consoleAdmin"]})[0] == 201
    token = fetch_token(server, {"grant_type": "client_credentials", "client_id": user,
                                 "client_secret": secret}).json()["access_token"]
    assert bearer_get(server, "/v1/warehouses", token).status_code == 200
    assert admin_call(server, "PUT", f"/users/{user}/status", {"status": "disabled"})[0] == 200
    for bad in (token, "some-token", token[:-4] + "AAAA", ""):
        response = bearer_get(server, f"/v1/config?warehouse={warehouse}", bad)
        assert response.status_code == 401, bad
        assert response.json()["error"]["type"] == "NotAuthorizedException"


def test_the_s3_api_does_not_take_bearer_tokens(server):
    token = fetch_token(server, {"grant_type": "client_credentials", "client_id": ROOT_USER,
                                 "client_secret": ROOT_PASSWORD}).json()["access_token"]
    response = requests.get(f"{server.endpoint}/", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code in (400, 403) and b"<Error>" in response.content


@pytest.fixture(scope="module")
def short_lived(tmp_path_factory):
    """A server whose OAuth2 tokens live one second."""
    with service_with(tmp_path_factory, {"AISTOR_OAUTH_TOKEN_TTL": "1"}) as service:
        yield service


def test_expired_tokens_are_401(short_lived):
    answer = fetch_token(short_lived, {"grant_type": "client_credentials", "client_id": ROOT_USER,
                                       "client_secret": ROOT_PASSWORD}).json()
    assert answer["expires_in"] == 1
    issued = time.time()
    assert bearer_get(short_lived, "/v1/warehouses", answer["access_token"]).status_code == 200
    time.sleep(max(0.0, issued + 2 - time.time()))
    response = bearer_get(short_lived, "/v1/warehouses", answer["access_token"])
    assert response.status_code == 401 and response.json()["error"]["type"] == "NotAuthorizedException"


def test_tokens_of_another_service_are_401(server, short_lived):
    foreign = fetch_token(short_lived, {"grant_type": "client_credentials", "client_id": ROOT_USER,
                                        "client_secret": ROOT_PASSWORD}).json()["access_token"]
    assert bearer_get(server, "/v1/warehouses", foreign).status_code == 401


@pytest.mark.timeout(1200)
def test_spark_with_credential_and_oauth2_server_uri(server, warehouse):
    """The session of aistor_lab.workbench.spark with OAuth2 in place of its SigV4 signing properties."""
    service = ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD)
    prefix = f"spark.sql.catalog.{aistor_spark.CATALOG}."
    signing = ("rest.auth.type", "rest.signing-name", "rest.signing-region", "rest.access-key-id",
               "rest.secret-access-key")
    conf = {k: v for k, v in aistor_spark.spark_conf(warehouse, service=service, kit=ensure_kit()).items()
            if k.removeprefix(prefix) not in signing}
    conf[prefix + "credential"] = f"{ROOT_USER}:{ROOT_PASSWORD}"
    conf[prefix + "oauth2-server-uri"] = token_url(server)
    namespace = f"spark_{uuid.uuid4().hex[:8]}"
    result = run_spark_sql(conf, [
        f"CREATE NAMESPACE {namespace}",
        f"CREATE TABLE {namespace}.trips (id BIGINT, city STRING) USING iceberg",
        f"INSERT INTO {namespace}.trips VALUES (1, 'Lisbon'), (2, 'Oslo')",
        f"INSERT INTO {namespace}.trips VALUES (3, 'Porto')",
        f"SELECT id, city FROM {namespace}.trips ORDER BY id",
    ])
    assert result == [[1, "Lisbon"], [2, "Oslo"], [3, "Porto"]]
    status, loaded = catalog_call(server, "GET", f"/v1/{warehouse}/namespaces/{namespace}/tables/trips")
    assert status == 200 and len(loaded["metadata"]["snapshots"]) == 2
