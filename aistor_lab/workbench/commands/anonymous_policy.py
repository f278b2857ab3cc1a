"""The bucket policy documents ``mc anonymous set|get|list`` writes and reads: minio-go's canned
policies (pkg/policy), so that a bucket set public by ``aistor anonymous`` reads the same to ``mc``
and back. ``none`` removes a prefix's anonymous statements, ``readonly`` (mc's ``download``) allows
``s3:GetBucketLocation`` and ``s3:ListBucket`` on the bucket (the listing held to the prefix by an
``s3:prefix`` condition) and ``s3:GetObject`` under it, ``writeonly`` (``upload``) the multipart
listing and the writes and deletes, ``readwrite`` (``public``) both. Statements that are not such
anonymous grants are kept as they are."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

NONE, READONLY, WRITEONLY, READWRITE, CUSTOM = "none", "readonly", "writeonly", "readwrite", "custom"
# mc's words for minio-go's.
MC_PERMISSIONS = {"private": NONE, "none": NONE, "download": READONLY, "upload": WRITEONLY, "public": READWRITE}
MC_NAMES = {NONE: "private", READONLY: "download", WRITEONLY: "upload", READWRITE: "public", CUSTOM: "custom"}

ARN = "arn:aws:s3:::"
COMMON_BUCKET = frozenset({"s3:GetBucketLocation"})
READ_BUCKET = frozenset({"s3:ListBucket"})
WRITE_BUCKET = frozenset({"s3:ListBucketMultipartUploads"})
READ_OBJECT = frozenset({"s3:GetObject"})
WRITE_OBJECT = frozenset({"s3:AbortMultipartUpload", "s3:DeleteObject", "s3:ListMultipartUploadParts", "s3:PutObject"})
VALID_ACTIONS = COMMON_BUCKET | READ_BUCKET | WRITE_BUCKET | READ_OBJECT | WRITE_OBJECT
_KNOWN_KEYS = {"Sid", "Effect", "Principal", "Action", "Resource", "Condition"}

Conditions = dict[str, dict[str, set[str]]]


@dataclass
class Statement:
    """One statement as minio-go holds it: sets of actions, principals (``AWS``) and resources."""

    actions: set[str]
    effect: str
    principals: set[str]
    resources: set[str]
    conditions: Conditions = field(default_factory=dict)
    sid: str = ""
    raw: Any = None  # a statement this module does not model, written back unchanged
    source: Any = None  # the statement as read, written back while nothing in it changed
    _read_as: tuple = ()

    def _fields(self) -> tuple:
        return (self.actions, self.effect, self.principals, self.resources, self.conditions, self.sid)

    def to_json(self) -> Any:
        if self.raw is not None:
            return self.raw
        if self.source is not None and self._fields() == self._read_as:
            return self.source
        document: dict[str, Any] = {"Action": sorted(self.actions)}
        if self.conditions:
            document["Condition"] = {op: {key: sorted(values) for key, values in keys.items()}
                                     for op, keys in self.conditions.items()}
        document.update({"Effect": self.effect, "Principal": {"AWS": sorted(self.principals)},
                         "Resource": sorted(self.resources), "Sid": self.sid})
        return document

    def anonymous_allow(self) -> bool:
        return self.effect == "Allow" and "*" in self.principals


def _strings(value: Any) -> set[str] | None:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return set(value)
    return None


def _principals(value: Any) -> set[str] | None:
    if value == "*":
        return {"*"}
    if isinstance(value, dict) and set(value) == {"AWS"}:
        return _strings(value["AWS"])
    return None


def _conditions(value: Any) -> Conditions | None:
    if not isinstance(value, dict):
        return None
    parsed: Conditions = {}
    for operator, keys in value.items():
        if not isinstance(keys, dict):
            return None
        parsed[operator] = {}
        for key, values in keys.items():
            strings = _strings(values)
            if strings is None:
                return None
            parsed[operator][key] = strings
    return parsed


def parse_statement(document: Any) -> Statement:
    if isinstance(document, dict) and set(document) <= _KNOWN_KEYS:
        actions, principals = _strings(document.get("Action")), _principals(document.get("Principal"))
        resources, conditions = _strings(document.get("Resource")), _conditions(document.get("Condition", {}))
        if None not in (actions, principals, resources, conditions) and isinstance(document.get("Effect"), str):
            statement = Statement(actions, document["Effect"], principals, resources, conditions,
                                  str(document.get("Sid", "")), source=document)
            statement._read_as = copy.deepcopy(statement._fields())
            return statement
    return Statement(set(), "", set(), set(), raw=document)


def parse(document: str | None) -> list[Statement]:
    """The statements of a bucket policy document (None: no policy)."""
    if not document:
        return []
    statements = json.loads(document).get("Statement", [])
    return [parse_statement(s) for s in (statements if isinstance(statements, list) else [statements])]


def render(statements: list[Statement]) -> str | None:
    """The policy document of ``statements``, or None when there are none (the policy is deleted)."""
    if not statements:
        return None
    return json.dumps({"Version": "2012-10-17", "Statement": [s.to_json() for s in statements]},
                      separators=(",", ":"))


# -- set ------------------------------------------------------------------------------------------


def _is_valid(statement: Statement, bucket: str) -> bool:
    """An anonymous Allow of canned actions on this bucket or its objects."""
    bucket_resource = ARN + bucket
    return (bool(statement.actions & VALID_ACTIONS) and statement.anonymous_allow()
            and (bucket_resource in statement.resources
                 or any(r.startswith(bucket_resource + "/") for r in statement.resources)))


def _anonymous(actions: frozenset[str], resource: str, conditions: Conditions | None = None) -> Statement:
    return Statement(set(actions), "Allow", {"*"}, {resource}, conditions or {})


def new_statements(policy: str, bucket: str, prefix: str) -> list[Statement]:
    if policy == NONE or not bucket:
        return []
    bucket_resource = ARN + bucket
    statements = [_anonymous(COMMON_BUCKET, bucket_resource)]
    if policy in (READONLY, READWRITE):
        condition = {"StringEquals": {"s3:prefix": {prefix}}} if prefix else None
        statements.append(_anonymous(READ_BUCKET, bucket_resource, condition))
    if policy in (WRITEONLY, READWRITE):
        statements.append(_anonymous(WRITE_BUCKET, bucket_resource))
    objects = {READONLY: READ_OBJECT, WRITEONLY: WRITE_OBJECT, READWRITE: READ_OBJECT | WRITE_OBJECT}[policy]
    statements.append(_anonymous(objects, f"{bucket_resource}/{prefix}*"))
    return statements


def _in_use(statements: list[Statement], bucket: str, prefix: str) -> tuple[bool, bool]:
    """Whether other prefixes of the bucket still grant reads, writes (so the bucket's own grants stay)."""
    object_resource = f"{ARN}{bucket}/{prefix}*"
    read = write = False
    for s in statements:
        if object_resource not in s.resources and any(r.startswith(f"{ARN}{bucket}/") for r in s.resources):
            read = read or READ_OBJECT <= s.actions
            write = write or WRITE_OBJECT <= s.actions
    return read, write


def _remove_object_actions(statement: Statement, object_resource: str) -> None:
    if not statement.conditions:
        if len(statement.resources) > 1:
            statement.resources.discard(object_resource)
        else:
            statement.actions -= READ_OBJECT | WRITE_OBJECT


def _remove_bucket_actions(statement: Statement, prefix: str, bucket_resource: str, read_in_use: bool,
                           write_in_use: bool) -> None:
    if len(statement.resources) > 1:
        statement.resources.discard(bucket_resource)
        return
    if not read_in_use and READ_BUCKET <= statement.actions:
        if not statement.conditions:
            statement.actions -= READ_BUCKET
        elif prefix:
            equals = statement.conditions.get("StringEquals")
            if equals is not None:
                equals.get("s3:prefix", set()).discard(prefix)
                if not equals.get("s3:prefix", True):
                    del equals["s3:prefix"]
                if not equals:
                    del statement.conditions["StringEquals"]
            if not statement.conditions:
                statement.actions -= READ_BUCKET
    if not write_in_use and not statement.conditions:
        statement.actions -= WRITE_BUCKET


def remove_statements(statements: list[Statement], bucket: str, prefix: str) -> list[Statement]:
    """``statements`` without the anonymous grants of ``bucket/prefix`` (minio-go's removeStatements)."""
    bucket_resource, object_resource = ARN + bucket, f"{ARN}{bucket}/{prefix}*"
    read_in_use, write_in_use = _in_use(statements, bucket, prefix)
    out: list[Statement] = []
    read_bucket_statements: list[Statement] = []
    prefix_resources: set[str] = set()
    for s in statements:
        if not _is_valid(s, bucket):
            out.append(s)
            continue
        if bucket_resource in s.resources:
            in_use = (False, False) if s.conditions else (read_in_use, write_in_use)
            _remove_bucket_actions(s, prefix, bucket_resource, *in_use)
        elif object_resource in s.resources:
            _remove_object_actions(s, object_resource)
        if not s.actions:
            continue
        if bucket_resource in s.resources and READ_BUCKET <= s.actions and s.anonymous_allow():
            if s.conditions:
                values = s.conditions.get("StringEquals", {}).get("s3:prefix", set())
                prefix_resources |= {f"{bucket_resource}/{v}*" for v in values}
            elif prefix_resources:
                read_bucket_statements.append(s)
                continue
        out.append(s)
    skip_bucket_statement = not any(
        any(r.startswith(bucket_resource + "/") for r in s.resources) and not (prefix_resources & s.resources)
        for s in out)
    for s in read_bucket_statements:
        if not (skip_bucket_statement and bucket_resource in s.resources and s.anonymous_allow()
                and not s.conditions):
            out.append(s)
    if len(out) == 1:
        only = out[0]
        if (bucket_resource in only.resources and COMMON_BUCKET <= only.actions and only.anonymous_allow()
                and not only.conditions):
            return []
    return out


def _merge_conditions(left: Conditions, right: Conditions) -> Conditions:
    merged = copy.deepcopy(left)
    for operator, keys in right.items():
        for key, values in keys.items():
            merged.setdefault(operator, {}).setdefault(key, set()).update(values)
    return merged


def _append(statements: list[Statement], new: Statement) -> None:
    """minio-go's appendStatement: merge into a statement that differs only in resources or in actions."""
    for s in statements:
        if s.raw is not None:
            continue
        same = s.effect == new.effect and s.principals == new.principals
        if same and s.actions == new.actions and s.conditions == new.conditions:
            s.resources |= new.resources
            return
        if same and s.resources == new.resources and s.conditions == new.conditions:
            s.actions |= new.actions
            return
        if (new.resources <= s.resources and new.actions <= s.actions and s.effect == new.effect
                and new.principals <= s.principals):
            if s.conditions == new.conditions:
                return
            if s.conditions and new.conditions and s.resources == new.resources:
                s.conditions = _merge_conditions(s.conditions, new.conditions)
                return
    if new.actions or new.resources:
        statements.append(new)


def set_policy(statements: list[Statement], policy: str, bucket: str, prefix: str) -> list[Statement]:
    """The statements with ``bucket/prefix``'s anonymous access set to ``policy`` (minio-go's SetPolicy)."""
    out = remove_statements(copy.deepcopy(statements), bucket, prefix)
    for statement in new_statements(policy, bucket, prefix):
        _append(out, statement)
    return out


# -- get ------------------------------------------------------------------------------------------


def _resource_match(pattern: str, resource: str) -> bool:
    """minio-go's wildcard match of a policy resource (``*`` only)."""
    if pattern in ("", "*"):
        return pattern == "*" or resource == pattern
    parts = pattern.split("*")
    if len(parts) == 1:
        return resource == pattern
    if not resource.startswith(parts[0]):
        return False
    for part in parts[1:-1]:
        if part not in resource:
            return False
        resource = resource[resource.index(part) + len(part):]
    return pattern.endswith("*") or resource.endswith(parts[-1])


def _bucket_grants(statement: Statement, prefix: str) -> tuple[bool, bool, bool]:
    if not statement.anonymous_allow():
        return False, False, False
    common = COMMON_BUCKET <= statement.actions and not statement.conditions
    write = WRITE_BUCKET <= statement.actions and not statement.conditions
    read = False
    if READ_BUCKET <= statement.actions:
        if prefix and statement.conditions:
            if "StringEquals" in statement.conditions:
                read = prefix in statement.conditions["StringEquals"].get("s3:prefix", set())
            elif "StringNotEquals" in statement.conditions:
                values = statement.conditions["StringNotEquals"].get("s3:prefix")
                read = values is not None and prefix not in values
        elif not statement.conditions:
            read = True
    return common, read, write


def get_policy(statements: list[Statement], bucket: str, prefix: str) -> str:
    """The canned policy ``bucket/prefix`` has (minio-go's GetPolicy): none, readonly, writeonly, readwrite."""
    bucket_resource, object_resource = ARN + bucket, f"{ARN}{bucket}/{prefix}*"
    common = bucket_read = bucket_write = object_read = object_write = False
    matched = ""
    for s in statements:
        resources = ({object_resource} if object_resource in s.resources
                     else {r for r in s.resources if _resource_match(r, object_resource)})
        if resources:
            grants = s.anonymous_allow() and not s.conditions
            read, write = grants and READ_OBJECT <= s.actions, grants and WRITE_OBJECT <= s.actions
            for resource in resources:
                if len(matched) < len(resource):
                    object_read, object_write, matched = read, write, resource
                elif len(matched) == len(resource):
                    object_read, object_write, matched = object_read or read, object_write or write, resource
        if bucket_resource in s.resources:
            c, r, w = _bucket_grants(s, prefix)
            common, bucket_read, bucket_write = common or c, bucket_read or r, bucket_write or w
    if common and bucket_read and bucket_write and object_read and object_write:
        return READWRITE
    if common and bucket_read and object_read:
        return READONLY
    if common and bucket_write and object_write:
        return WRITEONLY
    return NONE


def get_access(document: str | None, bucket: str, prefix: str) -> str:
    """What ``mc anonymous get`` answers: the canned policy, or ``custom`` for a policy that is none of them."""
    policy = get_policy(parse(document), bucket, prefix)
    return CUSTOM if policy == NONE and document else policy


def get_policies(statements: list[Statement], bucket: str, prefix: str = "") -> dict[str, str]:
    """``{"bucket/prefix*": policy}`` for every object resource under ``bucket/prefix`` (``mc anonymous list``)."""
    base = f"{ARN}{bucket}/"
    rules = {}
    for resource in sorted({r for s in statements for r in s.resources if r.startswith(base + prefix)}):
        path, asterisk = (resource[:-1], "*") if resource.endswith("*") else (resource, "")
        object_path = path[len(base):]
        rules[f"{bucket}/{object_path}{asterisk}"] = get_policy(statements, bucket, object_path)
    return rules
