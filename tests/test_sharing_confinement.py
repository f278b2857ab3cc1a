"""A share serves only its own table's files, and only tables its creator may read.

Confinement: a table writer commits (by hand, as a hostile writer would) a Delta log action, a deletion
vector, an Iceberg manifest, manifest list or delete file naming a file of another table, bucket or
warehouse; the share must then refuse the query with a clear Delta Sharing error naming the file (never
skip it silently, never presign it), through the released ``delta_sharing`` client and raw requests.
Creator rights: a user may put in a share only the tables it can read itself (s3:GetObject and
s3:ListBucket on the table's location, s3tables:GetTable on an Iceberg table).
"""

from __future__ import annotations

import json
import random
import time
import uuid
from urllib.parse import urlsplit

import delta_sharing
import pandas as pd
import pytest
import requests
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog
from pyiceberg.manifest import DataFileContent, FileFormat

from aistor_lab.admin.sharing_handlers import CREATE_SHARE, UPDATE_SHARE

from .conftest import admin_call, catalog_call, seed_catalog_properties
from .sharing_support import (
    create_share,
    ndjson,
    share_profile,
    sharing_request,
    storage_options,
    table_path,
    unique,
)
from .test_sharing_iceberg_source import (
    SIMPLE,
    WAREHOUSE,
    commit_delete_files,
    delete_file,
    position_deletes,
    puffin_with_deletion_vector,
    simple_rows,
    write_file,
)

ROWS = pd.DataFrame({"id": [1, 2, 3], "secret": ["a", "b", "c"]})
QUERY_FORMATS = ("responseformat=parquet", "responseformat=delta;readerfeatures=deletionvectors")


def _delta_table(server, s3, bucket: str, name: str) -> tuple[str, str]:
    """A Delta table written by deltalake at ``tables/NAME``: (its root key, the key of its data file)."""
    root = f"tables/{name}"
    write_deltalake(f"s3://{bucket}/{root}", ROWS, storage_options=storage_options(server))
    log = s3.get_object(Bucket=bucket, Key=f"{root}/_delta_log/{0:020d}.json")["Body"].read()
    add = next(json.loads(line)["add"] for line in log.splitlines() if b'"add"' in line)
    return root, f"{root}/{add['path']}"


def _commit(s3, bucket: str, root: str, version: int, *actions: dict) -> None:
    """A Delta commit written as writers do it: once, with If-None-Match."""
    now = int(time.time() * 1000)
    lines = [{"commitInfo": {"timestamp": now, "operation": "WRITE"}}, *actions]
    s3.put_object(Bucket=bucket, Key=f"{root}/_delta_log/{version:020d}.json", IfNoneMatch="*",
                  Body="\n".join(json.dumps(a) for a in lines))


def _assert_refused(response: requests.Response, named: str) -> None:
    assert response.status_code == 400, response.text
    assert "X-Amz-Signature" not in response.text
    error = response.json()
    assert error["errorCode"] == "UNSUPPORTED_OPERATION"
    assert "outside its location" in error["message"] and named in error["message"], error


def _urls(lines: list[dict]) -> list[str]:
    """Every presigned URL of an answer, whatever its format."""
    found = []

    def walk(value) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and "X-Amz-Signature=" in value:
            found.append(value)

    walk(lines)
    return found


# -- Delta: log actions and deletion vectors naming files elsewhere -----------------------------------
# Case -> (the path an add action names, a part of the path the refusal names), given the bucket, the
# other bucket and the other table's data file "tables/theirs/part-....parquet".
HOSTILE_PATHS = {
    "another bucket": lambda b, other, theirs: (f"s3://{other}/x.parquet", f"s3://{other}/x.parquet"),
    "the system bucket": lambda b, other, theirs: ("s3://.aistor-system/iam/users/x.json", ".aistor-system"),
    "a relative path up": lambda b, other, theirs: (f"../{theirs[7:]}", f"tables/mine/../{theirs[7:]}"),
    "a percent-encoded path up": lambda b, other, theirs: ("%2E%2E%2F" + theirs[7:].replace("/", "%2F"),
                                                           f"tables/mine/../{theirs[7:]}"),
    "another table's absolute URI": lambda b, other, theirs: (f"s3://{b}/{theirs}", f"s3://{b}/{theirs}"),
    "a sibling with the same prefix": lambda b, other, theirs: (f"s3://{b}/tables/mine2/x.parquet", "tables/mine2/"),
    "s3a with dot segments": lambda b, other, theirs: (f"s3a://{b}/tables/mine/../{theirs[7:]}", "/../"),
    "a double slash after the bucket": lambda b, other, theirs: (f"s3://{b}//tables/mine/x.parquet", "//tables"),
    "an absolute path without scheme": lambda b, other, theirs: (f"/{b}/{theirs}", f"/{b}/{theirs}"),
}


