"""What the bucket settings commands do (``aistor anonymous|version|tag|ilm``), in ``mc``'s words:
the bucket policy of ``mc anonymous`` (anonymous_policy.py), versioning, tags of buckets and objects,
and lifecycle rules (ilm_rules.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import anonymous_policy as anonymous
from .actions import Context, UsageError
from .ilm_rules import RULE_COLUMNS, export, parse_tags, rule_from_flags, rule_row, rules_from_export
from .object_paths import remote
from .results import Fields, Message, Records, Rows, Text

# -- anonymous ------------------------------------------------------------------------------------


def anonymous_set(ctx: Context, args: argparse.Namespace) -> Message:
    target = remote(ctx, args.target).need_bucket()
    policy = anonymous.MC_PERMISSIONS[args.permission]
    statements = anonymous.parse(target.store.policy(target.bucket))
    target.store.set_policy(target.bucket, anonymous.render(
        anonymous.set_policy(statements, policy, target.bucket, target.key)))
    # mc reads the policy back and reports what the path now has
    permission = anonymous.MC_NAMES[anonymous.get_access(target.store.policy(target.bucket), target.bucket, target.key)]
    return Message(f"Access permission for `{target.url()}` is set to `{permission}`",
                   {"operation": "set", "status": "success", "bucket": target.url(), "permission": permission})


def anonymous_get(ctx: Context, args: argparse.Namespace) -> Message:
    target = remote(ctx, args.target).need_bucket()
    document = target.store.policy(target.bucket)
    permission = anonymous.MC_NAMES[anonymous.get_access(document, target.bucket, target.key)]
    data = {"operation": "get", "status": "success", "bucket": target.url(), "permission": permission}
    if permission == "custom":
        data["anonymous"] = json.loads(document)
    return Message(f"Access permission for `{target.url()}` is `{permission}`", data)


def anonymous_list(ctx: Context, args: argparse.Namespace) -> Records:
    target = remote(ctx, args.target).need_bucket()
    rules = anonymous.get_policies(anonymous.parse(target.store.policy(target.bucket)), target.bucket, target.key)
    records = [{"resource": resource, "allow": allow} for resource, allow in rules.items()]
    table = Rows(["resource", "allow"], list(rules.items()), empty="(no anonymous access)")
    return Records([f"{resource} => {allow}" for resource, allow in rules.items()], records, table)


# -- versioning -----------------------------------------------------------------------------------

_VERSIONING_WORDS = {"Enabled": "enabled", "Suspended": "suspended", "": "un-versioned"}


def _versioning(ctx: Context, args: argparse.Namespace, operation: str, status: str | None) -> Message:
    target = remote(ctx, args.target).need_bucket()
    if target.key:
        raise UsageError(f"'{args.target}' is not a bucket: versioning is a bucket's")
    if status:
        target.store.set_versioning(target.bucket, status)
    current = target.store.versioning(target.bucket)
    return Message(f"{target.url()} versioning is {_VERSIONING_WORDS.get(current, current)}",
                   {"op": operation, "status": "success", "url": target.url(), "versioning": {"status": current}})


def version_enable(ctx: Context, args: argparse.Namespace) -> Message:
    return _versioning(ctx, args, "enable", "Enabled")


def version_suspend(ctx: Context, args: argparse.Namespace) -> Message:
    return _versioning(ctx, args, "suspend", "Suspended")


def version_info(ctx: Context, args: argparse.Namespace) -> Message:
    return _versioning(ctx, args, "info", None)


# -- tags -----------------------------------------------------------------------------------------


def tag_set(ctx: Context, args: argparse.Namespace) -> Message:
    target = remote(ctx, args.target).need_bucket()
    target.store.set_tags(target.bucket, target.key, parse_tags(args.tags), args.version_id)
    return Message(f"Tags set for {target.url()}.", {"status": "success", "url": target.url()})


def tag_list(ctx: Context, args: argparse.Namespace) -> Fields:
    target = remote(ctx, args.target).need_bucket()
    tags = target.store.tags(target.bucket, target.key, args.version_id)
    return Fields([("Name", target.url()), *sorted(tags.items())],
                  {"status": "success", "url": target.url(), "tagset": tags})


def tag_remove(ctx: Context, args: argparse.Namespace) -> Message:
    target = remote(ctx, args.target).need_bucket()
    target.store.remove_tags(target.bucket, target.key, args.version_id)
    return Message(f"Tags removed for {target.url()}.", {"status": "success", "url": target.url()})


# -- lifecycle ------------------------------------------------------------------------------------


def _bucket(ctx: Context, text: str):
    target = remote(ctx, text).need_bucket()
    if target.key:
        raise UsageError(f"'{text}' is not a bucket: lifecycle rules are a bucket's (filter with --prefix)")
    return target


def ilm_rule_add(ctx: Context, args: argparse.Namespace) -> Message:
    target = _bucket(ctx, args.target)
    rule = rule_from_flags(args)
    rules = target.store.lifecycle(target.bucket)
    if any(r.get("ID") == rule["ID"] for r in rules):
        raise UsageError(f"a rule with ID '{rule['ID']}' exists already")
    target.store.set_lifecycle(target.bucket, [*rules, rule])
    return Message(f"Lifecycle configuration rule added with ID `{rule['ID']}` to {target.url()}.",
                   {"status": "success", "target": target.url(), "ilmID": rule["ID"]})


def ilm_rule_list(ctx: Context, args: argparse.Namespace) -> Rows:
    target = _bucket(ctx, args.target)
    rules = target.store.lifecycle(target.bucket)
    return Rows(RULE_COLUMNS, [rule_row(r) for r in rules],
                data={"status": "success", "target": target.url(), "config": export(rules)},
                empty="(no lifecycle rules)")


def ilm_rule_remove(ctx: Context, args: argparse.Namespace) -> Message:
    if bool(args.id) == args.all:
        raise UsageError("give either --id ID or --all")
    target = _bucket(ctx, args.target)
    rules = target.store.lifecycle(target.bucket)
    if args.all:
        target.store.set_lifecycle(target.bucket, [])
        return Message(f"Rules for `{target.url()}` removed.", {"status": "success", "target": target.url()})
    kept = [r for r in rules if r.get("ID") != args.id]
    if len(kept) == len(rules):
        raise UsageError(f"no rule with ID '{args.id}' in {target.url()}")
    target.store.set_lifecycle(target.bucket, kept)
    return Message(f"Rule ID `{args.id}` from target {target.url()} removed.",
                   {"status": "success", "target": target.url(), "ilmID": args.id})


def ilm_export(ctx: Context, args: argparse.Namespace) -> Text:
    target = _bucket(ctx, args.target)
    rules = target.store.lifecycle(target.bucket)
    if not rules:
        raise UsageError(f"{target.url()} has no lifecycle configuration")
    document = export(rules)
    return Text(json.dumps(document, indent=1), document)


def _import_document(args: argparse.Namespace) -> str:
    if args.file in (None, "-"):
        return sys.stdin.read()
    try:
        return Path(args.file).read_text()
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None


def ilm_import(ctx: Context, args: argparse.Namespace) -> Message:
    """``mc ilm import``: a document as ``mc ilm export`` writes it, from FILE, standard input or (in
    %%aistor) the cell body; it replaces the bucket's rules."""
    target = _bucket(ctx, args.target)
    text = args.document or _import_document(args)
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"not a JSON lifecycle configuration: {exc}") from None
    target.store.set_lifecycle(target.bucket, rules_from_export(document))
    return Message(f"Lifecycle configuration imported successfully to `{target.url()}`.",
                   {"status": "success", "target": target.url()})
