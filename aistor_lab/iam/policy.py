"""Identity policies in the AWS IAM JSON grammar: validation, compilation and evaluation.

A document is ``{"Version", "Statement": statement | [statement...]}``; a statement has an
optional ``Sid``, ``Effect`` (``Allow``/``Deny``), exactly one of ``Action``/``NotAction`` and of
``Resource``/``NotResource`` (string or list), and an optional ``Condition`` (see conditions.py).
``Principal`` is refused in identity policies (attached to users) and required in resource policies
(``resource_policy=True``: bucket policies, see bucket_policy.py and principals.py).

Actions (``s3:GetObject``, ``s3:*``, ``s3tables:GetTable``, ``admin:*``) match case-insensitively;
resources (``arn:aws:s3:::bucket/key*``, ``arn:aws:s3tables:::bucket/WH/table/*``, ``*``)
case-sensitively. Both take ``*`` and ``?`` wildcards; resources and condition values also take
policy variables such as ``${aws:username}``. Every action must be known (action_names.py), or be a
wildcard matching at least one known action: ``s3:Gte*`` is a MalformedPolicy, not a silent no-op.

As in MinIO, ``admin:`` actions are not scoped by resource: a statement may omit ``Resource`` when
all its actions are ``admin:`` actions, and an ``admin:`` request matches whatever the statement's
resources are.

Evaluation: an explicit Deny in any matching statement wins, then any Allow; otherwise deny. A
request's action may go by several names (aliases, see action_names.py) and its resource too (a table by
name and by uuid): a statement matches when its Action matches any of the names and its Resource
any of the resources. Each statement's patterns are compiled once, when the document is parsed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..common import json_input
from .action_names import is_known, request_names
from .conditions import Condition, parse_conditions
from .errors import MalformedPolicy
from .patterns import Context, PatternSet
from .principals import Principals

MAX_POLICY_BYTES = 20 * 1024
VERSIONS = ("2012-10-17", "2008-10-17")
ADMIN_PREFIX = "admin:"
_ACTION_SHAPE = re.compile(r"\*|[A-Za-z0-9-]+:[A-Za-z0-9*?]+")
_DOCUMENT_KEYS = {"Version", "Id", "Statement"}
_STATEMENT_KEYS = {"Sid", "Effect", "Action", "NotAction", "Resource", "NotResource", "Condition"}
_PRINCIPAL_KEYS = {"Principal", "NotPrincipal"}

# What callers may pass as context: values are one string or several; None means absent.
RequestContext = Mapping[str, str | Sequence[str] | Callable[[str], str | None] | None]


class Statement:
    __slots__ = ("_actions", "_conditions", "_not_action", "_not_resource", "_resources",
                 "action_names", "allow", "condition_keys", "not_principal", "principals", "resource_names", "sid")

    def __init__(self, raw: object, where: str, known_actions_only: bool = True, resource_policy: bool = False):
        if not isinstance(raw, Mapping):
            raise MalformedPolicy(f"{where}: a statement must be a JSON object")
        self.principals: Principals | None = None
        self.not_principal = False
        if resource_policy:
            if ("Principal" in raw) == ("NotPrincipal" in raw):
                raise MalformedPolicy(f"{where}: a bucket policy statement needs Principal or NotPrincipal")
            self.not_principal = "NotPrincipal" in raw
            self.principals = Principals(raw["NotPrincipal" if self.not_principal else "Principal"], where)
        elif "Principal" in raw or "NotPrincipal" in raw:
            raise MalformedPolicy(f"{where}: Principal is not allowed in identity policies")
        unknown = sorted(set(raw) - _STATEMENT_KEYS - (_PRINCIPAL_KEYS if resource_policy else set()))
        if unknown:
            raise MalformedPolicy(f"{where}: unknown element(s) {', '.join(unknown)}")
        sid = raw.get("Sid")
        if sid is not None and not isinstance(sid, str):
            raise MalformedPolicy(f"{where}: Sid must be a string")
        self.sid: str | None = sid
        if raw.get("Effect") not in ("Allow", "Deny"):
            raise MalformedPolicy(f'{where}: Effect must be "Allow" or "Deny", got {raw.get("Effect")!r}')
        self.allow = raw["Effect"] == "Allow"

        actions, self._not_action = _one_of(raw, "Action", "NotAction", where)
        if actions is None:
            raise MalformedPolicy(f"{where}: Action or NotAction is required")
        for action in actions:
            if not _ACTION_SHAPE.fullmatch(action):
                raise MalformedPolicy(f"{where}: {action!r} is not an action (like s3:GetObject or s3:*)")
            if known_actions_only and not is_known(action):
                raise MalformedPolicy(f"{where}: unknown action {action!r}: it names no s3, s3tables, admin, kms "
                                      "or sts action (wildcards must match at least one)")
        self._actions = PatternSet(actions, ignore_case=True)
        self.action_names = tuple(actions)

        resources, self._not_resource = _one_of(raw, "Resource", "NotResource", where)
        if resources is None:
            admin_only = not self._not_action and all(a.lower().startswith(ADMIN_PREFIX) for a in actions)
            if not admin_only:
                raise MalformedPolicy(f"{where}: Resource or NotResource is required")
        else:
            for resource in resources:
                if resource != "*" and not (resource.startswith("arn:") and resource.count(":") >= 5):
                    raise MalformedPolicy(f"{where}: {resource!r} is not an ARN (like arn:aws:s3:::bucket/*) "
                                          "or *")
        # None: no resource element (admin-only statement), matches every resource.
        self._resources = None if resources is None else PatternSet(resources)
        self.resource_names = tuple(resources or ())

        self._conditions: list[Condition] = (
            parse_conditions(raw["Condition"], where) if "Condition" in raw else []
        )
        self.condition_keys = frozenset(condition.key for condition in self._conditions)

    def names(self, access_key: str, is_root: bool) -> bool:
        """Whether a resource policy's statement speaks of this caller (always, in identity policies)."""
        if self.principals is None:
            return True
        return self.principals.includes(access_key, is_root) != self.not_principal

    def matches(self, actions: Sequence[str], resources: Sequence[str], resource_scoped: bool,
                context: Context) -> bool:
        if _any_matches(self._actions, actions, context) == self._not_action:
            return False
        if (resource_scoped and self._resources is not None
                and _any_matches(self._resources, resources, context) == self._not_resource):
            return False
        return all(condition.holds(context) for condition in self._conditions)