@pytest.fixture
def hostile_table(server, s3, bucket):
    """A shared Delta table ``tables/mine`` beside another table ``tables/theirs`` whose data must not leak;
    returns a function committing version 1 with the given actions and answering a profile."""
    other = f"other-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=other)
    s3.put_object(Bucket=other, Key="x.parquet", Body=b"not yours")
    _, theirs = _delta_table(server, s3, bucket, "theirs")
    root, mine = _delta_table(server, s3, bucket, "mine")

    def commit_and_share(tmp_path, *actions: dict) -> str:
        _commit(s3, bucket, root, 1, *actions)
        share, profile = share_profile(server, tmp_path, "s", [f"mine:delta:{bucket}:{root}"])
        commit_and_share.share = share
        return profile

    commit_and_share.bucket, commit_and_share.other, commit_and_share.theirs = bucket, other, theirs
    commit_and_share.mine = mine
    return commit_and_share


@pytest.mark.parametrize("case", HOSTILE_PATHS)
def test_delta_log_naming_a_file_elsewhere_is_refused(hostile_table, tmp_path, case):
    path, named = HOSTILE_PATHS[case](hostile_table.bucket, hostile_table.other, hostile_table.theirs)
    profile = hostile_table(tmp_path, {"add": {"path": path, "size": 100, "partitionValues": {},
                                               "modificationTime": 0, "dataChange": True}})
    share, base = hostile_table.share, table_path(hostile_table.share, "s", "mine")
    for capabilities in QUERY_FORMATS:
        headers = {"delta-sharing-capabilities": capabilities}
        for body in ({}, {"startingVersion": 1}, {"version": 1}):
            _assert_refused(sharing_request(profile, "POST", f"{base}/query", json_body=body, headers=headers), named)
        _assert_refused(sharing_request(profile, "GET", f"{base}/metadata", headers=headers), named)
    with pytest.raises(requests.HTTPError, match="outside its location"):
        delta_sharing.load_as_pandas(f"{profile}#{share}.s.mine")
    # The version before the hostile commit is still served, every URL inside the table.
    answer = ndjson(sharing_request(profile, "POST", f"{base}/query", json_body={"version": 0}))
    urls = _urls(answer)
    assert len(urls) == 1 and urlsplit(urls[0]).path == f"/{hostile_table.bucket}/{hostile_table.mine}"


@pytest.mark.parametrize("vector", ["absolute", "relative"])
def test_delta_deletion_vector_elsewhere_is_refused(hostile_table, tmp_path, vector):
    """A deletion vector of another table (storage type ``p``, an absolute path) or one whose relative
    ``u`` form climbs out of the table; the file it applies to is the table's own."""
    theirs = hostile_table.theirs
    descriptor = ({"storageType": "p", "pathOrInlineDv": f"s3://{hostile_table.bucket}/{theirs}"}
                  if vector == "absolute" else {"storageType": "u", "pathOrInlineDv": "../theirs" + "0" * 20})
    mine = hostile_table.mine.rsplit("/", 1)[1]
    profile = hostile_table(
        tmp_path, {"remove": {"path": mine, "dataChange": True, "deletionTimestamp": 1}},
        {"add": {"path": mine, "size": 100, "partitionValues": {}, "modificationTime": 1, "dataChange": True,
                 "deletionVector": {**descriptor, "offset": 1, "sizeInBytes": 20, "cardinality": 1}}})
    named = theirs if vector == "absolute" else "tables/mine/../theirs"
    base = table_path(hostile_table.share, "s", "mine")
    headers = {"delta-sharing-capabilities": QUERY_FORMATS[1]}
    _assert_refused(sharing_request(profile, "POST", f"{base}/query", json_body={}, headers=headers), named)
    with pytest.raises(requests.HTTPError, match="outside its location"):
        delta_sharing.load_as_pandas(f"{profile}#{hostile_table.share}.s.mine", use_delta_format=True)


