"""``aistor table preview --snapshot ID | --as-of TIMESTAMP`` as a subprocess against a real server:
the rows of an older snapshot, chosen by id or by time, and the usage errors around them."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog

from . import test_cli as cli_tests
from .conftest import seed_catalog_properties
from .test_cli import as_json, failed, ok

env, aistor, alias = cli_tests.env, cli_tests.aistor, cli_tests.alias  # the CLI fixtures, used by name

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


@pytest.fixture
def history(server, alias, aistor):
    """A table written twice: (warehouse, first snapshot, second snapshot)."""
    alias("lab")
    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    ok(aistor("warehouse", "create", "lab", warehouse))
    ok(aistor("namespace", "create", "lab", warehouse, "sales"))
    table = load_catalog("aistor", **seed_catalog_properties(server, warehouse)).create_table("sales.orders", SCHEMA)
    table.append(pa.table({"id": [1, 2], "name": ["a", "b"]}, schema=SCHEMA))
    time.sleep(0.01)
    table.append(pa.table({"id": [3], "name": ["c"]}, schema=SCHEMA))
    first, second = table.metadata.snapshots
    return warehouse, first, second


def preview(aistor, warehouse: str, *options: str) -> list[dict]:
    return as_json(aistor("table", "preview", "lab", warehouse, "sales", "orders", "--json", *options))


def test_preview_of_an_older_snapshot_by_id_and_by_time(aistor, history):
    warehouse, first, second = history
    assert sorted(row["id"] for row in preview(aistor, warehouse)) == [1, 2, 3]
    assert sorted(row["id"] for row in preview(aistor, warehouse, "--snapshot", str(first.snapshot_id))) == [1, 2]
    iso = datetime.fromtimestamp(first.timestamp_ms / 1000, UTC).isoformat()
    assert sorted(row["id"] for row in preview(aistor, warehouse, "--as-of", iso)) == [1, 2]
    assert len(preview(aistor, warehouse, "--as-of", str(second.timestamp_ms))) == 3
    text = ok(aistor("table", "preview", "lab", warehouse, "sales", "orders", "--snapshot", str(first.snapshot_id)))
    assert text.splitlines()[0].split() == ["id", "name"] and len(text.splitlines()) == 3


@pytest.mark.parametrize(("options", "message"), [
    (["--snapshot", "1", "--as-of", "2024-01-01"], "--snapshot and --as-of both choose the snapshot"),
    (["--snapshot", "42"], "the table has no snapshot 42"),
    (["--as-of", "2001-01-01T00:00:00Z"], "before the table's first snapshot"),
    (["--as-of", "last week"], "'last week' is not a time"),
])
def test_bad_time_travel_is_a_usage_error(aistor, history, options, message):
    warehouse, _, _ = history
    stderr = failed(aistor("table", "preview", "lab", warehouse, "sales", "orders", *options), 2)
    assert message in stderr
