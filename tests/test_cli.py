"""The ``aistor`` CLI as a subprocess against a real server: the seeds' ``mc table ...`` command lines
(run literally, with ``mc`` and ``aistor`` as shell functions calling this CLI), every command of the
table in text and JSON, bad arguments, service errors and a service that is down (exit codes)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid

import delta_sharing
import pandas as pd
import pyarrow as pa
import pytest
from deltalake import write_deltalake
from pyiceberg.catalog import load_catalog

from aistor_lab.workbench.jupyter.process import free_port

from .conftest import ROOT_PASSWORD, ROOT_USER, seed_catalog_properties

CLI = [sys.executable, "-m", "aistor_lab.workbench.aistor_cli"]
SEED_SCHEMA = ('{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":true},'
               '{"id":2,"name":"name","type":"string","required":false}]}')
EMPLOYEES = pd.DataFrame({
    "id": [1, 2, 3, 4, 5],
    "name": ["Alice", "Bob", "Carol", "David", "Eve"],
    "department": ["Engineering", "Sales", "Engineering", "Marketing", "Sales"],
    "salary": [95000, 65000, 110000, 72000, 68000],
})


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A clean environment: aliases in the test's own directory, no service from the environment."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("AISTOR_", "AWS_"))}
    environment["AISTOR_CONFIG_DIR"] = str(tmp_path / "aistor-config")
    return environment


@pytest.fixture
def aistor(env, tmp_path):
    def run(*args: str, extra_env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([*CLI, *args], env={**env, **(extra_env or {})}, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False)

    return run


@pytest.fixture
def shell(env, tmp_path):
    """Runs seed lines in bash, where ``mc`` and ``aistor`` are this CLI."""
    command = " ".join(shlex.quote(part) for part in CLI)
    prelude = f'mc() {{ {command} "$@"; }}\naistor() {{ {command} "$@"; }}\nset -o pipefail\n'

    def run(script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", prelude + script], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, check=False)

    return run


@pytest.fixture
def alias(aistor, server):
    def make(name: str) -> None:
        done = aistor("alias", "set", name, server.endpoint, ROOT_USER, ROOT_PASSWORD)
        assert done.returncode == 0, done.stderr

    return make


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def as_json(result: subprocess.CompletedProcess):
    return json.loads(ok(result))


def failed(result: subprocess.CompletedProcess, code: int) -> str:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    return result.stderr


def storage_options(server) -> dict:
    return {"AWS_ACCESS_KEY_ID": ROOT_USER, "AWS_SECRET_ACCESS_KEY": ROOT_PASSWORD,
            "AWS_ENDPOINT_URL": server.endpoint, "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1"}


def ensure_bucket(s3, name: str) -> None:
    if name not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
        s3.create_bucket(Bucket=name)


def test_seed_000_tables_quickstart(server, alias, shell):
    """Seed 000's four commands, verbatim."""
    alias("myaistor")
    done = shell(f"""
mc table warehouse create myaistor mywarehouse
mc table namespace create myaistor mywarehouse mynamespace
mc table create myaistor mywarehouse mynamespace mytable \\
  --schema '{SEED_SCHEMA}'
mc table list myaistor mywarehouse mynamespace
""")
    out = ok(done)
    assert "Warehouse 'mywarehouse' created." in out
    assert "Table 'mynamespace.mytable' created in warehouse 'mywarehouse'." in out
    assert out.rstrip().endswith("table\nmytable")

    table = load_catalog("aistor", **seed_catalog_properties(server, "mywarehouse")).load_table("mynamespace.mytable")
    fields = [(f.name, str(f.field_type), f.required) for f in table.schema().fields]
    assert fields == [("id", "long", True), ("name", "string", False)]


