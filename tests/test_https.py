"""HTTPS: one aistor-lab server over TLS with a local CA made by ``aistor-lab certs create``, and real
clients that trust that CA: boto3 (aws-chunked uploads with trailing checksums), PyIceberg with the
seed's catalog configuration, the delta-sharing client and Spark; plain HTTP and clients that do not
trust the CA are refused.

pyarrow's S3 (PyIceberg's FileIO), aiohttp (delta-sharing's file reads) and the JVM read their trust
settings once per process, when first used. Those clients therefore run in a fresh interpreter with the
environment the Jupyter extension gives kernels (``kernel_environment``), as a notebook would.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import boto3
import certifi
import pyarrow as pa
import pytest
import requests
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ConnectionClosedError, EndpointConnectionError
from botocore.exceptions import SSLError as BotocoreSSLError
from cryptography import x509
from deltalake import write_deltalake

from aistor_lab import tls
from aistor_lab.settings import Settings
from aistor_lab.sharing.service import sharing_endpoint
from aistor_lab.workbench.client import AIStorClient, ServiceConfig, ServiceUnreachable
from aistor_lab.workbench.jupyter.extension import AIStorLabApp, kernel_environment
from aistor_lab.workbench.jupyter.process import ServiceProcess
from aistor_lab.workbench.service_config import catalog_properties
from aistor_lab.workbench.spark import spark_conf
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import ROOT_PASSWORD, ROOT_USER, seed_catalog_properties

CERT_HOST = "aistor.lab.test"
WAREHOUSE = "tls-lab"
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> tuple[Path, str]:
    """A certs directory made by the command, and what the command printed."""
    directory = tmp_path_factory.mktemp("certs")
    made = subprocess.run([sys.executable, "-m", "aistor_lab", "certs", "create", "--dir", str(directory),
                           "--host", CERT_HOST], check=False, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    return directory, made.stdout


@pytest.fixture(scope="module")
def trust(certs) -> tls.Trust:
    found = tls.trust_files(certs[0])
    assert found is not None
    return found


@pytest.fixture(scope="module")
def tls_server(certs, tmp_path_factory):
    data = tmp_path_factory.mktemp("tls-data")
    with ServiceProcess(data, certs_dir=certs[0], log_path=data.parent / "tls-server.log") as service:
        yield service


def s3_client(endpoint: str, verify: str | None = None):
    """boto3 as conftest's make_s3_client makes it, verifying the server with ``verify`` (a PEM file)."""
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ROOT_USER,
                        aws_secret_access_key=ROOT_PASSWORD, region_name="us-east-1", verify=verify,
                        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


@pytest.fixture(scope="module")
def tls_s3(tls_server, trust):
    return s3_client(tls_server.endpoint, str(trust.ca))


@pytest.fixture(scope="module")
def admin(tls_server, trust) -> AIStorClient:
    config = ServiceConfig(tls_server.endpoint, ROOT_USER, ROOT_PASSWORD, ca_bundle=str(trust.ca))
    client = AIStorClient(config)
    client.create_warehouse(WAREHOUSE)
    return client


@pytest.fixture(scope="module")
def kernel_env(tls_server, trust, admin) -> dict[str, str]:
    """What the Jupyter extension exports to kernels for this service."""
    config = ServiceConfig(tls_server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE,
                           ca_bundle=str(trust.ca_bundle))
    return kernel_environment(config, trust=trust)


