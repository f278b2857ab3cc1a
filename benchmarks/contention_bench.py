"""Commits under contention: ``--writers`` (8) PyIceberg writers append to ONE table at the same time,
against aistor-lab's Iceberg REST catalog and SeaweedFS's, one catalog after the other.

Each writer is a thread with its own catalog object (its own HTTP session and FileIO). It makes one
untimed append (the writers one after the other), then, released together with the others,
``--commits`` appends of ``--rows`` rows. A commit that loses the race (``CommitFailedException``,
the catalog's 409) is retried by PyIceberg itself (since 0.12): it sleeps, refreshes the table,
writes a new manifest list over the current snapshot (the data file stays) and commits again. The
table's properties let it retry up to 100 times, sleeping 10 ms doubling up to 500 ms (its
defaults, 4 retries from 100 ms, would fail writers under this contention and time mostly its
sleeps). Each writer's catalog counts the commits it refused. Then nothing may be lost or doubled:
the table must hold every writer's rows, each id once, in one snapshot per commit.

    .venv/bin/python benchmarks/contention_bench.py [--quick] [--writers 8] [--commits 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from catalog_bench import NAMESPACE, Figure, print_results, start_catalogs
from catalog_rounds import WrongResult, batch, failure, json_report
from catalogs import CatalogUnderTest, rest_properties
from peers import OURS, ServerProcess, add_run_options, run_with_servers, settle_args
from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.table import Table
from s3_bench import environment

REST_CATALOGS = (OURS, "seaweedfs")
# One contended round is noisy (who wins each race, and the rest of the machine): medians of three.
FULL = {"commits": 10, "repeat": 3}
QUICK = {"commits": 4, "repeat": 3}
# PyIceberg's retries of a commit that lost the race (Transaction.commit_transaction reads them from the
# table's properties); a writer that loses 100 in a row for one append gives up (the run reports an error).
RETRIES = {"commit.retry.num-retries": "100", "commit.retry.min-wait-ms": "10", "commit.retry.max-wait-ms": "500"}


def run_together(team: list) -> tuple[float, list[BaseException]]:
    """Every writer's ``run`` on a thread of its own, all released at once: the seconds from the
    release to the last one's end, and what they raised (after all have finished)."""
    started: list[float] = []
    gate = threading.Barrier(len(team), action=lambda: started.append(time.perf_counter()))
    errors: list[BaseException] = []

    def run(writer) -> None:
        gate.wait()
        try:
            writer.run()
        except Exception as exc:  # noqa: BLE001 - reported after the others finish
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(writer,), name=f"writer-{writer.number}") for writer in team]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started[0], errors


class RefusalCounting:
    """A catalog whose ``commit_table`` counts the commits refused because another one won the race."""

    def __init__(self, catalog: Catalog) -> None:
        self.refused = 0
        commit_table = catalog.commit_table

        def counted(*args, **kwargs):
            try:
                return commit_table(*args, **kwargs)
            except CommitFailedException:
                self.refused += 1  # PyIceberg refreshes and retries
                raise

        catalog.commit_table = counted  # tables commit through the catalog object that loaded them


@dataclass
class Writer:
    """One writer: its own catalog object and table, the ids it appends, what it saw."""

    number: int
    table: Table
    refusals: RefusalCounting
    commits: int
    rows: int
    seconds: list[float] = field(default_factory=list)  # per append, its retries included

    def append(self, commit: int) -> None:
        """Commit ``commit`` (0 to ``commits``) of this writer: its own ``rows`` ids."""
        self.table.append(batch(self.rows, first_id=(self.number * (self.commits + 1) + commit) * self.rows))

    def run(self) -> None:
        for commit in range(1, self.commits + 1):
            start = time.perf_counter()
            self.append(commit)
            self.seconds.append(time.perf_counter() - start)


def contend(under_test: CatalogUnderTest, identifier: str, writers: int, commits: int, rows: int
            ) -> dict[str, float] | str:
    """Every writer appends at once to a new table; the figures, or why there are none."""
    try:
        under_test.catalog.create_table(identifier, schema=batch(1).schema, properties=RETRIES)
        team = []
        for number in range(writers):
            catalog = load_catalog(f"writer-{number}", **rest_properties(under_test.server))
            refusals = RefusalCounting(catalog)
            team.append(Writer(number, catalog.load_table(identifier), refusals, commits, rows))
            team[-1].append(0)  # untimed, one writer after the other: connections, FileIO, caches
    except Exception as exc:  # noqa: BLE001
        return failure(exc)
    elapsed, errors = run_together(team)
    if errors:
        return failure(errors[0])
    try:
        check_nothing_lost(under_test.catalog.load_table(identifier), writers * (commits + 1), rows)
    except Exception as exc:  # noqa: BLE001
        return failure(exc)
    seconds = [s for writer in team for s in writer.seconds]
    cuts = statistics.quantiles(seconds, n=100, method="inclusive")
    return {
        "commits_per_s": len(seconds) / elapsed,
        "commit_p50_ms": statistics.median(seconds) * 1000,
        "commit_p99_ms": cuts[98] * 1000,
        "retries": float(sum(writer.refusals.refused for writer in team)),
    }