def test_seed_003_sharing_quickstart_profile_works_with_delta_sharing(server, s3, alias, shell, tmp_path):
    """Seed 003: a Delta table, `share create`, `token create ... --json | jq -r '.profile' > profile.share`,
    then the seed's delta_sharing reader with that profile."""
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    ensure_bucket(s3, "analytics")
    write_deltalake("s3://analytics/employees/", EMPLOYEES, mode="overwrite", storage_options=storage_options(server))
    alias("myaistor")
    done = shell("""
mc table share create myaistor/analytics-share HR \\
  "employees:delta:analytics:employees/" \\
  --description "Analytics for current employees"
mc table share token create myaistor/analytics-share \\
  --expires 90d \\
  --description "Access to analytics share for HR-associated tables" \\
  --json | jq -r '.profile' > profile.share
""")
    assert "Share 'analytics-share' created with 1 table in schema 'HR'." in ok(done)

    profile = json.loads((tmp_path / "profile.share").read_text())
    assert profile["shareCredentialsVersion"] == 1 and profile["bearerToken"].startswith("dapi")
    assert profile["endpoint"] == f"{server.endpoint}/delta-sharing" and profile["expirationTime"]
    client = delta_sharing.SharingClient(str(tmp_path / "profile.share"))
    assert "analytics-share" in [s.name for s in client.list_shares()]
    assert [(t.share, t.schema, t.name) for t in client.list_all_tables()] == [("analytics-share", "HR", "employees")]
    df = delta_sharing.load_as_pandas(f"{tmp_path / 'profile.share'}#analytics-share.HR.employees")
    assert df.sort_values("id").to_dict("records") == EMPLOYEES.to_dict("records")


def test_seed_004_share_administration(server, s3, alias, shell, aistor):
    """Seed 004's share commands against `minio`: create, update --add, list, info (the tree), token create,
    update --remove, remove."""
    ensure_bucket(s3, "testdelta")
    write_deltalake("s3://testdelta/tpch/orders", EMPLOYEES, mode="overwrite", storage_options=storage_options(server))
    alias("minio")
    ok(shell("""
mc table warehouse create minio testice
mc table warehouse ls minio
mc table namespace create minio testice tpch
mc table namespace list minio testice
mc table create minio testice tpch customer --schema 'id long not null, name string'
"""))
    out = ok(shell("""
mc table share create minio/test tpch "orders:delta:testdelta:tpch/orders"
mc table share update minio/test --add "tpch:customer:uniform:testice:tpch:customer"
mc table share list minio/test
"""))
    assert "Share 'test' updated: added 1 table." in out
    assert out.splitlines()[-2].split()[:3] == ["share", "description", "schemas"]
    assert out.splitlines()[-1].startswith("test ")
    [listed] = as_json(aistor("share", "list", "minio/test", "--json"))
    assert (listed["name"], listed["schemas"], listed["tables"]) == ("test", 1, 2)

    tree = ok(shell("mc table share info minio/test"))
    expected = """Share: test
ID: <id>
Created: <time>
Updated: <time>

Schemas:
  └─ tpch (2 tables)
      ├─ orders [Delta]
      │   Bucket: testdelta
      │   Location: tpch/orders
      └─ customer [UniForm]
          Warehouse: testice
          Namespace: tpch
          Table: customer
"""
    normalized = re.sub(r"ID: [0-9a-f-]{36}", "ID: <id>", tree)
    assert re.sub(r"(Created|Updated): \S+", r"\1: <time>", normalized) == expected

    token = ok(shell('mc table share token create minio/test --expires 30d --description "test token"'))
    lines = token.splitlines()
    assert lines[0] == "Token created successfully for share 'test'."
    assert re.fullmatch(r"Token ID: {4}[0-9a-f-]{36}", lines[2])
    assert re.fullmatch(r"Token: {7}dapi[0-9a-f]{64}", lines[3])
    assert lines[4].startswith("Expires:     ") and lines[5] == "Description: test token"
    assert lines[-1] == "⚠️  Save this token securely. It won't be shown again."
    token_id = lines[2].split()[-1]
    listed = as_json(aistor("share", "token", "list", "minio/test", "--json"))
    assert [t["id"] for t in listed] == [token_id] and "token" not in listed[0]

    ok(shell('mc table share update  minio/test --remove "tpch/orders"'))
    info = as_json(aistor("share", "info", "minio/test", "--json"))
    assert [(s["name"], [t["name"] for t in s["tables"]]) for s in info["schemas"]] == [("tpch", ["customer"])]
    assert "Share 'test' removed" in ok(shell("mc table share remove minio/test"))
    assert "does not exist" in failed(aistor("share", "info", "minio/test"), 1)


