"""The authorization matrix: every kind of caller against every API family, each cell asserted.

Callers (rows): root; users holding the built-in ``readonly`` and ``readwrite`` policies; a user with
``s3:*`` on ``*``; a user with an ``s3tables`` policy on one namespace; a vended session for one table
of that namespace; a share's bearer token, an expired one and another share's; an OAuth2 bearer
token of the catalog (issued to the one-namespace user, so it carries that user's rights); and an
anonymous caller, whose requests carry no credentials at all.

Operations (columns) cover the S3 data API, the system bucket through the S3 API, the Iceberg
catalog, the admin API and Delta Sharing. A cell is the exact HTTP status the caller gets; every
refusal must also come in the API's own error format, and nothing ever answers 5xx. When you add an
operation to the service, add its column here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from dataclasses import dataclass

import pyarrow as pa
import pytest
import requests
from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from deltalake import write_deltalake

from aistor_lab.store import SYSTEM_BUCKET

from .conftest import ROOT_PASSWORD, ROOT_USER, admin_call, catalog_call, make_s3_client
from .sharing_support import create_share, create_token, storage_options

WAREHOUSE = f"authz-{uuid.uuid4().hex[:8]}"
DATA_BUCKET = f"authz-data-{uuid.uuid4().hex[:8]}"
LOCK_BUCKET = f"authz-lock-{uuid.uuid4().hex[:8]}"
DELEGATION = {"X-Iceberg-Access-Delegation": "vended-credentials"}
SCHEMA = {"type": "struct", "schema-id": 0,
          "fields": [{"id": 1, "name": "id", "type": "long", "required": True}]}


@dataclass(frozen=True)
class Caller:
    """How one kind of caller authenticates: SigV4 keys (with a session token for a vended session),
    a bearer token, or nothing at all (anonymous)."""

    name: str
    access_key: str = ""
    secret_key: str = ""
    session_token: str | None = None
    bearer: str = ""

    def send(self, endpoint: str, method: str, path: str, body: bytes = b"",
             headers: dict | None = None) -> requests.Response:
        headers = dict(headers or {})
        if self.bearer or not self.access_key:
            if self.bearer:
                headers["Authorization"] = f"Bearer {self.bearer}"
            return requests.request(method, endpoint + path, data=body, headers=headers, timeout=30)
        request = AWSRequest(method=method, url=endpoint + path, data=body, headers=headers)
        credentials = Credentials(self.access_key, self.secret_key, self.session_token)
        # The catalog is signed with the name s3tables, everything else as S3 clients sign.
        if path.startswith("/_iceberg"):
            SigV4Auth(credentials, "s3tables", "us-east-1").add_auth(request)
        else:
            S3SigV4Auth(credentials, "s3", "us-east-1").add_auth(request)
        prepared = request.prepare()
        return requests.request(method, prepared.url, data=body, headers=dict(prepared.headers), timeout=30)

    def post_form(self, endpoint: str, bucket: str, key: str) -> requests.Response:
        """A browser upload (POST Object): a form boto3 signs with the caller's keys (SigV4). A form
        authenticates by its fields alone, so a bearer token's form, which has none, is anonymous."""
        if self.bearer or not self.access_key:
            headers = {"Authorization": f"Bearer {self.bearer}"} if self.bearer else {}
            return requests.post(f"{endpoint}/{bucket}", data={"key": key}, files={"file": b"form"}, timeout=30,
                                 headers=headers)
        client = make_s3_client(endpoint, self.access_key, self.secret_key, self.session_token,
                                signature_version="s3v4")
        form = client.generate_presigned_post(bucket, key)
        return requests.post(form["url"], data=form["fields"], files={"file": b"form"}, timeout=30)


@dataclass(frozen=True)
class Operation:
    """One request of one API family; ``path`` may name {ns1_file}, {ns2_file}, {share}, {other}, and
    {doomed}: a fresh warehouse holding a table, made for the one call."""

    name: str
    family: str  # s3, system, catalog, admin, sharing: decides the error format checked
    method: str
    path: str
    body: bytes | None = None  # None: a fresh JSON body per call (see _body)
    headers: dict | None = None
    form_key: str = ""  # a POST Object form uploading this key to the bucket ``path`` names (post_form)


