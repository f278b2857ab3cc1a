"""What each command of the command table (registry.py) does: a function of a ``Context`` and the
parsed arguments that calls the service and returns a ``Result`` (results.py)."""

from __future__ import annotations

import argparse
import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from .. import aliases
from ..client import AIStorClient, AIStorError, ServiceConfig, ServiceError, namespace_levels
from ..token_state import with_states
from .results import Fields, Message, Result, Rows, Sections, Text
from .schema_text import SchemaTextError, parse_partition, parse_properties, parse_schema


class UsageError(AIStorError):
    """Bad arguments; ``usage`` is the command's usage line."""

    exit_code = 2

    def __init__(self, message: str, usage: str = ""):
        super().__init__(message)
        self.usage = usage


@dataclass
class Context:
    """What a command runs against: a service (None for local commands) and, in a notebook, the
    user's namespace. ``with_alias``: object paths start with an alias (the CLI's); ``progress``: show
    progress bars (the CLI and notebooks, not --json)."""

    service: ServiceConfig | None
    namespace: dict | None = None
    with_alias: bool = False
    progress: bool = False

    @cached_property
    def client(self) -> AIStorClient:
        assert self.service is not None
        return AIStorClient(self.service)


# -- helpers --------------------------------------------------------------------------------------


def _iso(epoch_seconds: float | None) -> str:
    if epoch_seconds is None:
        return ""
    return datetime.datetime.fromtimestamp(epoch_seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def epoch_ms_text(epoch_ms: int | None) -> str:
    """An Iceberg time (epoch milliseconds) as ISO 8601 UTC; "" for none."""
    return "" if epoch_ms is None else _iso(epoch_ms / 1000)


def dotted_namespace(namespace: str | list[str]) -> str:
    return ".".join(namespace_levels(namespace))


def _snapshot_id(value: int | None) -> str:
    return "(none)" if value in (None, -1) else str(value)


def type_text(value: Any) -> str:
    """A column's Iceberg type as shown: primitives as named, nested types by their kind."""
    return value if isinstance(value, str) else value.get("type", "struct") if isinstance(value, dict) else str(value)


def bad_input(call: Callable[[], Any]) -> Any:
    """``call()``, with a schema, partition or property text it could not read as a usage error."""
    try:
        return call()
    except SchemaTextError as exc:
        raise UsageError(str(exc)) from None


# -- warehouses and namespaces --------------------------------------------------------------------


def warehouse_create(ctx: Context, args: argparse.Namespace) -> Result:
    """mc's flags: ``--upgrade-existing`` makes an existing bucket the warehouse's; ``--ignore-existing``
    takes an existing warehouse of that name as success (a bucket that is no warehouse is still refused)."""
    try:
        created = ctx.client.create_warehouse(args.warehouse, upgrade_existing=args.upgrade_existing)
    except ServiceError as exc:
        if not (args.ignore_existing and exc.status == 409):
            raise
        try:
            existing = ctx.client.get_warehouse(args.warehouse)
        except ServiceError:
            raise exc from None
        return Message(f"Warehouse '{args.warehouse}' already exists.", existing)
    upgraded = " from the existing bucket" if args.upgrade_existing else ""
    return Message(f"Warehouse '{args.warehouse}' created{upgraded}.", created)


def warehouse_list(ctx: Context, args: argparse.Namespace) -> Result:
    names = ctx.client.list_warehouses()
    return Rows(["warehouse"], [[n] for n in names], data=names, empty="(no warehouses)")


def warehouse_delete(ctx: Context, args: argparse.Namespace) -> Result:
    if args.purge and not args.force:  # as mc: a purge deletes data, so it must be confirmed
        raise UsageError("--purge deletes every table's data: confirm it with --force")
    ctx.client.delete_warehouse(args.warehouse, force=args.force)
    return Message(f"Warehouse '{args.warehouse}' deleted.")


def namespace_create(ctx: Context, args: argparse.Namespace) -> Result:
    properties = bad_input(lambda: parse_properties(args.property))
    created = ctx.client.create_namespace(args.warehouse, args.namespace, properties)
    return Message(f"Namespace '{dotted_namespace(args.namespace)}' created in warehouse '{args.warehouse}'.", created)


def namespace_list(ctx: Context, args: argparse.Namespace) -> Result:
    names = [".".join(levels) for levels in ctx.client.list_namespaces(args.warehouse, args.parent)]
    return Rows(["namespace"], [[n] for n in names], data=names, empty="(no namespaces)")


def namespace_delete(ctx: Context, args: argparse.Namespace) -> Result:
    ctx.client.delete_namespace(args.warehouse, args.namespace)
    return Message(f"Namespace '{dotted_namespace(args.namespace)}' deleted from warehouse '{args.warehouse}'.")


# -- tables ---------------------------------------------------------------------------------------


def table_create(ctx: Context, args: argparse.Namespace) -> Result:
    if not args.schema:
        raise UsageError("a schema is required: --schema JSON (or, in %%aistor, the schema as the cell body)")
    schema = bad_input(lambda: parse_schema(args.schema))
    spec = bad_input(lambda: parse_partition(args.partition, schema)) if args.partition else None
    properties = bad_input(lambda: parse_properties(args.property))
    loaded = ctx.client.create_table(args.warehouse, args.namespace, args.table, schema, spec, properties)
    data = {"warehouse": args.warehouse, "namespace": dotted_namespace(args.namespace), "table": args.table,
            "location": loaded["metadata"]["location"], "metadata-location": loaded.get("metadata-location")}
    return Message(f"Table '{data['namespace']}.{args.table}' created in warehouse '{args.warehouse}'.", data)


def table_list(ctx: Context, args: argparse.Namespace) -> Result:
    names = ctx.client.list_tables(args.warehouse, args.namespace)
    return Rows(["table"], [[n] for n in names], data=names, empty="(no tables)")


def _current(metadata: dict, items: str, id_key: str, current_key: str) -> dict:
    wanted = metadata.get(current_key)
    return next((item for item in metadata.get(items, []) if item.get(id_key) == wanted), {})


def current_schema(metadata: dict) -> dict:
    """The table's current schema, from its Iceberg metadata."""
    return _current(metadata, "schemas", "schema-id", "current-schema-id")


def current_partition_spec(metadata: dict) -> dict:
    return _current(metadata, "partition-specs", "spec-id", "default-spec-id")


def table_info(ctx: Context, args: argparse.Namespace) -> Result:
    loaded = ctx.client.load_table(args.warehouse, args.namespace, args.table)
    metadata = loaded["metadata"]
    schema = current_schema(metadata)
    spec = current_partition_spec(metadata)
    columns = {f["id"]: f["name"] for f in schema.get("fields", [])}
    summary = Fields([
        ("Table", f"{dotted_namespace(args.namespace)}.{args.table}"),
        ("Warehouse", args.warehouse),
        ("Location", metadata.get("location")),
        ("UUID", metadata.get("table-uuid")),
        ("Format version", metadata.get("format-version")),
        ("Current snapshot", _snapshot_id(metadata.get("current-snapshot-id"))),
        ("Snapshots", len(metadata.get("snapshots") or [])),
        ("Last updated", epoch_ms_text(metadata.get("last-updated-ms"))),
        ("Metadata", loaded.get("metadata-location")),
    ])
    parts = [
        (None, summary),
        ("Schema", Rows(["id", "name", "type", "required"],
                        [[f["id"], f["name"], type_text(f["type"]), f.get("required", False)]
                         for f in schema.get("fields", [])])),
        ("Partition spec", Rows(["name", "transform", "source"],
                                [[f["name"], f["transform"], columns.get(f.get("source-id"), f.get("source-id"))]
                                 for f in spec.get("fields", [])], empty="(unpartitioned)")),
        ("Properties", Rows(["key", "value"], sorted((metadata.get("properties") or {}).items()))),
    ]
    data = {"metadata-location": loaded.get("metadata-location"), "metadata": metadata}
    return Sections(parts, data)


def table_snapshots(ctx: Context, args: argparse.Namespace) -> Result:
    metadata = ctx.client.load_table(args.warehouse, args.namespace, args.table)["metadata"]
    snapshots = sorted(metadata.get("snapshots") or [], key=lambda s: s.get("sequence-number", 0))
    rows = [
        [s["snapshot-id"], s.get("parent-snapshot-id"), epoch_ms_text(s.get("timestamp-ms")),
         s.get("summary", {}).get("operation"), s.get("summary", {}).get("added-records"),
         s.get("summary", {}).get("total-records")]
        for s in snapshots
    ]
    columns = ["snapshot id", "parent", "committed at", "operation", "added records", "total records"]
    return Rows(columns, rows, data=snapshots, empty="(no snapshots)")


def table_preview(ctx: Context, args: argparse.Namespace) -> Result:
    from ..explore.time_travel import rows_as_of  # explore builds on this module

    if args.limit < 0:
        raise UsageError("--limit must be zero or more")
    if args.snapshot and args.as_of:
        raise UsageError("--snapshot and --as-of both choose the snapshot: give one of them")
    arrow = rows_as_of(ctx.client, args.warehouse, args.namespace, args.table, args.limit,
                       snapshot=args.snapshot, as_of=args.as_of)
    records = arrow.to_pylist()
    return Rows(arrow.column_names, [list(r.values()) for r in records], data=records, empty="(no rows)")


def table_import(ctx: Context, args: argparse.Namespace) -> Result:
    from ..table_import import import_table  # pyarrow and PyIceberg load only when asked

    data = import_table(ctx.client, args.warehouse, args.namespace, args.table, args.source)
    return Message(f"Table '{data['namespace']}.{args.table}' created in warehouse '{args.warehouse}' with "
                   f"{_plural(data['rows'], 'row')} of {args.source}.", data)


def table_delete(ctx: Context, args: argparse.Namespace) -> Result:
    ctx.client.delete_table(args.warehouse, args.namespace, args.table, purge=args.purge)
    return Message(f"Table '{dotted_namespace(args.namespace)}.{args.table}' deleted from warehouse '{args.warehouse}'.")


# -- shares and tokens ----------------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def share_tree(info: dict) -> str:
    """``share info`` as mc prints it: the share, then its schemas and tables as a tree."""
    lines = [f"Share: {info['name']}", f"ID: {info['id']}"]
    if info.get("description"):
        lines.append(f"Description: {info['description']}")
    lines += [f"Created: {info['created']}", f"Updated: {info['updated']}", "", "Schemas:"]
    schemas = info.get("schemas") or []
    for i, schema in enumerate(schemas):
        last_schema = i == len(schemas) - 1
        lines.append(f"  {'└─' if last_schema else '├─'} {schema['name']} ({_plural(len(schema['tables']), 'table')})")
        indent = "  " + ("    " if last_schema else "│   ")
        for j, table in enumerate(schema["tables"]):
            last_table = j == len(schema["tables"]) - 1
            delta = table["kind"] == "delta"
            lines.append(f"{indent}{'└─' if last_table else '├─'} {table['name']} [{'Delta' if delta else 'UniForm'}]")
            detail = indent + ("    " if last_table else "│   ")
            if delta:
                lines += [f"{detail}Bucket: {table['bucket']}", f"{detail}Location: {table['location']}"]
            else:
                lines += [f"{detail}Warehouse: {table['warehouse']}", f"{detail}Namespace: {table['namespace']}",
                          f"{detail}Table: {table['table']}"]
    if not schemas:
        lines.append("  (none)")
    return "\n".join(lines)


def _table_location(table: dict) -> str:
    if table["kind"] == "delta":
        return f"s3://{table['bucket']}/{table['location']}"
    return f"{table['warehouse']}:{table['namespace']}:{table['table']}"


def share_info_result(info: dict) -> Result:
    rows = [[schema["name"], t["name"], "Delta" if t["kind"] == "delta" else "UniForm", _table_location(t)]
            for schema in info.get("schemas") or [] for t in schema["tables"]]
    table = Sections([
        (None, Fields([("Share", info["name"]), ("ID", info["id"]), ("Description", info.get("description")),
                       ("Created", info["created"]), ("Updated", info["updated"])])),
        ("Tables", Rows(["schema", "table", "format", "location"], rows, empty="(no tables)")),
    ], info)
    return Text(share_tree(info), info, table)


def _warned(message: str, info: dict) -> str:
    """A share change's message, and what the service warns about the tables it names."""
    return "\n".join([message] + [f"Warning: {warning}" for warning in info.get("warnings") or []])


def share_create(ctx: Context, args: argparse.Namespace) -> Result:
    info = ctx.client.create_share(args.share, args.schema, args.tables, args.description, require_existing=True)
    message = f"Share '{info['name']}' created with {_plural(len(args.tables), 'table')} in schema '{args.schema}'."
    return Message(_warned(message, info), info)


def share_update(ctx: Context, args: argparse.Namespace) -> Result:
    if not (args.add or args.remove or args.description is not None):
        raise UsageError("nothing to change: give --add, --remove or --description")
    info = ctx.client.update_share(args.share, args.add, args.remove, args.description, require_existing=True)
    changes = [f"added {_plural(len(args.add), 'table')}"] if args.add else []
    changes += [f"removed {_plural(len(args.remove), 'table')}"] if args.remove else []
    changes += ["description changed"] if args.description is not None else []
    return Message(_warned(f"Share '{info['name']}' updated: {', '.join(changes)}.", info), info)


def share_list(ctx: Context, args: argparse.Namespace) -> Result:
    shares = ctx.client.list_shares()
    if args.share:
        shares = [s for s in shares if s["name"].lower() == args.share.lower()]
        if not shares:
            raise AIStorError(f"share {args.share!r} does not exist")
    rows = [[s["name"], s.get("description"), s["schemas"], s["tables"], s["created"], s["updated"]] for s in shares]
    return Rows(["share", "description", "schemas", "tables", "created", "updated"], rows, data=shares,
                empty="(no shares)")


def share_info(ctx: Context, args: argparse.Namespace) -> Result:
    return share_info_result(ctx.client.get_share(args.share))


def share_remove(ctx: Context, args: argparse.Namespace) -> Result:
    info = ctx.client.remove_share(args.share)
    return Message(f"Share '{info['name']}' removed, with its tokens.", info)


def secret_created_result(what: str, secret: str, share: str, fields: Fields, created: dict) -> Result:
    """What ``share token create`` and ``share client create`` show (in mc's words): the ``secret``
    once, and the profile.share to save."""
    headline = f"{what} created successfully for share '{share}'."
    warning = f"⚠️  Save this {secret} securely. It won't be shown again."
    text = f"{headline}\n\n{fields.text()}\n\n{warning}"
    profile = Text(json.dumps(created["profile"], indent=2), created["profile"])
    table = Sections([(None, Message(headline)), (None, fields), ("profile.share", profile), (None, Message(warning))],
                     created)
    return Text(text, created, table)


def token_create(ctx: Context, args: argparse.Namespace) -> Result:
    token = ctx.client.create_token(args.share, args.expires, args.description)
    fields = Fields([("Token ID", token["id"]), ("Token", token["token"]),
                     ("Expires", token.get("expirationTime") or "never"), ("Description", token.get("description"))])
    return secret_created_result("Token", "token", token.get("share") or args.share, fields, token)


def token_list(ctx: Context, args: argparse.Namespace) -> Result:
    tokens = with_states(ctx.client.list_tokens(args.share))
    rows = [[t["id"], t.get("description"), t.get("created"), t.get("expirationTime") or "never", t["state"]]
            for t in tokens]
    return Rows(["token id", "description", "created", "expires", "state"], rows, data=tokens, empty="(no tokens)")


def token_remove(ctx: Context, args: argparse.Namespace) -> Result:
    token = ctx.client.revoke_token(args.share, args.token_id)
    return Message(f"Token '{args.token_id}' of share '{args.share}' removed.", token)


def client_create(ctx: Context, args: argparse.Namespace) -> Result:
    client = ctx.client.create_oauth_client(args.share, args.description)
    fields = Fields([("Client ID", client["clientId"]), ("Client secret", client["clientSecret"]),
                     ("Token endpoint", client["profile"]["tokenEndpoint"]), ("Description", client.get("description"))])
    return secret_created_result("OAuth client", "client secret", client.get("share") or args.share, fields, client)


def client_list(ctx: Context, args: argparse.Namespace) -> Result:
    clients = ctx.client.list_oauth_clients(args.share)
    rows = [[c["clientId"], c.get("description"), c.get("created")] for c in clients]
    return Rows(["client id", "description", "created"], rows, data=clients, empty="(no OAuth clients)")


def client_remove(ctx: Context, args: argparse.Namespace) -> Result:
    client = ctx.client.remove_oauth_client(args.share, args.client_id)
    return Message(f"OAuth client '{args.client_id}' of share '{args.share}' removed; its access tokens are revoked.",
                   client)


def share_audit(ctx: Context, args: argparse.Namespace) -> Result:
    records = ctx.client.share_audit(args.share, args.limit)
    rows = [[r.get("time"), r.get("operation"), f"{r.get('schema')}.{r.get('table')}", r.get("status"),
             r.get("tokenId")] for r in records]
    return Rows(["time", "operation", "table", "status", "token id"], rows, data=records, empty="(no queries yet)")


def share_checkpoint(ctx: Context, args: argparse.Namespace) -> Result:
    schema, _, table = args.table.partition("/")
    if not schema or not table:
        raise UsageError(f"expected SCHEMA/TABLE, not {args.table!r}")
    answer = ctx.client.checkpoint_shared_table(args.share, schema, table)
    if not answer["written"]:
        return Message(f"Version {answer['version']} of {args.table} has a checkpoint already: nothing written.", answer)
    return Message(f"Checkpoint of version {answer['version']} of {args.table} written ({answer['addFiles']} files, "
                   f"{answer['bytes']} bytes): recipients' queries now start from it.", answer)


# -- users and policies ---------------------------------------------------------------------------


def user_create(ctx: Context, args: argparse.Namespace) -> Result:
    user = ctx.client.create_user(args.access_key, args.secret_key, args.policy)
    return Message(f"User '{args.access_key}' created.", user)


def user_list(ctx: Context, args: argparse.Namespace) -> Result:
    users = ctx.client.list_users()
    rows = [[u["accessKey"], u.get("status"), u.get("policies"), _iso(u.get("createdAt"))] for u in users]
    return Rows(["access key", "status", "policies", "created"], rows, data=users, empty="(no users)")


def user_delete(ctx: Context, args: argparse.Namespace) -> Result:
    ctx.client.delete_user(args.access_key)
    return Message(f"User '{args.access_key}' deleted.")


def policy_attach(ctx: Context, args: argparse.Namespace) -> Result:
    user = ctx.client.attach_policy(args.user, args.policy)
    return Message(f"Policy '{args.policy}' attached to user '{args.user}'.", user)


def policy_detach(ctx: Context, args: argparse.Namespace) -> Result:
    user = ctx.client.detach_policy(args.user, args.policy)
    return Message(f"Policy '{args.policy}' detached from user '{args.user}'.", user)


def policy_create(ctx: Context, args: argparse.Namespace) -> Result:
    """``mc admin policy create``: a policy document from a JSON file."""
    try:
        document = json.loads(Path(args.file).read_text())
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"{args.file} is not a JSON policy document: {exc}") from None
    policy = ctx.client.put_policy(args.policy, document)
    return Message(f"Policy '{args.policy}' created.", policy)