def run_python(code: str, env: dict[str, str], timeout: float = 300) -> dict:
    """Run ``code`` in a fresh interpreter with ``env`` over ours; returns the JSON it printed last."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env={**os.environ, **env},
                            check=False, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-6000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def recorded_headers(client) -> list[tuple[str, dict[str, str]]]:
    """(operation, headers) of every request ``client`` sends from now on, as sent."""
    sent: list[tuple[str, dict[str, str]]] = []

    def record(request, event_name: str, **_):
        headers = {k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
        sent.append((event_name.rsplit(".", 1)[-1], headers))

    client.meta.events.register("before-send.s3", record)
    return sent


# -- the certificates and the command ---------------------------------------------------------------


def test_certs_command_makes_a_ca_and_prints_how_to_trust_it(certs, trust, tmp_path):
    directory, printed = certs
    for name in (tls.CERT_FILE, tls.KEY_FILE, tls.CA_FILE, tls.BUNDLE_FILE, tls.TRUSTSTORE_FILE):
        assert (directory / name).is_file(), name
    assert (directory / tls.KEY_FILE).stat().st_mode & 0o077 == 0  # the key is its owner's only
    certificate = x509.load_pem_x509_certificate((directory / tls.CERT_FILE).read_bytes())
    ca = x509.load_pem_x509_certificate((directory / tls.CA_FILE).read_bytes())
    certificate.verify_directly_issued_by(ca)
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert {CERT_HOST, "localhost"} <= set(names.get_values_for_type(x509.DNSName))
    assert "127.0.0.1" in {str(ip) for ip in names.get_values_for_type(x509.IPAddress)}
    # the bundle keeps the machine's CAs next to ours, so other HTTPS sites keep working
    bundle = trust.ca_bundle.read_text()
    assert (directory / tls.CA_FILE).read_text() in bundle and bundle.count("BEGIN CERTIFICATE") > 10

    for name in ("REQUESTS_CA_BUNDLE", "AWS_CA_BUNDLE", "SSL_CERT_FILE"):
        assert f"export {name}={trust.ca_bundle}" in printed
    assert f"aistor-lab server --certs-dir {directory}" in printed
    keytool_line = next(line.strip() for line in printed.splitlines() if line.strip().startswith("keytool"))
    assert keytool_line == trust.keytool_command()
    if shutil.which("keytool") is None:
        pytest.skip("no keytool on this machine")
    # The printed line, with a scratch keystore in place of the JVM's own, imports the CA.
    keystore = str(tmp_path / "cacerts")
    argv = shlex.split(keytool_line)
    argv[argv.index("-keystore") + 1] = keystore
    imported = subprocess.run(argv, input="yes\n", check=False, capture_output=True, text=True, timeout=120)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    argv = ["keytool", "-list", "-alias", tls.CA_ALIAS, "-keystore", keystore, "-storepass", "changeit"]
    listed = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "trustedCertEntry" in listed.stdout, listed.stdout + listed.stderr


def test_certificates_made_again_keep_their_ca(tmp_path):
    first = tls.create_certificates(tmp_path, ["one.test"])
    ca_pem = first.trust.ca.read_bytes()
    second = tls.create_certificates(tmp_path, ["two.test"])
    assert second.trust.ca.read_bytes() == ca_pem  # whoever trusts the CA trusts the new certificate
    assert "two.test" in second.hosts and "one.test" not in second.hosts
    ca = x509.load_pem_x509_certificate(ca_pem)
    x509.load_pem_x509_certificate(second.certificate.read_bytes()).verify_directly_issued_by(ca)
    assert tls.create_certificates(tmp_path, [], new_ca=True).trust.ca.read_bytes() != ca_pem

    (tmp_path / tls.CA_KEY_FILE).unlink()  # a CA brought without its key is never replaced silently
    with pytest.raises(tls.CertificateError, match="no ca.key"):
        tls.create_certificates(tmp_path, ["three.test"])
    with pytest.raises(tls.CertificateError, match="public.crt"):
        tls.server_context(tmp_path / "empty")


def test_server_refuses_to_start_without_a_certificate(tmp_path):
    started = subprocess.run([sys.executable, "-m", "aistor_lab", "server", "--address", "127.0.0.1:0",
                              "--data", str(tmp_path / "data"), "--certs-dir", str(tmp_path / "none")],
                             check=False, capture_output=True, text=True, timeout=120)
    assert started.returncode == 2
    assert "public.crt" in started.stderr and "Traceback" not in started.stderr


def test_the_public_endpoint_takes_the_scheme_of_the_service():
    settings = Settings(port=9443, certs_dir=Path("certs"))
    assert settings.endpoint == "https://127.0.0.1:9443"
    assert sharing_endpoint(settings) == "https://127.0.0.1:9443/delta-sharing"
    assert sharing_endpoint(Settings(port=9443)) == "http://127.0.0.1:9443/delta-sharing"
    public = Settings(port=9443, certs_dir=Path("certs"), public_endpoint="https://lab.example.net")
    assert sharing_endpoint(public) == "https://lab.example.net/delta-sharing"


def test_spark_sessions_trust_the_truststore_only_for_https():
    https = ServiceConfig("https://127.0.0.1:9443", "ak", "sk", truststore="/certs/truststore.p12")
    conf = spark_conf("lab", service=https, kit=None)
    for side in ("driver", "executor"):
        assert conf[f"spark.{side}.extraJavaOptions"] == tls.java_trust_options("/certs/truststore.p12")
    plain = ServiceConfig("http://127.0.0.1:9000", "ak", "sk", truststore="/certs/truststore.p12")
    assert "spark.driver.extraJavaOptions" not in spark_conf("lab", service=plain, kit=None)
    untrusting = ServiceConfig(https.endpoint, "ak", "sk")  # the JVM's own CAs: a publicly signed certificate
    assert "spark.driver.extraJavaOptions" not in spark_conf("lab", service=untrusting, kit=None)


# -- clients over TLS -------------------------------------------------------------------------------


def test_pyiceberg_verifies_with_the_ca_bundle_of_the_config(tls_server, trust, admin, monkeypatch):
    """The config's CA reaches PyIceberg's catalog session through its properties, with no variable
    that requests would read by itself."""
    from pyiceberg.catalog import load_catalog

    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "AWS_CA_BUNDLE", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    trusting = ServiceConfig(tls_server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE,
                             ca_bundle=str(trust.ca_bundle))
    catalog = load_catalog("tls", **catalog_properties(trusting))
    catalog.create_namespace_if_not_exists("verified")
    assert ("verified",) in catalog.list_namespaces()
    untrusting = ServiceConfig(tls_server.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=WAREHOUSE)
    with pytest.raises(requests.exceptions.SSLError):
        load_catalog("tls", **catalog_properties(untrusting))



def test_boto3_over_https(tls_server, tls_s3):
    assert tls_server.endpoint.startswith("https://")
    tls_s3.create_bucket(Bucket="tls-objects")
    sent = recorded_headers(tls_s3)

    small = os.urandom(300_000)
    put = tls_s3.put_object(Bucket="tls-objects", Key="small.bin", Body=small)
    big = os.urandom(40 * MiB)
    tls_s3.upload_fileobj(io.BytesIO(big), "tls-objects", "big.bin",
                          Config=TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=8 * MiB))

    # Over HTTPS boto3 streams bodies aws-chunked with the checksum in a trailer (see CLIENTS.md).
    uploads = [headers for operation, headers in sent if operation in ("PutObject", "UploadPart")]
    assert len(uploads) == 1 + 5
    for headers in uploads:
        assert headers["content-encoding"] == "aws-chunked"
        assert headers["x-amz-content-sha256"] == "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
        assert headers["x-amz-trailer"] == "x-amz-checksum-crc32"

    got = tls_s3.get_object(Bucket="tls-objects", Key="small.bin", ChecksumMode="ENABLED")
    assert got["Body"].read() == small and got["ChecksumCRC32"] == put["ChecksumCRC32"]
    assert tls_s3.head_object(Bucket="tls-objects", Key="big.bin")["ETag"].endswith('-5"')
    body = tls_s3.get_object(Bucket="tls-objects", Key="big.bin")["Body"].read()
    assert hashlib.sha256(body).digest() == hashlib.sha256(big).digest()
    listed = tls_s3.list_objects_v2(Bucket="tls-objects")["Contents"]
    assert {(o["Key"], o["Size"]) for o in listed} == {("small.bin", len(small)), ("big.bin", len(big))}


def test_sse_c_over_https_with_aws_chunked_bodies(tls_server, tls_s3):
    """SSE-C keys are taken over TLS without any setting; boto3 sends the bodies aws-chunked."""
    tls_s3.create_bucket(Bucket="tls-sse-c")
    key = {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": os.urandom(32)}
    body = os.urandom(200_000)
    tls_s3.put_object(Bucket="tls-sse-c", Key="c", Body=body, **key)
    got = tls_s3.get_object(Bucket="tls-sse-c", Key="c", Range="bytes=1000-99999", **key)
    assert got["Body"].read() == body[1000:100000] and got["SSECustomerAlgorithm"] == "AES256"


def test_plain_http_to_the_tls_port_fails_cleanly(tls_server, tls_s3):
    plain = tls_server.endpoint.replace("https://", "http://")
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{plain}/_aistor/health", timeout=30)
    with pytest.raises((ConnectionClosedError, EndpointConnectionError)):
        s3_client(plain).list_buckets()
    assert tls_server.proc.poll() is None  # still serving, over TLS
    assert "tls-objects" in [b["Name"] for b in tls_s3.list_buckets()["Buckets"]]


def test_a_client_that_does_not_trust_the_ca_is_refused(tls_server, monkeypatch):
    monkeypatch.delenv("AWS_CA_BUNDLE", raising=False)
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"{tls_server.endpoint}/_aistor/health", verify=certifi.where(), timeout=30)
    with pytest.raises(BotocoreSSLError):
        s3_client(tls_server.endpoint, certifi.where()).list_buckets()
    with pytest.raises(ServiceUnreachable, match="TLS certificate"):
        AIStorClient(ServiceConfig(tls_server.endpoint, ROOT_USER, ROOT_PASSWORD)).health()


def test_jupyter_extension_serves_and_exports_the_trust(tls_server, trust, certs, monkeypatch, tmp_path):
    exported = kernel_environment(ServiceConfig("https://x", "a", "b"), trust=trust)
    for name in exported:
        monkeypatch.delenv(name, raising=False)  # restored after the test
    attached = AIStorLabApp(endpoint=tls_server.endpoint, certs_dir=str(certs[0]), default_warehouse="")
    attached.initialize_settings()
    assert attached.status()["healthy"] is True  # its own client verifies the service with the CA
    for name in ("REQUESTS_CA_BUNDLE", "AWS_CA_BUNDLE", "SSL_CERT_FILE", "AISTOR_CA_BUNDLE"):
        assert os.environ[name] == str(trust.ca_bundle)
    assert os.environ["AISTOR_TRUSTSTORE"] == str(trust.truststore)
    assert os.environ["AISTOR_ENDPOINT"] == tls_server.endpoint

    managed = AIStorLabApp(certs_dir=str(certs[0]), data_dir=str(tmp_path / "data"), address="127.0.0.1:0")
    managed.initialize_settings()
    process = managed.supervisor.process
    assert process.certs_dir == certs[0] and process.endpoint.startswith("https://127.0.0.1:")
    assert os.environ["AISTOR_ENDPOINT"] == process.endpoint


def test_pyiceberg_with_the_seed_configuration(tls_server, kernel_env):
    """A kernel's PyIceberg: the catalog over HTTPS (requests) and the data files over HTTPS (pyarrow)."""
    env = {**kernel_env, "SEED_PROPERTIES": json.dumps(seed_catalog_properties(tls_server, WAREHOUSE))}
    result = run_python("""
        import json, os
        import boto3, pyarrow as pa
        from botocore.config import Config
        from pyiceberg.catalog import load_catalog
        from aistor_lab.workbench.client import AIStorClient

        health = AIStorClient.from_env().health()
        catalog = load_catalog("aistor", **json.loads(os.environ["SEED_PROPERTIES"]))
        catalog.create_namespace("tls_ns")
        schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
        table = catalog.create_table(("tls_ns", "events"), schema=schema)
        table.append(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}, schema=schema))
        rows = catalog.load_table(("tls_ns", "events")).scan().to_arrow().sort_by("id").to_pylist()
        s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}))  # endpoint, keys, CA: env
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=os.environ["AISTOR_WAREHOUSE"])["Contents"]]
        print(json.dumps({"health": health, "rows": rows, "keys": keys}))
    """, env)
    assert result["health"]["endpoint"] == tls_server.endpoint
    assert result["rows"] == [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]
    assert any(key.endswith(".parquet") for key in result["keys"])


