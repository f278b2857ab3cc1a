"""The one command table behind the ``aistor`` CLI, the ``%aistor`` magics and the side panel.

Each ``Command`` has a name (``table create``), its arguments (argparse), and a function that
returns a ``Result`` (results.py) which renders as text, JSON or HTML. The commands mirror
``mc table ...``: in the CLI the first argument names the service by alias (``myaistor``, or
``myaistor/SHARE`` for share commands); in notebooks and the side panel the alias is left out
when the environment names a default service. A ``WAREHOUSE`` argument may be left out when the
service has a default warehouse (``AISTOR_WAREHOUSE``, or the alias's ``--warehouse``).
``aistor table warehouse create ...`` (mc's spelling) is accepted too, and so is
``aistor admin policy ...`` / ``aistor admin user ...``.

The object commands (``mb``, ``ls``, ``cp``, ``anonymous``, ``ilm``...) mirror ``mc``'s: their paths
carry the service, ``ALIAS/BUCKET/KEY`` in the CLI and ``BUCKET/KEY`` in notebooks
(object_paths.py); their actions are in object_actions.py and bucket_actions.py.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import aliases
from ..client import ServiceConfig
from ..progress import shown_when_slow
from . import actions as do
from . import bucket_actions as bucket_do
from . import maintenance_actions as maintenance_do
from . import migration_actions as migration_do
from . import object_actions as object_do
from . import view_actions as view_do
from .actions import Context, UsageError
from .results import Result

# PATHS: the service is named by the command's object paths (object_paths.py), not by an ALIAS argument.
SERVICE, SHARE, SHARE_OPTIONAL, LOCAL, PATHS = "service", "share", "share?", "local", "paths"
CLI, NOTEBOOK, PANEL = "cli", "notebook", "panel"


class HelpRequested(Exception):
    """Not an error: ``--help`` was asked for; ``text`` is the help to show."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing and exiting: a bad line must not end a kernel."""

    def error(self, message: str):
        raise UsageError(message, self.format_usage())

    def print_help(self, file=None) -> None:
        raise HelpRequested(self.format_help())

    def exit(self, status: int = 0, message: str | None = None):
        raise UsageError((message or "").strip(), self.format_usage())


@dataclass(frozen=True)
class Front:
    """Where commands run: the CLI names services by alias, notebooks and the panel need not."""

    name: str
    prog: str
    with_alias: bool


def cli_front() -> Front:
    return Front(CLI, "aistor", with_alias=True)


def notebook_front() -> Front:
    return Front(NOTEBOOK, "%aistor", with_alias=ServiceConfig.from_env() is None)


def panel_front() -> Front:
    return Front(PANEL, "aistor", with_alias=False)


