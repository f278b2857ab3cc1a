"""pandas through each engine: the same Iceberg table and the same Delta table in a bucket read into
pandas by DuckDB, Polars and Daft (with the engines helpers) equal PyIceberg's and deltalake's frames."""

from __future__ import annotations

import daft
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from aistor_lab.workbench import engines

from .engines_support import own_warehouse, seeded_table


@pytest.fixture(scope="module")
def service(server):
    with own_warehouse(server, "pandas") as service:
        yield service


@pytest.fixture(scope="module")
def identifier(server, service):
    return seeded_table(server, service, ids=range(25))


@pytest.fixture(scope="module")
def delta_location(service, s3):
    s3.create_bucket(Bucket=f"{service.warehouse}-delta")
    location = f"s3://{service.warehouse}-delta/orders"
    write_deltalake(location, pa.table({"id": [3, 1, 2], "item": ["c", "a", "b"]}),
                    storage_options=engines.polars_storage_options(service))
    return location


def same(frame: pd.DataFrame, expected: pd.DataFrame) -> None:
    def tidy(f):
        return f.sort_values("id").reset_index(drop=True)

    assert isinstance(frame, pd.DataFrame)
    pd.testing.assert_frame_equal(tidy(frame), tidy(expected), check_dtype=False)


ICEBERG_READERS = {
    "duckdb": lambda service, identifier: engines.duckdb(service=service).sql(f"FROM lake.{identifier}").df(),
    "polars": lambda service, identifier: engines.polars_scan_iceberg(identifier, service=service).collect().to_pandas(),
    "daft": lambda service, identifier: engines.daft_read_iceberg(identifier, service=service).to_pandas(),
}
DELTA_READERS = {
    "duckdb": lambda service, location: engines.duckdb(service=service).sql(f"FROM delta_scan('{location}')").df(),
    "polars": lambda service, location: pl.read_delta(
        location, storage_options=engines.polars_storage_options(service)).to_pandas(),
    "daft": lambda service, location: daft.read_deltalake(location, io_config=engines.daft_io_config(service)).to_pandas(),
}


@pytest.mark.parametrize("engine", ICEBERG_READERS)
def test_an_iceberg_table_into_pandas(service, identifier, engine):
    expected = engines.iceberg_table(identifier, service=service).scan().to_pandas()
    same(ICEBERG_READERS[engine](service, identifier), expected)


@pytest.mark.parametrize("engine", DELTA_READERS)
def test_a_delta_table_into_pandas(service, delta_location, engine):
    expected = DeltaTable(delta_location, storage_options=engines.polars_storage_options(service)).to_pandas()
    same(DELTA_READERS[engine](service, delta_location), expected)
