"""Table maintenance benchmark: what compaction buys readers of a table of many small files, and what
it costs in the service against the same work done by Iceberg's own Spark procedure.

Starts ``aistor-lab server`` (a separate process, as in catalog_bench; its background maintenance
off, so only the benchmark maintains), then:

1. Writes a table of ``--files`` (2,000; ``--quick`` 300) small Parquet files with PyIceberg, in
   ``--commits`` appends of several files each (a tiny ``write.target-file-size-bytes`` while writing
   makes PyIceberg write each record batch as a file of its own; the property is removed afterwards,
   so compaction aims at the default target). The same rows are written twice: ``events`` for the
   service, ``events_spark`` for Spark.
2. Reads ``events`` in full before compaction: PyIceberg ``scan().to_arrow()``, DuckDB through the
   REST catalog (duckdb_client.py), and Delta Sharing with the table shared as ``uniform``: the
   ``/query`` answer alone and ``load_as_pandas``. Each read is timed ``--repeat`` times after a
   warm-up, the reads taking turns (sharing_bench.timed); the table shows medians.
3. Compacts ``events`` in the service (``POST .../maintenance/runs {"operations": ["compact"]}``)
   and reads it again the same ways: the ratios are before/after (above 1: faster after).
4. Compacts ``events_spark`` with ``rewrite_data_files`` in a local[2] Spark session (the jar kit),
   through ``table maintenance run --engine spark``'s own function, with the same settings: the
   ratio is Spark's time over the service's (above 1: the service is faster). The JVM's start is
   not counted: the session reads the table once before (the service, too, has served it).

Every read checks the rows (count and sum of ``id``) against what was written.

    .venv/bin/python benchmarks/maintenance_bench.py [--quick] [--files 2000] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

import delta_sharing
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from catalogs import SIGNING_NAME, SIGNING_REGION, WAREHOUSE, open_catalog
from duckdb_client import ALIAS, DuckDBCatalog
from peers import (
    ACCESS_KEY,
    OURS,
    SECRET_KEY,
    ServerProcess,
    add_run_options,
    aistor_lab,
    peak_rss_mib,
    run_with_servers,
)
from pyiceberg.catalog import Catalog
from sharing_bench import admin, timed
from spark_client import SparkCatalogs

from aistor_lab.workbench.spark.maintenance import maintain_with_spark

NAMESPACE = "ns"
ROWS_PER_FILE = 500
MiB = 2**20
FULL = {"files": 2000, "commits": 20}
QUICK = {"files": 300, "commits": 10}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="300 files in 10 commits (explicit options win)")
    parser.add_argument("--files", type=int, help="small files of the table (default 2000)")
    parser.add_argument("--commits", type=int, help="appends writing them (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each read (default 3)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    add_run_options(parser, "server")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.files = args.files or preset["files"]
    args.commits = min(args.commits or preset["commits"], args.files)
    return args


def catalog_call(server: ServerProcess, method: str, path: str, body: dict | None = None) -> dict:
    """A call to the catalog's own API (``/_iceberg/v1...``), SigV4-signed as PyIceberg signs."""
    request = AWSRequest(method=method, url=f"{server.catalog_uri}/v1{path}",
                         data=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"})
    SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), SIGNING_NAME, SIGNING_REGION).add_auth(request)
    response = requests.request(method, request.url, data=request.body, headers=dict(request.headers), timeout=3600)
    response.raise_for_status()
    return response.json()


def maintenance_path(table: str) -> str:
    return f"/{WAREHOUSE}/namespaces/{NAMESPACE}/tables/{table}/maintenance"


# -- the table ------------------------------------------------------------------------------------