def arg(*flags: str, **options: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    """One ``add_argument`` call, written down for later."""
    return flags, options


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Callable[[Context, argparse.Namespace], Result]
    args: Sequence[tuple[tuple[str, ...], dict[str, Any]]] = ()
    target: str = SERVICE  # SERVICE | SHARE | SHARE_OPTIONAL | LOCAL | PATHS
    aliases: tuple[str, ...] = ()
    body_dest: str | None = None  # the argument a %%aistor cell body fills
    fronts: frozenset[str] = field(default_factory=lambda: frozenset({CLI, NOTEBOOK, PANEL}))
    # Shows its own progress (or writes the output a bar would garble): no "still working" bar over it.
    own_progress: bool = False


# -- the table ------------------------------------------------------------------------------------

# Filled in from the service's default warehouse when left out (see _default_warehouse).
WAREHOUSE = arg("warehouse", metavar="WAREHOUSE", nargs="?", help="default: the service's default warehouse")
NAMESPACE = arg("namespace", metavar="NAMESPACE", help="dotted for nested namespaces: sales.eu")
TABLE = arg("table", metavar="TABLE")
VIEW = arg("view", metavar="VIEW")
RENAME_TO = [arg("new_name", metavar="NEW_NAME"),
             arg("--namespace", dest="to_namespace", metavar="NAMESPACE", help="the new namespace (default: the same)")]
# Aliases are the user's own files: not something the side panel changes.
TERMINAL_AND_NOTEBOOK = frozenset({CLI, NOTEBOOK})
PROPERTY = arg("--property", "-p", action="append", default=[], metavar="KEY=VALUE", help="repeatable")
MAINTENANCE_CHANGES = [
    arg("--property", "-p", action="append", default=[], metavar="SETTING=VALUE",
        help="e.g. write.target-file-size-bytes=134217728 (repeatable; `table maintenance show` lists them)"),
    arg("--unset", action="append", default=[], metavar="SETTING", help="back to the warehouse's or default value"),
]

# The object commands, as mc's. Their paths name the service (object_paths.py).
_PATH_HELP = "ALIAS/BUCKET[/PREFIX] (in a notebook with a default service: BUCKET[/PREFIX])"
TARGET = arg("target", metavar="TARGET", help=_PATH_HELP)
BUCKET_TARGET = arg("target", metavar="TARGET", help="ALIAS/BUCKET (in a notebook: BUCKET)")
VERSION_ID = arg("--version-id", "--vid", dest="version_id", metavar="VERSION_ID", help="one version of the object")
ILM_FLAGS = [
    arg("--id", help="the rule's ID (default: a new one)"),
    arg("--prefix", default="", help="only objects under this prefix"),
    arg("--tags", help="only objects with these tags: key=value&key2=value2"),
    arg("--size-gt", type=int, metavar="BYTES", help="only objects larger than this"),
    arg("--size-lt", type=int, metavar="BYTES", help="only objects smaller than this"),
    arg("--expire-days", type=int, metavar="DAYS", help="expire the current version this many days after creation"),
    arg("--expire-date", metavar="YYYY-MM-DD", help="expire the current versions on this date"),
    arg("--expire-delete-marker", action="store_true", help="remove delete markers with no versions behind them"),
    arg("--noncurrent-expire-days", type=int, metavar="DAYS",
        help="remove noncurrent versions this many days after they became noncurrent"),
    arg("--noncurrent-expire-newer", type=int, metavar="COUNT", help="keep this many newest noncurrent versions"),
    arg("--abort-incomplete-days", type=int, metavar="DAYS", help="abort multipart uploads this many days old"),
    arg("--disable", action="store_true", help="add the rule disabled"),
]

OBJECT_COMMANDS: list[Command] = [
    Command("mb", "make buckets", object_do.make_bucket, [
        arg("targets", metavar="TARGET", nargs="+", help="ALIAS/BUCKET (in a notebook: BUCKET)"),
        arg("--with-versioning", action="store_true", help="enable versioning"),
        arg("--with-lock", "-l", action="store_true", help="enable object lock (and so versioning)"),
        arg("--ignore-existing", "-p", action="store_true", help="no error when the bucket exists"),
    ], target=PATHS),
    Command("rb", "remove buckets", object_do.remove_bucket, [
        arg("targets", metavar="TARGET", nargs="+", help="ALIAS/BUCKET (in a notebook: BUCKET)"),
        arg("--force", action="store_true", help="remove every object and version first"),
    ], target=PATHS),
    Command("ls", "list buckets, or the objects under a bucket or prefix", object_do.list_objects, [
        arg("target", metavar="TARGET", nargs="?", default="",
            help="ALIAS[/BUCKET[/PREFIX]] (in a notebook: [BUCKET[/PREFIX]])"),
        arg("--recursive", "-r", action="store_true", help="every object under the prefix, not one level"),
        arg("--versions", action="store_true", help="every version and delete marker"),
    ], target=PATHS),
    Command("tree", "the prefixes under a bucket or prefix, as a tree", object_do.tree, [
        TARGET, arg("--files", "-f", action="store_true", help="the objects too"),
    ], target=PATHS),
    Command("cp", "copy files and objects: local -> bucket, bucket -> local, bucket -> bucket", object_do.copy, [
        arg("sources", metavar="SOURCE", nargs="+",
            help="local paths, or ALIAS/BUCKET/KEY (in a notebook: BUCKET/KEY; local paths there start with "
                 "/, . or ~, or exist here); a folder keeps its name unless written with a trailing /"),
        arg("target", metavar="TARGET", help="as SOURCE; ending in / (or a bucket): a folder"),
        arg("--recursive", "-r", action="store_true", help="folders and prefixes, with everything under them"),
        VERSION_ID,
    ], target=PATHS, fronts=TERMINAL_AND_NOTEBOOK, own_progress=True),  # local files: not the panel's business
    Command("rm", "remove objects", object_do.remove, [
        arg("targets", metavar="TARGET", nargs="+", help="ALIAS/BUCKET/KEY (in a notebook: BUCKET/KEY)"),
        arg("--recursive", "-r", action="store_true", help="every object under the prefix (needs --force)"),
        arg("--force", action="store_true", help="allow a recursive removal"),
        arg("--versions", action="store_true", help="every version too (not only a delete marker on top)"),
        VERSION_ID,
    ], target=PATHS),
    Command("cat", "write an object's contents", object_do.cat, [TARGET, VERSION_ID], target=PATHS, own_progress=True),
    Command("stat", "size, ETag, type, metadata, version and tags of an object (or a bucket's settings)",
            object_do.stat, [TARGET, VERSION_ID], target=PATHS),
    Command("anonymous set", "set anonymous access to a bucket or prefix (a bucket policy, as mc writes it)",
            bucket_do.anonymous_set, [
                arg("permission", metavar="PERMISSION", choices=["none", "private", "download", "upload", "public"]),
                TARGET,
            ], target=PATHS),
    Command("anonymous get", "the anonymous access of a bucket or prefix", bucket_do.anonymous_get, [TARGET],
            target=PATHS),
    Command("anonymous list", "the anonymous access rules of a bucket", bucket_do.anonymous_list, [TARGET],
            target=PATHS, aliases=("ls",)),
    Command("version enable", "enable versioning of a bucket", bucket_do.version_enable, [BUCKET_TARGET],
            target=PATHS),
    Command("version suspend", "suspend versioning of a bucket", bucket_do.version_suspend, [BUCKET_TARGET],
            target=PATHS),
    Command("version info", "the versioning of a bucket", bucket_do.version_info, [BUCKET_TARGET], target=PATHS),
    Command("tag set", "set the tags of an object or a bucket", bucket_do.tag_set, [
        TARGET, arg("tags", metavar="TAGS", help="key=value&key2=value2"), VERSION_ID,
    ], target=PATHS),
    Command("tag list", "the tags of an object or a bucket", bucket_do.tag_list, [TARGET, VERSION_ID],
            target=PATHS, aliases=("ls",)),
    Command("tag remove", "remove the tags of an object or a bucket", bucket_do.tag_remove, [TARGET, VERSION_ID],
            target=PATHS, aliases=("rm",)),
    Command("ilm rule add", "add a lifecycle rule to a bucket", bucket_do.ilm_rule_add, [BUCKET_TARGET, *ILM_FLAGS],
            target=PATHS),
    Command("ilm rule list", "the lifecycle rules of a bucket", bucket_do.ilm_rule_list, [BUCKET_TARGET],
            target=PATHS, aliases=("ls",)),
    Command("ilm rule remove", "remove a lifecycle rule (--id) or all of them (--all)", bucket_do.ilm_rule_remove,
            [BUCKET_TARGET, arg("--id"), arg("--all", action="store_true")], target=PATHS, aliases=("rm",)),
    Command("ilm export", "the lifecycle configuration as JSON (as mc ilm export)", bucket_do.ilm_export,
            [BUCKET_TARGET], target=PATHS),
    Command("ilm import", "replace the lifecycle configuration with a JSON document (as mc ilm import)",
            bucket_do.ilm_import, [
                BUCKET_TARGET, arg("file", metavar="FILE", nargs="?", help="default: standard input"),
                arg("--document", help=argparse.SUPPRESS),
            ], target=PATHS, body_dest="document"),
]

COMMANDS: list[Command] = [
    Command("warehouse create", "create a warehouse (and its bucket)", do.warehouse_create, [
        arg("warehouse", metavar="NAME"),
        arg("--ignore-existing", "-p", action="store_true", help="no error when the warehouse exists"),
        arg("--upgrade-existing", action="store_true",
            help="make an existing bucket of that name the warehouse's (refused without this flag)"),
    ]),
    Command("warehouse list", "list warehouses", do.warehouse_list, aliases=("ls",)),
    Command("warehouse delete", "delete an empty warehouse", do.warehouse_delete,
            [arg("warehouse", metavar="NAME"),
             arg("--force", action="store_true", help="delete its namespaces, views and tables (purged) too"),
             arg("--purge", action="store_true",
                 help="as mc: with --force, purge the tables' data; the bucket goes when nothing else is left in it")],
            aliases=("rm", "remove")),
    Command("namespace create", "create a namespace", do.namespace_create, [WAREHOUSE, NAMESPACE, PROPERTY]),
    Command("namespace list", "list the namespaces of a warehouse (or under PARENT)", do.namespace_list,
            [WAREHOUSE, arg("parent", metavar="PARENT", nargs="?")], aliases=("ls",)),
    Command("namespace delete", "delete an empty namespace", do.namespace_delete, [WAREHOUSE, NAMESPACE],
            aliases=("rm",)),
    Command("table create", "create an Iceberg table", do.table_create, [
        WAREHOUSE, NAMESPACE, TABLE,
        arg("--schema", help="Iceberg schema JSON, or columns: 'id long not null, name string'"),
        arg("--partition", action="append", default=[], metavar="FIELD",
            help="COLUMN, day(COLUMN), bucket(N, COLUMN), ... (repeatable)"),
        PROPERTY,
    ], body_dest="schema"),
    Command("table list", "list the tables of a namespace", do.table_list, [WAREHOUSE, NAMESPACE], aliases=("ls",)),
    Command("table info", "schema, partition spec, properties and current snapshot of a table", do.table_info,
            [WAREHOUSE, NAMESPACE, TABLE], aliases=("show",)),
    Command("table rename", "rename a table (--namespace: into another namespace of the warehouse)",
            view_do.table_rename, [WAREHOUSE, NAMESPACE, TABLE, *RENAME_TO]),
    Command("table snapshots", "the snapshots of a table", do.table_snapshots, [WAREHOUSE, NAMESPACE, TABLE]),
    Command("table preview", "the first rows of a table (of its current snapshot, or of an older one)",
            do.table_preview, [
                WAREHOUSE, NAMESPACE, TABLE, arg("--limit", "-n", type=int, default=10),
                arg("--snapshot", metavar="ID", help="the snapshot to read (see `table snapshots`)"),
                arg("--as-of", metavar="TIMESTAMP",
                    help="the snapshot current at this time: ISO 8601 (2024-05-01T12:00:00Z) or epoch ms"),
            ]),
    Command("table import", "create an Iceberg table from a CSV, TSV, Parquet or JSON-lines file", do.table_import, [
        WAREHOUSE, NAMESPACE, TABLE,
        arg("source", metavar="SOURCE", help="s3://BUCKET/KEY (an object of the service) or a local file"),
    ]),
    Command("table register", "register a metadata file already in the warehouse as a table",
            migration_do.table_register, [
                WAREHOUSE, NAMESPACE, TABLE,
                arg("metadata_location", metavar="METADATA-LOCATION", help="s3://WAREHOUSE/.../vN.metadata.json"),
            ]),
    Command("table migrate", "copy the Iceberg tables of another catalog into a warehouse and register them "
            "(idempotent, resumable; a parity report at the end)", migration_do.table_migrate, [
                arg("source", metavar="SOURCE",
                    help="a REST catalog (https://HOST/PATH), a SQL catalog (sqlite:///FILE, postgresql://...), "
                         "a directory of Hadoop tables (file:///DIR or a path), or ALIAS/WAREHOUSE of a known service"),
                WAREHOUSE,
                arg("--namespace", action="append", default=[], metavar="NS",
                    help="only this namespace and those under it (repeatable; default: all)"),
                arg("--dry-run", action="store_true", help="print the plan, change nothing"),
                arg("--source-warehouse", metavar="WAREHOUSE",
                    help="the REST catalog's warehouse, or where the SQL catalog's tables are"),
                arg("--credential", metavar="CLIENT_ID:SECRET", help="OAuth2 client credentials of a REST catalog"),
                arg("--oauth2-server-uri", metavar="URL", help="its token endpoint (default: the catalog's)"),
                arg("--scope", help="the OAuth2 scope to ask for"),
                arg("--sigv4", nargs=3, metavar=("ACCESS_KEY", "SECRET_KEY", "REGION"),
                    help="SigV4-sign the REST catalog's requests"),
                arg("--signing-name", default="s3tables", help="SigV4's service name (default: s3tables)"),
                arg("--catalog-name", default="default", help="the SQL catalog's name (default: default)"),
                arg("--source-property", "-P", action="append", default=[], metavar="KEY=VALUE",
                    help="a PyIceberg property of the source, e.g. s3.endpoint=... (repeatable)"),
            ], fronts=TERMINAL_AND_NOTEBOOK, own_progress=True),  # reads local files: not the panel's business
    Command("table delete", "delete a table", do.table_delete,
            [WAREHOUSE, NAMESPACE, TABLE, arg("--purge", action="store_true", help="delete its files too")],
            aliases=("rm", "remove")),
    Command("view create", "create an Iceberg view of a SQL query", view_do.view_create, [
        WAREHOUSE, NAMESPACE, VIEW,
        arg("--sql", action="append", default=[], metavar="[DIALECT:]SQL",
            help=f"the query; one per dialect, e.g. trino:SELECT ... (default dialect: {view_do.DEFAULT_DIALECT})"),
        arg("--schema", help="the columns the query yields: 'id long, name string' or Iceberg schema JSON"),
        arg("--attr", "-a", action="append", default=[], metavar="KEY=VALUE", help="a property (repeatable)"),
        arg("--ignore-existing", "-p", action="store_true", help="no error when the view exists"),
    ], body_dest="sql"),
    Command("view list", "list the views of a namespace", view_do.view_list, [WAREHOUSE, NAMESPACE], aliases=("ls",)),
    Command("view show", "the SQL, schema, versions and properties of a view", view_do.view_show,
            [WAREHOUSE, NAMESPACE, VIEW], aliases=("info",)),
    Command("view exists", "whether a view exists (exit code 1 when it does not)", view_do.view_exists,
            [WAREHOUSE, NAMESPACE, VIEW]),
    Command("view drop", "drop a view", view_do.view_drop, [WAREHOUSE, NAMESPACE, VIEW], aliases=("rm", "remove")),
    Command("view rename", "rename a view (--namespace: into another namespace of the warehouse)",
            view_do.view_rename, [WAREHOUSE, NAMESPACE, VIEW, *RENAME_TO]),
    Command("table maintenance show", "a table's health, its maintenance settings and its last maintenance",
            maintenance_do.table_show, [WAREHOUSE, NAMESPACE, TABLE]),
    Command("table maintenance set", "override maintenance settings of a table (they are table properties)",
            maintenance_do.table_set, [WAREHOUSE, NAMESPACE, TABLE, *MAINTENANCE_CHANGES]),
    Command("table maintenance run", "compact, expire snapshots, remove unreferenced files: now, or as a preview",
            maintenance_do.table_run, [
                WAREHOUSE, NAMESPACE, TABLE,
                arg("--operation", "-o", action="append", default=[], metavar="OPERATION",
                    choices=maintenance_do.OPERATIONS, help="repeatable (default: every enabled one)"),
                arg("--dry-run", action="store_true", help="show what would change, change nothing"),
                arg("--engine", choices=["service", "spark"], default="service",
                    help="spark: Iceberg's procedures in the kernel's Spark session, for big tables"),
            ]),
    Command("table maintenance history", "the maintenance runs of a table, newest first", maintenance_do.table_history,
            [WAREHOUSE, NAMESPACE, TABLE, arg("--limit", "-n", type=int, default=20)]),
    Command("warehouse maintenance show", "a warehouse's maintenance settings (what its tables get)",
            maintenance_do.warehouse_show, [WAREHOUSE]),
    Command("warehouse maintenance set", "set maintenance settings of a warehouse", maintenance_do.warehouse_set,
            [WAREHOUSE, *MAINTENANCE_CHANGES]),
    Command("share create", "create a share of tables in a schema", do.share_create, [
        arg("schema", metavar="SCHEMA"),
        arg("tables", metavar="TABLE_SPEC", nargs="+",
            help="NAME:delta:BUCKET:PATH/TO/TABLE or NAME:uniform:WAREHOUSE:NAMESPACE:TABLE"),
        arg("--description", default=""),
    ], target=SHARE),
    Command("share update", "add or remove tables of a share", do.share_update, [
        arg("--add", action="append", default=[], metavar="SCHEMA:TABLE_SPEC", help="repeatable"),
        arg("--remove", action="append", default=[], metavar="SCHEMA/TABLE", help="repeatable"),
        arg("--description"),
    ], target=SHARE),
    Command("share list", "list shares", do.share_list, target=SHARE_OPTIONAL, aliases=("ls",)),
    Command("share info", "the schemas and tables of a share", do.share_info, target=SHARE),
    Command("share remove", "remove a share and its tokens", do.share_remove, target=SHARE, aliases=("rm",)),
    Command("share audit", "the newest recipient queries of a share", do.share_audit,
            [arg("--limit", "-n", type=int, default=20)], target=SHARE),
    Command("share checkpoint", "write a Delta checkpoint of a shared Delta table: recipients' queries then "
            "read it, not the whole log", do.share_checkpoint, [arg("table", metavar="SCHEMA/TABLE")], target=SHARE),
    Command("share token create", "create a bearer token and its profile.share", do.token_create, [
        arg("--expires", help="30d, 12h, 90m (default: never)"), arg("--description", default=""),
    ], target=SHARE),
    Command("share token list", "list the tokens of a share (not their secrets)", do.token_list, target=SHARE,
            aliases=("ls",)),
    Command("share token remove", "revoke a token", do.token_remove, [arg("token_id", metavar="TOKEN_ID")],
            target=SHARE, aliases=("rm", "revoke")),
    Command("share client create", "create an OAuth client and its profile.share (version 2)", do.client_create,
            [arg("--description", default="")], target=SHARE),
    Command("share client list", "list the OAuth clients of a share (not their secrets)", do.client_list,
            target=SHARE, aliases=("ls",)),
    Command("share client remove", "delete an OAuth client and revoke its access tokens", do.client_remove,
            [arg("client_id", metavar="CLIENT_ID")], target=SHARE, aliases=("rm", "revoke")),
    Command("user create", "create a user", do.user_create, [
        arg("access_key", metavar="ACCESS_KEY"), arg("secret_key", metavar="SECRET_KEY"),
        arg("--policy", action="append", default=[], help="a policy to attach (repeatable)"),
    ], aliases=("add",)),
    Command("user list", "list users", do.user_list, aliases=("ls",)),
    Command("user delete", "delete a user", do.user_delete, [arg("access_key", metavar="ACCESS_KEY")],
            aliases=("rm", "remove")),
    Command("policy attach", "attach a policy to a user", do.policy_attach,
            [arg("policy", metavar="POLICY"), arg("--user", required=True)]),
    Command("policy detach", "detach a policy from a user", do.policy_detach,
            [arg("policy", metavar="POLICY"), arg("--user", required=True)]),
    Command("policy create", "create (or replace) a policy from a JSON file, as mc admin policy create",
            do.policy_create, [arg("policy", metavar="POLICY"), arg("file", metavar="FILE")]),
    Command("policy info", "the document of a policy", do.policy_info, [arg("policy", metavar="POLICY")]),
    Command("policy remove", "remove a policy (refused while attached)", do.policy_remove,
            [arg("policy", metavar="POLICY")], aliases=("rm",)),
    Command("policy list", "list policies", do.policy_list, aliases=("ls",)),
    Command("alias set", "remember a service as NAME", do.alias_set, [
        arg("name", metavar="NAME"), arg("url", metavar="URL"),
        arg("access_key", metavar="ACCESS_KEY"), arg("secret_key", metavar="SECRET_KEY"),
        arg("--warehouse", help="its default warehouse"),
    ], target=LOCAL, fronts=TERMINAL_AND_NOTEBOOK),
    Command("alias list", "list the known services", do.alias_list, target=LOCAL, aliases=("ls",),
            fronts=TERMINAL_AND_NOTEBOOK),
    Command("alias remove", "forget a service", do.alias_remove, [arg("name", metavar="NAME")], target=LOCAL,
            aliases=("rm",), fronts=TERMINAL_AND_NOTEBOOK),
    Command("status", "whether the service answers, and where it is", do.status),
    *OBJECT_COMMANDS,
    Command("spark", "bind a SparkSession configured for the service to `spark`", do.spark,
            fronts=frozenset({NOTEBOOK}), own_progress=True),
]

GROUP_HELP = {
    "warehouse": "warehouses (table buckets) of the Iceberg catalog",
    "namespace": "namespaces of a warehouse",
    "table": "Iceberg tables",
    "view": "Iceberg views (SQL queries the catalog keeps)",
    "share": "Delta Sharing shares",
    "share token": "bearer tokens and profile.share files of a share",
    "share client": "OAuth clients (client-credentials grant) and their profile.share files",
    "user": "users of the object store",
    "policy": "IAM policies of users",
    "alias": "named services (as mc alias)",
    "anonymous": "anonymous access to buckets and prefixes (bucket policies, as mc anonymous)",
    "version": "bucket versioning",
    "tag": "tags of objects and buckets",
    "ilm": "lifecycle rules of buckets (as mc ilm)",
    "ilm rule": "lifecycle rules",
}
# mc spells these `mc table warehouse ...`, `mc table namespace ...`, `mc table share ...`, `mc table view ...`,
# and `mc admin policy ...`, `mc admin user ...`.
_MC_GROUPS = {"table": {"warehouse", "namespace", "share", "view"}, "admin": {"policy", "user"}}


def _add_target(parser: argparse.ArgumentParser, command: Command, front: Front) -> None:
    if command.target == SERVICE and front.with_alias:
        parser.add_argument("alias", metavar="ALIAS", help="the service (aistor alias list)")
    elif command.target == SHARE:
        parser.add_argument("share", metavar="ALIAS/SHARE" if front.with_alias else "SHARE")
    elif command.target == SHARE_OPTIONAL:
        if front.with_alias:
            parser.add_argument("share", metavar="ALIAS[/SHARE]")
        else:
            parser.add_argument("share", metavar="SHARE", nargs="?")


def build_parser(front: Front) -> argparse.ArgumentParser:
    parser = _Parser(prog=front.prog, description="Warehouses, namespaces, tables, shares, users, buckets and objects of AIStor.")
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="answer in JSON")
    groups = {(): parser.add_subparsers(metavar="COMMAND", required=True)}
    for command in COMMANDS:
        if front.name not in command.fronts:
            continue
        words = tuple(command.name.split())
        for depth in range(1, len(words)):
            if words[:depth] not in groups:
                help_text = GROUP_HELP.get(" ".join(words[:depth]))
                group = groups[words[:depth - 1]].add_parser(words[depth - 1], help=help_text, description=help_text)
                groups[words[:depth]] = group.add_subparsers(metavar="COMMAND", required=True)
        leaf = groups[words[:-1]].add_parser(
            words[-1], aliases=list(command.aliases), help=command.help, description=command.help, parents=[common]
        )
        _add_target(leaf, command, front)
        for flags, options in command.args:
            leaf.add_argument(*flags, **options)
        leaf.set_defaults(_command=command, _parser=leaf)
    return parser


