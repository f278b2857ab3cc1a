"""The catalog workload of the query engines, DuckDB and Spark: commits with ``INSERT INTO`` and table
loads with ``SELECT count(*)``, each engine against every REST catalog.

Each round, per catalog: PyIceberg creates a table and appends once; the engine makes one untimed
INSERT and count (connections, the JVM's warm-up), then the timed INSERTs (the catalogs taking
turns), then the timed counts, each checked against the rows committed so far.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import pyarrow as pa
from catalog_rounds import NOT_APPLICABLE, Outcome, WrongResult, failure, take_turns, total_records
from catalogs import WAREHOUSE, CatalogUnderTest


@dataclass
class Engine:
    """A query engine attached to the REST catalogs it could reach: per catalog name, its INSERT and
    its count, and why it could not reach each other one."""

    key: str  # the figures' prefix in the JSON
    label: str
    version: str
    inserts: int  # timed per round
    counts: int
    insert: dict[str, Callable[[str, int], None]] = field(default_factory=dict)
    count: dict[str, Callable[[str], int]] = field(default_factory=dict)
    unreachable: dict[str, str] = field(default_factory=dict)
    close: Callable[[], None] = lambda: None

    def figure_keys(self) -> list[str]:
        return [f"{self.key}_inserts_per_s", f"{self.key}_count_p50_ms"]


def _rest_catalogs(catalogs: list[CatalogUnderTest], engine: Engine) -> list[CatalogUnderTest]:
    """The catalogs an engine can reach over REST; the others are marked not applicable."""
    for under_test in catalogs:
        if under_test.server is None:
            engine.unreachable[under_test.name] = f"{NOT_APPLICABLE}: {under_test.name} is not a REST catalog"
    return [under_test for under_test in catalogs if under_test.server is not None]


def open_duckdb(catalogs: list[CatalogUnderTest], inserts: int, counts: int) -> Engine:
    """DuckDB, one in-memory database per REST catalog."""
    from duckdb_client import DuckDBCatalog

    engine = Engine("duckdb", "DuckDB", "DuckDB", inserts, counts)
    connections = []
    for under_test in _rest_catalogs(catalogs, engine):
        try:
            duck = DuckDBCatalog(under_test.server, WAREHOUSE)
        except Exception as exc:  # noqa: BLE001 - this catalog fails, the others still run
            engine.unreachable[under_test.name] = failure(exc)
            continue
        connections.append(duck)
        engine.version = duck.version()
        engine.insert[under_test.name], engine.count[under_test.name] = duck.insert, duck.count

    def close() -> None:
        for duck in connections:
            duck.close()

    engine.close = close
    return engine


def open_spark(catalogs: list[CatalogUnderTest], operations: int) -> Engine:
    """Spark, one local session with every REST catalog (its start-up is not timed)."""
    from spark_client import SparkCatalogs

    engine = Engine("spark", "Spark", "Spark", operations, operations)
    reachable = _rest_catalogs(catalogs, engine)
    if not reachable:
        return engine
    try:
        spark = SparkCatalogs([under_test.server for under_test in reachable], WAREHOUSE)
    except Exception as exc:  # noqa: BLE001 - no Spark: every catalog says why
        engine.unreachable.update({under_test.name: failure(exc) for under_test in reachable})
        return engine
    engine.version, engine.close = spark.version(), spark.stop
    for under_test in reachable:
        engine.insert[under_test.name] = partial(spark.insert, under_test.server)
        engine.count[under_test.name] = partial(spark.count, under_test.server)
    return engine


def engine_round(engine: Engine, catalogs: list[CatalogUnderTest], identifier: str, data: pa.Table
                 ) -> dict[str, Outcome]:
    """One round of ``engine`` on a new table ``identifier`` in each catalog; commits/s of the INSERTs
    and the p50 of the counts in ms."""
    rows = data.num_rows
    outcomes: dict[str, Outcome] = {}
    ready: list[CatalogUnderTest] = []
    for under_test in catalogs:
        if under_test.name in engine.unreachable:
            outcomes[under_test.name] = engine.unreachable[under_test.name]
            continue
        try:
            under_test.catalog.create_table(identifier, schema=data.schema).append(data)
            engine.insert[under_test.name](identifier, rows)
            _check_count(engine, under_test.name, identifier, 2 * rows)
        except Exception as exc:  # noqa: BLE001
            outcomes[under_test.name] = failure(exc)
            continue
        ready.append(under_test)
    insert_seconds = take_turns(
        {c.name: partial(engine.insert[c.name], identifier, rows) for c in ready}, engine.inserts)
    expected = rows * (engine.inserts + 2)
    count_seconds = take_turns(
        {c.name: partial(_check_count, engine, c.name, identifier, expected) for c in ready
         if not isinstance(insert_seconds[c.name], str)}, engine.counts)
    inserts_key, count_key = engine.figure_keys()
    for under_test in ready:
        inserted, counted = insert_seconds[under_test.name], count_seconds.get(under_test.name)
        if isinstance(inserted, str) or isinstance(counted, str):
            outcomes[under_test.name] = inserted if isinstance(inserted, str) else counted
        elif (committed := total_records(under_test.catalog.load_table(identifier))) != expected:
            outcomes[under_test.name] = failure(WrongResult(
                f"PyIceberg sees {committed} records after {engine.label}'s commits, not {expected}"))
        else:
            outcomes[under_test.name] = {
                inserts_key: engine.inserts / sum(inserted),
                count_key: statistics.median(counted) * 1000,
            }
    return outcomes


def _check_count(engine: Engine, catalog: str, identifier: str, expected: int) -> None:
    got = engine.count[catalog](identifier)
    if got != expected:
        raise WrongResult(f"{engine.label} counted {got} rows, not {expected}")