def test_oauth_clients_create_list_remove_and_profile(server, s3, alias, aistor, tmp_path, bucket):
    write_deltalake(f"s3://{bucket}/partners", EMPLOYEES, storage_options=storage_options(server))
    alias("lab")
    share = unique("partners")
    ok(aistor("share", "create", f"lab/{share}", "hr", f"partners:delta:{bucket}:partners"))

    text = ok(aistor("share", "client", "create", f"lab/{share}", "--description", "partner idp"))
    lines = text.splitlines()
    assert lines[0] == f"OAuth client created successfully for share '{share}'."
    assert lines[-1] == "⚠️  Save this client secret securely. It won't be shown again."
    assert re.search(r"Token endpoint: +http://\S+/delta-sharing/oauth/token", text)
    client = as_json(aistor("share", "client", "create", f"lab/{share}", "--json"))
    profile = client["profile"]
    assert profile["type"] == "oauth_client_credentials" and profile["clientSecret"] == client["clientSecret"]
    (tmp_path / "oauth.share").write_text(json.dumps(profile))
    assert len(delta_sharing.load_as_pandas(f"{tmp_path / 'oauth.share'}#{share}.hr.partners")) == 5

    listed = as_json(aistor("share", "client", "ls", f"lab/{share}", "--json"))
    assert client["clientId"] in [c["clientId"] for c in listed] and "clientSecret" not in listed[0]
    assert "partner idp" in ok(aistor("share", "client", "list", f"lab/{share}"))
    assert "revoked" in ok(aistor("share", "client", "revoke", f"lab/{share}", client["clientId"]))
    with pytest.raises(Exception, match="401|invalid_client|Unauthorized"):
        delta_sharing.load_as_pandas(f"{tmp_path / 'oauth.share'}#{share}.hr.partners")
    assert "does not exist" in failed(aistor("share", "client", "rm", f"lab/{share}", client["clientId"]), 1)
    ok(aistor("share", "remove", f"lab/{share}"))


def test_tokens_create_list_remove_and_profile(server, s3, alias, aistor, tmp_path, bucket):
    write_deltalake(f"s3://{bucket}/people", EMPLOYEES, storage_options=storage_options(server))
    alias("lab")
    share = unique("people")
    created = as_json(aistor("share", "create", f"lab/{share}", "hr", f"people:delta:{bucket}:people",
                             "--description", "people", "--json"))
    assert created["name"] == share and created["description"] == "people"
    token = as_json(aistor("share", "token", "create", f"lab/{share}", "--json"))
    assert token["expirationTime"] is None and "expirationTime" not in token["profile"]
    (tmp_path / "p.share").write_text(json.dumps(token["profile"]))
    assert len(delta_sharing.load_as_pandas(f"{tmp_path / 'p.share'}#{share}.hr.people")) == 5

    text = ok(aistor("share", "token", "list", f"lab/{share}"))
    assert token["id"] in text and "never" in text
    assert "removed" in ok(aistor("share", "token", "rm", f"lab/{share}", token["id"]))
    with pytest.raises(Exception, match="401|UNAUTHENTICATED|Unauthenticated|token"):
        delta_sharing.load_as_pandas(f"{tmp_path / 'p.share'}#{share}.hr.people")
    assert as_json(aistor("share", "token", "list", f"lab/{share}", "--json")) == []
    assert "(no queries yet)" not in ok(aistor("share", "audit", f"lab/{share}"))
    shares = as_json(aistor("share", "ls", "lab", "--json"))
    assert share in [s["name"] for s in shares]
    ok(aistor("share", "remove", f"lab/{share}"))


