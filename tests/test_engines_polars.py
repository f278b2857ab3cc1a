"""Polars through the engines helpers: ``scan_iceberg`` of the catalog's tables with the storage options
its native reader needs (current and older snapshots, a pushed-down filter), ``write_delta``,
``read_delta`` and ``scan_delta`` on a bucket path, and a shared table through the delta-sharing
client, each checked against PyIceberg or deltalake."""

from __future__ import annotations

import polars as pl
import pytest
from deltalake import DeltaTable

from aistor_lab.workbench import engines

from .engines_support import own_warehouse, pyiceberg_rows, rows, seeded_table
from .sharing_support import share_profile


@pytest.fixture(scope="module")
def service(server):
    with own_warehouse(server, "polars") as service:
        yield service


def frame_rows(frame: pl.DataFrame) -> list[tuple]:
    return sorted(frame.select("id", "name").iter_rows())


def test_scan_iceberg_reads_what_pyiceberg_reads(server, service):
    identifier = seeded_table(server, service)
    table = engines.iceberg_table(identifier, service=service)
    first = table.current_snapshot().snapshot_id
    table.append(rows([10, 11]))

    assert frame_rows(engines.polars_scan_iceberg(identifier, service=service).collect()) == \
        pyiceberg_rows(service, identifier)
    assert frame_rows(engines.polars_scan_iceberg(identifier, snapshot_id=first, service=service).collect()) == \
        [(i, f"name-{i}") for i in range(10)]
    filtered = engines.polars_scan_iceberg(identifier, service=service).filter(pl.col("id") >= 8).collect()
    assert frame_rows(filtered) == [(8, "name-8"), (9, "name-9"), (10, "name-10"), (11, "name-11")]


def test_delta_tables_in_buckets(service, bucket):
    location = f"s3://{bucket}/polars/orders"
    options = engines.polars_storage_options(service)
    pl.DataFrame({"id": [1, 2], "name": ["a", "b"]}).write_delta(location, storage_options=options)
    pl.DataFrame({"id": [3], "name": ["c"]}).write_delta(location, mode="append", storage_options=options)

    written = DeltaTable(location, storage_options=options)
    assert written.version() == 1
    expected = sorted(zip(*(written.to_pyarrow_table().column(c).to_pylist() for c in ("id", "name")), strict=True))
    assert frame_rows(pl.read_delta(location, storage_options=options)) == expected == [(1, "a"), (2, "b"), (3, "c")]
    assert frame_rows(pl.scan_delta(location, version=0, storage_options=options).collect()) == [(1, "a"), (2, "b")]


def test_a_shared_table_through_the_delta_sharing_client(server, service, tmp_path):
    identifier = seeded_table(server, service)
    namespace, name = identifier.split(".")
    share, profile = share_profile(server, tmp_path, "lab", [f"events:uniform:{service.warehouse}:{namespace}:{name}"])
    shared = engines.polars_shared_table(profile, f"{share}.lab.events")
    assert frame_rows(shared) == pyiceberg_rows(service, identifier)
    assert engines.polars_shared_table(profile, f"{share}.lab.events", limit=3).height == 3
