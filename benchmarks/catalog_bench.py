"""Side-by-side Iceberg catalog benchmark: aistor-lab's REST catalog against PyIceberg's SqlCatalog
(SQLite, in process) and SeaweedFS's REST catalog, all on 127.0.0.1.

PyIceberg's workloads: commits per second (appends of a small batch to one table, one after the
other) and load-table latency (p50/p99 of ``load_table`` on that table). Then the query engines
against the REST catalogs (engine_rounds.py): DuckDB's and Spark's ``INSERT INTO`` (commits/s) and
``SELECT count(*)`` (p50). Within a workload the catalogs take turns, one operation each, so that
noise from the rest of the machine falls on all of them alike; ``--repeat N`` runs the whole
sequence N times on new tables and the table shows medians. Ratios read ">1: aistor-lab is better".

    .venv/bin/python benchmarks/catalog_bench.py [--quick] [--repeat 3] [--json out.json]
    .venv/bin/python benchmarks/catalog_bench.py --clients pyiceberg,duckdb   # no Spark
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from importlib import metadata
from pathlib import Path

import pyarrow as pa
from catalog_rounds import (
    NOT_APPLICABLE,
    Outcome,
    WrongResult,
    batch,
    failure,
    json_report,
    take_turns,
    total_records,
)
from catalogs import CATALOGS, REPLAY, SQLCATALOG, CatalogUnderTest, open_catalog, replaying, start_server
from engine_rounds import Engine, engine_round, open_duckdb, open_spark
from peers import OURS, ServerProcess, add_run_options, run_with_servers, settle_args, stop_all
from pyiceberg.catalog import Catalog
from pyiceberg.table import Table
from s3_bench import environment, medians

NAMESPACE = "bench"
FULL = {"commits": 100, "loads": 200, "spark_ops": 20}
QUICK = {"commits": 20, "loads": 50, "spark_ops": 10}
PYICEBERG = "pyiceberg"
CLIENTS = (PYICEBERG, "duckdb", "spark")


@dataclass(frozen=True)
class Figure:
    key: str  # the name in the JSON output
    label: str
    unit: str
    higher_is_better: bool


def define_figures(args: argparse.Namespace, engines: list[Engine]) -> list[Figure]:
    figures = []
    if PYICEBERG in args.clients:
        figures += [
            Figure("commits_per_s", f"PyIceberg append {args.rows} rows, {args.commits} commits", "commits/s", True),
            Figure("commit_p50_ms", "  of which commit_table p50", "ms", False),
            Figure("client_cpu_ms", "  client CPU per append (median)", "ms", False),
            Figure("load_p50_ms", f"PyIceberg load_table p50 of {args.loads}", "ms", False),
            Figure("load_p99_ms", f"PyIceberg load_table p99 of {args.loads}", "ms", False),
        ]
    for engine in engines:
        inserts_key, count_key = engine.figure_keys()
        figures += [
            Figure(inserts_key, f"{engine.label} INSERT {args.rows} rows, {engine.inserts} commits", "commits/s", True),
            Figure(count_key, f"{engine.label} SELECT count(*) p50 of {engine.counts}", "ms", False),
        ]
    return figures


@contextmanager
def timing_commit_table(catalog: Catalog, into: list[float]) -> Iterator[None]:
    """Append to ``into`` the seconds of each ``commit_table`` call: the catalog's own part of an
    append, the commit request, made after the data file, manifest and manifest list are written."""
    commit_table = catalog.commit_table

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return commit_table(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - start)

    catalog.commit_table = timed  # tables commit through the catalog object that loaded them
    try:
        yield
    finally:
        del catalog.commit_table  # back to the class's method


def cpu_timed(operation: Callable[[], object], into: list[float]) -> None:
    """Run ``operation``, appending the CPU seconds this process spent meanwhile (all its threads:
    pyarrow's S3 uploads too). For SqlCatalog that is the whole append; for a REST catalog, the
    client's share, which no server can take away: an append cannot be quicker than it."""
    start = time.process_time()
    try:
        operation()
    finally:
        into.append(time.process_time() - start)


def commit_round(catalogs: list[CatalogUnderTest], identifier: str, data: pa.Table, count: int
                 ) -> dict[str, Outcome]:
    """Create the table and append once untimed (client FileIO, connections), then ``count``
    appends; commits/s and the p50 of ``commit_table``."""
    outcomes: dict[str, Outcome] = {}
    tables: dict[str, Table] = {}
    for under_test in catalogs:
        try:
            tables[under_test.name] = under_test.catalog.create_table(identifier, schema=data.schema)
            tables[under_test.name].append(data)
        except Exception as exc:  # noqa: BLE001
            outcomes[under_test.name] = failure(exc)
    in_catalog: dict[str, list[float]] = {name: [] for name in tables}
    with ExitStack() as stack:
        for under_test in catalogs:
            if under_test.name in tables:
                stack.enter_context(timing_commit_table(under_test.catalog, in_catalog[under_test.name]))
        client_cpu: dict[str, list[float]] = {name: [] for name in tables}
        seconds = take_turns({name: partial(cpu_timed, partial(table.append, data), client_cpu[name])
                              for name, table in tables.items()}, count)
    expected = data.num_rows * (count + 1)
    for name, table in tables.items():
        if isinstance(seconds[name], str):
            outcomes[name] = seconds[name]
        elif total_records(table) != expected:
            outcomes[name] = failure(WrongResult(f"{total_records(table)} records after the commits, not {expected}"))
        else:
            outcomes[name] = {
                "commits_per_s": count / sum(seconds[name]),
                "commit_p50_ms": statistics.median(in_catalog[name]) * 1000,
                "client_cpu_ms": statistics.median(client_cpu[name]) * 1000,
            }
    return outcomes


def load_round(catalogs: list[CatalogUnderTest], identifier: str, expected_rows: int, count: int
               ) -> dict[str, Outcome]:
    """One untimed ``load_table``, then ``count`` timed ones, each checked; p50 and p99 in ms. With
    aistor-lab among the catalogs, its answers replayed from memory take turns too: the ceiling."""
    ours = [under_test for under_test in catalogs if under_test.name == OURS]
    with ExitStack() as stack:
        loaders = {under_test.name: under_test.catalog for under_test in catalogs}
        if ours:
            try:
                loaders[REPLAY] = stack.enter_context(replaying(ours[0], identifier))
            except Exception as exc:  # noqa: BLE001 - the ceiling is a reference: the figures go on without it
                print(f"  no load_table ceiling: {failure(exc)}", file=sys.stderr)
        return _timed_loads(loaders, identifier, expected_rows, count)


def _timed_loads(loaders: dict[str, Catalog], identifier: str, expected_rows: int, count: int
                 ) -> dict[str, Outcome]:
    def load(catalog: Catalog) -> None:
        rows = total_records(catalog.load_table(identifier))
        if rows != expected_rows:
            raise WrongResult(f"loaded a table of {rows} records, not {expected_rows}")

    outcomes: dict[str, Outcome] = {}
    operations = {}
    for name, catalog in loaders.items():
        operation = partial(load, catalog)
        try:
            operation()
        except Exception as exc:  # noqa: BLE001
            outcomes[name] = failure(exc)
            continue
        operations[name] = operation
    for name, seconds in take_turns(operations, count).items():
        if isinstance(seconds, str):
            outcomes[name] = seconds
        else:
            cuts = statistics.quantiles(seconds, n=100, method="inclusive")
            outcomes[name] = {"load_p50_ms": statistics.median(seconds) * 1000, "load_p99_ms": cuts[98] * 1000}
    return outcomes


def start_catalogs(
    names: list[str], root: Path, started: list[ServerProcess], timeout: float
) -> tuple[list[CatalogUnderTest], dict[str, str]]:
    """Start every server at once (appending to ``started`` so the caller stops them), then open
    each catalog; returns the usable ones and why each other one is not."""
    failures: dict[str, str] = {}
    servers: dict[str, ServerProcess | None] = {}
    for name in names:
        (root / name).mkdir()
        try:
            servers[name] = start_server(name, root / name)
        except Exception as exc:  # noqa: BLE001 - one catalog missing must not stop the others
            failures[name] = f"not started: {exc}"
            continue
        if servers[name] is not None:
            started.append(servers[name])
    ready = []
    for name, server in servers.items():
        try:
            under_test = open_catalog(name, root / name, server, timeout)
            under_test.catalog.create_namespace(NAMESPACE)
            ready.append(under_test)
        except Exception as exc:  # noqa: BLE001
            failures[name] = f"not ready: {type(exc).__name__}: {exc}"
            if server is not None:
                stop_all([server])
    return ready, failures


Samples = dict[str, dict[str, list[float] | str]]
Workload = Callable[[list[CatalogUnderTest], str], dict[str, Outcome]]


def run_rounds(args: argparse.Namespace, catalogs: list[CatalogUnderTest], engines: list[Engine]) -> Samples:
    """Each round: PyIceberg's commits, then its loads, then each engine's INSERTs and counts, every
    catalog taking turns within each. A catalog's entry for a figure is its values so far, or the
    error that ended them (later rounds skip it)."""
    data = batch(args.rows)
    expected_rows = args.rows * (args.commits + 1)
    workloads: list[tuple[str, list[str], Workload]] = []
    if PYICEBERG in args.clients:
        workloads += [
            ("commits", ["commits_per_s", "commit_p50_ms", "client_cpu_ms"], lambda cs, t: commit_round(cs, t, data, args.commits)),
            ("loads", ["load_p50_ms", "load_p99_ms"], lambda cs, t: load_round(cs, t, expected_rows, args.loads)),
        ]
    for engine in engines:
        workloads.append((engine.key, engine.figure_keys(),
                          partial(lambda e, cs, t: engine_round(e, cs, f"{t}_{e.key}", data), engine)))
    samples: Samples = {key: {} for _, keys, _ in workloads for key in keys}
    for number in range(1, args.repeat + 1):
        identifier = f"{NAMESPACE}.round_{number}"
        for label, keys, run in workloads:
            active = [c for c in catalogs if not isinstance(samples[keys[0]].get(c.name), str)]
            # Every active catalog's outcome, and the ceiling's (REPLAY) where the workload has one.
            for name, outcome in run(active, identifier).items():
                for key in keys:
                    if isinstance(outcome, str):
                        samples[key][name] = outcome
                    else:
                        samples[key].setdefault(name, []).append(outcome[key])
                shown = outcome if isinstance(outcome, str) else "  ".join(f"{k} {v:,.2f}" for k, v in outcome.items())
                where = f"round {number}  " if args.repeat > 1 else ""
                print(f"  {where}{label:<8} {name:<11} {shown}", flush=True)
    return samples


def ratios(figures: list[Figure], results: dict[str, dict[str, float | str]], peers: list[str]
           ) -> dict[str, dict[str, float]]:
    """Per figure and peer, how much better ours is: ours/peer for throughputs, peer/ours for latencies."""
    table: dict[str, dict[str, float]] = {}
    for figure in figures:
        row = results.get(figure.key, {})
        ours = row.get(OURS)
        table[figure.key] = {
            peer: ours / row[peer] if figure.higher_is_better else row[peer] / ours
            for peer in peers
            if isinstance(ours, float) and isinstance(row.get(peer), float) and ours > 0 and row[peer] > 0
        }
    return table


def _cell(value: float | str | None) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}"
    if value is None:
        return "-"
    return NOT_APPLICABLE if value.startswith(NOT_APPLICABLE) else "ERR"


