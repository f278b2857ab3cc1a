"""Secrets at rest: whoever reads the whole store (the data directory, or the remote system bucket)
finds no usable secret. User secret keys and the token key are sealed under a master key that is not
in the store (derived from the root credentials, or AISTOR_KMS_SECRET_KEY); share tokens and OAuth
client secrets are kept only as hashes. Users keep working across restarts, and a server that
cannot open what it finds says so in its log and treats those users as unknown."""

from __future__ import annotations

import base64
import json
import re
import secrets
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from botocore.exceptions import ClientError
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from aistor_lab.iam import IAM
from aistor_lab.store import SYSTEM_BUCKET, LocalStore
from aistor_lab.store.documents import DocumentStore
from aistor_lab.store.keyring import Keyring
from aistor_lab.workbench.jupyter.process import ServiceProcess, free_port

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    admin_call,
    catalog_call,
    make_s3_client,
    seed_catalog_properties,
)
from .sharing_support import sharing_request

ROOT = "lockdown-root"
KMS_NAME = "lab-key"
READ_ANYTHING = {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::*"}]}


def root_env(password: str, kms: bytes | None = None) -> dict[str, str]:
    env = {"AISTOR_ROOT_USER": ROOT, "AISTOR_ROOT_PASSWORD": password}
    if kms is not None:
        env["AISTOR_KMS_SECRET_KEY"] = f"{KMS_NAME}:{base64.b64encode(kms).decode()}"
    return env


def service(data: Path, env: dict[str, str], port: int | None = None) -> ServiceProcess:
    """A server on ``data``, logging into ``data``/server.log (so the log is read with the store). A
    restart takes the same ``port``: share profiles name the endpoint."""
    data.mkdir(parents=True, exist_ok=True)
    return ServiceProcess(data, env={"AISTOR_KMS_SECRET_KEY": "", **env}, log_path=data / "server.log", port=port)


def encoded_forms(secret: bytes) -> set[bytes]:
    """The secret as bytes, hex, and base64 (standard and URL-safe) at each of the three alignments it
    can have inside a longer base64 text: only the characters that depend on the secret alone."""
    forms = {secret, secret.hex().encode()}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + secret + b"\0\0")
        core = encoded[-(-8 * shift // 6):8 * (shift + len(secret)) // 6]
        forms |= {core, core.translate(bytes.maketrans(b"+/", b"-_"))}
    return forms


def files_under(directory: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in directory.rglob("*") if path.is_file()}


def leaks(contents: dict[str, bytes], named_secrets: dict[str, bytes]) -> list[tuple[str, str]]:
    """(secret name, where) for every secret found in any form."""
    return [(name, where) for name, secret in named_secrets.items() for form in encoded_forms(secret)
            for where, data in contents.items() if form in data]


def user_client(server, access_key: str, secret_key: str):
    return make_s3_client(server.endpoint, access_key, secret_key)


def create_user(server, password: str, policies=("readwrite",)) -> tuple[str, str]:
    user, secret = f"user-{uuid.uuid4().hex[:8]}", secrets.token_urlsafe(24)
    status, body = admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret,
                                                          "policies": list(policies)}, credentials=(ROOT, password))
    assert status == 201, body
    return user, secret


def s3_error(call) -> str:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value.response["Error"]["Code"]


