"""The Jupyter server extension under a real Jupyter server (pytest-jupyter): the service comes up
with Jupyter and goes down with it, restarts when it dies, kernels see it, and the side panel's
REST API works and refuses requests without Jupyter's token.

pytest-jupyter's fixtures are imported into this module rather than registered as a plugin: its
autouse fixtures (an event loop and a ServerApp cleanup around every test) then apply here only.
Coroutines run on its loop, ``jp_asyncio_loop``.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from contextlib import contextmanager
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import boto3
import delta_sharing
import pandas as pd
import pyarrow as pa
import pytest
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog as pyiceberg_catalog
from pytest_jupyter.jupyter_server import *
from tornado.httpclient import HTTPClientError

from aistor_lab.workbench.client import AIStorClient, ServiceConfig, ServiceError, load_catalog
from aistor_lab.workbench.jupyter.extension import kernel_environment
from aistor_lab.workbench.jupyter.process import free_port

from .conftest import ROOT_PASSWORD, ROOT_USER, seed_catalog_properties

EXPORTED = list(kernel_environment(ServiceConfig("http://x", "a", "b")))
API_ROUTES = [
    ("GET", "aistor-lab/api/status"),
    ("GET", "aistor-lab/api/warehouses"),
    ("GET", "aistor-lab/api/warehouses/analytics/children"),
    ("GET", "aistor-lab/api/warehouses/analytics/namespaces/sales/tables/orders"),
    ("GET", "aistor-lab/api/warehouses/analytics/namespaces/sales/tables/orders/rows"),
    ("GET", "aistor-lab/api/warehouses/analytics/namespaces/sales/tables/orders/profile"),
    ("GET", "aistor-lab/api/warehouses/analytics/namespaces/sales/views/recent"),
    ("GET", "aistor-lab/api/shares"),
    ("GET", "aistor-lab/api/shares/some-share"),
    ("GET", "aistor-lab/api/shares/some-share/tokens"),
    ("POST", "aistor-lab/api/commands"),
]


@pytest.fixture
def isolated_env(monkeypatch):
    """The extension exports the service into os.environ: undo that after each test."""
    for name in EXPORTED:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def aistor_config():
    return {"watch_interval": 0.2, "stop_timeout": 5}


@pytest.fixture
def jp_server_config(isolated_env, aistor_config):
    return {
        "ServerApp": {"jpserver_extensions": {"aistor_lab": True}, "allow_root": True},
        "AIStorLabApp": aistor_config,
    }


@pytest.fixture
def run(jp_asyncio_loop):
    return jp_asyncio_loop.run_until_complete


@pytest.fixture
def extension(jp_serverapp, run):
    """The extension, started as Jupyter starts it (the fixture does not call the start hook)."""
    app = jp_serverapp.extension_manager.extension_points["aistor_lab"].app
    run(app._start_jupyter_server_extension(jp_serverapp))
    return app


def wait_until(predicate, timeout: float = 60, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def api(run, jp_fetch, path: str, method: str = "GET", body=None):
    kwargs = {"method": method}
    if body is not None:
        kwargs["body"] = json.dumps(body)
    response = run(jp_fetch(*path.split("/"), **kwargs))
    return json.loads(response.body)


def api_error(run, jp_fetch, path: str, method: str = "GET", body=None) -> tuple[int, dict]:
    with pytest.raises(HTTPClientError) as failure:
        api(run, jp_fetch, path, method, body)
    return failure.value.code, json.loads(failure.value.response.body)


def test_service_comes_up_with_jupyter_and_goes_down_with_it(extension, jp_serverapp, jp_fetch, jp_data_dir, run):
    supervisor = extension.supervisor
    process = supervisor.process
    assert supervisor.running and process.healthy()

    status = api(run, jp_fetch, "aistor-lab/api/status")
    assert status["mode"] == "managed" and status["healthy"] is True
    assert status["endpoint"] == process.endpoint and status["pid"] == process.proc.pid
    # the defaults need nothing: a free port, a data dir under Jupyter's data dir
    assert process.data_dir == jp_data_dir / "aistor-lab" / "data"
    assert process.port != 8888

    # what kernels will inherit
    assert os.environ["AISTOR_ENDPOINT"] == process.endpoint
    assert os.environ["AWS_ENDPOINT_URL"] == process.endpoint
    assert os.environ["AISTOR_ACCESS_KEY"] == os.environ["AWS_ACCESS_KEY_ID"] == "minioadmin"
    assert os.environ["AISTOR_WAREHOUSE"] == "analytics"
    assert "analytics" in AIStorClient.from_env().list_warehouses()  # the default warehouse exists

    run(jp_serverapp.cleanup_extensions())
    assert process.proc.poll() is not None
    assert not process.healthy()


def test_restarts_the_service_when_it_dies(extension, jp_fetch, run):
    process = extension.supervisor.process
    first_pid = process.proc.pid
    AIStorClient.from_env().create_namespace("analytics", f"kept_{uuid.uuid4().hex[:6]}")
    os.kill(first_pid, signal.SIGKILL)

    def restarted():
        status = api(run, jp_fetch, "aistor-lab/api/status")
        return status if status["healthy"] and status["pid"] not in (None, first_pid) else None

    status = wait_until(restarted, what="the service to be restarted")
    assert status["restarts"] == 1 and status["endpoint"] == process.endpoint
    # same port, same data
    assert any(ns[0].startswith("kept_") for ns in AIStorClient.from_env().list_namespaces("analytics"))


@pytest.mark.parametrize("aistor_config", [{"stop_timeout": 1}])
def test_a_stuck_service_does_not_stall_shutdown(extension, jp_serverapp, run):
    process = extension.supervisor.process
    os.kill(process.proc.pid, signal.SIGSTOP)  # it can no longer act on SIGTERM
    run(jp_serverapp.cleanup_extensions())
    assert process.proc.poll() is not None  # killed


def test_configuration_reaches_the_service(jp_configurable_serverapp, isolated_env, tmp_path, run):
    port = free_port()
    config = {
        "ServerApp": {"jpserver_extensions": {"aistor_lab": True}},
        "AIStorLabApp": {"address": f"127.0.0.1:{port}", "data_dir": str(tmp_path / "lake"),
                         "root_user": "labadmin", "root_password": "lab-secret-1",
                         "public_endpoint": "https://lab.example.net", "default_warehouse": "lake"},
    }
    serverapp = jp_configurable_serverapp(config=config)
    app = serverapp.extension_manager.extension_points["aistor_lab"].app
    run(app._start_jupyter_server_extension(serverapp))
    assert app.supervisor.process.endpoint == f"http://127.0.0.1:{port}"
    assert (tmp_path / "lake").is_dir() and any((tmp_path / "lake").iterdir())
    assert os.environ["AISTOR_ACCESS_KEY"] == "labadmin" and os.environ["AISTOR_WAREHOUSE"] == "lake"
    client = AIStorClient.from_env()
    assert "lake" in client.list_warehouses()
    client.create_share("configured", "s", ["t:delta:lake:t"])
    # profiles carry the public endpoint, not the loopback address
    assert client.create_token("configured")["profile"]["endpoint"] == "https://lab.example.net/delta-sharing"
    wrong = AIStorClient(ServiceConfig(client.config.endpoint, "minioadmin", "minioadmin"))
    with pytest.raises(ServiceError) as denied:
        wrong.list_warehouses()
    assert denied.value.status in (401, 403)


def test_attach_to_a_running_service(server, jp_configurable_serverapp, isolated_env, run):
    config = {
        "ServerApp": {"jpserver_extensions": {"aistor_lab": True}},
        "AIStorLabApp": {"endpoint": server.endpoint + "/", "default_warehouse": ""},
    }
    serverapp = jp_configurable_serverapp(config=config)
    app = serverapp.extension_manager.extension_points["aistor_lab"].app
    run(app._start_jupyter_server_extension(serverapp))
    assert app.supervisor is None
    status = app.status()
    assert status["mode"] == "attached" and status["healthy"] and status["endpoint"] == server.endpoint
    assert os.environ["AISTOR_ENDPOINT"] == server.endpoint
    assert os.environ["AISTOR_WAREHOUSE"] == ""


def test_kernels_see_the_service(extension, jp_serverapp, run):
    """A kernel started by this Jupyter needs no configuration: the magics and load_catalog work."""
    manager = jp_serverapp.kernel_manager
    kernel_id = run(manager.start_kernel())
    client = manager.get_kernel(kernel_id).client()
    client.start_channels()
    code = """
