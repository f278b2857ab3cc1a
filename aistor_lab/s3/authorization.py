"""How the S3 API decides a request: IAM policies, the bucket's policy and canned ACLs together.

The rule (``IAM.is_allowed`` holds it): nothing in the system bucket, ever; the root user, all
else; otherwise an explicit Deny in the caller's policies or the bucket policy refuses, and an
Allow in either, or an ACL grant, allows. ACL grants are what GetBucketAcl/GetObjectAcl show: the
bucket owner (who created it) has FULL_CONTROL of the bucket and may write and delete anything in
it; an object's owner (who wrote it, see acl_ops.py) may read it and read and set its ACL, and the
bucket owner may too where the object's ACL says so (bucket-owner-read / -full-control), or where
ObjectOwnership makes it the owner of everything; canned ACLs grant groups. Anonymous (unsigned) callers have no policies of their
own: only a bucket policy naming ``*`` or a public ACL lets them in. PublicAccessBlock takes away
what public ACLs (IgnorePublicAcls) and a public policy (RestrictPublicBuckets) give anonymous
callers.

Condition keys of a request (``request_context``): ``aws:SourceIp``, ``aws:SecureTransport``,
``aws:UserAgent``, ``aws:Referer``, ``aws:CurrentTime``, ``aws:EpochTime``, ``aws:username``;
``s3:prefix``, ``s3:delimiter``, ``s3:max-keys`` of listings; the ``s3:x-amz-*`` request headers
(``s3:x-amz-acl``, ``s3:x-amz-server-side-encryption``, ``s3:x-amz-copy-source``,
``s3:x-amz-metadata-directive``..., all but keys and tokens); ``s3:VersionId``; ``s3:RequestObjectTag/KEY`` from the
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
from .acl_ops import object_owner
from .bucket_access import AccessRules

if TYPE_CHECKING:
    from .handler import S3Handler

# Request headers never offered to conditions: secrets, and what only signs the request.
_SECRET_HEADERS = frozenset({
    "x-amz-security-token", "x-amz-server-side-encryption-customer-key",
    "x-amz-copy-source-server-side-encryption-customer-key", "x-amz-date",
})


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
        **{"s3:" + name.lower(): value for name, value in headers.get_all()
           if name.lower().startswith("x-amz-") and name.lower() not in _SECRET_HEADERS},
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
    """Whether the bucket's or the object's ACL grants it: the owners' FULL_CONTROL, or a canned
    ACL's group grants (unless ACLs are off or public ones ignored)."""
    signed = req.access_key != ANONYMOUS
    owns_bucket = signed and req.access_key == rules.acl.owner
    on_the_object = bool(key) and action in acl.OBJECT_READ | acl.OBJECT_ACP
    if owns_bucket and not on_the_object:
        return True  # the bucket owner's FULL_CONTROL: the bucket, and writing and deleting in it
    groups = rules.acls_enabled and not rules.block.ignore_public_acls
    if groups and acl.permits(rules.acl.canned, action, signed=signed, on_object=False):
        return True
    if not on_the_object:
        return False
    try:
        info = req.store.get_object_info(bucket, key, req.query.get("versionId"))
    except StoreError:
        # Nothing there: those who may list the bucket may learn that (404), as in S3; others not.
        return action in acl.OBJECT_READ and is_allowed(req, "s3:ListBucket", bucket, "", {"s3:prefix": key})
    # Reading an object and its ACL is its owner's (the writer's, unless the bucket owner owns
    # everything), or the bucket owner's where the object's ACL grants it, as in S3.
    owner = object_owner(info.metadata, rules.acl.owner) if rules.acls_enabled else rules.acl.owner
    if signed and req.access_key == owner:
        return True
    canned = info.metadata.get(acl.OBJECT_ACL_ENTRY, acl.PRIVATE)
    if owns_bucket and acl.grants_bucket_owner(canned, action):
        return True
    return groups and acl.permits(canned, action, signed=signed, on_object=True)