def make_every_kind_of_secret(server, password: str) -> dict:
    """A user, a share with a bearer token and an OAuth client (and the access token it trades for), a
    catalog bearer token and vended session credentials; returns what a test needs of them."""
    user, secret = create_user(server, password)
    data_client = user_client(server, user, secret)
    bucket = f"data-{uuid.uuid4().hex[:8]}"
    data_client.create_bucket(Bucket=bucket)
    data_client.put_object(Bucket=bucket, Key="k", Body=b"kept")

    share = f"share-{uuid.uuid4().hex[:8]}"
    root = (ROOT, password)
    assert admin_call(server, "POST", "/shares", {"name": share, "schema": "s", "tables": []}, root)[0] == 201
    status, token = admin_call(server, "POST", f"/shares/{share}/tokens", {"expires": "1d"}, root)
    assert status == 201, token
    status, client = admin_call(server, "POST", f"/shares/{share}/clients", {}, root)
    assert status == 201, client
    traded = requests.post(client["profile"]["tokenEndpoint"], data={"grant_type": "client_credentials"},
                           auth=(client["clientId"], client["clientSecret"]), timeout=30)
    assert traded.status_code == 200, traded.text

    catalog_token = requests.post(f"{server.endpoint}/_iceberg/v1/oauth/tokens", timeout=30, data={
        "grant_type": "client_credentials", "client_id": user, "client_secret": secret, "scope": "catalog"})
    assert catalog_token.status_code == 200, catalog_token.text

    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse}, credentials=root)[0] == 200
    properties = seed_catalog_properties(server, warehouse, ROOT, password)
    catalog = load_catalog("vended", **{k: v for k, v in properties.items() if not k.startswith("s3.")},
                           **{"header.X-Iceberg-Access-Delegation": "vended-credentials"})
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.t", schema=Schema(NestedField(1, "id", LongType(), required=True)))
    vended = {key: table.io.properties[f"s3.{key}"] for key in ("access-key-id", "secret-access-key", "session-token")}
    metadata_key = table.metadata_location.removeprefix(f"s3://{warehouse}/")
    assert session_client(server, vended).get_object(Bucket=warehouse, Key=metadata_key)["Body"].read()

    return {
        "user": (user, secret), "bucket": bucket, "profile": token["profile"],
        "vended": vended, "warehouse": warehouse, "metadata_key": metadata_key,
        "secrets": {
            "user secret key": secret.encode(), "root password": password.encode(),
            "share token": token["profile"]["bearerToken"].encode(),
            "OAuth client secret": client["clientSecret"].encode(),
            "share access token": traded.json()["access_token"].encode(),
            "catalog bearer token": catalog_token.json()["access_token"].encode(),
            "vended secret key": vended["secret-access-key"].encode(),
        },
    }


def session_client(server, vended: dict):
    import boto3
    from botocore.config import Config

    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id=vended["access-key-id"], aws_secret_access_key=vended["secret-access-key"],
                        aws_session_token=vended["session-token"],
                        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


def token_key(store, password: str, kms: bytes | None = None) -> bytes:
    """The token-sealing key, opened as the server opens it."""
    keys = DocumentStore(store, "iam/keys/", re.compile(r"[a-z]+"),
                         keyring=Keyring(ROOT, password, None if kms is None else (KMS_NAME, kms)),
                         sealed=("aes256gcm",))
    return base64.b64decode(keys.read("tokens")[0]["aes256gcm"])


def stored_user(store, user: str) -> dict:
    return json.loads(store.get_bytes(SYSTEM_BUCKET, f"iam/users/{user}.json")[1])


def still_works(server, made: dict) -> None:
    """The user, the share token and the vended session credentials made before a restart."""
    client = user_client(server, *made["user"])
    assert client.get_object(Bucket=made["bucket"], Key="k")["Body"].read() == b"kept"
    assert sharing_request(made["profile"], "GET", "/shares").status_code == 200
    assert session_client(server, made["vended"]).get_object(Bucket=made["warehouse"], Key=made["metadata_key"])


# -- the local store ---------------------------------------------------------------------------------
def test_no_secret_is_readable_in_the_data_directory_and_users_survive_a_restart(tmp_path):
    port = free_port()
    data, password = tmp_path / "data", "root-password-" + secrets.token_hex(8)
    with service(data, root_env(password), port) as server:
        made = make_every_kind_of_secret(server, password)
    contents = files_under(data)
    store = LocalStore(data)
    try:
        named = {**made["secrets"], "token key": token_key(store, password)}
        document = stored_user(store, made["user"][0])
    finally:
        store.close()
    assert leaks(contents, named) == []
    assert document["secretKey"]["key"] == "root-credentials" and set(document["secretKey"]) == {"key", "ciphertext"}

    with service(data, root_env(password), port) as server:
        still_works(server, made)


