"""The system bucket does not exist for S3 clients, whoever they are: root, the built-in policies,
a policy naming it outright, a vended session; through boto3, presigned URLs (SigV2 and SigV4)
and raw signed requests; on the local and on the remote backend. Every operation naming it is a
clean 4xx S3 error decided before authorization, and its content stays as it was.
"""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import boto3
import pytest
import requests
from botocore.exceptions import ClientError

from aistor_lab.iam import IAM
from aistor_lab.store import SYSTEM_BUCKET, LocalStore
from aistor_lab.store.local.index import INDEX_FILE, Index

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    admin_call,
    catalog_call,
    make_s3_client,
    service_with,
    signed_call,
)

WAREHOUSE = "sysb-warehouse"
HIDDEN = SYSTEM_BUCKET
S3_ALL_ON_EVERYTHING = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "s3:*",
     "Resource": ["*", "arn:aws:s3:::*", f"arn:aws:s3:::{HIDDEN}", f"arn:aws:s3:::{HIDDEN}/*"]},
]}
TABLE_SCHEMA = {"type": "struct", "schema-id": 0,
                "fields": [{"id": 1, "name": "id", "type": "long", "required": True}]}


@dataclass(frozen=True)
class Principal:
    name: str
    credentials: tuple[str, ...]
    # Where it may write (bucket, key prefix), for copies out of the system bucket; None: nowhere.
    writable: tuple[str, str] | None

    def client(self, endpoint: str, **config):
        client = make_s3_client(endpoint, *self.credentials[:2], **config)
        if len(self.credentials) == 3:  # a session: the same client, with its token
            client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                                  aws_access_key_id=self.credentials[0], aws_secret_access_key=self.credentials[1],
                                  aws_session_token=self.credentials[2], config=client.meta.config)
        return client


def _new_user(server, policies: list[str]) -> tuple[str, str]:
    user, secret = f"sysb-{uuid.uuid4().hex[:8]}", "sysb-secret-123"
    status, body = admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret, "policies": policies})
    assert status == 201, body
    return user, secret


