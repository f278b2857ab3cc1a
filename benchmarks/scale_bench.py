"""Commits with more servers: 1, 2 and 3 ``aistor-lab server`` processes in front of ONE SeaweedFS
cluster (master, two volume servers, filer, S3 gateway as separate processes), on one table and on 8.

``--writers`` (8) PyIceberg writers, each a thread with its own catalog object, go to the servers in
turn (writer i to server i mod N) and, released together, each make ``--commits`` appends of
``--rows`` rows: all to one table (every commit races for one pointer), or each to its own of 8
tables (commits race only for the servers' CPU and the backend). First, untimed rounds aside, one writer
alone on one server: the cost of a commit without a race. A commit that loses the race is
refused (409) and retried by PyIceberg (the table's properties allow 100 retries from 10 ms); the
refusals are counted. A commit the server fails (5xx) is counted as an error and the writer goes
on. Afterwards every acknowledged commit must be in its table, whole and once.

The figures per (tables, servers): commits/s over the round, p50/p99 of one append (its retries
included), retries, errors, and each row's ratio to one server. On a 2-core machine shared with the
backend, more servers cannot add CPU: what the ratios show is the per-commit overhead of more servers
(which do not share any in-process state), and that correctness holds.

At the end, if ``spark_figures.py`` is beside this file, its Spark figures (the same job on
``local[2]`` and on a 2-worker standalone cluster) unless ``--no-spark``.

    .venv/bin/python benchmarks/scale_bench.py [--quick] [--writers 8] [--commits 10] [--no-spark] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import contention_bench
from catalog_rounds import WrongResult, batch
from catalogs import _create_warehouse, _wait_answers, rest_properties
from contention_bench import RETRIES, RefusalCounting, run_together
from peers import (
    ACCESS_KEY,
    SECRET_KEY,
    ServerProcess,
    add_run_options,
    aistor_lab,
    run_with_servers,
    seaweedfs_cluster,
    start_cluster,
)
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.table import Table
from s3_bench import environment

SERVER_COUNTS = (1, 2, 3)
TABLE_COUNTS = (1, 8)
FULL = {"writers": 8, "commits": 10}
QUICK = {"writers": 8, "commits": 2}
NAMESPACE = "scale"


@dataclass
class Writer(contention_bench.Writer):
    """contention_bench's writer, which here also keeps what it attempted and what was acknowledged,
    and goes on past a server error (counted) so that no round stops early."""

    attempted: list[int] = field(default_factory=list)  # first ids of its commits
    acknowledged: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def run(self) -> None:
        for commit in range(self.commits):
            first = (self.number * self.commits + commit) * self.rows
            self.attempted.append(first)
            start = time.perf_counter()
            try:
                self.table.append(batch(self.rows, first_id=first))
            except CommitFailedException:
                raise  # out of retries: the run is wrong, not slow
            except Exception as exc:  # noqa: BLE001 - a server error, counted; the writer goes on
                self.errors.append(f"{type(exc).__name__}: {exc}")
                continue
            self.seconds.append(time.perf_counter() - start)
            self.acknowledged.append(first)


def check_landed(table: Table, writers: list[Writer], rows: int) -> None:
    """Every acknowledged commit of ``writers`` in ``table``, whole and once; nothing not attempted."""
    ids = table.scan(selected_fields=("id",)).to_arrow()["id"].to_pylist()
    landed = {i - i % rows for i in ids}
    acknowledged = {first for writer in writers for first in writer.acknowledged}
    attempted = {first for writer in writers for first in writer.attempted}
    if len(ids) != len(set(ids)) or len(ids) != rows * len(landed):
        raise WrongResult(f"{len(ids)} rows, {len(ids) - len(set(ids))} doubled, not whole commits of {rows}")
    if not acknowledged <= landed <= attempted:
        raise WrongResult(f"{len(acknowledged - landed)} acknowledged commits missing")
    if len(table.snapshots()) != len(landed):
        raise WrongResult(f"{len(table.snapshots())} snapshots for {len(landed)} commits")


def one_round(servers: list[ServerProcess], tables: int, args: argparse.Namespace, tag: str) -> dict[str, float]:
    """Every writer appends at once through its server; the round's figures."""
    admin = load_catalog("admin", **rest_properties(servers[0]))
    identifiers = [f"{NAMESPACE}.{tag}_{number}" for number in range(tables)]
    for identifier in identifiers:
        admin.create_table(identifier, schema=batch(1).schema, properties=RETRIES)
    team: list[Writer] = []
    for number in range(args.writers):
        catalog = load_catalog(f"writer-{number}", **rest_properties(servers[number % len(servers)]))
        refusals = RefusalCounting(catalog)
        team.append(Writer(number, catalog.load_table(identifiers[number % tables]), refusals, args.commits,
                           args.rows))
    elapsed, failures = run_together(team)
    if failures:
        raise failures[0]
    for number, identifier in enumerate(identifiers):
        check_landed(admin.load_table(identifier), team[number::tables], args.rows)
    seconds = [s for writer in team for s in writer.seconds]
    cuts = statistics.quantiles(seconds, n=100, method="inclusive") if len(seconds) > 1 else seconds * 99
    return {
        "commits_per_s": len(seconds) / elapsed,
        "p50_ms": statistics.median(seconds) * 1000,
        "p99_ms": cuts[98] * 1000,
        "retries": float(sum(writer.refusals.refused for writer in team)),
        "errors": float(sum(len(writer.errors) for writer in team)),
    }