def _create_user(server, policies: list[str]) -> tuple[str, str]:
    user, secret = f"authz-{uuid.uuid4().hex[:8]}", f"secret-{uuid.uuid4().hex}"
    status, body = admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": secret,
                                                         "policies": policies})
    assert status == 201, body
    return user, secret


def _put_policy(server, document: dict) -> str:
    name = f"authz-policy-{uuid.uuid4().hex[:8]}"
    status, body = admin_call(server, "PUT", f"/policies/{name}", document)
    assert status in (200, 201), body
    return name


def _create_table(server, namespace: str, table: str, warehouse: str = WAREHOUSE) -> str:
    """A table with its metadata written; returns the key of its metadata file in the warehouse."""
    assert catalog_call(server, "POST", f"/v1/{warehouse}/namespaces", {"namespace": [namespace]})[0] == 200
    status, loaded = catalog_call(server, "POST", f"/v1/{warehouse}/namespaces/{namespace}/tables",
                                  {"name": table, "schema": SCHEMA})
    assert status == 200, loaded
    return loaded["metadata-location"].removeprefix(f"s3://{warehouse}/")


def _doomed_warehouse(server) -> str:
    """A warehouse of its own for one force delete, with a table in ns1."""
    name = f"authz-doomed-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": name})[0] in (200, 201)
    _create_table(server, "ns1", "t1", name)
    return name


@pytest.fixture(scope="module")
def world(server):
    """The resources and the ten callers of the matrix."""
    s3 = make_s3_client(server.endpoint)
    s3.create_bucket(Bucket=DATA_BUCKET)
    s3.put_object(Bucket=DATA_BUCKET, Key="shared/data.txt", Body=b"data")
    s3.put_bucket_lifecycle_configuration(Bucket=DATA_BUCKET, LifecycleConfiguration={"Rules": [NEVER_RULE]})
    s3.create_bucket(Bucket=LOCK_BUCKET, ObjectLockEnabledForBucket=True)
    s3.put_object(Bucket=LOCK_BUCKET, Key="held.txt", Body=b"held")
    write_deltalake(f"s3://{DATA_BUCKET}/shared", pa.table({"id": [1, 2]}), storage_options=storage_options(server))
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": WAREHOUSE})[0] in (200, 201)
    ns1_file = _create_table(server, "ns1", "t1")
    ns2_file = _create_table(server, "ns2", "t2")

    namespace_policy = _put_policy(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3tables:GetTableBucket", "s3tables:ListNamespaces"],
         "Resource": [f"arn:aws:s3tables:::bucket/{WAREHOUSE}"]},
        {"Effect": "Allow", "Action": ["s3tables:*"],
         "Resource": [f"arn:aws:s3tables:::bucket/{WAREHOUSE}/table/ns1/*"]},
        # Reads of the warehouse's files, as the documentation's read-only user has: a vended
        # session is bounded by its user's S3 rights and by its table's location both.
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
         "Resource": [f"arn:aws:s3:::{WAREHOUSE}", f"arn:aws:s3:::{WAREHOUSE}/*"]},
    ]})
    s3_all_policy = _put_policy(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:*"], "Resource": ["*"]}]})
    namespace_user = _create_user(server, [namespace_policy])

    # The one-namespace user's vended session for ns1.t1 (read-write: it may commit to it).
    status, loaded = catalog_call(server, "GET", f"/v1/{WAREHOUSE}/namespaces/ns1/tables/t1",
                                  headers=DELEGATION, credentials=namespace_user)
    assert status == 200, loaded
    vended = loaded["config"]
    # The catalog's OAuth2 token for the same user.
    token = requests.post(f"{server.endpoint}/_iceberg/v1/oauth/tokens", timeout=30, data={
        "grant_type": "client_credentials", "client_id": namespace_user[0], "client_secret": namespace_user[1],
    }).json()["access_token"]

    share = create_share(server, "sales", [f"data:delta:{DATA_BUCKET}:shared"])
    other = create_share(server, "sales", [f"data:delta:{DATA_BUCKET}:shared"])
    share_token = create_token(server, share, expires="1d")["profile"]["bearerToken"]
    other_token = create_token(server, other, expires="1d")["profile"]["bearerToken"]
    expired_token = create_token(server, share, expires="1s")["profile"]["bearerToken"]
    time.sleep(1.5)

    callers = [
        Caller("root", ROOT_USER, ROOT_PASSWORD),
        Caller("readonly", *_create_user(server, ["readonly"])),
        Caller("readwrite", *_create_user(server, ["readwrite"])),
        Caller("s3-all", *_create_user(server, [s3_all_policy])),
        Caller("one-namespace", *namespace_user),
        Caller("vended-session", vended["s3.access-key-id"], vended["s3.secret-access-key"],
               vended["s3.session-token"]),
        Caller("share-token", bearer=share_token),
        Caller("expired-share-token", bearer=expired_token),
        Caller("other-share-token", bearer=other_token),
        Caller("catalog-bearer", bearer=token),
        Caller("anonymous"),
    ]
    return {"callers": {c.name: c for c in callers}, "ns1_file": ns1_file, "ns2_file": ns2_file,
            "share": share, "other": other}


SHARED_TABLE = "/delta-sharing/shares/{share}/schemas/sales/tables/data"
# A lifecycle rule that touches nothing of the data bucket, and its document as PUT ?lifecycle sends it.
NEVER_RULE = {"ID": "never", "Prefix": "nothing-here/", "Status": "Enabled", "Expiration": {"Days": 3650}}
LIFECYCLE = (b"<LifecycleConfiguration><Rule><ID>never</ID><Prefix>nothing-here/</Prefix><Status>Enabled</Status>"
             b"<Expiration><Days>3650</Days></Expiration></Rule></LifecycleConfiguration>")
CORS = (b"<CORSConfiguration><CORSRule><AllowedMethod>GET</AllowedMethod><AllowedOrigin>https://lab.example"
        b"</AllowedOrigin></CORSRule></CORSConfiguration>")
PREFLIGHT = {"Origin": "https://lab.example", "Access-Control-Request-Method": "GET"}
TAGGING = b"<Tagging><TagSet><Tag><Key>team</Key><Value>data</Value></Tag></TagSet></Tagging>"
# A bucket policy granting a user who does not exist: a real document that changes no cell.
BUCKET_POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::000000000000:user/nobody-here"]},
    "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{DATA_BUCKET}/*"}]}).encode()