def render_table(figures: list[Figure], names: list[str], results: dict[str, dict[str, float | str]],
                 ratio: dict[str, dict[str, float]]) -> str:
    peers = [name for name in names if name != OURS] if OURS in names else []
    rows = [["figure", "unit", *names, *(f"vs {peer}" for peer in peers)]]
    for figure in figures:
        row = results.get(figure.key, {})
        values = [_cell(row.get(n)) for n in names]
        shares = [f"{ratio[figure.key][p]:.2f}x" if p in ratio.get(figure.key, {}) else "-" for p in peers]
        rows.append([figure.label, figure.unit, *values, *shares])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for index, cells in enumerate(rows):
        text = [cells[0].ljust(widths[0]), cells[1].ljust(widths[1])]
        text += [cell.rjust(width) for cell, width in zip(cells[2:], widths[2:])]
        lines.append("  ".join(text).rstrip())
        if index == 0:
            lines.append("-" * len(lines[0]))
    if peers:
        lines.append(f"vs <peer>: how many times better {OURS} is, >1 = {OURS} better "
                     "(commits/s: ours/peer; latency: peer/ours)")
    return "\n".join(lines)


def print_results(args: argparse.Namespace, figures: list[Figure], samples: Samples
                  ) -> tuple[dict[str, dict[str, float | str]], list[str], dict[str, dict[str, float]]]:
    """Print the table of medians with the ratios against each peer; (medians, peers, ratios)."""
    results = medians(samples)
    peers = [name for name in args.catalogs if name != OURS]
    ratio = ratios(figures, results, peers)
    print()
    if args.repeat > 1:
        print(f"medians of {args.repeat} rounds")
    print(render_table(figures, args.catalogs, results, ratio))
    return results, peers, ratio