# -- Iceberg: manifests, manifest lists and delete files naming files elsewhere ------------------------
@pytest.fixture(scope="module")
def catalogs(server):
    """PyIceberg catalogs of two warehouses (the first is the one the Iceberg source tests use)."""
    other = f"other-wh-{uuid.uuid4().hex[:8]}"
    for name in (WAREHOUSE, other):
        status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": name})
        assert status in (200, 409), body
    return {name: load_catalog(name, **seed_catalog_properties(server, name)) for name in (WAREHOUSE, other)}


@pytest.fixture
def owner(catalogs):
    """A table with data in the first warehouse: (its namespace, the table, its one data file)."""
    catalog = catalogs[WAREHOUSE]
    namespace = f"ns_{uuid.uuid4().hex[:8]}"
    catalog.create_namespace(namespace)
    table = catalog.create_table(f"{namespace}.owner", schema=SIMPLE)
    table.append(simple_rows([1, 2, 3]))
    table = catalog.load_table(f"{namespace}.owner")
    return namespace, table, next(iter(table.scan().plan_files())).file


def _query_uniform(server, tmp_path, warehouse: str, namespace: str, name: str, named: str) -> None:
    share, profile = share_profile(server, tmp_path, "s", [f"t:uniform:{warehouse}:{namespace}:{name}"])
    for capabilities in QUERY_FORMATS:
        response = sharing_request(profile, "POST", table_path(share, "s", "t") + "/query", json_body={},
                                   headers={"delta-sharing-capabilities": capabilities})
        _assert_refused(response, named)
    with pytest.raises(requests.HTTPError, match="outside its location"):
        delta_sharing.load_as_pandas(f"{profile}#{share}.s.t")


@pytest.mark.parametrize("same_warehouse", [True, False], ids=["same-warehouse", "other-warehouse"])
def test_iceberg_manifest_naming_another_tables_data_file_is_refused(server, catalogs, owner, tmp_path,
                                                                     same_warehouse):
    """PyIceberg's own fast append commits a manifest that names the owner's data file."""
    namespace, _, data_file = owner
    warehouse = WAREHOUSE if same_warehouse else next(w for w in catalogs if w != WAREHOUSE)
    catalog = catalogs[warehouse]
    if not same_warehouse:
        catalog.create_namespace(namespace)
    thief = catalog.create_table(f"{namespace}.thief", schema=SIMPLE)
    with thief.transaction() as transaction, transaction.update_snapshot().fast_append() as append:
        append.append_data_file(data_file)
    assert [t.file.file_path for t in catalog.load_table(f"{namespace}.thief").scan().plan_files()] == [
        data_file.file_path]
    _query_uniform(server, tmp_path, warehouse, namespace, "thief", data_file.file_path)


def test_iceberg_manifest_list_of_another_table_is_refused(server, catalogs, owner, tmp_path):
    """A snapshot committed through the REST catalog whose manifest list is the owner's: the server must
    not even read it."""
    namespace, table, _ = owner
    catalogs[WAREHOUSE].create_table(f"{namespace}.borrower", schema=SIMPLE)
    manifest_list = table.current_snapshot().manifest_list
    snapshot_id = random.getrandbits(62)
    status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/borrower", {
        "requirements": [],
        "updates": [
            {"action": "add-snapshot", "snapshot": {
                "snapshot-id": snapshot_id, "sequence-number": 1, "timestamp-ms": int(time.time() * 1000),
                "manifest-list": manifest_list, "summary": {"operation": "append"}, "schema-id": 0}},
            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": snapshot_id},
        ],
    })
    assert status == 200, body
    _query_uniform(server, tmp_path, WAREHOUSE, namespace, "borrower", manifest_list)