ALL_OPEN = (b"<PublicAccessBlockConfiguration><BlockPublicAcls>false</BlockPublicAcls>"
            b"</PublicAccessBlockConfiguration>")
RETENTION = (b"<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2099-01-01T00:00:00Z</RetainUntilDate>"
             b"</Retention>")
OPERATIONS = [
    Operation("list buckets", "s3", "GET", "/"),
    Operation("list data bucket", "s3", "GET", f"/{DATA_BUCKET}?list-type=2"),
    Operation("get data object", "s3", "GET", f"/{DATA_BUCKET}/shared/data.txt"),
    Operation("put data object", "s3", "PUT", f"/{DATA_BUCKET}/written/new.txt", b"new"),
    Operation("post data object form", "s3", "POST", DATA_BUCKET, form_key="written/form.txt"),
    Operation("get data object attributes", "s3", "GET", f"/{DATA_BUCKET}/shared/data.txt?attributes", b"",
              {"x-amz-object-attributes": "ETag,ObjectSize"}),
    # Suspended: the data bucket then writes null versions, as it wrote before.
    Operation("put bucket versioning", "s3", "PUT", f"/{DATA_BUCKET}?versioning",
              b"<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>"),
    Operation("list object versions", "s3", "GET", f"/{DATA_BUCKET}?versions"),
    Operation("get object version", "s3", "GET", f"/{DATA_BUCKET}/shared/data.txt?versionId=null"),
    # Neither changes the data bucket: it has no default encryption to get (404) or delete.
    Operation("get bucket encryption", "s3", "GET", f"/{DATA_BUCKET}?encryption"),
    Operation("delete bucket encryption", "s3", "DELETE", f"/{DATA_BUCKET}?encryption"),
    Operation("put bucket lifecycle", "s3", "PUT", f"/{DATA_BUCKET}?lifecycle", LIFECYCLE,
              {"Content-MD5": base64.b64encode(hashlib.md5(LIFECYCLE).digest()).decode()}),
    Operation("get bucket lifecycle", "s3", "GET", f"/{DATA_BUCKET}?lifecycle"),
    # Deleted first (nothing to delete), then the same rule each time, read, and preflighted.
    Operation("delete bucket cors", "s3", "DELETE", f"/{DATA_BUCKET}?cors"),
    Operation("put bucket cors", "s3", "PUT", f"/{DATA_BUCKET}?cors", CORS,
              {"Content-MD5": base64.b64encode(hashlib.md5(CORS).digest()).decode()}),
    Operation("get bucket cors", "s3", "GET", f"/{DATA_BUCKET}?cors"),
    Operation("cors preflight", "s3", "OPTIONS", f"/{DATA_BUCKET}/shared/data.txt", b"", PREFLIGHT),
    # Deleted first (nothing to delete), then the same policy each time, read.
    Operation("delete bucket policy", "s3", "DELETE", f"/{DATA_BUCKET}?policy"),
    Operation("put bucket policy", "s3", "PUT", f"/{DATA_BUCKET}?policy", BUCKET_POLICY),
    Operation("get bucket policy", "s3", "GET", f"/{DATA_BUCKET}?policy"),
    Operation("get bucket policy status", "s3", "GET", f"/{DATA_BUCKET}?policyStatus"),
    Operation("put public access block", "s3", "PUT", f"/{DATA_BUCKET}?publicAccessBlock", ALL_OPEN),
    Operation("get public access block", "s3", "GET", f"/{DATA_BUCKET}?publicAccessBlock"),
    # ACLs: the private ACL the data bucket and its object have anyway.
    Operation("put bucket acl", "s3", "PUT", f"/{DATA_BUCKET}?acl", b"", {"x-amz-acl": "private"}),
    Operation("get bucket acl", "s3", "GET", f"/{DATA_BUCKET}?acl"),
    Operation("put object acl", "s3", "PUT", f"/{DATA_BUCKET}/shared/data.txt?acl", b"", {"x-amz-acl": "private"}),
    Operation("get object acl", "s3", "GET", f"/{DATA_BUCKET}/shared/data.txt?acl"),
    # The data bucket has no ownership controls: an allowed caller learns that (404).
    Operation("get ownership controls", "s3", "GET", f"/{DATA_BUCKET}?ownershipControls"),
    # The same tags each time.
    Operation("put object tagging", "s3", "PUT", f"/{DATA_BUCKET}/shared/data.txt?tagging", TAGGING),
    Operation("get object tagging", "s3", "GET", f"/{DATA_BUCKET}/shared/data.txt?tagging"),
    # The same retention each time: the first call sets it, the others keep it (S3 allows no shortening).
    Operation("put object retention", "s3", "PUT", f"/{LOCK_BUCKET}/held.txt?retention", RETENTION),
    # The data bucket has no Object Lock: an allowed caller learns that (404).
    Operation("get object lock configuration", "s3", "GET", f"/{DATA_BUCKET}?object-lock"),
    Operation("get ns1 table file", "s3", "GET", f"/{WAREHOUSE}/{{ns1_file}}"),
    Operation("get ns2 table file", "s3", "GET", f"/{WAREHOUSE}/{{ns2_file}}"),
    Operation("list system bucket", "system", "GET", f"/{SYSTEM_BUCKET}?list-type=2"),
    Operation("get token key", "system", "GET", f"/{SYSTEM_BUCKET}/iam/keys/tokens.json"),
    Operation("put system object", "system", "PUT", f"/{SYSTEM_BUCKET}/iam/policies/x.json", b"{}"),
    Operation("catalog config", "catalog", "GET", f"/_iceberg/v1/config?warehouse={WAREHOUSE}"),
    Operation("catalog config without warehouse", "catalog", "GET", "/_iceberg/v1/config"),
    # A metadata file that does not exist: an allowed caller learns that (400), nothing is registered.
    Operation("register ns1 view", "catalog", "POST", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/register-view",
              json.dumps({"name": "registered", "metadata-location": f"s3://{WAREHOUSE}/none/v.metadata.json"}).encode()),
    Operation("list namespaces", "catalog", "GET", f"/_iceberg/v1/{WAREHOUSE}/namespaces"),
    Operation("load ns1 table", "catalog", "GET", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1"),
    Operation("load ns2 table", "catalog", "GET", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns2/tables/t2"),
    Operation("plan ns1 table scan", "catalog", "POST", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1/plan", b"{}"),
    Operation("plan ns2 table scan", "catalog", "POST", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns2/tables/t2/plan", b"{}"),
    Operation("fetch ns1 scan tasks", "catalog", "POST", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1/tasks",
              b'{"plan-task": "unknown:1"}'),
    Operation("cancel ns1 scan plan", "catalog", "DELETE",
              f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1/plan/unknown", b""),
    Operation("create namespace", "catalog", "POST", f"/_iceberg/v1/{WAREHOUSE}/namespaces"),
    Operation("force delete warehouse", "catalog", "DELETE", "/_iceberg/v1/warehouses/{doomed}?force=true", b""),
    Operation("warehouse maintenance settings", "catalog", "GET", f"/_iceberg/v1/warehouses/{WAREHOUSE}/maintenance"),
    Operation("ns1 table maintenance", "catalog", "GET", f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1/maintenance"),
    # A run of expiry with the defaults: every snapshot is young, so nothing changes for the other cells.
    Operation("ns1 table maintenance run", "catalog", "POST",
              f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1/maintenance/runs", b'{"operations": ["expire-snapshots"]}'),
    Operation("ns2 table maintenance dry run", "catalog", "POST",
              f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns2/tables/t2/maintenance/runs", b'{"dry-run": true}'),
    Operation("ns1 table maintenance history", "catalog", "GET",
              f"/_iceberg/v1/{WAREHOUSE}/namespaces/ns1/tables/t1/maintenance/runs"),
    Operation("list users", "admin", "GET", "/_aistor/admin/v1/users"),
    Operation("list shares (admin)", "admin", "GET", "/_aistor/admin/v1/shares"),
    Operation("shared table versions (admin)", "admin", "GET",
              "/_aistor/admin/v1/shares/{share}/schemas/sales/tables/data/versions"),
    Operation("checkpoint shared table (admin)", "admin", "POST",
              "/_aistor/admin/v1/shares/{share}/schemas/sales/tables/data/checkpoint", b""),
    Operation("list shares", "sharing", "GET", "/delta-sharing/shares"),
    Operation("query own share", "sharing", "POST", SHARED_TABLE + "/query", b"{}"),
    Operation("query other share", "sharing", "POST", SHARED_TABLE.replace("{share}", "{other}") + "/query", b"{}"),
]

# One row per caller, one column per operation above, in their order.
ROWS = ["root", "readonly", "readwrite", "s3-all", "one-namespace", "vended-session", "share-token",
        "expired-share-token", "other-share-token", "catalog-bearer", "anonymous"]
# Anonymous (unsigned) callers get nothing where no bucket policy or ACL grants it: 403 from S3 and
# the admin API, 401 from the catalog and sharing. Bearer tokens are no S3 or admin credentials: 400
# AuthorizationHeaderMalformed, as S3 answers. The system bucket does not exist for anyone, whatever
# the credentials (404 NoSuchBucket, decided before authentication). A share token asking for another share's table learns nothing: the share "does
# not exist" (404).
MATRIX = {
    #                        root  ro   rw  s3all  ns  sess share exp other bearer anon
    "list buckets":          [200, 200, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "list data bucket":      [200, 200, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get data object":       [200, 200, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "put data object":       [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    # s3:PutObject of the form's signer; a bearer token's form is anonymous (the data bucket has no policy).
    "post data object form": [204, 403, 204, 204, 403, 403, 403, 403, 403, 403,403],
    # s3:GetObjectAttributes, which the built-in readonly policy does not grant (nor MinIO's).
    "get data object attributes": [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "put bucket versioning": [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    # s3:ListBucketVersions and s3:GetObjectVersion, which s3:ListBucket and s3:GetObject also grant (as
    # MinIO authorizes them), so the built-in readonly policy reads versions.
    "list object versions":  [200, 200, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get object version":    [200, 200, 200, 200, 403, 403, 400, 400, 400, 400,403],
    # s3:GetEncryptionConfiguration and s3:PutEncryptionConfiguration (which deletes), neither granted
    # by the built-in readonly policy.
    "get bucket encryption": [404, 403, 404, 404, 403, 403, 400, 400, 400, 400,403],
    "delete bucket encryption": [204, 403, 204, 204, 403, 403, 400, 400, 400, 400,403],
    # s3:PutLifecycleConfiguration and s3:GetLifecycleConfiguration: not granted by the built-in readonly policy.
    "put bucket lifecycle":  [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get bucket lifecycle":  [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    # s3:DeleteBucketCors (or s3:PutBucketCORS), s3:PutBucketCORS, s3:GetBucketCORS: not in the readonly policy.
    "delete bucket cors":    [204, 403, 204, 204, 403, 403, 400, 400, 400, 400,403],
    "put bucket cors":       [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get bucket cors":       [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    # A preflight is not authenticated: whatever the credentials, the bucket's CORS rules answer it.
    "cors preflight":        [200, 200, 200, 200, 200, 200, 200, 200, 200, 200,200],
    "delete bucket policy":  [204, 403, 204, 204, 403, 403, 400, 400, 400, 400,403],
    "put bucket policy":     [204, 403, 204, 204, 403, 403, 400, 400, 400, 400,403],
    "get bucket policy":     [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get bucket policy status": [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "put public access block": [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get public access block": [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "put bucket acl":        [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get bucket acl":        [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "put object acl":        [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get object acl":        [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get ownership controls": [404, 403, 404, 404, 403, 403, 400, 400, 400, 400,403],
    # s3:PutObjectTagging and s3:GetObjectTagging: not granted by the built-in readonly policy.
    "put object tagging":    [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get object tagging":    [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    # s3:PutObjectRetention and s3:GetBucketObjectLockConfiguration: not granted by the built-in readonly policy.
    "put object retention":  [200, 403, 200, 200, 403, 403, 400, 400, 400, 400,403],
    "get object lock configuration": [404, 403, 404, 404, 403, 403, 400, 400, 400, 400,403],
    "get ns1 table file":    [200, 200, 200, 200, 200, 200, 400, 400, 400, 400,403],
    "get ns2 table file":    [200, 200, 200, 200, 200, 403, 400, 400, 400, 400,403],
    "list system bucket":    [404, 404, 404, 404, 404, 404, 404, 404, 404, 404,404],
    "get token key":         [404, 404, 404, 404, 404, 404, 404, 404, 404, 404,404],
    "put system object":     [404, 404, 404, 404, 404, 404, 404, 404, 404, 404,404],
    "catalog config":        [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    # The server's defaults name no warehouse: any caller the catalog admits reads them.
    "catalog config without warehouse": [200, 200, 200, 200, 200, 401, 401, 401, 401, 200,401],
    # s3tables:RegisterView on the view's name (view/ns1/registered), as RegisterTable on a table's: the
    # one-namespace user's policy names the tables of ns1, not its views.
    "register ns1 view":     [400, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    "list namespaces":       [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    "load ns1 table":        [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    "load ns2 table":        [200, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    # Scan planning needs what loading the table needs (s3tables:GetTable); a plan or plan task the
    # caller did not make does not exist for it (404 NoSuchPlanIdException, NoSuchPlanTaskException).
    "plan ns1 table scan":   [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    "plan ns2 table scan":   [200, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    "fetch ns1 scan tasks":  [404, 403, 403, 403, 404, 401, 401, 401, 401, 404,401],
    "cancel ns1 scan plan":  [404, 403, 403, 403, 404, 401, 401, 401, 401, 404,401],
    "create namespace":      [200, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    "force delete warehouse": [204, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    # s3tables:GetWarehouseMaintenanceConfiguration on the warehouse; the table's maintenance actions
    # (Get/PutTableMaintenanceConfiguration, GetTableMaintenanceJobStatus) on the table, as s3tables:* grants them.
    "warehouse maintenance settings": [200, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    "ns1 table maintenance": [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    "ns1 table maintenance run": [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    "ns2 table maintenance dry run": [200, 403, 403, 403, 403, 401, 401, 401, 401, 403,401],
    "ns1 table maintenance history": [200, 403, 403, 403, 200, 401, 401, 401, 401, 200,401],
    "list users":            [200, 403, 403, 403, 403, 403, 400, 400, 400, 400,403],
    "list shares (admin)":   [200, 403, 403, 403, 403, 403, 400, 400, 400, 400,403],
    # admin:DeltaSharingGetShare, as the share's own information.
    "shared table versions (admin)": [200, 403, 403, 403, 403, 403, 400, 400, 400, 400,403],
    # admin:DeltaSharingUpdateShare: a checkpoint changes what the share is served from.
    "checkpoint shared table (admin)": [200, 403, 403, 403, 403, 403, 400, 400, 400, 400,403],
    "list shares":           [401, 401, 401, 401, 401, 401, 200, 401, 200, 401,401],
    "query own share":       [401, 401, 401, 401, 401, 401, 200, 401, 404, 401,401],
    "query other share":     [401, 401, 401, 401, 401, 401, 404, 401, 200, 401,401],
}
CELLS = [(op, row) for op in OPERATIONS for row in ROWS]


def _body(operation: Operation) -> bytes:
    if operation.body is not None:
        return operation.body
    return json.dumps({"namespace": [f"made-{uuid.uuid4().hex[:8]}"]}).encode()


def _check_error_format(family: str, response: requests.Response) -> None:
    """A refusal speaks its API's protocol: S3 XML, the Iceberg ErrorModel, the admin API's JSON
    or Delta Sharing's {"errorCode", "message"}."""
    if family in ("s3", "system"):
        assert response.content.startswith(b"<?xml") and b"<Error>" in response.content, response.content
    elif family == "catalog":
        error = response.json()["error"]
        assert error["code"] == response.status_code and error["type"] and error["message"]
    elif family == "sharing":
        error = response.json()
        assert error["errorCode"] and error["message"], error
    else:
        assert response.json(), response.content


def test_the_matrix_names_every_cell():
    assert set(MATRIX) == {operation.name for operation in OPERATIONS}
    assert all(len(row) == len(ROWS) for row in MATRIX.values())


@pytest.mark.parametrize(("operation", "caller"), CELLS, ids=[f"{o.name}|{c}" for o, c in CELLS])
def test_cell(server, world, operation: Operation, caller: str):
    expected = MATRIX[operation.name][ROWS.index(caller)]
    doomed = _doomed_warehouse(server) if "{doomed}" in operation.path else ""
    path = operation.path.format(ns1_file=world["ns1_file"], ns2_file=world["ns2_file"],
                                 share=world["share"], other=world["other"], doomed=doomed)
    if operation.form_key:
        response = world["callers"][caller].post_form(server.endpoint, path, operation.form_key)
    else:
        response = world["callers"][caller].send(server.endpoint, operation.method, path, _body(operation),
                                                  operation.headers)
    assert response.status_code == expected, (operation.name, caller, response.status_code, response.content[:300])
    if expected >= 400:
        _check_error_format(operation.family, response)


def test_shares_list_only_what_a_token_names(server, world):
    """A share token sees its own share and nothing else, in the listing itself."""
    response = world["callers"]["share-token"].send(server.endpoint, "GET", "/delta-sharing/shares")
    assert [item["name"] for item in response.json()["items"]] == [world["share"]]


def test_system_bucket_content_is_unchanged_by_the_matrix(server, world):
    """The system-bucket PUTs of the matrix wrote nothing: the policy document they named does not exist."""
    assert admin_call(server, "GET", "/policies/x")[0] == 404