def test_delta_sharing_over_https(tls_server, tls_s3, admin, trust, kernel_env, tmp_path):
    local = tmp_path / "orders"
    write_deltalake(str(local), pa.table({"id": [1, 2, 3], "city": ["Oslo", "Lima", "Pune"]}))
    tls_s3.create_bucket(Bucket="tls-shared")
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        tls_s3.upload_file(str(path), "tls-shared", f"orders/{path.relative_to(local).as_posix()}")
    admin.create_share("tls-share", "sales", ["orders:delta:tls-shared:orders"])
    profile = admin.create_token("tls-share", expires="1d")["profile"]
    # The profile and the presigned data URLs take the service's https scheme.
    assert profile["endpoint"] == f"{tls_server.endpoint}/delta-sharing"
    table_path = "/shares/tls-share/schemas/sales/tables/orders"
    query = requests.post(f"{profile['endpoint']}{table_path}/query", json={},
                          headers={"Authorization": f"Bearer {profile['bearerToken']}"},
                          verify=str(trust.ca), timeout=60)
    assert query.status_code == 200, query.text
    urls = [json.loads(line)["file"]["url"] for line in query.text.splitlines() if '"file"' in line]
    assert urls and all(url.startswith(f"{tls_server.endpoint}/tls-shared/orders/") for url in urls)
    assert requests.get(urls[0], verify=str(trust.ca), timeout=60).content[:4] == b"PAR1"

    # The released client verifies TLS for any host but "localhost": 127.0.0.1 is in the certificate.
    profile_file = tmp_path / "tls.share"
    profile_file.write_text(json.dumps(profile))
    result = run_python(f"""
        import json
        import delta_sharing
        frame = delta_sharing.load_as_pandas({str(profile_file)!r} + "#tls-share.sales.orders")
        print(json.dumps(frame.sort_values("id").to_dict("records")))
    """, kernel_env)
    assert result == [{"id": 1, "city": "Oslo"}, {"id": 2, "city": "Lima"}, {"id": 3, "city": "Pune"}]


