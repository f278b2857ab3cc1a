"""``table maintenance show|set|run|history`` and ``warehouse maintenance show|set``: the catalog's table
maintenance, configured, previewed (``--dry-run``), run and looked back on."""

from __future__ import annotations

import argparse
import datetime
from typing import Any

from ..client import AIStorError
from .actions import Context, UsageError
from .object_actions import human_size
from .results import Fields, Result, Rows, Sections
from .schema_text import SchemaTextError, parse_properties

# The service's maintenance operations, in the order a run takes them (Spark's runs too).
OPERATIONS = ("compact", "rewrite-manifests", "expire-snapshots", "remove-unreferenced-files")


def _changes(args: argparse.Namespace) -> dict[str, str | None]:
    try:
        changes: dict[str, str | None] = dict(parse_properties(args.property))
    except SchemaTextError as exc:
        raise UsageError(str(exc)) from None
    changes.update({name: None for name in args.unset})
    if not changes:
        raise UsageError("nothing to change: give --property NAME=VALUE or --unset NAME")
    return changes


def _when(ms: int | None) -> str:
    if not ms:
        return "never"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def warehouse_show(ctx: Context, args: argparse.Namespace) -> Result:
    answer = ctx.client.warehouse_maintenance(args.warehouse)
    rows = [[name, value, "warehouse" if name in answer["settings"] else "default"]
            for name, value in answer["effective"].items()]
    return Rows(["setting", "value", "source"], rows, data=answer)


def warehouse_set(ctx: Context, args: argparse.Namespace) -> Result:
    ctx.client.set_warehouse_maintenance(args.warehouse, _changes(args))
    return warehouse_show(ctx, args)


def table_show(ctx: Context, args: argparse.Namespace) -> Result:
    answer = ctx.client.table_maintenance(args.warehouse, args.namespace, args.table)
    return settings_and_health(answer)


def settings_and_health(answer: dict) -> Result:
    health = answer["health"]
    rows = [[name, setting["value"], setting["source"]] for name, setting in answer["settings"].items()]
    last = answer.get("last-run")
    return Sections([
        ("Health", Fields([
            ("Data files", f"{health['data-files']} ({human_size(health['bytes'])})"),
            ("Small files", (f"{health['small-files']} ({health['small-file-ratio']:.0%}, under "
                             f"{human_size(health['small-file-bytes'])})")),
            ("Delete files", health["delete-files"]),
            ("Snapshots", health["snapshots"]),
            ("Manifests", health["manifests"]),
            ("Last maintenance", _when(last["ended-ms"]) + f" ({last['trigger']})" if last else "never"),
        ])),
        ("Settings", Rows(["setting", "value", "source"], rows)),
    ], data=answer)


def table_set(ctx: Context, args: argparse.Namespace) -> Result:
    answer = ctx.client.set_table_maintenance(args.warehouse, args.namespace, args.table, _changes(args))
    return settings_and_health(answer)


def table_run(ctx: Context, args: argparse.Namespace) -> Result:
    if args.engine == "spark":
        return run_summary(_run_with_spark(ctx, args))
    record = ctx.client.run_maintenance(args.warehouse, args.namespace, args.table, args.operation,
                                        dry_run=args.dry_run)
    return run_summary(record)


def _run_with_spark(ctx: Context, args: argparse.Namespace) -> dict:
    """The run as Iceberg's Spark procedures in the kernel's session (or one started for the service),
    with the settings the service resolves for the table, so both engines do the same maintenance."""
    answer = ctx.client.table_maintenance(args.warehouse, args.namespace, args.table)
    settings = {name: setting["value"] for name, setting in answer["settings"].items()}
    try:
        from pyspark.sql import SparkSession

        from ..spark.maintenance import maintain_with_spark
        from ..spark.sessions import session
        from ..spark.startup import SparkStartError
    except ImportError as exc:
        raise AIStorError(f"Spark is not available: {exc}") from None
    spark = (ctx.namespace or {}).get("spark")
    if not isinstance(spark, SparkSession):
        try:  # a running session keeps its catalog; session() would only rewrite its conf
            spark = SparkSession.getActiveSession() or session(args.warehouse, service=ctx.service,
                                                                progress=ctx.progress)
        except (ValueError, SparkStartError) as exc:
            raise AIStorError(str(exc)) from None
    return maintain_with_spark(spark, args.warehouse, args.namespace, args.table, args.operation, settings,
                               dry_run=args.dry_run)


def run_summary(record: dict) -> Result:
    """One row per operation: what it removed, added and marked (or would, in a dry run), or why not."""
    rows = [[report["operation"], len(report["removed-snapshots"]), _files(report["removed-files"]),
             _files(report["added-files"]), _files(report["marked-files"]),
             human_size(max(report["bytes-freed"], 0)), report["skipped"] or report.get("note") or ""]
            for report in record["operations"]]
    rows += [[error["operation"], "", "", "", "", "", f"failed: {error['message']}"] for error in record["errors"]]
    engine = f", {record['engine']}" if record.get("engine") else ""
    title = ("Dry run: nothing was changed" if record["dry-run"]
             else f"Run {record['id'][:8]} ({record['trigger']}{engine})")
    columns = ["operation", "snapshots removed", "files removed", "files added", "files marked", "freed", "note"]
    return Sections([(title, Rows(columns, rows, empty="(no operation ran: all are disabled)"))], data=record)


def _files(files: dict[str, Any]) -> str:
    return f"{files['count']} ({human_size(files['bytes'])})" if files["count"] else "0"


def table_history(ctx: Context, args: argparse.Namespace) -> Result:
    return table_history_rows(ctx.client.maintenance_history(args.warehouse, args.namespace, args.table)[: args.limit])


def table_history_rows(runs: list[dict]) -> Result:
    rows = []
    for run in runs:
        done = [r["operation"] for r in run["operations"] if not r["skipped"]]
        rows.append([_when(run["started-ms"]), f"{(run['ended-ms'] - run['started-ms']) / 1000:.1f} s", run["trigger"],
                     ", ".join(done) or "nothing due",
                     sum(len(r["removed-snapshots"]) for r in run["operations"]),
                     sum(r["removed-files"]["count"] for r in run["operations"]),
                     human_size(max(sum(r["bytes-freed"] for r in run["operations"]), 0)),
                     "; ".join(f"{e['operation']}: {e['message']}" for e in run["errors"])])
    columns = ["started", "took", "trigger", "did", "snapshots removed", "files removed", "freed", "errors"]
    return Rows(columns, rows, data=runs, empty="(no maintenance has run on this table yet)")