def test_other_root_credentials_cannot_open_the_users_and_the_log_says_why(tmp_path):
    port = free_port()
    data, password = tmp_path / "data", "first-password-123"
    with service(data, root_env(password), port) as server:
        made = make_every_kind_of_secret(server, password)
        user, secret = made["user"]

    with service(data, root_env("other-password-456"), port) as server:
        assert s3_error(lambda: user_client(server, user, secret).list_buckets()) == "InvalidAccessKeyId"
        assert s3_error(lambda: session_client(server, made["vended"]).list_buckets()) == "InvalidToken"
        assert admin_call(server, "GET", f"/users/{user}", credentials=(ROOT, "other-password-456"))[0] == 404
        # The root user itself is the new one.
        assert user_client(server, ROOT, "other-password-456").list_buckets()["Buckets"]
    log = (data / "server.log").read_text()
    assert f"iam/users/{user}.json" in log and "AISTOR_ROOT_PASSWORD" in log and "Traceback" not in log
    assert secret not in log and password not in log

    # Nothing was rewritten: with the first credentials the user is back (tokens issued before are not).
    with service(data, root_env(password), port) as server:
        assert user_client(server, user, secret).get_object(Bucket=made["bucket"], Key="k")["Body"].read() == b"kept"


def test_with_a_kms_key_root_credentials_can_change(tmp_path):
    port = free_port()
    data, kms = tmp_path / "data", secrets.token_bytes(32)
    with service(data, root_env("first-password-123"), port) as server:
        made = make_every_kind_of_secret(server, "first-password-123")
    # Turning the KMS key on seals again under it what the root credentials sealed.
    with service(data, root_env("first-password-123", kms), port) as server:
        still_works(server, made)
    with service(data, root_env("second-password-456", kms), port) as server:
        still_works(server, made)
        assert user_client(server, ROOT, "second-password-456").list_buckets()["Buckets"]
    store = LocalStore(data)
    try:
        assert stored_user(store, made["user"][0])["secretKey"]["key"] == f"kms:{KMS_NAME}"
        key = token_key(store, "any-password", kms)
    finally:
        store.close()
    assert leaks(files_under(data), {"KMS key": kms, "token key": key, **made["secrets"]}) == []

    # Without the KMS key nothing opens, and the log names the setting.
    with service(data, root_env("second-password-456"), port) as server:
        assert s3_error(lambda: user_client(server, *made["user"]).list_buckets()) == "InvalidAccessKeyId"
    assert f"AISTOR_KMS_SECRET_KEY to {KMS_NAME}:" in (data / "server.log").read_text()


def test_a_store_written_by_the_previous_release_is_sealed_at_start(tmp_path):
    """The previous release kept the user's secret and the token key in plain: the first start seals
    them, keeping the token key (so tokens issued before keep working) and the user."""
    data, password = tmp_path / "data", "root-password-789"
    old_key = secrets.token_bytes(32)
    store = LocalStore(data)
    store.ensure_bucket(SYSTEM_BUCKET)
    store.put_bytes(SYSTEM_BUCKET, "iam/users/legacy.json", json.dumps({
        "accessKey": "legacy", "secretKey": "legacy-secret-1", "status": "enabled", "policies": ["readwrite"],
        "createdAt": 0.0}).encode())
    store.put_bytes(SYSTEM_BUCKET, "iam/keys/tokens.json",
                    json.dumps({"aes256gcm": base64.b64encode(old_key).decode()}).encode())
    store.close()

    with service(data, root_env(password)) as server:
        store = LocalStore(data)  # read while the server runs: sealed at start, before any request
        try:
            document = stored_user(store, "legacy")
            assert b"legacy-secret-1" not in store.get_bytes(SYSTEM_BUCKET, "iam/users/legacy.json")[1]
            assert token_key(store, password) == old_key
            assert b"aes256gcm\":\"" not in store.get_bytes(SYSTEM_BUCKET, "iam/keys/tokens.json")[1]
        finally:
            store.close()
        assert document["secretKey"]["key"] == "root-credentials" and document["policies"] == ["readwrite"]
        client = user_client(server, "legacy", "legacy-secret-1")
        client.create_bucket(Bucket="legacy-bucket")
        assert [b["Name"] for b in client.list_buckets()["Buckets"]] == ["legacy-bucket"]


