"""Hostile clients against a real server: bodies refused before they are read, capped connections,
slow clients cut off, while signed requests keep being answered. The server's memory is its
resident set (VmRSS) as the kernel reports it.

Attackers connect from other loopback addresses than the signed clients, so that the cap on one
address's connections applies to them alone.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pytest
from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.httpsession import URLLib3Session
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from aistor_lab.http.small_body import BODY_LIMIT, UNVERIFIED_LIMIT_PER_CLIENT

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    admin_call,
    catalog_call,
    make_s3_client,
    seed_catalog_properties,
    service_with,
    signed_call,
)

HEADER_TIMEOUT = 2
BODY_TIMEOUT = 3
PER_CLIENT = 100
ATTACKER = "127.0.0.2"
CROWD = "127.0.0.3"
GIB = 1024**3
AWS_CHUNKED = ("Content-Encoding: aws-chunked\r\nx-amz-decoded-content-length: 1073741824\r\n"
               "x-amz-content-sha256: STREAMING-AWS4-HMAC-SHA256-PAYLOAD\r\n")
# Every API (S3 with plain and aws-chunked bodies), and the one route whose handler does not stream
# (health: tornado reads its body before any of ours): (method, path, extra headers).
TARGETS = [
    ("PUT", "/victim/object", ""),
    ("PUT", "/victim/object", AWS_CHUNKED),
    ("POST", "/_iceberg/v1/warehouses", ""),
    ("POST", "/_aistor/admin/v1/users", ""),
    ("POST", "/delta-sharing/shares/s/schemas/d/tables/t/query", ""),
    ("POST", "/_iceberg/v1/oauth/tokens", ""),
    ("POST", "/_aistor/health", ""),
]
# (declared length or None for chunked, seconds between pieces): fast and slow, huge and small.
BODIES = [(GIB, 0), (None, 0), (GIB, 0.2), (None, 0.2), (1024 * 1024, 0.2)]
OVERSIZED = BODY_LIMIT + 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {"AISTOR_HEADER_TIMEOUT": str(HEADER_TIMEOUT), "AISTOR_BODY_TIMEOUT": str(BODY_TIMEOUT),
           "AISTOR_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT)}
    with service_with(tmp_path_factory, env) as service:
        make_s3_client(service.endpoint).create_bucket(Bucket="victim")
        yield service


def rss_mib(server) -> float:
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class SignedTraffic:
    """Signed S3 and catalog calls in a loop on a thread, each of which must be answered."""

    def __init__(self, server):
        self.server = server
        self.s3 = make_s3_client(server.endpoint)
        self.answered = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.s3.put_object(Bucket="victim", Key="signed", Body=b"still here")
                assert self.s3.get_object(Bucket="victim", Key="signed")["Body"].read() == b"still here"
                status, body = catalog_call(self.server, "GET", "/v1/warehouses")
                assert status == 200, body
                self.answered += 1
            except Exception as exc:  # noqa: BLE001 - reported by the test
                self.failures.append(repr(exc))


async def hostile_body(port: int, method: str, path: str, headers: str, length: int | None, pause: float) -> bytes:
    """A request whose body is `length` bytes (None: chunked without end), sent as fast as the server
    takes it or a KiB at a time; returns whatever the server answered before it closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
    framing = f"Content-Length: {length}" if length else "Transfer-Encoding: chunked"
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}{framing}\r\n\r\n".encode())
    piece = b"{" * (1024 if pause else 256 * 1024)
    if not length:
        piece = b"%x\r\n%s\r\n" % (len(piece), piece)

    async def send() -> None:
        try:
            for _ in range(4096):
                writer.write(piece)
                await writer.drain()
                await asyncio.sleep(pause)
        except OSError:
            pass  # the server closed the connection: what we are waiting for

    sender = asyncio.create_task(send())
    try:
        return await asyncio.wait_for(reader.read(), timeout=20)
    except OSError:
        return b""  # reset
    finally:
        sender.cancel()
        writer.close()


async def attack(server, rounds: int = 2) -> float:
    """Every hostile body against every target, `rounds` times at once; returns the peak RSS seen."""
    peak = rss_mib(server)
    cases = [(*target, length, pause) for _ in range(rounds) for target in TARGETS for length, pause in BODIES]
    tasks = [asyncio.create_task(hostile_body(server.port, *case)) for case in cases]
    while not all(task.done() for task in tasks):
        peak = max(peak, rss_mib(server))
        await asyncio.sleep(0.05)
    for case, task in zip(cases, tasks, strict=True):
        answer = task.result()  # refused with a 4xx, or cut off without an answer
        assert not answer or 400 <= int(answer.split()[1]) < 500, (case, answer[:300])
    return peak