def mc_compatible(argv: Sequence[str]) -> list[str]:
    """``table warehouse create ...``, ``admin policy create ...`` (mc's words) -> ``warehouse create ...``,
    ``policy create ...``."""
    argv = list(argv)
    return argv[1:] if len(argv) > 1 and argv[1] in _MC_GROUPS.get(argv[0], ()) else argv


def _service(front: Front, command: Command, args: argparse.Namespace,
             default: ServiceConfig | None) -> ServiceConfig | None:
    """The service a command runs against; splits ``ALIAS/SHARE`` into ``args.share``."""
    if command.target == LOCAL:
        return None
    if command.target == PATHS:  # the paths name it; a notebook's default, if any, is for paths without alias
        return default or ServiceConfig.from_env()
    alias = getattr(args, "alias", None)
    if command.target in (SHARE, SHARE_OPTIONAL):
        value = args.share or ""
        if front.with_alias or "/" in value:
            alias, _, value = value.partition("/")
        if command.target == SHARE and not value:
            raise UsageError("expected ALIAS/SHARE" if front.with_alias else "expected SHARE")
        args.share = value or None
    if alias:
        return aliases.resolve(alias)
    service = default or ServiceConfig.from_env()
    if service is None:
        raise UsageError("no default AIStor service: set AISTOR_ENDPOINT or name a service by alias")
    return service