def test_servers_starting_together_on_a_plain_store_agree(tmp_path):
    """Several servers sealing the same plain documents at once: conditional writes keep one sealed
    version that all of them open, with the same token key."""
    data = tmp_path / "data"
    store = LocalStore(data)
    store.ensure_bucket(SYSTEM_BUCKET)
    for n in range(20):
        store.put_bytes(SYSTEM_BUCKET, f"iam/users/user-{n}.json", json.dumps(
            {"accessKey": f"user-{n}", "secretKey": f"secret-number-{n}", "policies": []}).encode())
    store.close()
    stores = [LocalStore(data) for _ in range(4)]  # one index connection each, as separate processes have
    try:
        with ThreadPoolExecutor(len(stores)) as pool:
            iams = list(pool.map(lambda s: IAM(s, ROOT, "root-password-123"), stores))
        tokens = [iam.sessions.issue("user-1", READ_ANYTHING, 60).token for iam in iams]
        for iam in iams:
            assert [iam.secret_for(f"user-{n}") for n in range(20)] == [f"secret-number-{n}" for n in range(20)]
            assert all(iam.sessions.open(token) for token in tokens)
        assert all(b"secret-number" not in stores[0].get_bytes(SYSTEM_BUCKET, f"iam/users/user-{n}.json")[1]
                   for n in range(20))
    finally:
        for each in stores:
            each.close()


def test_a_sealed_secret_moved_into_another_document_does_not_open(tmp_path, caplog):
    store = LocalStore(tmp_path / "data")
    try:
        iam = IAM(store, ROOT, "root-password-123")
        iam.create_user("alice", "alice-secret-1")
        _, alice = store.get_bytes(SYSTEM_BUCKET, "iam/users/alice.json")
        forged = {**json.loads(alice), "accessKey": "mallory"}
        store.put_bytes(SYSTEM_BUCKET, "iam/users/mallory.json", json.dumps(forged).encode())
        fresh = IAM(store, ROOT, "root-password-123")
        assert fresh.secret_for("alice") == "alice-secret-1"
        assert fresh.secret_for("mallory") is None
        assert "iam/users/mallory.json" in caplog.text and "alice-secret-1" not in caplog.text
    finally:
        store.close()


# -- the remote store --------------------------------------------------------------------------------
def test_no_secret_is_readable_in_the_remote_system_bucket(server, tmp_path):
    """A server keeping everything in another S3 (here the shared test server): every object of its
    system bucket there, and its own directory, hold no secret."""
    port = free_port()
    system_bucket, password = f"sys-{uuid.uuid4().hex[:8]}", "front-password-" + secrets.token_hex(8)
    env = {**root_env(password), "AISTOR_STORE_ENDPOINT": server.endpoint, "AISTOR_STORE_SYSTEM_BUCKET": system_bucket,
           "AISTOR_STORE_ACCESS_KEY": ROOT_USER, "AISTOR_STORE_SECRET_KEY": ROOT_PASSWORD}
    with service(tmp_path / "front", env, port) as front:
        made = make_every_kind_of_secret(front, password)
    backing = make_s3_client(server.endpoint)
    objects = {f"{system_bucket}/{o['Key']}": backing.get_object(Bucket=system_bucket, Key=o["Key"])["Body"].read()
               for page in backing.get_paginator("list_objects_v2").paginate(Bucket=system_bucket)
               for o in page.get("Contents", [])}
    assert any(key.startswith(f"{system_bucket}/iam/users/") for key in objects)
    assert leaks({**objects, **files_under(tmp_path / "front")}, made["secrets"]) == []
    with service(tmp_path / "front", env, port) as front:
        still_works(front, made)


def test_a_malformed_kms_key_stops_the_server_without_echoing_it(tmp_path):
    value = f"{KMS_NAME}:{base64.b64encode(b'too short').decode()}"
    run = subprocess.run([sys.executable, "-m", "aistor_lab", "server", "--address", "127.0.0.1:0",
                          "--data", str(tmp_path / "data")], env={"AISTOR_KMS_SECRET_KEY": value},
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2 and "AISTOR_KMS_SECRET_KEY must be KEY-NAME:BASE64" in run.stderr
    assert value.split(":")[1] not in run.stderr
