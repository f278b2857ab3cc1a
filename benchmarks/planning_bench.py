"""Server-side scan planning benchmark: PyIceberg 0.12 planning a scan itself (reading the manifest
list and every manifest over S3) against the service planning it (``scan-planning-mode=server``:
one request, manifests parsed once and kept by the service), on a table of many files.

Starts ``aistor-lab server`` (a separate process, its background maintenance off), then:

1. Builds a table of ``--files`` (10,000; ``--quick`` 1,000) small Parquet files in ``--manifests``
   (200; ``--quick`` 20) commits, partitioned by identity on ``part`` (one file per partition per
   commit): the files are written straight to the server's S3 API in parallel and each commit adds
   its files with PyIceberg's ``add_files``, one manifest per commit.
2. For each scan (one partition of ``part``; no filter; an ``id`` range that only column stats
   prune), times ``plan_files()`` and ``to_arrow()`` with client-side and with server-side planning,
   ``--repeat`` times after a warm-up, taking turns (sharing_bench.timed); the table shows medians and
   the ratio client/server (above 1: server planning is faster). The service's first plan of the
   table, before anything was cached, is shown apart.

Every scan checks its rows (count and sum of ``id``) against what was written, and both plans must
choose the same files.

    .venv/bin/python benchmarks/planning_bench.py [--quick] [--files 10000] [--manifests 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from catalogs import WAREHOUSE, open_catalog, rest_properties
from peers import OURS, ServerProcess, add_run_options, aistor_lab, peak_rss_mib, run_with_servers, s3_client
from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.expressions import AlwaysTrue, BooleanExpression, EqualTo, LessThan
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import IntegerType, LongType, NestedField, StringType
from sharing_bench import timed

NAMESPACE = "ns"
TABLE = f"{NAMESPACE}.events"
ROWS_PER_FILE = 20
FULL = {"files": 10_000, "manifests": 200}
QUICK = {"files": 1_000, "manifests": 20}
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "part", IntegerType(), required=False),
                NestedField(3, "name", StringType(), required=False))
BY_PART = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "part"))
ARROW_SCHEMA = pa.schema([("id", pa.int64()), ("part", pa.int32()), ("name", pa.string())])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1,000 files in 20 manifests (explicit options win)")
    parser.add_argument("--files", type=int, help="data files of the table (default 10000)")
    parser.add_argument("--manifests", type=int, help="commits adding them, one manifest each (default 200)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each plan and scan (default 3)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    add_run_options(parser, "server")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.files = args.files or preset["files"]
    args.manifests = min(args.manifests or preset["manifests"], args.files)
    return args


# -- the table ------------------------------------------------------------------------------------


def parquet_file(number: int, part: int) -> bytes:
    ids = pa.array(range(number * ROWS_PER_FILE, (number + 1) * ROWS_PER_FILE), pa.int64())
    table = pa.table({"id": ids, "part": pa.array([part] * ROWS_PER_FILE, pa.int32()),
                      "name": pa.array([f"row-{i}" for i in ids.to_pylist()])}, schema=ARROW_SCHEMA)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def build_table(server: ServerProcess, catalog: Catalog, files: int, manifests: int) -> tuple[int, int]:
    """The table; (rows, sum of id), what every scan must give."""
    table = catalog.create_table(TABLE, SCHEMA, partition_spec=BY_PART)
    s3 = s3_client(server.endpoint, pool=16)
    location = table.location().removeprefix(f"s3://{WAREHOUSE}/")
    per_commit = files // manifests

    def put(number: int) -> str:
        key = f"{location}/data/file-{number:06d}.parquet"
        s3.put_object(Bucket=WAREHOUSE, Key=key, Body=parquet_file(number, number % per_commit))
        return f"s3://{WAREHOUSE}/{key}"

    with ThreadPoolExecutor(max_workers=8) as pool:
        for commit in range(manifests):
            numbers = range(commit * per_commit, (commit + 1) * per_commit)
            table.add_files(list(pool.map(put, numbers)), check_duplicate_files=False)
    rows = manifests * per_commit * ROWS_PER_FILE
    return rows, rows * (rows - 1) // 2


# -- the scans ------------------------------------------------------------------------------------


def scans(per_commit: int, manifests: int) -> dict[str, tuple[BooleanExpression, int]]:
    """Each scan's filter and the files it keeps: a file of every commit; all; the first commit's."""
    return {
        "one partition": (EqualTo("part", 7 % per_commit), manifests),
        "no filter": (AlwaysTrue(), per_commit * manifests),
        "id range (stats only)": (LessThan("id", per_commit * ROWS_PER_FILE), per_commit),
    }


def plan(catalog: Catalog, row_filter: BooleanExpression) -> list[str]:
    return sorted(task.file.file_path for task in catalog.load_table(TABLE).scan(row_filter=row_filter).plan_files())


def read(catalog: Catalog, row_filter: BooleanExpression) -> tuple[int, int]:
    scanned = catalog.load_table(TABLE).scan(row_filter=row_filter).to_arrow()
    return scanned.num_rows, pc.sum(scanned["id"]).as_py() or 0


def expected_rows(row_filter: BooleanExpression, files: int, per_commit: int) -> tuple[int, int]:
    ids = [i for number in range(files) for i in range(number * ROWS_PER_FILE, (number + 1) * ROWS_PER_FILE)
           if _keeps(row_filter, i, number % per_commit)]
    return len(ids), sum(ids)


def _keeps(row_filter: BooleanExpression, row_id: int, part: int) -> bool:
    if isinstance(row_filter, EqualTo):
        return part == row_filter.literal.value
    if isinstance(row_filter, LessThan):
        return row_id < row_filter.literal.value
    return True


# -- the run --------------------------------------------------------------------------------------


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    server = aistor_lab(root)
    server.env["AISTOR_MAINTENANCE_INTERVAL_SECONDS"] = "0"
    server.start()
    started.append(server)
    client = open_catalog(OURS, root, server, args.start_timeout).catalog
    client.create_namespace(NAMESPACE)
    began = time.perf_counter()
    build_table(server, client, args.files, args.manifests)
    build_seconds = time.perf_counter() - began
    planned = load_catalog("server-planning", **rest_properties(server), **{"scan-planning-mode": "server"})
    assert planned.supports_server_side_planning()
    per_commit = args.files // args.manifests
    files = args.manifests * per_commit

    began = time.perf_counter()
    first_plan = plan(planned, AlwaysTrue())
    first_seconds = time.perf_counter() - began
    assert len(first_plan) == files

    results: dict = {"files": files, "manifests": args.manifests, "build_seconds": build_seconds,
                     "first_server_plan_seconds": first_seconds, "scans": {}}
    for name, (row_filter, kept) in scans(per_commit, args.manifests).items():
        ours, theirs = plan(client, row_filter), plan(planned, row_filter)
        assert ours == theirs and len(ours) == kept, (name, len(ours), len(theirs))
        expected = expected_rows(row_filter, files, per_commit)
        plans = timed({"client": functools.partial(plan, client, row_filter),
                       "server": functools.partial(plan, planned, row_filter)}, args.repeat)
        reads = timed({"client": functools.partial(read, client, row_filter),
                       "server": functools.partial(read, planned, row_filter)}, args.repeat)
        assert all(rows == expected for _, rows in reads.values()), (name, reads, expected)
        results["scans"][name] = {"files": len(ours), "rows": expected[0],
                                  "plan": {side: seconds for side, (seconds, _) in plans.items()},
                                  "scan": {side: seconds for side, (seconds, _) in reads.items()}}
    results["server_peak_mib"] = peak_rss_mib(server.proc.pid)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def report(results: dict) -> None:
    print(f"\nTable: {results['files']:,} files in {results['manifests']} manifests (built in "
          f"{results['build_seconds']:.1f} s); the service's first plan of it, nothing cached: "
          f"{results['first_server_plan_seconds'] * 1000:.0f} ms")
    print(f"  {'scan (median ms)':<24}{'files':>7}{'plan client':>13}{'plan server':>13}{'ratio':>8}"
          f"{'scan client':>13}{'scan server':>13}{'ratio':>8}")
    for name, figures in results["scans"].items():
        plans, scans_ = figures["plan"], figures["scan"]
        print(f"  {name:<24}{figures['files']:>7}{plans['client'] * 1000:>13.1f}{plans['server'] * 1000:>13.1f}"
              f"{plans['client'] / plans['server']:>7.2f}x{scans_['client'] * 1000:>13.1f}"
              f"{scans_['server'] * 1000:>13.1f}{scans_['client'] / scans_['server']:>7.2f}x")
    print(f"  ratios are client/server planning (above 1: server planning is faster); "
          f"the server's peak memory (VmHWM): {results['server_peak_mib']:.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_with_servers("planning_bench", args.workdir, args.keep, functools.partial(benchmark, args))


if __name__ == "__main__":
    sys.exit(main())