%load_ext aistor_lab
import os, json
from aistor_lab.workbench.client import load_catalog
warehouses = %aistor warehouse list --json
namespaces = list(load_catalog().list_namespaces())
print(json.dumps({"endpoint": os.environ["AISTOR_ENDPOINT"], "warehouses": warehouses, "namespaces": namespaces}))
"""
    outputs = []

    async def execute():
        await client.wait_for_ready(timeout=60)
        reply = await client.execute_interactive(
            code, timeout=60,
            output_hook=lambda m: outputs.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None,
        )
        return reply

    try:
        reply = run(execute())
    finally:
        client.stop_channels()
        run(manager.shutdown_kernel(kernel_id, now=True))
    assert reply["content"]["status"] == "ok", reply["content"]
    seen = json.loads("".join(outputs))
    assert seen["endpoint"] == extension.supervisor.process.endpoint
    assert "analytics" in seen["warehouses"]
    assert isinstance(seen["namespaces"], list)


def test_table_details(extension, jp_fetch, run):
    namespace = f"sales_{uuid.uuid4().hex[:6]}"
    client = AIStorClient.from_env()
    client.create_namespace("analytics", namespace)
    client.create_namespace("analytics", f"{namespace}.eu")
    catalog = load_catalog()  # from the exported environment alone
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
    table = catalog.create_table(f"{namespace}.eu.orders", schema=schema)
    big = 2**60  # beyond what a JavaScript number holds exactly
    table.append(pa.table({"id": [1, 2, 3, big], "name": ["a", "b", "c", "big"]}, schema=schema))

    details = api(run, jp_fetch, f"aistor-lab/api/warehouses/analytics/namespaces/{namespace}.eu/tables/orders")
    assert [f["name"] for f in details["schema"]["fields"]] == ["id", "name"]
    assert details["partitionSpec"]["fields"] == []
    assert len(details["snapshots"]) == 1 and details["currentSnapshotId"] == details["snapshots"][0]["snapshot-id"]
    # 64-bit snapshot ids and long values come as text, so the panel shows them unrounded.
    assert details["currentSnapshotId"] == str(table.metadata.current_snapshot_id)
    assert details["preview"]["columns"] == ["id", "name"]
    ids = {r["name"]: r["id"] for r in details["preview"]["rows"]}
    assert ids == {"a": 1, "b": 2, "c": 3, "big": str(big)}

    code, error = api_error(run, jp_fetch, f"aistor-lab/api/warehouses/analytics/namespaces/{namespace}/tables/nope")
    assert code == 404 and "nope" in error["error"]


@contextmanager
def counting_proxy(upstream: str):
    """A plain HTTP relay in front of the service that records the (method, path) of every request it
    passes on: what the service sees, counted from outside. The Host header goes through as the
    client signed it, so SigV4 still verifies."""
    target = urlsplit(upstream)
    seen: list[tuple[str, str]] = []

    class Relay(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def relay(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append((self.command, urlsplit(self.path).path))
            upstream_connection = HTTPConnection(target.hostname, target.port, timeout=60)
            try:
                upstream_connection.request(self.command, self.path, body, dict(self.headers))
                response = upstream_connection.getresponse()
                content = response.read()
            finally:
                upstream_connection.close()
            self.send_response_only(response.status, response.reason)
            # The body comes whole, so its length is known; a HEAD answer keeps the object's length.
            dropped = ("transfer-encoding", "connection") + (() if self.command == "HEAD" else ("content-length",))
            for name, value in response.getheaders():
                if name.lower() not in dropped:
                    self.send_header(name, value)
            if self.command != "HEAD":
                self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = relay

        def log_message(self, *args) -> None:
            pass

    relay = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
    relay.daemon_threads = True
    thread = threading.Thread(target=relay.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{relay.server_port}", seen
    finally:
        relay.shutdown()
        relay.server_close()


class TestPanelThroughACountingProxy:
    """The extension attached to the test server through a counting proxy."""

    @pytest.fixture
    def proxy(self, server):
        with counting_proxy(server.endpoint) as endpoint_and_seen:
            yield endpoint_and_seen

    @pytest.fixture
    def aistor_config(self, proxy):
        return {"endpoint": proxy[0], "default_warehouse": ""}

    def test_table_details_are_one_catalog_call(self, server, proxy, extension, jp_fetch, run):
        """Schema, spec, properties, snapshots and first rows of a table: one load of it from the
        catalog; the rows come from its data files, through S3."""
        _, seen = proxy
        warehouse, namespace = f"panel-{uuid.uuid4().hex[:6]}", f"ns_{uuid.uuid4().hex[:6]}"
        direct = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
        direct.create_warehouse(warehouse)
        direct.create_namespace(warehouse, namespace)
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
        catalog = pyiceberg_catalog("direct", **seed_catalog_properties(server, warehouse))
        catalog.create_table(f"{namespace}.orders", schema=schema).append(pa.table({"id": [1, 2]}, schema=schema))
        seen.clear()

        details = api(run, jp_fetch, f"aistor-lab/api/warehouses/{warehouse}/namespaces/{namespace}/tables/orders")
        assert sorted(row["id"] for row in details["preview"]["rows"]) == [1, 2]
        assert len(details["snapshots"]) == 1
        catalog_calls = [(method, path) for method, path in seen if path.startswith("/_iceberg/")]
        assert catalog_calls == [("GET", f"/_iceberg/v1/{warehouse}/namespaces/{namespace}/tables/orders")]
        assert {method for method, _ in seen} <= {"GET", "HEAD"}  # the rest: reads of its files


def test_tree_loads_one_level_at_a_time(extension, jp_fetch, run):
    """The panel opens a warehouse or a namespace and gets that level only: namespaces as level
    lists, and a namespace's tables and views."""
    namespace = f"lazy_{uuid.uuid4().hex[:6]}"
    client = AIStorClient.from_env()
    client.create_namespace("analytics", namespace)
    client.create_namespace("analytics", f"{namespace}.eu")
    schema = {"type": "struct", "schema-id": 0,
              "fields": [{"id": 1, "name": "id", "type": "long", "required": True}]}
    client.create_table("analytics", namespace, "orders", schema)
    client.catalog_call("POST", f"/analytics/namespaces/{namespace}/views", {
        "name": "recent", "schema": schema, "properties": {},
        "view-version": {"version-id": 1, "timestamp-ms": int(time.time() * 1000), "schema-id": 0,
                         "summary": {}, "default-namespace": [namespace],
                         "representations": [{"type": "sql", "sql": "SELECT * FROM orders", "dialect": "spark"}]},
    })

    assert "analytics" in api(run, jp_fetch, "aistor-lab/api/warehouses")
    top = api(run, jp_fetch, "aistor-lab/api/warehouses/analytics/children")
    assert [namespace] in top["namespaces"] and top["tables"] == [] and top["views"] == []
    def children(parent: str) -> dict:
        path = ("aistor-lab", "api", "warehouses", "analytics", "children")
        return json.loads(run(jp_fetch(*path, params={"parent": parent})).body)

    assert children(namespace) == {"namespaces": [[namespace, "eu"]], "tables": ["orders"], "views": ["recent"]}
    assert children(f"{namespace}.eu") == {"namespaces": [], "tables": [], "views": []}

    code, error = api_error(run, jp_fetch, "aistor-lab/api/warehouses/no-such-warehouse/children")
    assert code == 404 and "no-such-warehouse" in error["error"]