def _any_matches(patterns: PatternSet, values: Sequence[str], context: Context) -> bool:
    for value in values:
        if patterns.matches(value, context):
            return True
    return False


def _one_of(raw: Mapping, name: str, not_name: str, where: str) -> tuple[list[str] | None, bool]:
    """The values of ``name`` or ``not_name`` (never both), and whether it was the negated one."""
    if name in raw and not_name in raw:
        raise MalformedPolicy(f"{where}: use {name} or {not_name}, not both")
    key = name if name in raw else not_name if not_name in raw else None
    if key is None:
        return None, False
    value = raw[key]
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) and v for v in values):
        raise MalformedPolicy(f"{where}: {key} must be a non-empty string or list of non-empty strings")
    return values, key == not_name


class Policy:
    """A validated, compiled policy document. ``document`` is the JSON object as given."""

    __slots__ = ("document", "statements")

    def __init__(self, document: Mapping, *, known_actions_only: bool = True, resource_policy: bool = False):
        """``known_actions_only=False`` is for documents stored earlier, when unknown names were
        accepted: refusing the whole document then would drop its Deny statements too.
        ``resource_policy``: a bucket policy, whose statements name their Principal."""
        if not isinstance(document, Mapping):
            raise MalformedPolicy("a policy must be a JSON object")
        unknown = sorted(set(document) - _DOCUMENT_KEYS)
        if unknown:
            raise MalformedPolicy(f"unknown policy element(s) {', '.join(unknown)}")
        version = document.get("Version", VERSIONS[0])
        if version not in VERSIONS:
            raise MalformedPolicy(f"Version must be {' or '.join(VERSIONS)}, got {version!r}")
        raw = document.get("Statement")
        raw_statements = raw if isinstance(raw, list) else [raw] if raw is not None else []
        if not raw_statements:
            raise MalformedPolicy("Statement is required and must not be empty")
        self.statements = tuple(Statement(s, f"Statement[{i}]", known_actions_only, resource_policy)
                                for i, s in enumerate(raw_statements))
        sids = [s.sid for s in self.statements if s.sid]
        if len(sids) != len(set(sids)):
            raise MalformedPolicy("Sid values must be unique within a policy")
        self.document = dict(document)

    @classmethod
    def parse(cls, source: str | bytes | Mapping, *, resource_policy: bool = False) -> Policy:
        """Parse and validate JSON text (or an already decoded object); raises MalformedPolicy."""
        if isinstance(source, Mapping):
            return cls(source, resource_policy=resource_policy)
        if len(source) > MAX_POLICY_BYTES:
            raise MalformedPolicy(f"a policy may be at most {MAX_POLICY_BYTES} bytes")
        try:
            document = json_input.parse(source)
        except json_input.JSONInputError as exc:
            raise MalformedPolicy(f"the policy is not valid JSON: {exc.message}") from None
        return cls(document, resource_policy=resource_policy)

    def to_json(self) -> str:
        return json.dumps(self.document, separators=(",", ":"))


