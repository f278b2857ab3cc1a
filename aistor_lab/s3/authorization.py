"""How the S3 API decides a request: IAM policies, the bucket's policy and canned ACLs together.

The rule (``IAM.is_allowed`` holds it): nothing in the system bucket, ever; the root user, all
else; otherwise an explicit Deny in the caller's policies or the bucket policy refuses, and an
Allow in either, or an ACL grant, allows. Anonymous (unsigned) callers have no policies of their
own: only a bucket policy naming ``*`` or a public ACL lets them in. PublicAccessBlock takes away
what public ACLs (IgnorePublicAcls) and a public policy (RestrictPublicBuckets) give anonymous
callers.

Condition keys of a request (``request_context``): ``aws:SourceIp``, ``aws:SecureTransport``,
``aws:UserAgent``, ``aws:Referer``, ``aws:CurrentTime``, ``aws:EpochTime``, ``aws:username``;
``s3:prefix``, ``s3:delimiter``, ``s3:max-keys`` of listings; the ``s3:x-amz-*`` request headers
(``s3:x-amz-acl``, ``s3:x-amz-server-side-encryption``, ``s3:x-amz-copy-source``,
``s3:x-amz-metadata-directive``...); ``s3:VersionId``; ``s3:RequestObjectTag/KEY`` from the
``x-amz-tagging`` header; ``s3:ExistingObjectTag/KEY``, the tags of the object acted on, read only
when a condition asks.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from ..iam import ANONYMOUS, is_public
from ..store import StoreError
from . import acl
from .bucket_access import AccessRules

if TYPE_CHECKING:
    from .handler import S3Handler

_HEADER_KEYS = (
    "x-amz-acl", "x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id",
    "x-amz-copy-source", "x-amz-metadata-directive", "x-amz-content-sha256", "x-amz-storage-class",
    "x-amz-grant-read", "x-amz-grant-write", "x-amz-grant-read-acp", "x-amz-grant-write-acp",
    "x-amz-grant-full-control", "x-amz-object-lock-mode", "x-amz-object-lock-retain-until-date",
    "x-amz-object-lock-legal-hold",
)


def is_allowed(req: S3Handler, action: str, bucket: str, key: str = "", context: dict | None = None) -> bool:
    """Whether the request's caller may do ``action`` on the bucket or key."""
    resource = "arn:aws:s3:::" + (f"{bucket}/{key}" if key else bucket or "*")
    rules = req.services.bucket_access.rules(bucket) if bucket else None
    policy = None if rules is None else rules.policy
    if policy is not None and req.access_key == ANONYMOUS and rules.block.restrict_public_buckets and is_public(policy):
        policy = None
    return req.services.iam.is_allowed(
        req.access_key, action, resource, request_context(req, bucket, key, context),
        session_policy=req.session.policy if req.session else None,
        bucket_policy=policy,
        granted=(lambda: _acl_grants(req, rules, action, bucket, key)) if rules is not None else None,
    )


def request_context(req: S3Handler, bucket: str, key: str, extra: dict | None) -> dict:
    headers = req.request.headers
    now = time.time()
    context: dict = {
        "aws:SourceIp": req.request.remote_ip,
        "aws:SecureTransport": "true" if req.request.protocol == "https" else "false",
        "aws:UserAgent": headers.get("User-Agent"),
        "aws:Referer": headers.get("Referer"),
        "aws:CurrentTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        "aws:EpochTime": str(int(now)),
        "s3:VersionId": req.query.get("versionId"),
        **{"s3:" + name: headers.get(name) for name in _HEADER_KEYS},
        **(extra or {}),
    }
    tagging = headers.get("x-amz-tagging")
    if tagging is not None:
        requested = dict(parse_qsl(tagging, keep_blank_values=True))
        context["s3:RequestObjectTag/"] = requested.get
    if key:
        context["s3:ExistingObjectTag/"] = _ExistingTags(req, bucket, key).get
    return context


class _ExistingTags:
    """The tags of the object a request acts on, read once, when a condition first asks."""

    def __init__(self, req: S3Handler, bucket: str, key: str):
        self._req, self._bucket, self._key = req, bucket, key
        self._tags: dict[str, str] | None = None

    def get(self, name: str) -> str | None:
        if self._tags is None:
            try:
                info = self._req.store.tagged_object_info(self._bucket, self._key, self._req.query.get("versionId"))
                self._tags = dict(info.tags)
            except StoreError:
                self._tags = {}  # nothing there (or a delete marker): no tags to match
        return self._tags.get(name)


def _acl_grants(req: S3Handler, rules: AccessRules, action: str, bucket: str, key: str) -> bool:
    if rules.block.ignore_public_acls or not rules.acls_enabled:
        return False
    signed = req.access_key != ANONYMOUS
    if acl.permits(rules.acl.canned, action, signed=signed, on_object=False):
        return True
    if not key or action not in acl.OBJECT_READ:
        return False
    try:
        info = req.store.get_object_info(bucket, key, req.query.get("versionId"))
    except StoreError:
        # Nothing there: those who may list the bucket may learn that (404), as in S3; others not.
        return is_allowed(req, "s3:ListBucket", bucket, "", {"s3:prefix": key})
    canned = info.metadata.get(acl.OBJECT_ACL_ENTRY, acl.PRIVATE)
    return acl.permits(canned, action, signed=signed, on_object=True)
