"""Named policies every deployment has, after MinIO's built-in ones. They cannot be replaced or deleted.

``readonly`` differs from MinIO's on purpose: MinIO grants only GetBucketLocation and GetObject, so a
read-only user cannot list what it may read; here it may also list buckets and objects, which
notebook clients (s3fs, pyarrow) need before they read anything.
"""

from __future__ import annotations

from types import MappingProxyType

from .policy import Policy


def _allow(actions: list[str], resources: list[str] | None = None) -> dict:
    statement: dict = {"Effect": "Allow", "Action": actions}
    if resources is not None:
        statement["Resource"] = resources
    return statement


def _policy(*statements: dict) -> Policy:
    return Policy({"Version": "2012-10-17", "Statement": list(statements)})


ALL_S3 = ["arn:aws:s3:::*"]

BUILTIN_POLICIES: MappingProxyType[str, Policy] = MappingProxyType({
    "readwrite": _policy(_allow(["s3:*"], ALL_S3)),
    "readonly": _policy(_allow(
        ["s3:GetBucketLocation", "s3:GetObject", "s3:ListBucket", "s3:ListAllMyBuckets"], ALL_S3
    )),
    "writeonly": _policy(_allow(["s3:PutObject"], ALL_S3)),
    "consoleAdmin": _policy(
        _allow(["admin:*"]),
        _allow(["s3:*"], ALL_S3),
        _allow(["s3tables:*"], ["arn:aws:s3tables:::*"]),
    ),
})