def test_anonymous_bodies_are_refused_without_growing_memory(server):
    asyncio.run(attack(server, rounds=1))  # warms up every code path the attack takes
    before = rss_mib(server)
    with SignedTraffic(server) as signed:
        peak = asyncio.run(attack(server))
    assert not signed.failures, signed.failures[:3]
    assert signed.answered > 0
    # 70 connections, each offering a GiB or an endless chunked body: a few MiB of buffers in all.
    assert peak - before < 40, f"RSS grew from {before:.0f} MiB to {peak:.0f} MiB"


async def aborted_upload(port: int, path: str) -> None:
    """Headers, a part of the body the server waits for (a refused body it drains), then a reset."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
    try:
        writer.write(f"PUT {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {1024 * 1024}\r\n\r\n".encode())
        writer.write(b"a" * 256 * 1024)
        await writer.drain()
        await asyncio.sleep(0.05)
    except ConnectionError:
        pass  # the server hung up first (under load, a connection over the cap): that request is over too
    finally:
        writer.transport.abort()


def test_aborted_requests_leave_nothing_behind(server):
    """A request whose client goes away mid-body is over: nothing of it stays in memory."""
    async def abort(count: int) -> None:
        for _ in range(count // 50):
            await asyncio.gather(*(aborted_upload(server.port, path)
                                   for path in ["/victim/aborted"] * 40 + ["/_iceberg/v1/warehouses"] * 10))

    # Warmed up by a first batch as large as the measured one: a shared server's heap settles
    # (arenas, free lists) in the first thousands; what a leak does is grow again with the second.
    asyncio.run(abort(3000))
    before = rss_mib(server)
    asyncio.run(abort(3000))
    assert rss_mib(server) - before < 10, f"RSS grew from {before:.0f} MiB to {rss_mib(server):.0f} MiB"


async def slow_headers(port: int, source: str, give_up: float) -> tuple[bytes, float]:
    """Headers a byte at a time that never end; returns the answer and when the server hung up."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(b"GET /_aistor/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")

    async def trickle() -> None:
        try:
            while True:
                await asyncio.sleep(0.25)
                writer.write(b"z")
                await writer.drain()
        except OSError:
            pass

    sender = asyncio.create_task(trickle())
    try:
        answer = await asyncio.wait_for(reader.read(), timeout=give_up)
    except OSError:
        answer = b""
    finally:
        sender.cancel()
        writer.close()
    return answer, loop.time() - started


def test_slow_loris_is_cut_off_and_signed_requests_go_on(server):
    async def crowd() -> list[tuple[bytes, float]]:
        return await asyncio.gather(*(slow_headers(server.port, ATTACKER, 15) for _ in range(60)))

    with SignedTraffic(server) as signed:
        results = asyncio.run(crowd())
    assert not signed.failures, signed.failures[:3]
    assert signed.answered > 0
    for answer, seconds in results:
        # Closed by the header timeout (a give-up would raise TimeoutError out of the crowd).
        assert answer == b"" and seconds >= HEADER_TIMEOUT - 0.5


def test_connections_of_one_address_are_capped(server):
    async def crowd() -> list[bytes]:
        streams = [await asyncio.open_connection("127.0.0.1", server.port, local_addr=(CROWD, 0))
                   for _ in range(PER_CLIENT + 10)]
        for _, writer in streams:
            writer.write(b"GET /_aistor/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")

        async def status_line(reader) -> bytes:
            try:
                return await asyncio.wait_for(reader.readline(), timeout=10)
            except OSError:
                return b""

        lines = await asyncio.gather(*(status_line(reader) for reader, _ in streams))
        for _, writer in streams:
            writer.close()
        return lines

    lines = asyncio.run(crowd())
    assert sum(line.startswith(b"HTTP/1.1 200") for line in lines) == PER_CLIENT
    assert lines.count(b"") == 10
    assert catalog_call(server, "GET", "/v1/warehouses")[0] == 200  # other addresses are not affected


def test_answers_say_how_long_an_idle_connection_stays_open(server):
    """Clients that honour Keep-Alive (Apache HttpClient) then drop an idle connection before the
    server closes it."""
    hint = f"timeout={HEADER_TIMEOUT - 1}"
    assert make_s3_client(server.endpoint).list_buckets()["ResponseMetadata"]["HTTPHeaders"]["keep-alive"] == hint
    assert signed_call(server, "GET", "/_iceberg/v1/warehouses", service="s3tables").headers["Keep-Alive"] == hint
    assert signed_call(server, "GET", "/_aistor/admin/v1/users").headers["Keep-Alive"] == hint