def policy_info(ctx: Context, args: argparse.Namespace) -> Result:
    policy = ctx.client.get_policy(args.policy)
    return Message(json.dumps(policy.get("policy"), indent=2), policy)


def policy_remove(ctx: Context, args: argparse.Namespace) -> Result:
    ctx.client.delete_policy(args.policy)
    return Message(f"Policy '{args.policy}' removed.")


def policy_list(ctx: Context, args: argparse.Namespace) -> Result:
    policies = ctx.client.list_policies()
    return Rows(["policy", "builtin"], [[p["name"], p["builtin"]] for p in policies], data=policies)


# -- aliases, status, spark -----------------------------------------------------------------------


def alias_set(ctx: Context, args: argparse.Namespace) -> Result:
    config = ServiceConfig(args.url.rstrip("/"), args.access_key, args.secret_key, warehouse=args.warehouse)
    aliases.set_alias(args.name, config)
    return Message(f"Alias '{args.name}' set to {config.endpoint}.")


def alias_list(ctx: Context, args: argparse.Namespace) -> Result:
    found = aliases.list_aliases()
    rows = [[name, c.endpoint, c.access_key, c.warehouse] for name, c in sorted(found.items())]
    data = [{"alias": name, "endpoint": c.endpoint, "accessKey": c.access_key, "warehouse": c.warehouse}
            for name, c in sorted(found.items())]
    return Rows(["alias", "endpoint", "access key", "warehouse"], rows, data=data, empty="(no aliases)")


