"""Virtual-host-style addressing (``BUCKET.DOMAIN:PORT/KEY``) beside path style, with AISTOR_DOMAIN
set on a server of its own. Names under ``.test`` resolve to loopback through a resolver override in
this process (no DNS); raw requests go to 127.0.0.1 with an explicit Host header.
"""

from __future__ import annotations

import socket
import uuid
import xml.etree.ElementTree as ET

import pytest
import requests
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from botocore.httpsession import URLLib3Session

from aistor_lab.s3.virtual_hosts import bucket_of_host
from aistor_lab.settings import parse_domains
from aistor_lab.store import SYSTEM_BUCKET

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client, service_with

DOMAIN = "s3.test"
OTHER_DOMAIN = "objects.test"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    with service_with(tmp_path_factory, {"AISTOR_DOMAIN": f"{DOMAIN}, {OTHER_DOMAIN}"}) as service:
        yield service


@pytest.fixture(scope="module", autouse=True)
def test_names_resolve_to_loopback():
    """``*.test`` is 127.0.0.1 for this process, as a wildcard DNS record would make it."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith(".test"):
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        yield


def client(service, domain: str = DOMAIN, style: str = "virtual", **config):
    return make_s3_client(f"http://{domain}:{service.port}", s3={"addressing_style": style}, **config)


@pytest.fixture
def bucket(service):
    """A bucket made on the bare domain, path style."""
    name = f"vh-{uuid.uuid4().hex[:12]}"
    client(service, style="path").create_bucket(Bucket=name)
    return name


def raw(service, method: str, host: str, path: str, **kwargs) -> requests.Response:
    """A request to loopback naming ``host`` in its Host header."""
    return requests.request(method, f"http://127.0.0.1:{service.port}{path}",
                            headers={"Host": f"{host}:{service.port}", **kwargs.pop("headers", {})},
                            timeout=10, **kwargs)


def error_code(response: requests.Response) -> str:
    return ET.fromstring(response.content).findtext("Code")


def test_objects_through_the_virtual_host(service, bucket):
    s3 = client(service)
    s3.put_object(Bucket=bucket, Key="dir/a.txt", Body=b"alpha")
    s3.put_object(Bucket=bucket, Key="dir/b.txt", Body=b"beta")
    assert s3.get_object(Bucket=bucket, Key="dir/a.txt")["Body"].read() == b"alpha"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="dir/")["Contents"]] == ["dir/a.txt", "dir/b.txt"]
    assert s3.list_objects(Bucket=bucket, Delimiter="/")["CommonPrefixes"] == [{"Prefix": "dir/"}]
    s3.delete_object(Bucket=bucket, Key="dir/b.txt")
    # Path style on the bare domain sees the same bucket.
    path_style = client(service, style="path")
    assert [o["Key"] for o in path_style.list_objects_v2(Bucket=bucket)["Contents"]] == ["dir/a.txt"]
    s3.delete_object(Bucket=bucket, Key="dir/a.txt")
    s3.delete_bucket(Bucket=bucket)
    with pytest.raises(ClientError) as refused:
        path_style.head_bucket(Bucket=bucket)
    assert refused.value.response["Error"]["Code"] == "404"


def test_bucket_created_through_its_own_virtual_host(service):
    name = f"vh-{uuid.uuid4().hex[:12]}"
    client(service).create_bucket(Bucket=name)
    assert name in [b["Name"] for b in client(service, style="path").list_buckets()["Buckets"]]


def test_keys_that_look_like_paths_and_other_apis(service, bucket):
    """The whole path is the key: a leading slash and ``_iceberg/...`` are keys of the bucket."""
    s3 = client(service)
    for key in ("/leading", "_iceberg/v1/config", "delta-sharing/shares", "a b/ü?.txt"):
        s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == key.encode()
    assert client(service, style="path").get_object(Bucket=bucket, Key="/leading")["Body"].read() == b"/leading"


def test_multipart_and_copy_through_virtual_hosts(service, bucket):
    s3 = client(service)
    upload = s3.create_multipart_upload(Bucket=bucket, Key="big")["UploadId"]
    parts = [
        {"PartNumber": n, "ETag": s3.upload_part(Bucket=bucket, Key="big", UploadId=upload, PartNumber=n,
                                                 Body=body)["ETag"]}
        for n, body in ((1, b"x" * 5 * 1024 * 1024), (2, b"tail"))
    ]
    done = s3.complete_multipart_upload(Bucket=bucket, Key="big", UploadId=upload, MultipartUpload={"Parts": parts})
    assert done["Location"] == f"http://{bucket}.{DOMAIN}:{service.port}/big"
    assert s3.head_object(Bucket=bucket, Key="big")["ContentLength"] == 5 * 1024 * 1024 + 4
    # A copy source stays bucket/key; the target is the virtual host of another bucket.
    target = f"vh-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=target)
    s3.copy_object(Bucket=target, Key="copy", CopySource={"Bucket": bucket, "Key": "big"})
    assert s3.get_object(Bucket=target, Key="copy", Range="bytes=-4")["Body"].read() == b"tail"


@pytest.mark.parametrize("signature_version", ["s3", "s3v4"])
def test_presigned_urls(service, bucket, signature_version):
    s3, signer = client(service), client(service, signature_version=signature_version)
    s3.put_object(Bucket=bucket, Key="shared file.txt", Body=b"hello")
    url = signer.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "shared file.txt"})
    assert url.startswith(f"http://{bucket}.{DOMAIN}:{service.port}/shared%20file.txt?")
    assert requests.get(url, timeout=10).content == b"hello"
    put_url = signer.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "up"}, ExpiresIn=60)
    assert requests.put(put_url, data=b"uploaded", timeout=10).status_code == 200
    assert s3.get_object(Bucket=bucket, Key="up")["Body"].read() == b"uploaded"
    list_url = signer.generate_presigned_url("list_objects_v2", Params={"Bucket": bucket})
    assert b"<Key>up</Key>" in requests.get(list_url, timeout=10).content
    # Signed for one bucket's host, the URL is no good for another bucket.
    other = url.replace(f"//{bucket}.", f"//{bucket}x.", 1)
    assert requests.get(other, timeout=10).status_code in (403, 404)


def test_a_presigned_url_sent_to_loopback_with_its_host(service, bucket):
    s3 = client(service)
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"})
    path = url.split(f":{service.port}", 1)[1]
    assert raw(service, "GET", f"{bucket}.{DOMAIN}", path).content == b"v"
    # The same path and query to the bare domain is a path-style request for bucket "k".
    assert raw(service, "GET", DOMAIN, path).status_code == 403


def test_other_domains_and_unknown_hosts_are_path_style(service, bucket):
    client(service).put_object(Bucket=bucket, Key="k", Body=b"v")
    # Each configured domain serves virtual hosts.
    assert client(service, OTHER_DOMAIN).get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    # A host under no configured domain, and the bare domain itself, are path style.
    for host in (f"{bucket}.elsewhere.test", DOMAIN, f"x{DOMAIN}"):
        assert client(service, host, style="path").get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    # Unsigned, so refused: but answered for the path-style resource, not the bucket in the Host.
    response = raw(service, "GET", f"{bucket}.elsewhere.test", f"/{bucket}/k")
    assert (response.status_code, error_code(response)) == (403, "AccessDenied")


def test_the_json_apis_stay_on_the_bare_domain(service, bucket):
    """On a bucket's host every path is S3; the catalog answers JSON on the bare domain only."""
    on_bucket = raw(service, "GET", f"{bucket}.{DOMAIN}", "/_iceberg/v1/config")
    assert on_bucket.headers["Content-Type"].startswith("application/xml")
    assert error_code(on_bucket) == "AccessDenied"
    on_domain = raw(service, "GET", DOMAIN, "/_iceberg/v1/config")
    assert on_domain.status_code in (401, 403) and "error" in on_domain.json()
    assert raw(service, "GET", DOMAIN, "/_aistor/health").status_code == 200


