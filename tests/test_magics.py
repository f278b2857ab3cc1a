"""The ``%aistor`` / ``%%aistor`` magics in a real IPython shell against a real server: each command,
results as HTML tables, ``--json`` as Python data, cell bodies as schemas, and failures as one short
line (never a traceback) that leaves the shell working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid

import delta_sharing
import pandas as pd
import pytest
from deltalake import write_deltalake
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from aistor_lab.workbench.client import AIStorClient, ServiceConfig
from aistor_lab.workbench.jupyter.process import free_port
from aistor_lab.workbench.magics import AIStorMagicError

from .conftest import ROOT_PASSWORD, ROOT_USER

SEED_SCHEMA = ('{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":true},'
               '{"id":2,"name":"name","type":"string","required":false}]}')


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def ipython():
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext aistor_lab")
    return shell


def service_env(monkeypatch, endpoint: str, warehouse: str = "analytics") -> None:
    for name, value in {"AISTOR_ENDPOINT": endpoint, "AISTOR_ACCESS_KEY": ROOT_USER,
                        "AISTOR_SECRET_KEY": ROOT_PASSWORD, "AISTOR_WAREHOUSE": warehouse}.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def cell(ipython, server, monkeypatch, tmp_path):
    """Runs a cell in the shell, with the service in the environment as inside JupyterLab; returns
    (ExecutionResult, captured output)."""
    service_env(monkeypatch, server.endpoint)
    monkeypatch.setenv("AISTOR_CONFIG_DIR", str(tmp_path / "aistor-config"))

    def run(code: str):
        with capture_output() as captured:
            result = ipython.run_cell(code, store_history=False)
        return result, captured

    return run


def value(run_result) -> object:
    result, captured = run_result
    assert result.error_in_exec is None, captured.stdout + captured.stderr
    return result.result


def failure(run_result) -> str:
    """The short message of a failed cell; asserts it is short and has no traceback."""
    result, captured = run_result
    assert isinstance(result.error_in_exec, AIStorMagicError)
    shown = captured.stdout + captured.stderr
    assert "Traceback" not in shown and "File \"" not in shown
    assert "aistor: " in shown
    return shown


@pytest.fixture
def warehouse(server):
    name = unique("wh")
    AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD)).create_warehouse(name)
    return name


def test_line_magic_catalog_commands(cell, warehouse, server):
    created = value(cell(f"%aistor namespace create {warehouse} sales"))
    assert created.text() == f"Namespace 'sales' created in warehouse '{warehouse}'."
    # DDL shows one line of confirmation, as text and as HTML
    assert created._repr_html_() == f"<p>Namespace &#x27;sales&#x27; created in warehouse &#x27;{warehouse}&#x27;.</p>"
    # the seed's schema JSON passes unchanged: no {} expansion
    value(cell(f"%aistor table create {warehouse} sales mytable --schema '{SEED_SCHEMA}'"))
    tables = value(cell(f"%aistor table list {warehouse} sales"))
    assert tables._repr_html_() == ('<table class="aistor-result"><thead><tr><th style="text-align: left">table</th>'
                                    '</tr></thead><tbody><tr><td style="text-align: left">mytable</td></tr></tbody>'
                                    '</table>')  # left-aligned: JupyterLab's notebook CSS right-aligns cells
    assert value(cell(f"%aistor table list {warehouse} sales --json")) == ["mytable"]
    assert warehouse in value(cell("%aistor warehouse ls --json"))
    # mc's spelling works too
    assert value(cell(f"%aistor table namespace list {warehouse} --json")) == ["sales"]

    info = value(cell(f"%aistor table info {warehouse} sales mytable"))
    html = info._repr_html_()
    assert "<h4>Schema</h4>" in html and ">long</td>" in html and ">True</td>" in html
    assert value(cell(f"%aistor table snapshots {warehouse} sales mytable --json")) == []
    assert value(cell(f"%aistor table preview {warehouse} sales mytable --json")) == []
    value(cell(f"%aistor table delete {warehouse} sales mytable"))
    value(cell(f"%aistor namespace delete {warehouse} sales"))
    assert value(cell(f"%aistor namespace list {warehouse} --json")) == []


def test_warehouse_defaults_to_the_environments(cell, warehouse, monkeypatch):
    monkeypatch.setenv("AISTOR_WAREHOUSE", warehouse)
    created = value(cell("%aistor namespace create sales"))
    assert created.text() == f"Namespace 'sales' created in warehouse '{warehouse}'."
    value(cell("%%aistor table create sales orders\nid long not null, total double"))
    assert value(cell(f"%aistor table list {warehouse} sales --json")) == ["orders"]
    assert value(cell("%aistor table list sales --json")) == ["orders"]
    monkeypatch.delenv("AISTOR_WAREHOUSE")
    assert "a WAREHOUSE is required" in failure(cell("%aistor table list sales"))


def test_cell_body_is_the_schema(cell, warehouse, server):
    value(cell(f"%aistor namespace create {warehouse} hr"))
    value(cell(f"%%aistor table create {warehouse} hr people --partition department\n"
               "id long not null,\nname string,\ndepartment string,\nsalary decimal(10, 2)\n"))
    value(cell(f"%%aistor table create {warehouse} hr seeded\n{SEED_SCHEMA}\n"))
    client = AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))
    people = client.load_table(warehouse, "hr", "people")["metadata"]
    assert [(f["name"], f["type"], f["required"]) for f in people["schemas"][0]["fields"]] == [
        ("id", "long", True), ("name", "string", False), ("department", "string", False),
        ("salary", "decimal(10, 2)", False)]
    assert people["partition-specs"][0]["fields"][0]["name"] == "department"
    seeded = client.load_table(warehouse, "hr", "seeded")["metadata"]
    assert [f["name"] for f in seeded["schemas"][0]["fields"]] == ["id", "name"]


def test_cell_of_several_commands(cell, warehouse):
    result, captured = cell(f"""%%aistor