class _Context(dict):
    """Normalized context whose families of keys (``s3:existingobjecttag/NAME``) are looked up only
    when a condition asks: finding an object's tags costs a store read most requests never need."""

    __slots__ = ("_families",)

    def __init__(self, values: dict[str, list[str]], families: dict[str, Callable[[str], str | None]]):
        super().__init__(values)
        self._families = families

    def get(self, key: str, default=None):
        if key in self:
            return self[key]
        prefix, slash, name = key.partition("/")
        family = self._families.get(prefix + slash) if slash else None
        if family is None:
            return default
        value = family(name)
        self[key] = [] if value is None else [value]
        return self[key]


def normalize_context(context: RequestContext | None) -> dict[str, list[str]]:
    """Lower-case keys, list values, absent keys dropped: the shape conditions read. A key ending in
    ``/`` with a callable value names a family: ``family(name)`` gives ``key + name`` when asked."""
    if not context:
        return {}
    values, families = {}, {}
    for key, value in context.items():
        if value is None:
            continue
        if callable(value):
            families[key.lower()] = value
        else:
            values[key.lower()] = [value] if isinstance(value, str) else list(value)
    return _Context(values, families) if families else values


ALLOW, DENY = "allow", "deny"


def decide(policies: Iterable[Policy], action: str, resource: str | Sequence[str],
           context: RequestContext | None = None, *, access_key: str = "", is_root: bool = False) -> str | None:
    """DENY when a matching statement denies, else ALLOW when one allows, else None (silent).
    ``resource``: one ARN, or every name of one resource (see the module docstring). ``access_key``
    and ``is_root`` pick the statements of resource policies that name the caller."""
    normalized = normalize_context(context)
    resource_scoped = action[: len(ADMIN_PREFIX)].lower() != ADMIN_PREFIX
    actions = request_names(action)
    resources = (resource,) if isinstance(resource, str) else resource
    allowed = False
    for policy in policies:
        for statement in policy.statements:
            if statement.names(access_key, is_root) and statement.matches(actions, resources, resource_scoped,
                                                                          normalized):
                if not statement.allow:
                    return DENY
                allowed = True
    return ALLOW if allowed else None


def is_allowed(policies: Iterable[Policy], action: str, resource: str | Sequence[str],
               context: RequestContext | None = None) -> bool:
    """Explicit Deny wins, then any Allow, else implicit deny."""
    return decide(policies, action, resource, context) == ALLOW
