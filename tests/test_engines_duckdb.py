"""DuckDB through ``engines.duckdb()``: the catalog attached as an Iceberg REST catalog with OAuth2
(data through vended credentials, no S3 secret) and with SigV4 (signed as s3tables, an S3 secret),
listing, selecting, inserting, creating a table as a select and dropping it, each checked against
PyIceberg; Delta tables in buckets through the delta extension. The extensions come from their
PyPI packages' files."""

from __future__ import annotations

import dataclasses

import duckdb
import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from aistor_lab.workbench import engines
from aistor_lab.workbench.client import AIStorError, load_catalog
from aistor_lab.workbench.service_config import delta_storage_options

from .conftest import documented_read_only_user
from .engines_support import own_warehouse, pyiceberg_rows, seeded_table


@pytest.fixture(scope="module")
def service(server):
    with own_warehouse(server, "duckdb") as service:
        yield service


def test_extensions_come_from_the_packages_and_nothing_is_downloaded(service):
    con = engines.duckdb(service=service)
    loaded = {name for (name,) in con.execute("SELECT extension_name FROM duckdb_extensions() WHERE loaded").fetchall()}
    assert set(engines.duckdb_engine.EXTENSIONS) <= loaded
    settings = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN "
                                "('autoinstall_known_extensions', 'autoload_known_extensions', "
                                "'extension_directory')").fetchall())
    assert settings["autoinstall_known_extensions"] == "false" and settings["autoload_known_extensions"] == "false"
    assert settings["extension_directory"].endswith("aistor-lab/duckdb-extensions")


@pytest.mark.parametrize("auth", ["oauth2", "sigv4"])
def test_list_select_insert_ctas_drop_agree_with_pyiceberg(server, service, auth):
    identifier = seeded_table(server, service)
    namespace = identifier.split(".")[0]
    # OAuth2 without the buckets' S3 secret: the files are reached through vended credentials alone.
    con = engines.duckdb(service=service, auth=auth, buckets=False)

    listed = con.execute("SELECT schema, name FROM (SHOW ALL TABLES) WHERE database = 'lake'").fetchall()
    assert (namespace, "events") in listed
    assert sorted(con.execute(f"SELECT id, name FROM lake.{identifier}").fetchall()) == pyiceberg_rows(service, identifier)

    con.execute(f"INSERT INTO lake.{identifier} VALUES (100, 'name-100'), (101, 'name-101')")
    assert pyiceberg_rows(service, identifier) == sorted((i, f"name-{i}") for i in [*range(10), 100, 101])

    copy = f"{namespace}.big_ones"
    con.execute(f"CREATE TABLE lake.{copy} AS SELECT id, name FROM lake.{identifier} WHERE id >= 5")
    assert pyiceberg_rows(service, copy) == sorted((i, f"name-{i}") for i in [*range(5, 10), 100, 101])

    con.execute(f"DROP TABLE lake.{copy}")
    assert (namespace, "big_ones") not in load_catalog(service=service).list_tables(namespace)


def test_delta_tables_in_buckets(service, s3, bucket):
    location = f"s3://{bucket}/sales/orders"
    write_deltalake(location, pa.table({"id": [1, 2, 3], "item": ["a", "b", "c"]}),
                    storage_options=delta_storage_options(service))
    write_deltalake(location, pa.table({"id": [4], "item": ["d"]}), mode="append",
                    storage_options=delta_storage_options(service))
    con = engines.duckdb(service=service)
    expected = DeltaTable(location, storage_options=delta_storage_options(service)).to_pyarrow_table()
    read = con.execute(f"SELECT id, item FROM delta_scan('{location}') ORDER BY id").fetchall()
    assert read == sorted(zip(expected["id"].to_pylist(), expected["item"].to_pylist(), strict=True))
    assert read == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]


def test_the_catalog_rules_hold_through_duckdb(server, service):
    """A user with the documented read-only policy reads through DuckDB (OAuth2, vended credentials); its
    insert is refused and the table is unchanged."""
    identifier = seeded_table(server, service)
    user, secret = documented_read_only_user(server, service.warehouse)
    reader = dataclasses.replace(service, access_key=user, secret_key=secret)
    con = engines.duckdb(service=reader, buckets=False)
    assert sorted(con.execute(f"SELECT id, name FROM lake.{identifier}").fetchall()) == pyiceberg_rows(service, identifier)
    # The credentials the catalog vends a reader are read-only: the new data file's PUT is refused.
    with pytest.raises(duckdb.Error, match=r"Forbidden \(HTTP code 403\)"):
        con.execute(f"INSERT INTO lake.{identifier} VALUES (100, 'name-100')")
    assert pyiceberg_rows(service, identifier) == [(i, f"name-{i}") for i in range(10)]


def test_a_warehouse_that_cannot_be_attached_is_one_clear_error(service):
    with pytest.raises(AIStorError, match="cannot attach the warehouse 'no-such-warehouse'.*404"):
        engines.duckdb("no-such-warehouse", service=service)
    wrong_key = dataclasses.replace(service, secret_key="not-the-secret")
    for auth in ("oauth2", "sigv4"):
        with pytest.raises(AIStorError, match="401"):
            engines.duckdb(service=wrong_key, auth=auth)


def test_bad_arguments_are_refused_before_any_connection(service):
    with pytest.raises(ValueError, match="auth must be"):
        engines.duckdb(service=service, auth="basic")
    with pytest.raises(ValueError, match="alias"):
        engines.duckdb(service=service, alias="lake; DROP")