# one command per line; backslash continues a line
namespace create {warehouse} ops
table create {warehouse} ops events \\
    --schema 'id long not null, kind string'
table list {warehouse} ops
""")
    assert result.error_in_exec is None, captured.stdout
    texts = [output.data["text/plain"] for output in captured.outputs]
    assert texts[0] == f"Namespace 'ops' created in warehouse '{warehouse}'."
    assert ">events</td>" in captured.outputs[2].data["text/html"]


def test_users_policies_and_status(cell, server):
    user = unique("user")
    value(cell(f"%aistor user create {user} secret-key-1 --policy readonly"))
    value(cell(f"%aistor policy attach readwrite --user {user}"))
    users = {u["accessKey"]: u for u in value(cell("%aistor user list --json"))}
    assert users[user]["policies"] == ["readonly", "readwrite"]
    value(cell(f"%aistor policy detach readonly --user {user}"))
    value(cell(f"%aistor user delete {user}"))
    assert "readwrite" in [p["name"] for p in value(cell("%aistor policy ls --json"))]
    status = value(cell("%aistor status"))
    assert status.data()["endpoint"] == server.endpoint and "Default warehouse" in status.text()


def test_shares_and_token_profile(cell, server, s3, bucket, tmp_path):
    options = {"AWS_ACCESS_KEY_ID": ROOT_USER, "AWS_SECRET_ACCESS_KEY": ROOT_PASSWORD,
               "AWS_ENDPOINT_URL": server.endpoint, "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1"}
    write_deltalake(f"s3://{bucket}/employees", pd.DataFrame({"id": [1, 2], "name": ["a", "b"]}),
                    storage_options=options)
    share = unique("share")
    created = value(cell(f'%aistor share create {share} HR "employees:delta:{bucket}:employees/" '
                         '--description "for HR"'))
    assert "created with 1 table" in created.text()
    info = value(cell(f"%aistor share info {share}"))
    assert "└─ HR (1 table)" in info.text() and ">employees</td>" in info._repr_html_()
    token = value(cell(f"%aistor share token create {share} --expires 30d --json"))
    (tmp_path / "profile.share").write_text(json.dumps(token["profile"]))
    assert len(delta_sharing.load_as_pandas(f"{tmp_path / 'profile.share'}#{share}.HR.employees")) == 2
    shown = value(cell(f"%aistor share token create {share} --description shown"))
    assert "It won't be shown again." in shown.text() and "bearerToken" in shown._repr_html_()
    assert len(value(cell(f"%aistor share token list {share} --json"))) == 2
    value(cell(f"%aistor share token remove {share} {token['id']}"))
    value(cell(f"%aistor share update {share} --remove HR/employees"))
    assert value(cell(f"%aistor share list {share} --json"))[0]["tables"] == 0
    value(cell(f"%aistor share remove {share}"))


def test_object_commands_without_the_alias(cell, s3, tmp_path):
    """mc's object commands in a notebook: paths are BUCKET/KEY, local ones start with / . or ~; an
    %%aistor cell body is the document ``ilm import`` takes."""
    bucket = unique("notebook")
    assert value(cell(f"%aistor mb {bucket}")).text() == f"Bucket created successfully `{bucket}`."
    (tmp_path / "notes.txt").write_text("from a notebook")
    value(cell(f"%aistor cp {tmp_path / 'notes.txt'} {bucket}/docs/"))
    assert s3.get_object(Bucket=bucket, Key="docs/notes.txt")["Body"].read() == b"from a notebook"
    listed = value(cell(f"%aistor ls {bucket}/docs/ --json"))
    assert [(e["key"], e["size"], e["type"]) for e in listed] == [("notes.txt", 15, "file")]
    assert ">notes.txt</td>" in value(cell(f"%aistor ls {bucket}/docs/"))._repr_html_()
    assert value(cell(f"%aistor cat {bucket}/docs/notes.txt")).text() == "from a notebook"
    result, captured = cell(f'%%aistor ilm import {bucket}\n'
                            '{"Rules": [{"ID": "tmp", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, '
                            '"Expiration": {"Days": 1}}]}\n')
    assert result.error_in_exec is None, captured.stdout
    assert s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"][0]["ID"] == "tmp"
    value(cell(f"%aistor rb --force {bucket}"))
    assert bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


@pytest.mark.parametrize(("line", "message"), [
    ("%aistor", "required: COMMAND"),
    ("%aistor frobnicate", "invalid choice: 'frobnicate'"),
    ("%aistor warehouse create", "required: NAME"),
    ("%aistor table create w n t", "a schema is required"),
    ("%aistor table create w n t --schema '{oops'", "not valid JSON"),
    ("%aistor table create w n t --schema 'id lng'", "unknown column type"),
    ("%aistor share info", "required: SHARE"),
    ("%aistor table list 'unbalanced", "cannot split the line"),
    ("%%aistor warehouse list\nbody\n", "takes no cell body"),
    ("%%aistor table create w n t --schema 'id long'\nid long\n", "not both"),
])
def test_bad_arguments_show_usage_and_keep_the_shell(cell, line, message):
    shown = failure(cell(line))
    assert message in shown
    if "cannot split" not in message:
        assert "usage: %aistor" in shown
    assert value(cell("1 + 1")) == 2


def test_help_prints_and_returns_nothing(cell):
    result, captured = cell("%aistor table create --help")
    assert result.error_in_exec is None and result.result is None
    assert captured.stdout.startswith("usage: %aistor table create") and "--partition" in captured.stdout


def test_service_errors_are_one_line(cell, warehouse):
    shown = failure(cell(f"%aistor warehouse create {warehouse}"))
    assert f"Warehouse already exists: {warehouse}" in shown and len(shown.strip().splitlines()) == 1
    assert "does not exist" in failure(cell(f"%aistor table info {warehouse} nope t"))


def test_service_down(cell, monkeypatch):
    port = free_port()
    service_env(monkeypatch, f"http://127.0.0.1:{port}")
    shown = failure(cell("%aistor warehouse list"))
    assert f"cannot reach the AIStor service at http://127.0.0.1:{port}" in shown
    assert len(shown.strip().splitlines()) == 1


def test_without_a_default_service_the_alias_comes_first(cell, monkeypatch, server):
    monkeypatch.delenv("AISTOR_ENDPOINT")
    assert "required: ALIAS" in failure(cell("%aistor warehouse list"))
    value(cell(f"%aistor alias set lab {server.endpoint} {ROOT_USER} {ROOT_PASSWORD}"))
    assert isinstance(value(cell("%aistor warehouse list lab --json")), list)
    assert "Share" not in failure(cell("%aistor share info lab"))


def test_spark_binds_a_session(server, warehouse, tmp_path):
    """In a shell of its own process: Spark keeps one session (and one JVM) per process, which must not
    leak into other tests."""
    pytest.importorskip("pyspark")
    from aistor_lab.workbench.spark.jars import ensure_kit

    ensure_kit()
    script = textwrap.dedent("""
        import json
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("%load_ext aistor_lab")
        message = shell.run_cell("%aistor spark", store_history=False).result
        spark = shell.user_ns["spark"]
        count = shell.run_cell("spark.range(3).count()", store_history=False).result
        print(json.dumps({"message": message.text(), "count": count,
                          "uri": spark.conf.get("spark.sql.catalog.aistor.uri")}))
        spark.stop()
    """)
    env = {**os.environ, "AISTOR_ENDPOINT": server.endpoint, "AISTOR_ACCESS_KEY": ROOT_USER,
           "AISTOR_SECRET_KEY": ROOT_PASSWORD, "AISTOR_WAREHOUSE": warehouse}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "bound to `spark`" in seen["message"] and seen["count"] == 3
    assert seen["uri"] == f"{server.endpoint}/_iceberg"