@pytest.mark.timeout(1200)
def test_spark_over_https(tls_server, tls_s3, admin, trust, kernel_env):
    """One session in its own JVM, which trusts the CA through the truststore AISTOR_TRUSTSTORE names:
    the REST catalog and S3FileIO for an Iceberg table, S3A for a plain object."""
    ensure_kit()
    tls_s3.create_bucket(Bucket="tls-files")
    tls_s3.put_object(Bucket="tls-files", Key="hello.txt", Body=b"hello over tls\n")
    result = run_python("""
        import json
        from aistor_lab.workbench import spark as aistor_spark

        spark = aistor_spark.session(master="local[1]", **{"spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "1", "spark.ui.showConsoleProgress": "false"})
        spark.sparkContext.setLogLevel("ERROR")
        options = spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
        spark.sql("CREATE NAMESPACE spark_tls")
        spark.sql("CREATE TABLE spark_tls.items (id BIGINT, name STRING) USING iceberg")
        spark.sql("INSERT INTO spark_tls.items VALUES (1, 'one'), (2, 'two')")
        rows = [list(row) for row in spark.sql("SELECT id, name FROM spark_tls.items ORDER BY id").collect()]
        lines = [row.value for row in spark.read.text("s3a://tls-files/hello.txt").collect()]
        spark.stop()
        print(json.dumps({"options": options, "rows": rows, "lines": lines}))
    """, kernel_env, timeout=1100)
    assert f"-Djavax.net.ssl.trustStore={trust.truststore}" in result["options"]
    assert result["rows"] == [[1, "one"], [2, "two"]]
    assert result["lines"] == ["hello over tls"]
    snapshot = admin.load_table(WAREHOUSE, "spark_tls", "items")["metadata"]["snapshots"][-1]
    assert snapshot["summary"]["total-records"] == "2"