def alias_remove(ctx: Context, args: argparse.Namespace) -> Result:
    aliases.remove_alias(args.name)
    return Message(f"Alias '{args.name}' removed.")


def status(ctx: Context, args: argparse.Namespace) -> Result:
    client = ctx.client
    client.health()
    warehouses = client.list_warehouses()  # proves the credentials, not only that something listens
    data = {"endpoint": client.config.endpoint, "status": "online", "accessKey": client.config.access_key,
            "warehouse": client.config.warehouse, "warehouses": warehouses}
    return Fields([("Endpoint", data["endpoint"]), ("Status", "online"), ("Access key", data["accessKey"]),
                   ("Default warehouse", data["warehouse"] or "-"), ("Warehouses", len(warehouses))], data)


def spark(ctx: Context, args: argparse.Namespace) -> Result:
    try:
        from ..spark import sessions as spark_module
        from ..spark.startup import SparkStartError

        session = spark_module.session(service=ctx.service, progress=ctx.progress)
    except ImportError as exc:
        raise AIStorError(f"Spark is not available: {exc}") from None
    except (ValueError, SparkStartError) as exc:  # no warehouse to configure the catalog with; no JVM
        raise AIStorError(str(exc)) from None
    assert ctx.namespace is not None
    ctx.namespace["spark"] = session
    return Message(f"SparkSession (Spark {session.version}) bound to `spark`.", {"version": session.version})