def print_append_ceiling(results: dict[str, dict[str, float | str]]) -> None:
    """The best append rate against SqlCatalog that any server could give PyIceberg here: an append
    through REST and S3 takes at least its client's CPU, SqlCatalog's the whole of its own."""
    ours = results.get("client_cpu_ms", {}).get(OURS)
    floor = results.get("commits_per_s", {}).get(SQLCATALOG)
    if isinstance(ours, float) and isinstance(floor, float):
        print(f"ceiling: an append through {OURS} costs its client {ours:.1f} ms of CPU, SqlCatalog's whole "
              f"append {1000 / floor:.1f} ms: even an instant server gives at most "
              f"{1000 / ours / floor:.2f}x SqlCatalog's commits/s")


def print_load_ceiling(results: dict[str, dict[str, float | str]]) -> None:
    """The best load_table ratio against SqlCatalog that any REST server could give PyIceberg here."""
    replay = results.get("load_p50_ms", {}).get(REPLAY)
    floor = results.get("load_p50_ms", {}).get(SQLCATALOG)
    if isinstance(replay, float) and isinstance(floor, float):
        print(f"ceiling: PyIceberg's load_table against {OURS}'s answers replayed from memory takes {replay:.2f} ms "
              f"(p50), SqlCatalog's {floor:.2f} ms: even an instant server gives at most {floor / replay:.2f}x "
              "SqlCatalog's load_table")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"small run: {QUICK['commits']} commits, {QUICK['loads']} loads, "
                             f"{QUICK['spark_ops']} Spark operations "
                             "(explicit options still win)")
    parser.add_argument("--commits", type=int, help=f"timed appends per round (default {FULL['commits']})")
    parser.add_argument("--rows", type=int, default=10, help="rows per append (default 10)")
    parser.add_argument("--loads", type=int, help=f"timed load_table calls per round (default {FULL['loads']}); "
                                                   "DuckDB makes as many INSERTs and counts as --commits and --loads")
    parser.add_argument("--spark-ops", type=int,
                        help=f"timed Spark INSERTs, and counts, per round (default {FULL['spark_ops']})")
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help=f"comma-separated subset of {', '.join(CLIENTS)} (default all)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the whole sequence, each on a new table; the table shows medians")
    parser.add_argument("--catalogs", default=",".join(CATALOGS),
                        help=f"comma-separated subset of {', '.join(CATALOGS)} (default all)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    add_run_options(parser, "catalog")
    args = parser.parse_args(argv)
    settle_args(parser, args, QUICK if args.quick else FULL, {"catalogs": CATALOGS, "clients": CLIENTS})
    if min(args.commits, args.rows, args.repeat, args.spark_ops) < 1 or args.loads < 2:
        parser.error("--commits, --rows, --spark-ops and --repeat must be >= 1, --loads >= 2")
    return args


def open_engines(args: argparse.Namespace, catalogs: list[CatalogUnderTest]) -> list[Engine]:
    """The query engines asked for, attached to the catalogs (untimed)."""
    engines = []
    if "duckdb" in args.clients:
        engines.append(open_duckdb(catalogs, args.commits, args.loads))
    if "spark" in args.clients:
        engines.append(open_spark(catalogs, args.spark_ops))
    return engines


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    env = {**environment(), "pyiceberg": metadata.version("pyiceberg"), "pyarrow": pa.__version__}
    print(f"catalog_bench: {env['cpus']} CPUs shared by client and servers; scratch in {root}", flush=True)
    catalogs, failures = start_catalogs(args.catalogs, root, started, args.start_timeout)
    for name, why in failures.items():
        print(f"  {name} skipped, {why.splitlines()[0]}", file=sys.stderr, flush=True)
    for under_test in catalogs:
        print(f"  {under_test.name} {under_test.version} at {under_test.where}", flush=True)
    engines = open_engines(args, catalogs)
    try:
        for engine in engines:
            print(f"  client {engine.version}", flush=True)
        figures = define_figures(args, engines)
        samples = run_rounds(args, catalogs, engines)
    finally:
        for engine in engines:
            engine.close()
    results, peers, ratio = print_results(args, figures, samples)
    print_append_ceiling(results)
    print_load_ceiling(results)
    errors = {f"{key} on {name}": value for key, row in results.items() for name, value in row.items()
              if isinstance(value, str) and not value.startswith(NOT_APPLICABLE)}
    for where, what in {**failures, **errors}.items():
        print(f"  {where}: {what.splitlines()[0]}", file=sys.stderr)
    if args.json:
        settings = {"commits": args.commits, "rows": args.rows, "loads": args.loads, "repeat": args.repeat,
                    "spark_ops": args.spark_ops, "clients": args.clients}
        clients = {PYICEBERG: env["pyiceberg"], **{e.key: e.version for e in engines}}
        args.json.write_text(json_report(settings, env, catalogs, failures, figures, results, samples, ratio, peers,
                                         clients=clients))
    return 1 if failures or errors else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_with_servers("catalog_bench", args.workdir, args.keep, lambda root, started: benchmark(args, root, started))


if __name__ == "__main__":
    sys.exit(main())