def test_every_catalog_command_in_text_and_json(server, alias, aistor):
    alias("lab")
    warehouse = unique("wh")
    assert as_json(aistor("warehouse", "create", "lab", warehouse, "--json"))["name"] == warehouse
    assert warehouse in as_json(aistor("warehouse", "list", "lab", "--json"))
    ok(aistor("namespace", "create", "lab", warehouse, "sales", "--property", "owner=team-a"))
    ok(aistor("namespace", "create", "lab", warehouse, "sales.eu"))
    assert as_json(aistor("namespace", "list", "lab", warehouse, "--json")) == ["sales"]
    assert as_json(aistor("namespace", "ls", "lab", warehouse, "sales", "--json")) == ["sales.eu"]

    created = as_json(aistor(
        "table", "create", "lab", warehouse, "sales.eu", "orders", "--json",
        "--schema", "id long not null, placed timestamptz, region string, total decimal(10, 2)",
        "--partition", "day(placed)", "--partition", "region", "--partition", "bucket(8, id)",
        "--property", "write.format.default=parquet",
    ))
    assert created["location"].startswith(f"s3://{warehouse}/")
    assert as_json(aistor("table", "list", "lab", warehouse, "sales.eu", "--json")) == ["orders"]

    catalog = load_catalog("aistor", **seed_catalog_properties(server, warehouse))
    table = catalog.load_table("sales.eu.orders")
    table.append(pa.Table.from_pylist(
        [{"id": i, "placed": pd.Timestamp("2026-01-01", tz="UTC"), "region": "eu", "total": None} for i in range(3)],
        schema=table.schema().as_arrow(),
    ))

    info_text = ok(aistor("table", "info", "lab", warehouse, "sales.eu", "orders"))
    assert "Schema:" in info_text and "decimal(10, 2)" in info_text
    assert re.search(r"placed_day\s+day\s+placed", info_text) and re.search(r"id_bucket\s+bucket\[8\]\s+id", info_text)
    info = as_json(aistor("table", "info", "lab", warehouse, "sales.eu", "orders", "--json"))
    assert info["metadata"]["properties"]["write.format.default"] == "parquet"
    snapshots = as_json(aistor("table", "snapshots", "lab", warehouse, "sales.eu", "orders", "--json"))
    assert len(snapshots) == 1 and snapshots[0]["summary"]["operation"] == "append"
    assert str(snapshots[0]["snapshot-id"]) in ok(aistor("table", "snapshots", "lab", warehouse, "sales.eu", "orders"))
    preview = as_json(aistor("table", "preview", "lab", warehouse, "sales.eu", "orders", "--limit", "2", "--json"))
    assert len(preview) == 2 and preview[0]["region"] == "eu"
    assert ok(aistor("table", "preview", "lab", warehouse, "sales.eu", "orders")).splitlines()[0].split() == [
        "id", "placed", "region", "total"]

    assert "deleted" in ok(aistor("table", "delete", "lab", warehouse, "sales.eu", "orders", "--purge"))
    assert as_json(aistor("table", "list", "lab", warehouse, "sales.eu", "--json")) == []
    ok(aistor("namespace", "delete", "lab", warehouse, "sales.eu"))
    ok(aistor("namespace", "rm", "lab", warehouse, "sales"))
    ok(aistor("warehouse", "delete", "lab", warehouse))
    assert warehouse not in as_json(aistor("warehouse", "ls", "lab", "--json"))


def test_policy_create_info_and_remove_from_a_json_file(server, alias, aistor, tmp_path):
    """The seeds' read-only user needs its policy loaded first, as with mc admin policy create."""
    alias("lab")
    name = unique("policy")
    document = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3tables:GetTableBucket", "s3tables:ListNamespaces"],
         "Resource": ["arn:aws:s3tables:::bucket/analytics"]}]}
    (tmp_path / "read-only.json").write_text(json.dumps(document))
    ok(aistor("policy", "create", "lab", name, "read-only.json"))
    assert as_json(aistor("policy", "info", "lab", name, "--json"))["policy"]["Statement"] == document["Statement"]
    assert {"name": name, "builtin": False} in as_json(aistor("policy", "list", "lab", "--json"))
    user = unique("user")
    ok(aistor("user", "create", "lab", user, "secret-key-3", "--policy", name))
    assert "attached" in failed(aistor("policy", "rm", "lab", name), 1).lower()
    ok(aistor("user", "delete", "lab", user))
    ok(aistor("policy", "rm", "lab", name))
    assert name not in ok(aistor("policy", "list", "lab"))
    (tmp_path / "broken.json").write_text("{not json")
    assert "not a JSON policy document" in failed(aistor("policy", "create", "lab", name, "broken.json"), 2)
    assert "cannot read" in failed(aistor("policy", "create", "lab", name, "missing.json"), 2)


