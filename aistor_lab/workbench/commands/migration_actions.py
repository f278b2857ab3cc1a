"""``table migrate`` (another catalog's tables into a warehouse, with a parity report; ``--dry-run``: the
plan) and ``table register`` (a metadata file already in the warehouse, as a table)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from urllib.parse import urlsplit

from .. import aliases
from ..migration import (
    ALREADY,
    COPIED,
    FAILED,
    IN_PLACE,
    UPDATED,
    Migration,
    MigrationError,
    TableReport,
    open_source,
    rest_properties,
)
from ..migration.sources import REST_SCHEMES, SQL_SCHEMES
from ..service_config import catalog_properties
from .actions import Context, UsageError
from .object_actions import human_size
from .results import Message, Result, Rows
from .schema_text import SchemaTextError, parse_properties


def table_register(ctx: Context, args: argparse.Namespace) -> Result:
    answer = ctx.client.register_table(args.warehouse, args.namespace, args.table, args.metadata_location)
    return Message(f"Table '{args.namespace}.{args.table}' registered from {answer['metadata-location']}.", answer)


def _source_properties(args: argparse.Namespace) -> dict[str, str]:
    if args.credential and args.sigv4:
        raise UsageError("give --credential (OAuth2) or --sigv4, not both")
    try:
        extra = dict(parse_properties(args.source_property))
    except SchemaTextError as exc:
        raise UsageError(str(exc)) from None
    scheme = urlsplit(args.source).scheme.split("+")[0]
    if scheme in REST_SCHEMES:
        properties = rest_properties(args.source, args.source_warehouse, args.credential, args.oauth2_server_uri,
                                     args.scope, args.sigv4, args.signing_name)
    else:
        properties = {"warehouse": args.source_warehouse} if args.source_warehouse else {}
    return {**properties, **extra}


def _aliased(source: str) -> dict | None:
    """``ALIAS/WAREHOUSE`` (a service of ``aistor alias list``) as PyIceberg's properties, unless SOURCE
    is a URI or a local path (one that exists, or starts with /, . or ~)."""
    local = source.startswith(("/", ".", "~")) or Path(source).expanduser().exists()
    if local or "://" in source or urlsplit(source).scheme in (*REST_SCHEMES, *SQL_SCHEMES, "file"):
        return None
    alias, _, warehouse = source.partition("/")
    if not warehouse:
        raise UsageError(f"SOURCE {source!r}: expected a catalog URI, a directory, or ALIAS/WAREHOUSE")
    return catalog_properties(aliases.resolve(alias), warehouse)


def table_migrate(ctx: Context, args: argparse.Namespace) -> Result:
    source = open_source(args.source, args.namespace, _source_properties(args), _aliased(args.source),
                         args.catalog_name)
    reports = Migration(ctx.client, args.warehouse, dry_run=args.dry_run, progress=ctx.progress).run(source)
    failed = [r for r in reports if r.outcome == FAILED]
    if failed:
        done = len(reports) - len(failed)
        raise MigrationError(f"{done} of {len(reports)} tables migrated; failed: "
                             + "; ".join(f"{r.table}: {r.message}" for r in failed)
                             + ". Run the command again to resume: what was copied is kept.")
    return _plan(reports, source.description) if args.dry_run else _parity(reports)


def _data(report: TableReport) -> dict:
    return {"table": report.table, "outcome": report.outcome, "message": report.message,
            "metadata-location": report.metadata_location, "files-copied": report.files_copied,
            "files-present": report.files_present, "bytes-copied": report.bytes_copied,
            "source": asdict(report.source) if report.source else None,
            "target": asdict(report.target) if report.target else None, "parity": report.in_parity}


# What a dry run says it would do.
_PLANNED = {COPIED: "copy and register", IN_PLACE: "register in place", ALREADY: "registered: copy what is missing",
            UPDATED: "copy what is new, register the newer metadata"}


def _plan(reports: list[TableReport], description: str) -> Result:
    rows = [[r.table, _PLANNED.get(r.outcome, r.outcome) + (f": {r.message}" if r.message else ""),
             r.files_copied, r.files_present,
             human_size(r.bytes_copied), r.metadata_location] for r in reports]
    return Rows(["table", "plan (dry run)", "files to copy", "files there", "bytes to copy",
                 "target metadata"], rows,
                data={"dry-run": True, "source": description, "tables": [_data(r) for r in reports]},
                empty="no tables in the source")


def _pair(report: TableReport, name: str) -> str:
    source = getattr(report.source, name) if report.source else "-"
    target = getattr(report.target, name) if report.target else "-"
    return f"{source} / {target}"


def _parity(reports: list[TableReport]) -> Result:
    rows = [[r.table, r.outcome if not r.message else f"{r.outcome}: {r.message}",
             f"{r.files_copied} ({human_size(r.bytes_copied)})", *(_pair(r, n) for n in
             ("snapshots", "data_files", "delete_files", "records")),
             {True: "yes", False: "NO", None: "-"}[r.in_parity]] for r in reports]
    return Rows(["table", "outcome", "files copied", "snapshots (source / target)", "data files", "delete files",
                 "records", "parity"], rows, data={"dry-run": False, "tables": [_data(r) for r in reports]},
                empty="no tables in the source")