@pytest.mark.parametrize("version", [2, 3], ids=["v2-position-deletes", "v3-deletion-vector"])
def test_iceberg_delete_file_of_another_table_is_refused(server, catalogs, owner, tmp_path, version):
    """A delete file (v2 Parquet position deletes, v3 Puffin deletion vector) applying to the table's own
    data file but stored in the owner's location: the server must not read it."""
    namespace, owner_table, _ = owner
    catalog = catalogs[WAREHOUSE]
    table = catalog.create_table(f"{namespace}.victim", schema=SIMPLE)
    table.append(simple_rows([7, 8]))
    if version == 3:  # PyIceberg appends to v2 tables only: upgraded afterwards, as the source tests do
        status, body = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/{namespace}/tables/victim", {
            "requirements": [], "updates": [{"action": "upgrade-format-version", "format-version": 3}]})
        assert status == 200, body
    table = catalog.load_table(f"{namespace}.victim")
    own_file = next(iter(table.scan().plan_files())).file.file_path
    if version == 2:
        deletes = position_deletes({own_file: [0]})
        fields = {}
        elsewhere = write_file(owner_table, "pos.parquet", deletes)
    else:
        deletes, offset, length = puffin_with_deletion_vector(own_file, [0])
        fields = {"referenced_data_file": own_file, "content_offset": offset, "content_size_in_bytes": length}
        elsewhere = write_file(owner_table, "dv.puffin", deletes)
    file_format = FileFormat.PARQUET if version == 2 else FileFormat.PUFFIN
    commit_delete_files(server, namespace, "victim", table, [
        delete_file(elsewhere, len(deletes), 1, DataFileContent.POSITION_DELETES, file_format, version, **fields)])
    _query_uniform(server, tmp_path, WAREHOUSE, namespace, "victim", elsewhere)


def test_catalog_register_only_inside_the_warehouse(server, owner):
    namespace, table, _ = owner
    path = f"/v1/{WAREHOUSE}/namespaces/{namespace}/register"
    bucket_path = table.location().removeprefix(f"s3://{WAREHOUSE}/")
    metadata = table.metadata_location.removeprefix(f"s3://{WAREHOUSE}/{bucket_path}/")
    for location, reason in ((f"s3://other-bucket/{bucket_path}/{metadata}", "outside warehouse"),
                             (f"s3://{WAREHOUSE}/{bucket_path}/../{bucket_path}/{metadata}", "'..' segment")):
        status, body = catalog_call(server, "POST", path, {"name": unique("reg"), "metadata-location": location})
        assert status == 400 and body["error"]["type"] == "BadRequestException", body
        assert reason in body["error"]["message"], body
    status, body = catalog_call(server, "POST", path, {"name": "again", "metadata-location": table.metadata_location})
    assert status == 200, body


# -- creator rights -----------------------------------------------------------------------------------
def _user(server, statements: list[dict]) -> tuple[str, str]:
    """A user allowed to create and update shares, plus ``statements``."""
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": [CREATE_SHARE, UPDATE_SHARE], "Resource": ["arn:aws:s3:::*"]},
        *statements]}
    name, user, secret = unique("share-policy"), unique("sharer"), "sharer-secret-123"
    status, body = admin_call(server, "PUT", f"/policies/{name}", policy)
    assert status in (200, 201), body
    status, body = admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret, "policies": [name]})
    assert status == 201, body
    return user, secret