def test_users_policies_aliases_and_status(server, alias, aistor):
    alias("lab")
    user = unique("user")
    assert as_json(aistor("user", "create", "lab", user, "secret-key-1", "--policy", "readonly", "--json"))[
        "policies"] == ["readonly"]
    ok(aistor("policy", "attach", "lab", "readwrite", "--user", user))
    listed = {u["accessKey"]: u for u in as_json(aistor("user", "list", "lab", "--json"))}
    assert listed[user]["policies"] == ["readonly", "readwrite"]
    ok(aistor("policy", "detach", "lab", "readonly", "--user", user))
    assert re.search(rf"{user}\s+enabled\s+readwrite", ok(aistor("user", "ls", "lab")))
    assert {"name": "readwrite", "builtin": True} in as_json(aistor("policy", "list", "lab", "--json"))
    ok(aistor("user", "delete", "lab", user))
    assert user not in ok(aistor("user", "list", "lab"))

    # the new user's own credentials work through an alias of its own
    second = unique("user")
    ok(aistor("user", "create", "lab", second, "secret-key-2", "--policy", "readonly"))
    ok(aistor("alias", "set", "reader", server.endpoint, second, "secret-key-2"))
    assert "access denied" in failed(aistor("warehouse", "create", "reader", unique("wh")), 1).lower()

    aliases = {a["alias"]: a for a in as_json(aistor("alias", "list", "--json"))}
    assert aliases["lab"]["endpoint"] == server.endpoint and "secretKey" not in aliases["lab"]
    assert "Alias 'reader' removed." in ok(aistor("alias", "rm", "reader"))
    assert "unknown alias 'reader'" in failed(aistor("status", "reader"), 2)

    status = as_json(aistor("status", "lab", "--json"))
    assert status["status"] == "online" and status["endpoint"] == server.endpoint
    # `local` is the service of the environment, as the Jupyter extension exports it
    local = {"AISTOR_ENDPOINT": server.endpoint, "AISTOR_ACCESS_KEY": ROOT_USER, "AISTOR_SECRET_KEY": ROOT_PASSWORD,
             "AISTOR_WAREHOUSE": "analytics"}
    assert "Default warehouse: analytics" in ok(aistor("status", "local", extra_env=local))
    assert "AISTOR_ENDPOINT is not set" in failed(aistor("status", "local"), 2)


def test_warehouse_may_be_left_out_when_the_alias_has_a_default(server, alias, aistor):
    alias("plain")
    warehouse = unique("wh")
    ok(aistor("warehouse", "create", "plain", warehouse))
    ok(aistor("alias", "set", "lab", server.endpoint, ROOT_USER, ROOT_PASSWORD, "--warehouse", warehouse))
    assert f"in warehouse '{warehouse}'" in ok(aistor("namespace", "create", "lab", "sales"))
    ok(aistor("table", "create", "lab", "sales", "orders", "--schema", "id long not null"))
    assert as_json(aistor("table", "list", "plain", warehouse, "sales", "--json")) == ["orders"]
    assert as_json(aistor("table", "list", "lab", "sales", "--json")) == ["orders"]
    assert as_json(aistor("namespace", "list", "lab", "--json")) == ["sales"]
    # a WAREHOUSE given still wins over the default
    assert as_json(aistor("namespace", "list", "lab", warehouse, "--json")) == ["sales"]
    assert as_json(aistor("table", "info", "lab", "sales", "orders", "--json"))["metadata"]["location"].startswith(
        f"s3://{warehouse}/")
    # without a default there is nothing to fill in: the usage says what is missing, nothing is created
    message = failed(aistor("namespace", "create", "plain", "hr"), 2)
    assert "a WAREHOUSE is required" in message and "usage:" in message
    assert as_json(aistor("namespace", "list", "plain", warehouse, "--json")) == ["sales"]


