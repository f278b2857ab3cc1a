"""The ``view`` commands (mc's ``mc table view ...``: create, list, show, exists, drop, rename) and the
rename of tables and views, all through the catalog's own endpoints."""

from __future__ import annotations

import argparse
import re

from ..client import ServiceError
from .actions import Context, UsageError, bad_input, dotted_namespace, epoch_ms_text, type_text
from .results import Fields, Message, Result, Rows, Sections
from .schema_text import parse_properties, parse_schema

# ``--sql 'trino:SELECT ...'``: a dialect is one word before the colon; SQL alone is Spark's (the
# notebook's engine, and the dialect Spark looks for when it loads a view).
_DIALECT = re.compile(r"(?P<dialect>[A-Za-z][\w-]*):(?P<sql>.*)", re.DOTALL)
DEFAULT_DIALECT = "spark"
# A view whose columns are not given: the query's columns are for the engine to find.
NO_COLUMNS = {"type": "struct", "schema-id": 0, "fields": []}


def representations(sql_texts: list[str]) -> list[dict]:
    """The view's SQL representations, one per ``[DIALECT:]SQL``; one per dialect."""
    found: dict[str, str] = {}
    for text in sql_texts:
        match = _DIALECT.fullmatch(text.strip())
        dialect, sql = (match["dialect"].lower(), match["sql"].strip()) if match else (DEFAULT_DIALECT, text.strip())
        if not sql:
            raise UsageError(f"--sql {text!r} has no query")
        if dialect in found:
            raise UsageError(f"two --sql for the dialect {dialect!r}: give one per dialect")
        found[dialect] = sql
    return [{"type": "sql", "sql": sql, "dialect": dialect} for dialect, sql in found.items()]


def view_create(ctx: Context, args: argparse.Namespace) -> Result:
    if not args.sql:
        raise UsageError("a query is required: --sql '[DIALECT:]SELECT ...' (or, in %%aistor, the cell body)")
    sql_texts = [args.sql] if isinstance(args.sql, str) else args.sql  # a %%aistor cell body is one query
    schema = bad_input(lambda: parse_schema(args.schema)) if args.schema else NO_COLUMNS
    properties = bad_input(lambda: parse_properties(args.attr))
    name = f"{dotted_namespace(args.namespace)}.{args.view}"
    try:
        created = ctx.client.create_view(args.warehouse, args.namespace, args.view, schema,
                                         representations(sql_texts), properties)
    except ServiceError as exc:
        if args.ignore_existing and exc.status == 409:
            # Tables and views share one name space: the name may be a table's.
            return Message(f"'{name}' already exists in warehouse '{args.warehouse}': nothing created.")
        raise
    return Message(f"View '{name}' created in warehouse '{args.warehouse}'.",
                   {"metadata-location": created.get("metadata-location"), "metadata": created["metadata"]})


def view_list(ctx: Context, args: argparse.Namespace) -> Result:
    names = ctx.client.list_views(args.warehouse, args.namespace)
    return Rows(["view"], [[n] for n in names], data=names, empty="(no views)")


def view_show(ctx: Context, args: argparse.Namespace) -> Result:
    loaded = ctx.client.load_view(args.warehouse, args.namespace, args.view)
    metadata = loaded["metadata"]
    version = next((v for v in metadata.get("versions", [])
                    if v.get("version-id") == metadata.get("current-version-id")), {})
    schema = next((s for s in metadata.get("schemas", []) if s.get("schema-id") == version.get("schema-id")), {})
    summary = Fields([
        ("View", f"{dotted_namespace(args.namespace)}.{args.view}"),
        ("Warehouse", args.warehouse),
        ("Location", metadata.get("location")),
        ("UUID", metadata.get("view-uuid")),
        ("Current version", version.get("version-id")),
        ("Versions", len(metadata.get("versions") or [])),
        ("Default namespace", ".".join(version.get("default-namespace") or [])),
        ("Updated", epoch_ms_text(version.get("timestamp-ms"))),
        ("Metadata", loaded.get("metadata-location")),
    ])
    parts = [
        (None, summary),
        ("SQL", Rows(["dialect", "sql"], [[r.get("dialect"), r.get("sql")] for r in version.get("representations", [])])),
        ("Schema", Rows(["id", "name", "type", "required"],
                        [[f["id"], f["name"], type_text(f["type"]), f.get("required", False)]
                         for f in schema.get("fields", [])], empty="(no columns given)")),
        ("Properties", Rows(["key", "value"], sorted((metadata.get("properties") or {}).items()))),
    ]
    return Sections(parts, {"metadata-location": loaded.get("metadata-location"), "metadata": metadata})


def view_exists(ctx: Context, args: argparse.Namespace) -> Result:
    """As mc's: success when the view exists; the service's "does not exist" error (exit 1) otherwise."""
    ctx.client.load_view(args.warehouse, args.namespace, args.view)
    name = f"{dotted_namespace(args.namespace)}.{args.view}"
    return Message(f"View '{name}' exists in warehouse '{args.warehouse}'.", {"exists": True})


def view_drop(ctx: Context, args: argparse.Namespace) -> Result:
    ctx.client.delete_view(args.warehouse, args.namespace, args.view)
    return Message(f"View '{dotted_namespace(args.namespace)}.{args.view}' dropped from warehouse '{args.warehouse}'.")


def _rename(ctx: Context, args: argparse.Namespace, kind: str, name: str) -> Result:
    """A table's or view's rename; ``--namespace`` moves it to another namespace of the warehouse."""
    target_namespace = args.to_namespace or args.namespace
    ctx.client.rename(kind, args.warehouse, (args.namespace, name), (target_namespace, args.new_name))
    old, new = f"{dotted_namespace(args.namespace)}.{name}", f"{dotted_namespace(target_namespace)}.{args.new_name}"
    return Message(f"{kind[:-1].capitalize()} '{old}' renamed to '{new}' in warehouse '{args.warehouse}'.",
                   {"warehouse": args.warehouse, "from": old, "to": new})


def table_rename(ctx: Context, args: argparse.Namespace) -> Result:
    return _rename(ctx, args, "tables", args.table)


def view_rename(ctx: Context, args: argparse.Namespace) -> Result:
    return _rename(ctx, args, "views", args.view)