@pytest.fixture(scope="module")
def principals(server) -> dict[str, Principal]:
    s3 = make_s3_client(server.endpoint)
    own = f"sysb-own-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=own)
    s3.put_object(Bucket=own, Key="mine.txt", Body=b"mine")
    name = f"sysb-all-{uuid.uuid4().hex[:6]}"
    assert admin_call(server, "PUT", f"/policies/{name}", S3_ALL_ON_EVERYTHING)[0] in (200, 201)
    status, body = catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})
    assert status in (200, 409), body
    assert catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces", {"namespace": ["sysb"]})[0] in (200, 409)
    status, table = catalog_call(server, "POST", f"/v1/{WAREHOUSE}/namespaces/sysb/tables",
                                 {"name": f"t{uuid.uuid4().hex[:8]}", "schema": TABLE_SCHEMA},
                                 headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert status == 200, table
    [credential] = table["storage-credentials"]
    config = credential["config"]
    table_prefix = credential["prefix"].removeprefix(f"s3://{WAREHOUSE}/") + "/"
    everyone = [
        Principal("root", (ROOT_USER, ROOT_PASSWORD), (own, "")),
        Principal("readonly", _new_user(server, ["readonly"]), None),
        Principal("readwrite", _new_user(server, ["readwrite"]), (own, "")),
        Principal("s3-all", _new_user(server, [name]), (own, "")),
        Principal("vended-session", (config["s3.access-key-id"], config["s3.secret-access-key"],
                                     config["s3.session-token"]), (WAREHOUSE, table_prefix)),
    ]
    return {p.name: p for p in everyone}


def local_system_content(data_dir) -> dict[bytes, str]:
    """Every key of the system bucket with its ETag, read from the server's index."""
    index = Index(data_dir / INDEX_FILE)
    try:
        with index.read() as reader:
            return {key: info.etag for key, info in reader.object_rows(SYSTEM_BUCKET, b"", True, b"\xff", -1)}
    finally:
        index.close()


def code_of(call) -> tuple[int, str]:
    with pytest.raises(ClientError) as caught:
        call()
    response = caught.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"]


def hidden_operations(s3, bucket: str, key: str, principal: Principal, spare_upload: tuple[str, str, str]):
    """(name, call, expected status, expected code) for every S3 operation naming ``bucket``."""
    target, prefix = principal.writable or (spare_upload[0], "")
    source = {"Bucket": bucket, "Key": key}
    # Copies out of it: the destination is checked first, so who may not write there learns nothing.
    copy_from = (404, "NoSuchBucket") if principal.writable else (403, "AccessDenied")
    upload_bucket, upload_key, upload_id = spare_upload
    return [
        ("HeadBucket", lambda: s3.head_bucket(Bucket=bucket), 404, "404"),
        ("ListObjectsV2", lambda: s3.list_objects_v2(Bucket=bucket), 404, "NoSuchBucket"),
        ("ListObjects", lambda: s3.list_objects(Bucket=bucket, Prefix="iam/"), 404, "NoSuchBucket"),
        ("GetBucketLocation", lambda: s3.get_bucket_location(Bucket=bucket), 404, "NoSuchBucket"),
        ("GetBucketVersioning", lambda: s3.get_bucket_versioning(Bucket=bucket), 404, "NoSuchBucket"),
        ("ListMultipartUploads", lambda: s3.list_multipart_uploads(Bucket=bucket), 404, "NoSuchBucket"),
        ("GetObject", lambda: s3.get_object(Bucket=bucket, Key=key), 404, "NoSuchBucket"),
        ("HeadObject", lambda: s3.head_object(Bucket=bucket, Key=key), 404, "404"),
        ("PutObject", lambda: s3.put_object(Bucket=bucket, Key=key, Body=b"{}"), 404, "NoSuchBucket"),
        ("PutObject new", lambda: s3.put_object(Bucket=bucket, Key="iam/users/x.json", Body=b"{}"),
         404, "NoSuchBucket"),
        ("DeleteObject", lambda: s3.delete_object(Bucket=bucket, Key=key), 404, "NoSuchBucket"),
        ("DeleteObjects", lambda: s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": key}]}),
         404, "NoSuchBucket"),
        ("CopyObject into", lambda: s3.copy_object(Bucket=bucket, Key=key, CopySource={
            "Bucket": spare_upload[0], "Key": "mine.txt"}), 404, "NoSuchBucket"),
        ("CopyObject from", lambda: s3.copy_object(Bucket=target, Key=prefix + "stolen", CopySource=source),
         *copy_from),
        ("CreateMultipartUpload", lambda: s3.create_multipart_upload(Bucket=bucket, Key=key), 404, "NoSuchBucket"),
        ("UploadPart", lambda: s3.upload_part(Bucket=bucket, Key=key, UploadId="x", PartNumber=1, Body=b"x"),
         404, "NoSuchBucket"),
        ("UploadPartCopy", lambda: s3.upload_part_copy(Bucket=upload_bucket, Key=upload_key, UploadId=upload_id,
                                                        PartNumber=1, CopySource=source), *copy_from),
        ("CompleteMultipartUpload", lambda: s3.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId="x", MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": "x"}]}),
         404, "NoSuchBucket"),
        ("AbortMultipartUpload", lambda: s3.abort_multipart_upload(Bucket=bucket, Key=key, UploadId="x"),
         404, "NoSuchBucket"),
        ("ListParts", lambda: s3.list_parts(Bucket=bucket, Key=key, UploadId="x"), 404, "NoSuchBucket"),
        ("DeleteBucket", lambda: s3.delete_bucket(Bucket=bucket), 404, "NoSuchBucket"),
        ("CreateBucket", lambda: s3.create_bucket(Bucket=bucket), 400, "InvalidBucketName"),
    ]


def spare_upload_for(server, principal: Principal, own: str) -> tuple[str, str, str]:
    """A multipart upload the principal may add parts to (made by root where it may not write)."""
    bucket, prefix = principal.writable or (own, "")
    creator = principal.client(server.endpoint) if principal.writable else make_s3_client(server.endpoint)
    key = prefix + f"upload-{uuid.uuid4().hex[:6]}"
    return bucket, key, creator.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]


def assert_invisible(endpoint: str, principal: Principal, bucket: str, key: str, spare) -> None:
    s3 = principal.client(endpoint)
    for name, call, status, code in hidden_operations(s3, bucket, key, principal, spare):
        assert code_of(call) == (status, code), f"{principal.name}: {name}"
    try:
        listed = [entry["Name"] for entry in s3.list_buckets()["Buckets"]]
    except ClientError as refused:  # a session may not list buckets at all
        assert refused.response["Error"]["Code"] == "AccessDenied"
    else:
        assert bucket not in listed and listed == sorted(listed)
    for signature in ("s3", "s3v4"):  # presigned SigV2 and SigV4 URLs, tokens in the query
        signer = principal.client(endpoint, signature_version=signature)
        for method, operation, params in (
            ("GET", "get_object", {"Key": key}),
            # (bucket-level SigV2 URLs are left out: botocore signs them with a trailing slash
            # the server does not try, so they fail earlier, with SignatureDoesNotMatch)
            *([("GET", "list_objects_v2", {})] if signature == "s3v4" else []),
            ("PUT", "put_object", {"Key": "iam/users/presigned.json"}),
            ("DELETE", "delete_object", {"Key": key}),
        ):
            url = signer.generate_presigned_url(operation, Params={"Bucket": bucket, **params})
            response = requests.request(method, url, data=b"{}" if method == "PUT" else None, timeout=10)
            assert response.status_code == 404, (principal.name, signature, operation, response.text)
            assert ET.fromstring(response.content).findtext("Code") == "NoSuchBucket"


