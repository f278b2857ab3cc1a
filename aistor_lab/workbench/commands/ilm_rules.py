"""``aistor ilm``'s lifecycle rules, as ``mc ilm`` writes them: a rule from ``rule add``'s flags, the
JSON of ``mc ilm export`` / ``import`` (minio-go's lifecycle configuration, whose names are the XML's,
as are boto3's), and the tags ``key=value&key2=value2`` that ``mc tag set`` and ``--tags`` take."""

from __future__ import annotations

import argparse
import datetime
import uuid
from typing import Any
from urllib.parse import parse_qsl, urlencode

from .actions import UsageError


def parse_tags(text: str) -> dict[str, str]:
    """``key=value&key2=value2`` (URL-encoded, as mc takes it) -> a dict."""
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise UsageError(f"invalid tags {text!r}: expected key=value&key2=value2") from None
    return dict(pairs)


def tags_text(tags: dict[str, str]) -> str:
    return urlencode(tags)


def _filter(args: argparse.Namespace) -> dict[str, Any]:
    tags = [{"Key": k, "Value": v} for k, v in parse_tags(args.tags).items()] if args.tags else []
    predicates: dict[str, Any] = {}
    if args.prefix:
        predicates["Prefix"] = args.prefix
    if tags:
        predicates["Tags"] = tags
    if args.size_gt is not None:
        predicates["ObjectSizeGreaterThan"] = args.size_gt
    if args.size_lt is not None:
        predicates["ObjectSizeLessThan"] = args.size_lt
    if len(predicates) > 1:
        return {"And": predicates}
    if "Tags" in predicates:
        return {"Tag": tags[0]}
    return predicates or {"Prefix": ""}


def _expire_date(text: str) -> datetime.datetime:
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"invalid --expire-date {text!r}: expected YYYY-MM-DD") from None
    return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)  # S3 wants midnight UTC


def rule_from_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The rule ``mc ilm rule add`` makes of its flags (boto3's spelling of the XML)."""
    rule: dict[str, Any] = {"ID": args.id or uuid.uuid4().hex[:20], "Status": "Disabled" if args.disable else "Enabled",
                            "Filter": _filter(args)}
    expiration: dict[str, Any] = {}
    if args.expire_days is not None:
        expiration["Days"] = args.expire_days
    if args.expire_date:
        expiration["Date"] = _expire_date(args.expire_date)
    if args.expire_delete_marker:
        expiration["ExpiredObjectDeleteMarker"] = True
    if expiration:
        rule["Expiration"] = expiration
    noncurrent: dict[str, Any] = {}
    if args.noncurrent_expire_days is not None:
        noncurrent["NoncurrentDays"] = args.noncurrent_expire_days
    if args.noncurrent_expire_newer is not None:
        noncurrent["NewerNoncurrentVersions"] = args.noncurrent_expire_newer
    if noncurrent:
        rule["NoncurrentVersionExpiration"] = noncurrent
    if args.abort_incomplete_days is not None:
        rule["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": args.abort_incomplete_days}
    if not (expiration or noncurrent or args.abort_incomplete_days is not None):
        raise UsageError("a rule needs an action: --expire-days, --expire-date, --expire-delete-marker, "
                         "--noncurrent-expire-days, --noncurrent-expire-newer or --abort-incomplete-days")
    return rule


def _without_empty(value: Any) -> Any:
    """minio-go omits empty elements when it writes JSON; an imported document may carry them."""
    if isinstance(value, dict):
        cleaned = {k: _without_empty(v) for k, v in value.items()}
        return {k: v for k, v in cleaned.items() if v not in (None, {}, [], "") or k == "Prefix"}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


def rules_from_export(document: Any) -> list[dict[str, Any]]:
    """The rules of an ``mc ilm export`` document (``{"Rules": [...]}``)."""
    if not isinstance(document, dict) or not isinstance(document.get("Rules"), list):
        raise UsageError('not a lifecycle configuration: expected {"Rules": [...]} as mc ilm export writes it')
    return [_without_empty(rule) for rule in document["Rules"]]


def export(rules: list[dict[str, Any]]) -> dict[str, Any]:
    """``mc ilm export``'s document; dates as ISO 8601."""
    return {"Rules": _dates_as_text(rules)}


def _dates_as_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _dates_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dates_as_text(v) for v in value]
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return value


def _predicates(rule: dict[str, Any]) -> dict[str, Any]:
    found = rule.get("Filter") or {}
    predicates = dict(found.get("And") or found)
    if "Tag" in predicates:
        predicates["Tags"] = [predicates.pop("Tag")]
    if "Prefix" in rule and "Prefix" not in predicates:  # the old form, a rule's own Prefix
        predicates["Prefix"] = rule["Prefix"]
    return predicates


def rule_row(rule: dict[str, Any]) -> list[Any]:
    """A row of ``rule ls``: id, status, prefix, tags, expiry, noncurrent expiry."""
    predicates = _predicates(rule)
    expiration = rule.get("Expiration") or {}
    noncurrent = rule.get("NoncurrentVersionExpiration") or {}
    expiry = (f"{expiration['Days']} days" if "Days" in expiration
              else _dates_as_text(expiration["Date"])[:10] if "Date" in expiration else "")
    if expiration.get("ExpiredObjectDeleteMarker"):
        expiry = (expiry + ", " if expiry else "") + "delete markers"
    kept = f", newest {noncurrent['NewerNoncurrentVersions']} kept" if "NewerNoncurrentVersions" in noncurrent else ""
    noncurrent_text = f"{noncurrent.get('NoncurrentDays', 0)} days{kept}" if noncurrent else ""
    tags = tags_text({t["Key"]: t["Value"] for t in predicates.get("Tags", [])})
    return [rule.get("ID", ""), rule.get("Status", ""), predicates.get("Prefix", ""), tags, expiry, noncurrent_text]


RULE_COLUMNS = ["id", "status", "prefix", "tags", "expiration", "noncurrent expiration"]