def _default_warehouse(command: Command, args: argparse.Namespace, service: ServiceConfig | None) -> None:
    """A left-out ``WAREHOUSE`` becomes the service's default warehouse."""
    if WAREHOUSE not in command.args or args.warehouse:
        return
    if service is None or not service.warehouse:
        raise UsageError("a WAREHOUSE is required: the service has no default warehouse "
                         "(set AISTOR_WAREHOUSE, or give the alias one with --warehouse)")
    args.warehouse = service.warehouse


def parse(argv: Sequence[str], front: Front) -> argparse.Namespace:
    """Parse a command line; raises UsageError (or HelpRequested for ``--help``)."""
    return build_parser(front).parse_args(mc_compatible(argv))


def _fill_from_body(command: Command, args: argparse.Namespace, body: str) -> None:
    if command.body_dest is None:
        raise UsageError(f"'{command.name}' takes no cell body")
    if getattr(args, command.body_dest):
        raise UsageError(f"give the {command.body_dest} either as an option or as the cell body, not both")
    setattr(args, command.body_dest, body)


def execute(argv: Sequence[str], front: Front, *, service: ServiceConfig | None = None,
            namespace: dict | None = None, body: str | None = None) -> tuple[argparse.Namespace, Result]:
    """Run one command line. ``service`` is the default service (else the environment's); ``body``
    is a %%aistor cell body, for commands that take one. Returns the parsed arguments (``.json``
    says how to render) and the result; raises AIStorError (UsageError for bad arguments)."""
    args = parse(argv, front)
    command: Command = args._command
    try:
        if body is not None and body.strip():
            _fill_from_body(command, args, body)
        context = Context(_service(front, command, args, service), namespace, with_alias=front.with_alias,
                          progress=front.name in (CLI, NOTEBOOK) and not args.json)
        _default_warehouse(command, args, context.service)
        watched = context.progress and not command.own_progress
        with shown_when_slow(f"aistor {command.name}") if watched else contextlib.nullcontext():
            return args, command.run(context, args)
    except UsageError as exc:
        exc.usage = exc.usage or args._parser.format_usage()
        raise
