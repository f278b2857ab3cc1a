"""Seed 004's scenario: one share ``test``, schema ``tpch``, with a Delta ``orders`` table (deltalake,
bucket ``testdelta``) and an Iceberg ``customer`` table (PyIceberg, warehouse ``testice``), added with
``share update --add``; the join of the seed's SQL computed on the shared tables equals the join on
the source tables. Then ``--remove "tpch/orders"`` and ``share remove``."""

from __future__ import annotations

import uuid

import delta_sharing
import pandas as pd
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from .conftest import admin_call, catalog_call, seed_catalog_properties
from .sharing_support import create_token, sharing_request, storage_options, write_profile


def seed_join(customer: pd.DataFrame, orders: pd.DataFrame) -> list[tuple]:
    """select c.custkey, c.name, SUM(o.totalprice) as sum_order_price from customer c join orders o
    on c.custkey = o.custkey group by c.custkey, c.name having SUM(o.totalprice) > 1000000
    order by sum_order_price desc"""
    joined = customer.merge(orders, on="custkey")
    sums = joined.groupby(["custkey", "name"], as_index=False)["totalprice"].sum()
    sums = sums[sums["totalprice"] > 1_000_000].sort_values("totalprice", ascending=False)
    return [(int(k), n, round(float(p), 2)) for k, n, p in sums.itertuples(index=False)]


@pytest.fixture
def sources(server, s3):
    suffix = uuid.uuid4().hex[:8]
    bucket, warehouse = f"testdelta-{suffix}", f"testice-{suffix}"
    s3.create_bucket(Bucket=bucket)
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] in (200, 201)
    catalog = load_catalog("aistor", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("tpch")
    customers = pd.DataFrame({"custkey": range(1, 41), "name": [f"Customer#{i:09d}" for i in range(1, 41)],
                              "mktsegment": ["BUILDING", "MACHINERY", "AUTOMOBILE", "HOUSEHOLD"] * 10})
    schema = Schema(NestedField(1, "custkey", LongType(), required=True), NestedField(2, "name", StringType()),
                    NestedField(3, "mktsegment", StringType()))
    customer = catalog.create_table("tpch.customer", schema=schema)
    customer.append(pa.Table.from_pandas(customers, preserve_index=False).cast(schema.as_arrow()))
    orders = pd.DataFrame({"orderkey": range(1, 401), "custkey": [1 + (i * 7) % 50 for i in range(400)],
                           "totalprice": [round(1000 + (i * 7919) % 300_000 + i * 0.25, 2) for i in range(400)],
                           "orderstatus": ["O", "F", "P", "F"] * 100})
    write_deltalake(f"s3://{bucket}/tpch/orders", orders.iloc[:200], storage_options=storage_options(server))
    write_deltalake(f"s3://{bucket}/tpch/orders", orders.iloc[200:], mode="append",
                    storage_options=storage_options(server))
    return {"bucket": bucket, "warehouse": warehouse, "customer": customer}


def test_seed_004_mixed_share_join(server, sources, tmp_path):
    bucket, warehouse = sources["bucket"], sources["warehouse"]
    share = f"test-{uuid.uuid4().hex[:6]}"
    # mc table share create minio/test tpch "orders:delta:testdelta:tpch/orders"
    assert admin_call(server, "POST", "/shares", {"name": share, "schema": "tpch",
                                                  "tables": [f"orders:delta:{bucket}:tpch/orders"]})[0] == 201
    # mc table share update minio/test --add "tpch:customer:uniform:testice:tpch:customer"
    status, info = admin_call(server, "PATCH", f"/shares/{share}",
                              {"add": [f"tpch:customer:uniform:{warehouse}:tpch:customer"]})
    assert status == 200
    assert [(t["name"], t["kind"]) for t in info["schemas"][0]["tables"]] == [("orders", "delta"),
                                                                              ("customer", "uniform")]
    token = create_token(server, share, expires="30d", description="test token")
    profile = write_profile(tmp_path, token["profile"])

    client = delta_sharing.SharingClient(profile)
    assert sorted(t.name for t in client.list_all_tables()) == ["customer", "orders"]
    shared_customer = delta_sharing.load_as_pandas(f"{profile}#{share}.tpch.customer")
    shared_orders = delta_sharing.load_as_pandas(f"{profile}#{share}.tpch.orders")
    source_customer = sources["customer"].scan().to_pandas()
    source_orders = DeltaTable(f"s3://{bucket}/tpch/orders", storage_options=storage_options(server)).to_pandas()
    expected = seed_join(source_customer, source_orders)
    assert len(expected) >= 5  # the HAVING clause leaves a real result to compare
    assert seed_join(shared_customer, shared_orders) == expected
    assert shared_customer.head(10)[["custkey", "name"]].shape == (10, 2)  # the notebook's first 10 rows

    # mc table share update minio/test --remove "tpch/orders"
    assert admin_call(server, "PATCH", f"/shares/{share}", {"remove": ["tpch/orders"]})[0] == 200
    gone = sharing_request(profile, "POST", f"/shares/{share}/schemas/tpch/tables/orders/query", json_body={})
    assert gone.status_code == 404
    assert [t.name for t in client.list_all_tables()] == ["customer"]
    # mc table share remove minio/test: the share and its tokens go.
    assert admin_call(server, "DELETE", f"/shares/{share}")[0] == 200
    assert sharing_request(profile, "GET", "/shares").status_code == 401