def test_the_system_bucket_is_not_there_through_a_virtual_host(service):
    s3 = client(service)
    for call in (lambda: s3.list_objects_v2(Bucket=SYSTEM_BUCKET), lambda: s3.head_bucket(Bucket=SYSTEM_BUCKET),
                 lambda: s3.get_object(Bucket=SYSTEM_BUCKET, Key="iam/users.json")):
        with pytest.raises(ClientError) as refused:
            call()
        assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    response = raw(service, "GET", f"{SYSTEM_BUCKET}.{DOMAIN}", "/")
    assert (response.status_code, error_code(response)) == (404, "NoSuchBucket")


def test_domains_setting():
    assert parse_domains(" S3.Example ,other.example,") == ("s3.example", "other.example")
    assert parse_domains("") == ()
    for bad in ("s3.example:9000", "http://s3.example", "*.s3.example", "a..b"):
        with pytest.raises(ValueError, match="AISTOR_DOMAIN"):
            parse_domains(bad)


def test_bucket_of_host():
    domains = ("example", "s3.example")
    assert bucket_of_host("my.bucket.s3.example", domains) == "my.bucket"  # the longest domain wins
    assert bucket_of_host("b.example", domains) == "b"
    assert bucket_of_host("s3.example", domains) is None  # a domain itself is path style
    assert bucket_of_host(".s3.example", domains) is None
    assert bucket_of_host("b.s3.example", ()) is None
    assert bucket_of_host("b.s3.examples", ("s3.example",)) is None


def test_without_the_setting_nothing_comes_from_the_host(server, s3):
    """The shared server has no AISTOR_DOMAIN: a virtual-host request is read as path style, so its
    first path segment is taken for the bucket."""
    bucket = f"vh-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    virtual = make_s3_client(f"http://{DOMAIN}:{server.port}", s3={"addressing_style": "virtual"})
    with pytest.raises(ClientError) as refused:
        virtual.get_object(Bucket=bucket, Key="k")
    assert refused.value.response["Error"]["Code"] == "NoSuchBucket"


class HostUnsignedAuth(S3SigV4Auth):
    """SigV4 leaving the Host header out of the signature."""

    def headers_to_sign(self, request):
        headers = super().headers_to_sign(request)
        del headers["host"]
        return headers


def test_sigv4_must_sign_the_host_that_names_the_bucket(service, bucket):
    """Else the signature of ``GET /k`` would be good on every bucket's host."""
    client(service).put_object(Bucket=bucket, Key="k", Body=b"v")

    def get(url: str, signer_class) -> requests.Response:
        request = AWSRequest(method="GET", url=url)
        signer_class(Credentials(ROOT_USER, ROOT_PASSWORD), "s3", "us-east-1").add_auth(request)
        return URLLib3Session().send(request.prepare())

    virtual = f"http://{bucket}.{DOMAIN}:{service.port}/k"
    assert get(virtual, S3SigV4Auth).content == b"v"
    refused = get(virtual, HostUnsignedAuth)
    assert (refused.status_code, error_code(refused)) == (403, "AccessDenied")
    # Path style names the bucket in the signed path: the Host may stay unsigned, as before.
    assert get(f"http://{DOMAIN}:{service.port}/{bucket}/k", HostUnsignedAuth).content == b"v"
