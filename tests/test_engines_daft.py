"""Daft through the engines helpers: ``read_iceberg`` (current and older snapshots) and
``DataFrame.write_iceberg`` on the catalog's tables, ``read_deltalake`` on a bucket path, each checked
against PyIceberg or deltalake."""

from __future__ import annotations

import daft
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from aistor_lab.workbench import engines
from aistor_lab.workbench.service_config import delta_storage_options

from .engines_support import ARROW_SCHEMA, own_warehouse, pyiceberg_rows, seeded_table


@pytest.fixture(scope="module")
def service(server):
    with own_warehouse(server, "daft") as service:
        yield service


def frame_rows(frame: daft.DataFrame, columns=("id", "name")) -> list[tuple]:
    data = frame.to_pydict()
    return sorted(zip(*(data[c] for c in columns), strict=True))


def test_read_iceberg_reads_what_pyiceberg_reads(server, service):
    identifier = seeded_table(server, service)
    first = engines.iceberg_table(identifier, service=service).current_snapshot().snapshot_id

    table = engines.iceberg_table(identifier, service=service)
    written = daft.from_arrow(pa.table({"id": [20, 21], "name": ["name-20", "name-21"]}, schema=ARROW_SCHEMA))
    written.write_iceberg(table, mode="append")

    assert frame_rows(engines.daft_read_iceberg(identifier, service=service)) == pyiceberg_rows(service, identifier)
    assert pyiceberg_rows(service, identifier) == sorted((i, f"name-{i}") for i in [*range(10), 20, 21])
    assert frame_rows(engines.daft_read_iceberg(identifier, snapshot_id=first, service=service)) == \
        [(i, f"name-{i}") for i in range(10)]
    filtered = engines.daft_read_iceberg(identifier, service=service).where(daft.col("id") >= 9)
    assert frame_rows(filtered) == [(9, "name-9"), (20, "name-20"), (21, "name-21")]


def test_read_deltalake_in_buckets(service, bucket):
    location = f"s3://{bucket}/daft/orders"
    write_deltalake(location, pa.table({"id": [1, 2, 3], "item": ["a", "b", "c"]}),
                    storage_options=delta_storage_options(service))
    expected = DeltaTable(location, storage_options=delta_storage_options(service)).to_pyarrow_table()
    read = daft.read_deltalake(location, io_config=engines.daft_io_config(service))
    assert frame_rows(read, ("id", "item")) == sorted(zip(expected["id"].to_pylist(), expected["item"].to_pylist(),
                                                          strict=True))