def check_nothing_lost(table: Table, commits: int, rows: int) -> None:
    """Every commit's rows once each (ids 0..commits x rows - 1), in one snapshot per commit."""
    ids = sorted(table.scan(selected_fields=("id",)).to_arrow()["id"].to_pylist())
    if ids != list(range(commits * rows)):
        missing = len(set(range(commits * rows)) - set(ids))
        raise WrongResult(f"{len(ids)} rows after {commits} commits of {rows}, not {commits * rows} "
                          f"({missing} ids missing, {len(ids) - len(set(ids))} doubled)")
    if len(table.snapshots()) != commits:
        raise WrongResult(f"{len(table.snapshots())} snapshots after {commits} commits")


def define_figures(args: argparse.Namespace) -> list[Figure]:
    total = f"{args.writers} writers x {args.commits} commits"
    return [
        Figure("commits_per_s", f"append {args.rows} rows, {total}", "commits/s", True),
        Figure("commit_p50_ms", "  one append, its retries included, p50", "ms", False),
        Figure("commit_p99_ms", "  one append, its retries included, p99", "ms", False),
        Figure("retries", "  retries after a lost race (409)", "count", False),
    ]


def run_rounds(args: argparse.Namespace, catalogs: list[CatalogUnderTest]) -> dict[str, dict[str, list[float] | str]]:
    """Each round, a new table per catalog, the catalogs one after the other (in turn first)."""
    figures = define_figures(args)
    samples: dict[str, dict[str, list[float] | str]] = {figure.key: {} for figure in figures}
    # Untimed: the first contended run in the process is the slowest, whichever catalog it meets.
    for under_test in catalogs:
        outcome = contend(under_test, f"{NAMESPACE}.warm_up", args.writers, 1, args.rows)
        if isinstance(outcome, str):
            for figure in figures:
                samples[figure.key][under_test.name] = outcome
    for number in range(1, args.repeat + 1):
        first = (number - 1) % len(catalogs)
        for under_test in catalogs[first:] + catalogs[:first]:
            if isinstance(samples["commits_per_s"].get(under_test.name), str):
                continue
            outcome = contend(under_test, f"{NAMESPACE}.contention_{number}", args.writers, args.commits, args.rows)
            for figure in figures:
                if isinstance(outcome, str):
                    samples[figure.key][under_test.name] = outcome
                else:
                    samples[figure.key].setdefault(under_test.name, []).append(outcome[figure.key])
            shown = outcome if isinstance(outcome, str) else "  ".join(f"{k} {v:,.2f}" for k, v in outcome.items())
            where = f"round {number}  " if args.repeat > 1 else ""
            print(f"  {where}{under_test.name:<11} {shown}", flush=True)
    return samples


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"small run: {QUICK['commits']} commits per writer, {QUICK['repeat']} rounds "
                             "(explicit options still win)")
    parser.add_argument("--writers", type=int, default=8, help="concurrent writers (default 8)")
    parser.add_argument("--commits", type=int, help=f"appends per writer (default {FULL['commits']})")
    parser.add_argument("--rows", type=int, default=10, help="rows per append (default 10)")
    parser.add_argument("--repeat", type=int,
                        help=f"rounds, each on a new table; the table shows medians (default {FULL['repeat']})")
    parser.add_argument("--catalogs", default=",".join(REST_CATALOGS),
                        help=f"comma-separated subset of {', '.join(REST_CATALOGS)} (default both)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    add_run_options(parser, "catalog")
    args = parser.parse_args(argv)
    settle_args(parser, args, QUICK if args.quick else FULL, {"catalogs": REST_CATALOGS})
    if min(args.writers, args.commits, args.rows, args.repeat) < 1:
        parser.error("--writers, --commits, --rows and --repeat must be >= 1")
    return args


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    env = {**environment(), "pyiceberg": metadata.version("pyiceberg")}
    print(f"contention_bench: {args.writers} writer threads, {env['cpus']} CPUs shared by client and servers; "
          f"scratch in {root}", flush=True)
    catalogs, failures = start_catalogs(args.catalogs, root, started, args.start_timeout)
    for name, why in failures.items():
        print(f"  {name} skipped, {why.splitlines()[0]}", file=sys.stderr, flush=True)
    for under_test in catalogs:
        print(f"  {under_test.name} {under_test.version} at {under_test.where}", flush=True)
    figures = define_figures(args)
    samples = run_rounds(args, catalogs)
    results, peers, ratio = print_results(args, figures, samples)
    errors = {f"{key} on {name}": value for key, row in results.items() for name, value in row.items()
              if isinstance(value, str)}
    if not errors:
        commits = args.writers * (args.commits + 1)
        print(f"nothing lost: every run's table held {commits * args.rows} rows, each id once, "
              f"in {commits} snapshots ({args.writers} untimed appends first, one writer at a time)")
    for where, what in {**failures, **errors}.items():
        print(f"  {where}: {what.splitlines()[0]}", file=sys.stderr)
    if args.json:
        settings = {"writers": args.writers, "commits": args.commits, "rows": args.rows, "repeat": args.repeat}
        args.json.write_text(json_report(settings, env, catalogs, failures, figures, results, samples, ratio, peers))
    return 1 if failures or errors else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # PyIceberg warns of every retry; they are counted instead.
    logging.getLogger("pyiceberg.table").setLevel(logging.ERROR)
    return run_with_servers("contention_bench", args.workdir, args.keep,
                            lambda root, started: benchmark(args, root, started))


if __name__ == "__main__":
    sys.exit(main())