def write_small_files(catalog: Catalog, name: str, files: int, commits: int) -> tuple[int, int]:
    """``files`` small files in ``commits`` appends; (rows, sum of id), what every read must give."""
    rng = np.random.default_rng(7)  # both copies get the same rows
    schema = pa.schema([("id", pa.int64()), ("value", pa.float64()), ("name", pa.string())])

    def batch(number: int) -> pa.RecordBatch:
        ids = np.arange(number * ROWS_PER_FILE, (number + 1) * ROWS_PER_FILE)
        names = pa.array([f"row-{i:010d}" for i in ids])  # one width: every row weighs the same to PyIceberg
        return pa.record_batch([ids, rng.random(ROWS_PER_FILE), names], schema=schema)

    # PyIceberg cuts an append into files of this many in-memory bytes: one batch's, so a file per batch.
    one_file = batch(0).nbytes + 1
    table = catalog.create_table(f"{NAMESPACE}.{name}", schema,
                                 properties={"write.target-file-size-bytes": str(one_file)})
    written = 0
    for commit in range(commits):
        count = files // commits + (commit < files % commits)
        table.append(pa.Table.from_batches([batch(number) for number in range(written, written + count)], schema))
        written += count
    with table.transaction() as transaction:
        transaction.remove_properties("write.target-file-size-bytes")
    rows = files * ROWS_PER_FILE
    return rows, rows * (rows - 1) // 2


def data_files(catalog: Catalog, name: str) -> tuple[int, int]:
    """(data files, their bytes) of the table's current snapshot."""
    files = catalog.load_table(f"{NAMESPACE}.{name}").inspect.files()
    return files.num_rows, pc.sum(files["file_size_in_bytes"]).as_py() or 0


# -- the reads ------------------------------------------------------------------------------------


def readers(server: ServerProcess, catalog: Catalog, profile_path: Path, profile: dict, share: str) -> dict:
    """Each way of reading ``events`` in full, as a function returning (rows, sum of id)."""
    duckdb = DuckDBCatalog(server, WAREHOUSE)  # a new connection: nothing cached from an earlier snapshot

    def pyiceberg() -> tuple[int, int]:
        scanned = catalog.load_table(f"{NAMESPACE}.events").scan().to_arrow()
        return scanned.num_rows, pc.sum(scanned["id"]).as_py()

    def duckdb_scan() -> tuple[int, int]:
        count, total, _, _ = duckdb.connection.execute(
            f"SELECT count(*), sum(id), sum(value), max(name) FROM {ALIAS}.{NAMESPACE}.events").fetchone()
        return count, int(total)

    def sharing_query() -> tuple[int, int]:
        response = requests.post(f"{profile['endpoint']}/shares/{share}/schemas/s/tables/events/query", json={},
                                 headers={"Authorization": f"Bearer {profile['bearerToken']}"}, timeout=600)
        response.raise_for_status()
        files = [json.loads(line)["file"] for line in response.iter_lines() if line.startswith(b'{"file"')]
        return sum(json.loads(f["stats"])["numRecords"] for f in files), len(files)

    def sharing_load() -> tuple[int, int]:
        frame = delta_sharing.load_as_pandas(f"{profile_path}#{share}.s.events")
        return len(frame), int(frame["id"].sum())

    return {"pyiceberg scan": pyiceberg, "duckdb scan": duckdb_scan, "sharing query": sharing_query,
            "sharing load_as_pandas": sharing_load}


def read_all(server, catalog, profile_path, profile, share, expected: tuple[int, int], repeat: int) -> dict:
    timings = timed(readers(server, catalog, profile_path, profile, share), repeat)
    for name, (_, result) in timings.items():
        # The sharing query's answer is (rows in its files' stats, files): only its rows are checked.
        assert result[0] == expected[0] and (name == "sharing query" or result == expected), (name, result, expected)
    return {name: seconds for name, (seconds, _) in timings.items()}