@pytest.mark.parametrize("who", ["root", "readonly", "readwrite", "s3-all", "vended-session"])
def test_the_system_bucket_does_not_exist_for_anyone(server, principals, who):
    principal = principals[who]
    own = principals["root"].writable[0]
    key = f"iam/users/{principals['readonly'].credentials[0]}.json"
    spare = spare_upload_for(server, principal, own)
    before = local_system_content(server.data_dir)
    assert key.encode() in before
    assert_invisible(server.endpoint, principal, HIDDEN, key, spare)
    assert local_system_content(server.data_dir) == before
    if principal.writable:
        bucket, prefix = principal.writable
        stolen = lambda: make_s3_client(server.endpoint).head_object(Bucket=bucket, Key=prefix + "stolen")
        assert code_of(stolen) == (404, "404")


@pytest.mark.parametrize("path", [
    f"/%2E{HIDDEN[1:]}/iam/users/",
    f"/{HIDDEN}%2Fiam/users/",
    f"//{HIDDEN}/iam/users/",
    f"/{HIDDEN}?list-type=2&prefix=iam/",
    f"/{HIDDEN}?uploads",
    f"/{HIDDEN}?location",
    f"/{HIDDEN}?acl",
    f"/{HIDDEN}/iam/users/?tagging",
])
def test_spellings_of_the_name_in_raw_signed_requests(server, principals, path):
    key = f"{principals['readonly'].credentials[0]}.json"
    path = path.replace("/iam/users/", f"/iam/users/{key}")
    for response in (signed_call(server, "GET", path), requests.get(server.endpoint + path, timeout=10)):
        assert response.status_code == 404, response.text  # signed or anonymous: it is not there
        assert ET.fromstring(response.content).findtext("Code") == "NoSuchBucket"


@pytest.mark.parametrize("source", [f"/{HIDDEN}/iam/users/k.json", f"%2E{HIDDEN[1:]}/iam/users/k.json",
                                    f"{HIDDEN}%2Fiam%2Fusers%2Fk.json", f"/{HIDDEN}/iam/users/k.json?versionId=null"])
def test_spellings_of_the_name_in_raw_copy_sources(server, principals, source):
    own = principals["root"].writable[0]
    response = signed_call(server, "PUT", f"/{own}/stolen", headers={"x-amz-copy-source": source})
    assert response.status_code == 404, response.text
    assert ET.fromstring(response.content).findtext("Code") == "NoSuchBucket"


def test_no_policy_can_grant_the_system_bucket(tmp_path):
    store = LocalStore(tmp_path / "data")
    iam = IAM(store, ROOT_USER, ROOT_PASSWORD)
    iam.put_policy("everything", S3_ALL_ON_EVERYTHING)
    iam.create_user("granted", "granted-secret", ["everything", "readwrite", "consoleAdmin"])
    for user in (ROOT_USER, "granted"):
        assert iam.is_allowed(user, "s3:GetObject", "arn:aws:s3:::data/key")
        for resource in (f"arn:aws:s3:::{HIDDEN}", f"arn:aws:s3:::{HIDDEN}/iam/users/granted.json"):
            for action in ("s3:GetObject", "s3:ListBucket", "s3:PutObject", "s3:DeleteObject"):
                assert not iam.is_allowed(user, action, resource), (user, action, resource)
    store.close()


@pytest.fixture(scope="module")
def front(server, tmp_path_factory):
    """A server keeping everything in ``server`` (the remote backend), with its own system bucket name."""
    system = f"sysb-remote-{uuid.uuid4().hex[:8]}"
    with service_with(tmp_path_factory, {"AISTOR_STORE_ENDPOINT": server.endpoint,
                                         "AISTOR_STORE_SYSTEM_BUCKET": system}) as service:
        yield service, system


def test_the_remote_system_bucket_does_not_exist_for_clients_of_the_front(server, front):
    service, system = front
    backing = make_s3_client(server.endpoint)  # on the cluster it is an ordinary bucket
    own = f"sysb-front-{uuid.uuid4().hex[:8]}"
    make_s3_client(service.endpoint).create_bucket(Bucket=own)
    make_s3_client(service.endpoint).put_object(Bucket=own, Key="mine.txt", Body=b"mine")
    user = _new_user(service, ["readwrite"])
    key = f"iam/users/{user[0]}.json"

    def content():
        return {o["Key"]: o["ETag"] for o in backing.list_objects_v2(Bucket=system).get("Contents", [])}

    before = content()
    assert key in before
    for principal in (Principal("root", (ROOT_USER, ROOT_PASSWORD), (own, "")), Principal("readwrite", user, (own, ""))):
        for name in (system, HIDDEN):
            s3 = principal.client(service.endpoint)
            upload = s3.create_multipart_upload(Bucket=own, Key="upload")["UploadId"]
            assert_invisible(service.endpoint, principal, name, key, (own, "upload", upload))
    assert content() == before
    listed = [entry["Name"] for entry in make_s3_client(service.endpoint).list_buckets()["Buckets"]]
    assert own in listed and system not in listed and HIDDEN not in listed
    # Nor can the catalog adopt it as a warehouse.
    status, body = catalog_call(service, "POST", "/v1/warehouses", {"name": system})
    assert status == 400 and "reserved" in body["error"]["message"]
    assert content() == before