async def signed_upload(server, key: str, size: int, pieces: list[tuple[int, float]]) -> bytes:
    """A SigV4-signed PUT of `size` bytes whose body goes out as (bytes, pause before them) pieces;
    returns the server's answer, or b"" when it closed the connection without one."""
    request = AWSRequest("PUT", f"{server.endpoint}/victim/{key}", data=b"", headers={"Content-Length": str(size)})
    request.context["client_config"] = Config(s3={"payload_signing_enabled": False})  # UNSIGNED-PAYLOAD
    S3SigV4Auth(Credentials(ROOT_USER, ROOT_PASSWORD), "s3", "us-east-1").add_auth(request)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    head = "".join(f"{name}: {value}\r\n" for name, value in request.headers.items())
    writer.write(f"PUT /victim/{key} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n{head}\r\n".encode())
    try:
        for count, pause in pieces:
            await asyncio.sleep(pause)
            writer.write(b"u" * count)
            await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout=BODY_TIMEOUT + 10)
    except OSError:
        return b""
    finally:
        writer.close()


def test_an_upload_may_be_slow_but_not_stall(server):
    """The body timeout of a signed upload counts from its last byte, not from its first."""
    s3 = make_s3_client(server.endpoint)
    steady = [(4096, 0.25)] * int((BODY_TIMEOUT + 1) / 0.25)
    answer = asyncio.run(signed_upload(server, "steady", 4096 * len(steady), steady))
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    assert s3.head_object(Bucket="victim", Key="steady")["ContentLength"] == 4096 * len(steady)
    answer = asyncio.run(signed_upload(server, "stalled", 1024 * 1024, [(4096, 0)]))
    assert answer == b""  # cut off after the body timeout
    with pytest.raises(s3.exceptions.ClientError):
        s3.head_object(Bucket="victim", Key="stalled")