# -- the run --------------------------------------------------------------------------------------


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    server = aistor_lab(root)
    server.env["AISTOR_MAINTENANCE_INTERVAL_SECONDS"] = "0"  # the benchmark alone maintains
    server.start()
    started.append(server)
    catalog = open_catalog(OURS, root, server, args.start_timeout).catalog
    catalog.create_namespace(NAMESPACE)

    began = time.perf_counter()
    expected = write_small_files(catalog, "events", args.files, args.commits)
    write_seconds = time.perf_counter() - began
    assert write_small_files(catalog, "events_spark", args.files, args.commits) == expected
    before_files = data_files(catalog, "events")

    share = "bench"
    admin(server.endpoint, "POST", "/shares",
          {"name": share, "schema": "s", "tables": [f"events:uniform:{WAREHOUSE}:{NAMESPACE}:events"]})
    profile = admin(server.endpoint, "POST", f"/shares/{share}/tokens", {"expires": "1d"})["profile"]
    profile_path = root / "bench.share"
    profile_path.write_text(json.dumps(profile))
    read = functools.partial(read_all, server, catalog, profile_path, profile, share, expected, args.repeat)

    before = read()
    peak_before = peak_rss_mib(server.proc.pid)  # what writing, sharing and reading cost the server
    began = time.perf_counter()
    record = catalog_call(server, "POST", maintenance_path("events") + "/runs", {"operations": ["compact"]})
    service_seconds = time.perf_counter() - began
    assert not record["errors"], record["errors"]
    [service_report] = record["operations"]
    peak_compaction = peak_rss_mib(server.proc.pid)
    after = read()
    after_files = data_files(catalog, "events")

    spark = SparkCatalogs([server], WAREHOUSE)
    try:
        settings = {name: s["value"] for name, s in catalog_call(server, "GET", maintenance_path("events_spark"))
                    ["settings"].items()}
        # Warmed up as the service is (a table already read): the JVM's first query loads its classes.
        assert spark.count(server, f"{NAMESPACE}.events_spark") == expected[0]
        began = time.perf_counter()
        spark_record = maintain_with_spark(spark.spark, WAREHOUSE, NAMESPACE, "events_spark", ["compact"], settings)
        spark_seconds = time.perf_counter() - began
        spark_version = spark.version()
    finally:
        spark.stop()
    assert not spark_record["errors"], spark_record["errors"]
    [spark_report] = spark_record["operations"]
    scanned = catalog.load_table(f"{NAMESPACE}.events_spark").scan().to_arrow()
    assert (scanned.num_rows, pc.sum(scanned["id"]).as_py()) == expected

    results = {
        "files": args.files, "commits": args.commits, "rows": expected[0], "write_seconds": write_seconds,
        "data_files": {"before": before_files, "after_service": after_files,
                       "after_spark": data_files(catalog, "events_spark")},
        "reads_before": before, "reads_after": after,
        "server_peak_mib": {"before compaction": peak_before, "after compaction": peak_compaction},
        "compaction": {
            "service": {"seconds": service_seconds, "rewritten_bytes": service_report["removed-files"]["bytes"],
                        "rewritten_files": service_report["removed-files"]["count"],
                        "added_files": service_report["added-files"]["count"]},
            "spark": {"seconds": spark_seconds, "rewritten_bytes": spark_report["removed-files"]["bytes"],
                      "rewritten_files": spark_report["removed-files"]["count"],
                      "added_files": spark_report["added-files"]["count"], "version": spark_version},
        },
    }
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def report(results: dict) -> None:
    files = results["data_files"]
    print(f"\nTable: {results['rows']:,} rows in {files['before'][0]} files of "
          f"{files['before'][1] / MiB:.1f} MiB ({results['commits']} commits, written in "
          f"{results['write_seconds']:.1f} s); after compaction: {files['after_service'][0]} files (service), "
          f"{files['after_spark'][0]} (Spark)")
    print(f"  {'read (median)':<26}{'before ms':>12}{'after ms':>12}{'before/after':>14}")
    for name, seconds in results["reads_before"].items():
        after = results["reads_after"][name]
        print(f"  {name:<26}{seconds * 1000:>12.1f}{after * 1000:>12.1f}{seconds / after:>13.2f}x")
    print(f"\n  {'compaction':<26}{'seconds':>12}{'MiB/s':>12}{'files in/out':>16}")
    for name, figure in results["compaction"].items():
        print(f"  {name:<26}{figure['seconds']:>12.2f}{figure['rewritten_bytes'] / MiB / figure['seconds']:>12.2f}"
              f"{figure['rewritten_files']:>10} / {figure['added_files']}")
    peaks = results["server_peak_mib"]
    print(f"  the server's peak memory (VmHWM): {peaks['before compaction']:.0f} MiB before compaction, "
          f"{peaks['after compaction']:.0f} MiB after it")
    service, spark = results["compaction"]["service"], results["compaction"]["spark"]
    print(f"  ratio Spark/service       {spark['seconds'] / service['seconds']:>12.2f}x  (above 1: the service is "
          f"faster; {spark['version']} local[2], its JVM's start not counted)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_with_servers("maintenance_bench", args.workdir, args.keep,
                            functools.partial(benchmark, args))


if __name__ == "__main__":
    sys.exit(main())