def _read(bucket: str, prefix: str | None = None) -> list[dict]:
    """s3:GetObject and s3:ListBucket on a bucket (or only under ``prefix``)."""
    objects = f"arn:aws:s3:::{bucket}/{prefix}/*" if prefix else f"arn:aws:s3:::{bucket}/*"
    listing = {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [f"arn:aws:s3:::{bucket}"]}
    if prefix:
        listing["Condition"] = {"StringLike": {"s3:prefix": [f"{prefix}/*"]}}
    return [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": [objects]}, listing]


def _refused(status: int, body: dict, permission: str) -> None:
    assert status == 403 and body["code"] == "AccessDenied", body
    assert permission in body["message"], body


def test_a_share_needs_its_creators_own_read_rights_on_delta_tables(server, s3, bucket):
    other = f"other-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=other)
    user = _user(server, _read(bucket))
    name = unique("mine")
    status, body = admin_call(server, "POST", "/shares", {"name": name, "schema": "s",
                                                          "tables": [f"t:delta:{other}:tables/t"]}, credentials=user)
    _refused(status, body, f"s3:GetObject on arn:aws:s3:::{other}/tables/t/*")
    assert admin_call(server, "GET", f"/shares/{name}")[0] == 404  # nothing created
    status, body = admin_call(server, "POST", "/shares", {"name": name, "schema": "s",
                                                          "tables": [f"t:delta:{bucket}:tables/t"]}, credentials=user)
    assert status == 201, body
    status, body = admin_call(server, "PATCH", f"/shares/{name}", {"add": [f"s:u:delta:{other}:tables/u"]},
                              credentials=user)
    _refused(status, body, "s3:GetObject")
    assert [t["name"] for t in admin_call(server, "GET", f"/shares/{name}")[1]["schemas"][0]["tables"]] == ["t"]


def test_list_rights_must_cover_the_shared_prefix(server, bucket):
    user = _user(server, _read(bucket, "tables/mine"))
    status, body = admin_call(server, "POST", "/shares", {"name": unique("p"), "schema": "s",
                                                          "tables": [f"t:delta:{bucket}:tables/mine"]}, credentials=user)
    assert status == 201, body
    status, body = admin_call(server, "POST", "/shares", {"name": unique("p"), "schema": "s",
                                                          "tables": [f"t:delta:{bucket}:tables/mine2"]}, credentials=user)
    _refused(status, body, "s3:GetObject")
    only_objects = _user(server, _read(bucket)[:1])
    status, body = admin_call(server, "POST", "/shares", {"name": unique("p"), "schema": "s",
                                                          "tables": [f"t:delta:{bucket}:tables/mine"]},
                              credentials=only_objects)
    _refused(status, body, "s3:ListBucket")


def test_a_share_of_an_iceberg_table_needs_get_table_and_read_rights(server, owner):
    namespace, table, _ = owner
    spec = f"t:uniform:{WAREHOUSE}:{namespace}:owner"
    get_table = {"Effect": "Allow", "Action": ["s3tables:GetTable"],
                 "Resource": [f"arn:aws:s3tables:::bucket/{WAREHOUSE}/table/{namespace}/owner"]}
    for statements, missing in (([], "s3tables:GetTable"), ([get_table], "s3:GetObject"),
                                (_read(WAREHOUSE), "s3tables:GetTable")):
        status, body = admin_call(server, "POST", "/shares", {"name": unique("ice"), "schema": "s", "tables": [spec]},
                                  credentials=_user(server, statements))
        _refused(status, body, missing)
    location = table.location().removeprefix(f"s3://{WAREHOUSE}/")
    user = _user(server, [get_table, *_read(WAREHOUSE, location)])
    status, body = admin_call(server, "POST", "/shares", {"name": unique("ice"), "schema": "s", "tables": [spec]},
                              credentials=user)
    assert status == 201, body
    status, body = admin_call(server, "POST", "/shares", {
        "name": unique("ice"), "schema": "s", "tables": [f"t:uniform:{WAREHOUSE}:{namespace}:missing"]},
        credentials=user)
    _refused(status, body, "s3tables:GetTable")


def test_root_passes(server, bucket):
    """Root may share what it likes, even an Iceberg table that does not exist yet; not the system bucket,
    which is not even a bucket name a share can hold."""
    assert create_share(server, "s", [f"t:delta:{bucket}:tables/t", "u:uniform:nowhere:ns:later"])
    status, body = admin_call(server, "POST", "/shares", {"name": unique("sys"), "schema": "s",
                                                          "tables": ["t:delta:.aistor-system:iam"]})
    assert status == 400, body
