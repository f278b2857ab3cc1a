"""The TPC-H sample data, loaded into the service as the product documentation's tutorial loads it.

``load()`` (or ``aistor-lab sample-data load``) writes the eight TPC-H tables of ``sample-data/tpch``
twice: as Delta tables at ``s3://testdelta/tpch/<table>`` (written with deltalake) and as Iceberg tables
``testice.tpch.<table>`` (written with PyIceberg through the catalog). Columns lose their TPC-H prefix
(``c_custkey`` -> ``custkey``), as in the tutorial's queries. Loading again replaces the data. A progress
bar follows the rows written (in a notebook or a terminal).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .client import AIStorClient, AIStorError
from .progress import progress_bar
from .service_config import ServiceConfig, boto3_options, catalog_properties, delta_storage_options

TPCH_TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")
DELTA_BUCKET = "testdelta"
ICEBERG_WAREHOUSE = "testice"
TPCH_PREFIX = "tpch"  # the Delta path under the bucket and the Iceberg namespace


def default_data_dir() -> Path:
    """``sample-data/`` of the source tree (or $AISTOR_SAMPLE_DATA)."""
    return Path(os.environ.get("AISTOR_SAMPLE_DATA") or Path(__file__).resolve().parents[2] / "sample-data")


def read_tpch_table(name: str, data_dir: Path | None = None) -> pa.Table:
    """One table of ``sample-data/tpch`` with the tutorial's column names and plain string columns
    (tpchgen writes string_view, which Delta and Iceberg writers do not take)."""
    table = pq.read_table(_tpch_file(data_dir or default_data_dir(), name))
    fields = [
        pa.field(column.name.split("_", 1)[1], pa.string() if column.type == pa.string_view() else column.type,
                 nullable=column.nullable)
        for column in table.schema
    ]
    return table.rename_columns([f.name for f in fields]).cast(pa.schema(fields))


def _tpch_file(data_dir: Path, name: str) -> Path:
    return data_dir / "tpch" / f"{name}.parquet"


def _check_data(data_dir: Path, tables: tuple[str, ...]) -> None:
    """Fail before touching the service when the data is not there (e.g. a wheel install, which does not
    carry ``sample-data/``)."""
    missing = [name for name in tables if not _tpch_file(data_dir, name).is_file()]
    if missing:
        raise AIStorError(f"no TPC-H data for {', '.join(missing)} in {data_dir / 'tpch'}: point "
                          "AISTOR_SAMPLE_DATA (or --dir) at a sample-data folder, or make one with "
                          "sample-data/generate.py")


@dataclass
class LoadReport:
    delta: dict[str, str] = field(default_factory=dict)    # table -> s3:// location
    iceberg: dict[str, str] = field(default_factory=dict)  # table -> warehouse.namespace.table
    rows: dict[str, int] = field(default_factory=dict)


def _ensure_bucket(config: ServiceConfig, bucket: str) -> None:
    import boto3
    from botocore.exceptions import ClientError

    s3 = boto3.client("s3", **boto3_options(config))
    try:
        s3.create_bucket(Bucket=bucket)
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "BucketAlreadyOwnedByYou":
            raise


def _ensure_warehouse_and_namespace(config: ServiceConfig, warehouse: str, namespace: str) -> None:
    client = AIStorClient(config)
    if warehouse not in client.list_warehouses():
        client.create_warehouse(warehouse)
    if [namespace] not in client.list_namespaces(warehouse):
        client.create_namespace(warehouse, namespace)


def load(
    config: ServiceConfig | None = None,
    data_dir: Path | None = None,
    tables: tuple[str, ...] = TPCH_TABLES,
    delta_bucket: str = DELTA_BUCKET,
    warehouse: str = ICEBERG_WAREHOUSE,
    progress: bool | None = None,
) -> LoadReport:
    """Load ``tables`` as Delta and Iceberg into the service ``config`` names (default: the
    environment's, which JupyterLab kernels have); ``progress``: show a bar of the rows written (None:
    in a notebook or a terminal)."""
    from deltalake import write_deltalake
    from pyiceberg.catalog import load_catalog

    config = config or ServiceConfig.from_env()
    if config is None:
        raise AIStorError("no AIStor service is configured: AISTOR_ENDPOINT is not set")
    unknown = sorted(set(tables) - set(TPCH_TABLES))
    if unknown:
        raise AIStorError(f"not a TPC-H table: {', '.join(unknown)}")
    data_dir = data_dir or default_data_dir()
    _check_data(data_dir, tables)

    # The catalog first: an unreachable service is an AIStorError (one line, exit code 3), not a traceback.
    _ensure_warehouse_and_namespace(config, warehouse, TPCH_PREFIX)
    _ensure_bucket(config, delta_bucket)
    catalog = load_catalog("aistor", **catalog_properties(config, warehouse))
    report = LoadReport()
    total = 2 * sum(pq.read_metadata(_tpch_file(data_dir, name)).num_rows for name in tables)  # Delta + Iceberg
    with progress_bar(progress, total=total, unit=" rows", unit_scale=True, desc="TPC-H") as bar:
        for name in tables:
            data = read_tpch_table(name, data_dir)
            location = f"s3://{delta_bucket}/{TPCH_PREFIX}/{name}"
            bar.set_description_str(f"{name} → Delta")
            # Change data feed on, so the shared tables answer CDF queries from their first update.
            write_deltalake(location, data, mode="overwrite", schema_mode="overwrite",
                            configuration={"delta.enableChangeDataFeed": "true"},
                            storage_options=delta_storage_options(config))
            bar.update(data.num_rows)
            bar.set_description_str(f"{name} → Iceberg")
            identifier = (TPCH_PREFIX, name)
            if catalog.table_exists(identifier):
                catalog.purge_table(identifier)
            catalog.create_table(identifier, schema=data.schema).append(data)
            bar.update(data.num_rows)
            report.delta[name] = location
            report.iceberg[name] = f"{warehouse}.{TPCH_PREFIX}.{name}"
            report.rows[name] = data.num_rows
    return report


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``aistor-lab sample-data load``."""
    sample = commands.add_parser("sample-data", help="the TPC-H sample data").add_subparsers(
        dest="sample_command", required=True)
    load_parser = sample.add_parser("load", help=f"load TPC-H as Delta (s3://{DELTA_BUCKET}/{TPCH_PREFIX}/) "
                                    f"and Iceberg ({ICEBERG_WAREHOUSE}.{TPCH_PREFIX})")
    load_parser.add_argument("--dir", type=Path, default=None, help="the sample-data directory")
    load_parser.add_argument("--tables", nargs="+", default=list(TPCH_TABLES), choices=TPCH_TABLES)
    load_parser.add_argument("--endpoint", default=None,
                             help="the service (default $AISTOR_ENDPOINT, else http://127.0.0.1:9000)")
    load_parser.set_defaults(run=_load_command)


def _load_command(args: argparse.Namespace) -> int:
    from ..settings import DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USER

    env = dict(os.environ)
    env.setdefault("AISTOR_ACCESS_KEY", env.get("AISTOR_ROOT_USER", DEFAULT_ROOT_USER))
    env.setdefault("AISTOR_SECRET_KEY", env.get("AISTOR_ROOT_PASSWORD", DEFAULT_ROOT_PASSWORD))
    env["AISTOR_ENDPOINT"] = args.endpoint or env.get("AISTOR_ENDPOINT") or "http://127.0.0.1:9000"
    try:
        report = load(ServiceConfig.from_env(env), args.dir, tuple(args.tables))
    except AIStorError as exc:
        print(f"aistor-lab: {exc}", file=sys.stderr)
        return exc.exit_code
    for name, rows in report.rows.items():
        print(f"{name:<9} {rows:>7} rows  Delta {report.delta[name]}  Iceberg {report.iceberg[name]}")
    return 0
