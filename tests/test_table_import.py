"""``aistor table import``: a CSV in a bucket, or a Parquet file on disk, made into an Iceberg table
whose rows PyIceberg reads back equal to the file's; and the refusals that change nothing."""

from __future__ import annotations

import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog import load_catalog

from . import test_cli as cli_tests
from .conftest import seed_catalog_properties
from .test_cli import as_json, failed, ok

env, aistor, alias = cli_tests.env, cli_tests.aistor, cli_tests.alias  # the CLI fixtures, used by name

CUSTOMERS = Path(__file__).resolve().parent.parent / "sample-data" / "customer.csv"


@pytest.fixture
def warehouse(server, alias, aistor):
    alias("lab")
    name = f"wh-{uuid.uuid4().hex[:8]}"
    ok(aistor("warehouse", "create", "lab", name))
    return name


def read_back(server, warehouse: str, name: str) -> pa.Table:
    return load_catalog("aistor", **seed_catalog_properties(server, warehouse)).load_table(name).scan().to_arrow()


def test_a_csv_in_a_bucket_becomes_a_table_with_its_rows(server, aistor, warehouse):
    ok(aistor("mb", "lab/landing-" + warehouse))
    ok(aistor("cp", str(CUSTOMERS), f"lab/landing-{warehouse}/in/customer.csv"))
    made = as_json(aistor("table", "import", "lab", warehouse, "crm", "customers",
                          f"s3://landing-{warehouse}/in/customer.csv", "--json"))
    assert made["rows"] == 1500 and made["namespace"] == "crm"  # the missing namespace was created
    assert made["columns"][:2] == ["custkey", "name"]

    expected = pa_csv.read_csv(CUSTOMERS)
    table = read_back(server, warehouse, "crm.customers").sort_by("custkey")
    assert table.column_names == expected.column_names
    assert table.column("acctbal").to_pylist() == expected.column("acctbal").to_pylist()
    assert table.column("mktsegment").to_pylist() == expected.column("mktsegment").to_pylist()


def test_a_local_parquet_file_keeps_its_types(server, aistor, warehouse, tmp_path):
    rows = pa.table({"id": pa.array([1, 2**60], pa.int64()), "at": pa.array([0, 1_700_000_000], pa.timestamp("s")),
                     "tags": pa.array([["a"], []], pa.list_(pa.string()))})
    pq.write_table(rows, tmp_path / "events.parquet")
    text = ok(aistor("table", "import", "lab", warehouse, "raw", "events", str(tmp_path / "events.parquet")))
    assert "with 2 rows" in text
    table = read_back(server, warehouse, "raw.events").sort_by("id")
    assert table.column("id").to_pylist() == [1, 2**60]
    assert table.column("at").cast(pa.int64()).to_pylist() == [0, 1_700_000_000_000_000]  # as microseconds
    assert table.column("tags").to_pylist() == [["a"], []]


def test_refusals_name_the_problem_and_change_nothing(server, aistor, warehouse, tmp_path):
    (tmp_path / "notes.txt").write_text("a,b\n1,2\n")
    assert "cannot tell the format" in failed(
        aistor("table", "import", "lab", warehouse, "raw", "t", str(tmp_path / "notes.txt")), 1)
    assert "no file" in failed(aistor("table", "import", "lab", warehouse, "raw", "t", "missing.csv"), 1)
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    assert "cannot read" in failed(
        aistor("table", "import", "lab", warehouse, "raw", "t", str(tmp_path / "bad.parquet")), 1)
    assert ok(aistor("namespace", "list", "lab", warehouse)).strip() in ("", "(no namespaces)")

    (tmp_path / "a.csv").write_text("x\n1\n")
    ok(aistor("table", "import", "lab", warehouse, "raw", "t", str(tmp_path / "a.csv")))
    assert "already exists" in failed(aistor("table", "import", "lab", warehouse, "raw", "t",
                                             str(tmp_path / "a.csv")), 1)
    assert read_back(server, warehouse, "raw.t").num_rows == 1