@pytest.mark.parametrize(("args", "message"), [
    ([], "required: COMMAND"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["warehouse"], "required: COMMAND"),
    (["warehouse", "create", "lab"], "required: NAME"),
    (["table", "create", "lab", "w", "n", "t"], "a schema is required"),
    (["table", "create", "lab", "w", "n", "t", "--schema", "{not json"], "not valid JSON"),
    (["table", "create", "lab", "w", "n", "t", "--schema", "id lng"], "unknown column type 'lng'"),
    (["table", "create", "lab", "w", "n", "t", "--schema", "id long", "--partition", "day(nope)"], "'nope' is not"),
    (["table", "create", "lab", "w", "n", "t", "--schema", "id long", "--partition", "bucket(id)"], "needs a width"),
    (["table", "create", "lab", "w", "n", "t", "--schema", "id long", "--property", "novalue"], "KEY=VALUE"),
    (["table", "preview", "lab", "w", "n", "t", "--limit", "x"], "invalid int value"),
    (["table", "preview", "lab", "w", "n", "t", "--limit", "-1"], "--limit"),
    (["share", "info", "lab"], "expected ALIAS/SHARE"),
    (["share", "create", "lab/s", "schema"], "required: TABLE_SPEC"),
    (["share", "update", "lab/s"], "nothing to change"),
    (["policy", "attach", "lab", "readonly"], "--user"),
    (["status", "nosuch"], "unknown alias 'nosuch'"),
    (["spark", "lab"], "invalid choice: 'spark'"),
])
def test_bad_arguments_show_usage_and_exit_2(alias, aistor, args, message):
    alias("lab")
    stderr = failed(aistor(*args), 2)
    assert message in stderr
    if "alias" not in message:
        assert stderr.startswith("usage: aistor")


def test_help(aistor):
    out = ok(aistor("--help"))
    assert out.startswith("usage: aistor") and "warehouse" in out and "share" in out
    out = ok(aistor("share", "token", "create", "--help"))
    assert "usage: aistor share token create" in out and "--expires" in out and "ALIAS/SHARE" in out


def test_service_errors_exit_1_with_the_service_message(alias, aistor):
    alias("lab")
    warehouse = unique("wh")
    ok(aistor("warehouse", "create", "lab", warehouse))
    assert "already exists" in failed(aistor("warehouse", "create", "lab", warehouse), 1)
    assert "does not exist" in failed(aistor("namespace", "list", "lab", unique("nowh")), 1)
    assert "does not exist" in failed(aistor("table", "info", "lab", warehouse, "nons", "t"), 1)
    assert "bad table spec" in failed(aistor("share", "create", f"lab/{unique('s')}", "s", "nonsense"), 1)
    assert "does not exist" in failed(aistor("share", "token", "create", f"lab/{unique('s')}"), 1)
    share = unique("s")
    ok(aistor("share", "create", f"lab/{share}", "s", f"t:delta:{warehouse}:t"))
    assert "bad expiry 'soon'" in failed(aistor("share", "token", "create", f"lab/{share}", "--expires", "soon"), 1)


def test_service_down_exits_3(aistor):
    port = free_port()
    ok(aistor("alias", "set", "down", f"http://127.0.0.1:{port}", ROOT_USER, ROOT_PASSWORD))
    for args in (["status", "down"], ["warehouse", "list", "down"], ["share", "list", "down"],
                 ["share", "token", "create", "down/s"], ["user", "list", "down"]):
        stderr = failed(aistor(*args), 3)
        assert f"cannot reach the AIStor service at http://127.0.0.1:{port}" in stderr


def test_warehouse_delete_force_removes_what_it_holds(aistor, alias):
    alias("lab")
    warehouse = unique("doomed")
    for line in (f"warehouse create lab {warehouse}", f"namespace create lab {warehouse} raw",
                 f"namespace create lab {warehouse} raw.deep",
                 f"table create lab {warehouse} raw.deep events --schema 'id long'"):
        done = aistor(*shlex.split(line))
        assert done.returncode == 0, done.stderr
    refused = aistor("warehouse", "delete", "lab", warehouse)
    assert refused.returncode != 0 and warehouse in aistor("warehouse", "list", "lab").stdout
    done = aistor("warehouse", "delete", "lab", warehouse, "--force")
    assert done.returncode == 0, done.stderr
    assert warehouse not in aistor("warehouse", "list", "lab").stdout