def test_a_download_whose_client_stops_reading_is_cut_off(server):
    size = 32 * 1024 * 1024
    make_s3_client(server.endpoint).put_object(Bucket="victim", Key="big", Body=b"b" * size)
    request = AWSRequest("GET", f"{server.endpoint}/victim/big")
    S3SigV4Auth(Credentials(ROOT_USER, ROOT_PASSWORD), "s3", "us-east-1").add_auth(request)
    head = "".join(f"{name}: {value}\r\n" for name, value in request.headers.items())

    async def stop_reading() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(f"GET /victim/big HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n{head}\r\n".encode())
        first = await reader.read(64 * 1024)
        await asyncio.sleep(BODY_TIMEOUT + 2)  # reading nothing
        try:
            rest = await asyncio.wait_for(reader.read(), timeout=10)  # what was under way, then the end
        except OSError:
            rest = b""
        writer.close()
        return first + rest

    received = asyncio.run(stop_reading())
    assert received.startswith(b"HTTP/1.1 200") and len(received) < size
    # The request is over too: the object's file is closed.
    deadline = time.monotonic() + 5
    while open_data_files(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert open_data_files(server) == []


def open_data_files(server) -> list[str]:
    """The files under the server's data directory it holds open, but for those it holds as long as it
    runs: its index, its log, its lock."""
    held = []
    for fd in Path(f"/proc/{server.proc.pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except FileNotFoundError:  # closed meanwhile
            continue
        name = Path(target).name
        if target.startswith(str(server.data_dir)) and not name.startswith("index.") \
                and name != "server.log" and not name.endswith(".lock"):
            held.append(target)
    return held


def test_oversized_json_bodies_are_413_in_each_api_format(server):
    """Refused on their Content-Length, before anything else, and answered once the body is dropped."""
    big = {"name": "x" * OVERSIZED}
    status, error = catalog_call(server, "POST", "/v1/warehouses", big)
    assert status == 413 and error["error"]["code"] == 413 and error["error"]["type"], error
    status, error = admin_call(server, "POST", "/users", big)
    assert status == 413 and error["code"] == "EntityTooLarge", error
    response = URLLib3Session().send(AWSRequest(
        "POST", f"{server.endpoint}/delta-sharing/shares/s/schemas/d/tables/t/query", data=json.dumps(big),
        headers={"Authorization": "Bearer some-token"}).prepare())
    assert response.status_code == 413 and json.loads(response.content)["errorCode"] == "MALFORMED_REQUEST", response.text


async def forged_catalog_post(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The headers of a catalog POST that names the root user's key with a made-up signature of a body
    the headers carry no hash of: only the body can show the signature is wrong."""
    now = datetime.now(UTC)
    credential = f"{ROOT_USER}/{now:%Y%m%d}/local/s3tables/aws4_request"
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
    writer.write((f"POST /_iceberg/v1/warehouses HTTP/1.1\r\nHost: 127.0.0.1\r\nx-amz-date: {now:%Y%m%dT%H%M%SZ}\r\n"
                  f"Authorization: AWS4-HMAC-SHA256 Credential={credential}, SignedHeaders=host;x-amz-date, "
                  f"Signature={'0' * 64}\r\nContent-Length: {BODY_LIMIT}\r\n\r\n").encode())
    await writer.drain()
    return reader, writer


def test_bodies_read_before_their_signature_are_limited_per_address(server):
    async def scenario() -> tuple[list[bytes], bytes, bytes]:
        holders = [await forged_catalog_post(server.port) for _ in range(UNVERIFIED_LIMIT_PER_CLIENT // BODY_LIMIT)]
        await asyncio.sleep(0.5)  # the server has read their headers and holds room for their bodies
        reader, writer = await forged_catalog_post(server.port)
        writer.write(b"{" * BODY_LIMIT)
        one_more = await asyncio.wait_for(reader.read(), timeout=10)
        for _, held in holders:
            held.write(b"{" * BODY_LIMIT)
        answers = [await asyncio.wait_for(answer.read(), timeout=10) for answer, _ in holders]
        reader, writer = await forged_catalog_post(server.port)  # the room is free again
        writer.write(b"{" * BODY_LIMIT)
        after = await asyncio.wait_for(reader.read(), timeout=10)
        for _, held in [*holders, (reader, writer)]:
            held.close()
        return answers, one_more, after

    answers, one_more, after = asyncio.run(scenario())
    assert one_more.startswith(b"HTTP/1.1 503") and b"ServiceUnavailableException" in one_more, one_more[:300]
    for answer in [*answers, after]:
        assert answer.startswith(b"HTTP/1.1 401") and b"NotAuthorizedException" in answer, answer[:300]


def test_a_body_other_than_the_signed_one_is_refused(server):
    """PyIceberg's signer puts no payload hash in the headers: the signature covers the body itself,
    which is then verified once it is in, before the catalog acts on it."""
    request = AWSRequest("POST", f"{server.endpoint}/_iceberg/v1/warehouses", data=json.dumps({"name": "signed"}))
    SigV4Auth(Credentials(ROOT_USER, ROOT_PASSWORD), "s3tables", "local").add_auth(request)
    prepared = request.prepare()
    prepared.body = json.dumps({"name": "forged"})
    response = URLLib3Session().send(prepared)
    assert response.status_code == 401 and json.loads(response.content)["error"]["type"] == "NotAuthorizedException"
    assert catalog_call(server, "GET", "/v1/warehouses/forged")[0] == 404


class JavaSdkSigner(SigV4Auth):
    """Signs as the AWS SDK for Java does for Iceberg's REST client: the body's SHA-256 travels in
    x-amz-content-sha256 in base64, and its hex form is the signed payload hash."""

    def canonical_request(self, request):
        digest = base64.b64decode(request.headers["x-amz-content-sha256"])
        return super().canonical_request(request).rsplit("\n", 1)[0] + "\n" + digest.hex()


@pytest.mark.parametrize("forged", [False, True])
def test_a_body_is_checked_against_the_hash_in_its_headers(server, forged):
    """Such a signature is verified on the headers alone, before the body is read; the body must
    then have the hash."""
    body = json.dumps({"name": f"java{uuid.uuid4().hex[:6]}"}).encode()
    sha256 = base64.b64encode(hashlib.sha256(body).digest()).decode()
    request = AWSRequest("POST", f"{server.endpoint}/_iceberg/v1/warehouses", data=body,
                         headers={"x-amz-content-sha256": sha256})
    JavaSdkSigner(Credentials(ROOT_USER, ROOT_PASSWORD), "s3tables", "local").add_auth(request)
    prepared = request.prepare()
    if forged:
        prepared.body = body.replace(b"java", b"fake")
    response = URLLib3Session().send(prepared)
    assert response.status_code == (401 if forged else 200), response.content


def test_pyiceberg_still_works(server):
    warehouse = f"limits{uuid.uuid4().hex[:6]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    catalog = load_catalog("limits", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.t", Schema(NestedField(1, "id", LongType(), required=True)))
    table.append(pa.table({"id": [1, 2, 3]}, schema=pa.schema([pa.field("id", pa.int64(), nullable=False)])))
    assert sorted(catalog.load_table("ns.t").scan().to_arrow()["id"].to_pylist()) == [1, 2, 3]
