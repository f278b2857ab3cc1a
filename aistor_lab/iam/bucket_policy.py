"""Bucket policies: resource policies kept with one bucket, in the IAM grammar plus ``Principal``.

A bucket policy may speak only of its bucket: every action is an ``s3:`` action (or ``*``) and every
resource could name the bucket or an object in it (``arn:aws:s3:::BUCKET``, ``arn:aws:s3:::BUCKET/*``,
a wildcard such as ``arn:aws:s3:::*``); ``NotPrincipal`` goes with ``Deny`` only. Anything else is
MalformedPolicy, as in AWS. It is consulted
only for requests on its bucket, so a wildcard never reaches past it.

A policy is *public* (``GetBucketPolicyStatus``, ``PublicAccessBlock``) when a statement allows
``Principal`` ``*`` without a condition on a fixed caller or network (``aws:SourceIp`` and the like),
the rule AWS documents.
"""

from __future__ import annotations

from .errors import MalformedPolicy
from .policy import Policy

_ARN = "arn:aws:s3:::"
# Condition keys that tie a statement to known callers or networks: such a statement is not public.
_RESTRICTING_KEYS = frozenset({
    "aws:sourceip", "aws:sourcevpc", "aws:sourcevpce", "aws:sourcearn", "aws:sourceaccount",
    "aws:sourceowner", "aws:principalaccount", "aws:principalorgid", "aws:principalarn", "aws:userid",
    "aws:username",
})


def parse_bucket_policy(source: bytes | str, bucket: str) -> Policy:
    """Validate a PutBucketPolicy body for ``bucket``; raises MalformedPolicy."""
    policy = Policy.parse(source, resource_policy=True)
    for index, statement in enumerate(policy.statements):
        where = f"Statement[{index}]"
        if statement.allow and statement.not_principal:
            raise MalformedPolicy(f"{where}: NotPrincipal is allowed with Deny only, as in AWS")
        for action in statement.action_names:
            if action != "*" and not action.lower().startswith("s3:"):
                raise MalformedPolicy(f"{where}: Policy has invalid action {action!r}: a bucket policy grants "
                                      "s3: actions only")
        if not statement.resource_names:
            raise MalformedPolicy(f"{where}: a bucket policy statement needs Resource or NotResource")
        for resource in statement.resource_names:
            if not _within(resource, bucket):
                raise MalformedPolicy(f"{where}: Policy has invalid resource {resource!r}: it must name the "
                                      f"bucket {bucket} or objects in it")
    return policy


def is_public(policy: Policy) -> bool:
    return any(
        statement.allow and statement.principals is not None and statement.principals.everyone
        and not statement.condition_keys & _RESTRICTING_KEYS
        for statement in policy.statements
    )


def _within(resource: str, bucket: str) -> bool:
    """Whether ``resource`` could match the bucket or one of its objects: its literal beginning (up to
    the first wildcard or variable) agrees with ``arn:aws:s3:::BUCKET/``."""
    if resource == "*":
        return True
    literal = resource
    for mark in ("*", "?", "${"):
        literal = literal.split(mark, 1)[0]
    exact = literal == resource
    bucket_arn = _ARN + bucket
    if exact:
        return resource == bucket_arn or resource.startswith(bucket_arn + "/")
    return (bucket_arn + "/").startswith(literal) or literal.startswith(bucket_arn + "/")