def start_servers(root: Path, started: list[ServerProcess], count: int, timeout: float) -> list[ServerProcess]:
    """The SeaweedFS cluster, then ``count`` aistor-lab servers keeping everything in it."""
    (root / "seaweedfs").mkdir()
    cluster = seaweedfs_cluster(root / "seaweedfs")
    start_cluster(cluster)
    started.extend(cluster)
    servers = []
    for number in range(count):
        server = aistor_lab(root / f"aistor-lab-{number}")
        server.env.update({"AISTOR_STORE_ENDPOINT": cluster[-1].endpoint, "AISTOR_STORE_ACCESS_KEY": ACCESS_KEY,
                           "AISTOR_STORE_SECRET_KEY": SECRET_KEY, "AISTOR_MAINTENANCE_INTERVAL_SECONDS": "0"})
        server.start()
        started.append(server)
        server.wait_ready(timeout)
        servers.append(server)
    _create_warehouse(servers[0])
    catalog = load_catalog("setup", **rest_properties(servers[0]))
    _wait_answers(catalog, timeout)
    catalog.create_namespace(NAMESPACE)
    return servers


FIGURES = (("commits_per_s", "commits/s", "{:,.1f}"), ("p50_ms", "p50 ms", "{:,.0f}"),
           ("p99_ms", "p99 ms", "{:,.0f}"), ("retries", "retries", "{:,.0f}"), ("errors", "5xx", "{:,.0f}"))


def render(results: dict[tuple[int, int], dict[str, float]]) -> str:
    """One row per (tables, servers), each figure then its ratio to the same tables on one server."""
    header = f"{'tables':>6} {'servers':>7}  " + "  ".join(f"{label:>9} {'x1':>5}" for _, label, _ in FIGURES)
    lines = [header, "-" * len(header)]
    for (tables, servers), figures in sorted(results.items()):
        base = results[(tables, 1)]
        cells = []
        for key, _, shape in FIGURES:
            ratio = f"{figures[key] / base[key]:.2f}" if base[key] else "-"
            cells.append(f"{shape.format(figures[key]):>9} {ratio:>5}")
        lines.append(f"{tables:>6} {servers:>7}  " + "  ".join(cells))
    return "\n".join(lines)


def run_spark_figures(quick: bool) -> None:
    """The Spark figures of spark_figures.py, when it is there."""
    if not (Path(__file__).parent / "spark_figures.py").exists():
        print("scale_bench: no spark_figures.py beside this file, no Spark figures", flush=True)
        return
    importlib.import_module("spark_figures").run(quick)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"{QUICK['writers']} writers x {QUICK['commits']} "
                        "commits (explicit options still win)")
    parser.add_argument("--writers", type=int, help=f"concurrent writers (default {FULL['writers']})")
    parser.add_argument("--commits", type=int, help=f"appends per writer (default {FULL['commits']})")
    parser.add_argument("--rows", type=int, default=10, help="rows per append (default 10)")
    parser.add_argument("--no-spark", action="store_true", help="skip the Spark figures (spark_figures.py)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    add_run_options(parser, "server")
    args = parser.parse_args(argv)
    for name, value in (QUICK if args.quick else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if min(args.writers, args.commits, args.rows) < 1:
        parser.error("--writers, --commits and --rows must be >= 1")
    if args.writers < max(TABLE_COUNTS):
        parser.error(f"--writers must be >= {max(TABLE_COUNTS)}: one writer at least for each table")
    return args


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    env = environment()
    print(f"scale_bench: {args.writers} writers x {args.commits} commits of {args.rows} rows, through 1, 2 "
          f"and 3 servers on one SeaweedFS cluster; {env['cpus']} CPUs for everything; scratch in {root}",
          flush=True)
    servers = start_servers(root, started, max(SERVER_COUNTS), args.start_timeout)
    one_round(servers, 1, argparse.Namespace(**{**vars(args), "commits": 1}), "warm_up")  # untimed
    alone = one_round(servers[:1], 1, argparse.Namespace(**{**vars(args), "writers": 1}), "alone")
    print(f"  one writer alone, one server: {alone['commits_per_s']:,.1f} commits/s, p50 {alone['p50_ms']:,.0f} ms "
          "(the cost of one commit, no race)", flush=True)
    results: dict[tuple[int, int], dict[str, float]] = {}
    for tables in TABLE_COUNTS:
        for count in SERVER_COUNTS:
            results[(tables, count)] = figures = one_round(servers[:count], tables, args, f"t{tables}_s{count}")
            print(f"  {tables} table(s), {count} server(s): "
                  + "  ".join(f"{key} {value:,.1f}" for key, value in figures.items()), flush=True)
    print()
    print(render(results))
    print("\nnothing lost: every acknowledged commit was in its table, whole and once, in one snapshot each")
    if args.json:
        args.json.write_text(json.dumps({
            "settings": {"writers": args.writers, "commits": args.commits, "rows": args.rows}, "environment": env,
            "alone": alone,
            "results": [{"tables": t, "servers": s, **figures} for (t, s), figures in sorted(results.items())],
        }, indent=2))
    return 1 if any(figures["errors"] for figures in results.values()) else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # PyIceberg warns of every retry; they are counted instead.
    logging.getLogger("pyiceberg.table").setLevel(logging.ERROR)
    status = run_with_servers("scale_bench", args.workdir, args.keep,
                              lambda root, started: benchmark(args, root, started))
    if not args.no_spark:  # once the servers above are stopped: the Spark job starts its own
        run_spark_figures(args.quick)
    return status


if __name__ == "__main__":
    sys.exit(main())