def test_share_routes_and_token_action(extension, jp_fetch, run, tmp_path):
    """boto3 and deltalake find the service through the exported AWS_* variables alone; the panel's
    share routes list what the commands endpoint created."""
    bucket = f"people-{uuid.uuid4().hex[:6]}"
    boto3.client("s3").create_bucket(Bucket=bucket)
    write_deltalake(f"s3://{bucket}/people", pd.DataFrame({"id": [1, 2]}))
    share = f"panel-{uuid.uuid4().hex[:6]}"
    argv = ["share", "create", share, "hr", f"people:delta:{bucket}:people", "--description", "d"]
    assert api(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": argv})["data"]["name"] == share

    assert share in [s["name"] for s in api(run, jp_fetch, "aistor-lab/api/shares")]
    info = api(run, jp_fetch, f"aistor-lab/api/shares/{share}")
    assert info["schemas"] == [{"name": "hr", "tables": [{**info["schemas"][0]["tables"][0], "name": "people"}]}]
    token = api(run, jp_fetch, "aistor-lab/api/commands", "POST",
                {"argv": ["share", "token", "create", share, "--expires", "1d"]})["data"]
    assert [t["id"] for t in api(run, jp_fetch, f"aistor-lab/api/shares/{share}/tokens")] == [token["id"]]
    (tmp_path / "profile.share").write_text(json.dumps(token["profile"]))
    assert len(delta_sharing.load_as_pandas(f"{tmp_path / 'profile.share'}#{share}.hr.people")) == 2
    code, error = api_error(run, jp_fetch, "aistor-lab/api/shares/no-such-share")
    assert code == 404 and "does not exist" in error["error"]


def test_commands_endpoint_runs_the_command_table(extension, jp_fetch, run):
    name = f"panel-{uuid.uuid4().hex[:6]}"
    done = api(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": ["warehouse", "create", name]})
    assert done["command"] == "warehouse create" and name in done["text"]
    listed = api(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": ["warehouse", "list"]})
    assert name in listed["data"] and "<table" in listed["html"]

    code, error = api_error(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": ["warehouse", "create", name]})
    assert code == 409 and "already exists" in error["error"]
    code, error = api_error(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": ["warehouse", "frobnicate"]})
    assert code == 400 and "usage:" in error["usage"]
    code, _ = api_error(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": "warehouse list"})
    assert code == 400
    # the panel has no use for aliases or a kernel's `spark`
    code, _ = api_error(run, jp_fetch, "aistor-lab/api/commands", "POST", {"argv": ["alias", "list"]})
    assert code == 400


def test_api_answers_503_when_the_service_is_down(extension, jp_fetch, run):
    extension.supervisor._watch.stop()  # no restart for this test
    extension.supervisor.process.stop()
    assert api(run, jp_fetch, "aistor-lab/api/status")["healthy"] is False
    code, error = api_error(run, jp_fetch, "aistor-lab/api/warehouses")
    assert code == 503 and "cannot reach" in error["error"]


@pytest.mark.parametrize(("method", "path"), API_ROUTES)
def test_every_route_refuses_requests_without_the_token(extension, http_server_client, jp_base_url, run,
                                                        method, path):
    body = json.dumps({"argv": ["warehouse", "list"]}) if method == "POST" else None
    response = run(http_server_client.fetch(jp_base_url + path, method=method, body=body, raise_error=False))
    assert response.code == 403
    assert b"analytics" not in response.body and b"minioadmin" not in response.body
    wrong = run(http_server_client.fetch(jp_base_url + path, method=method, body=body, raise_error=False,
                                         headers={"Authorization": "token not-the-token"}))
    assert wrong.code == 403
