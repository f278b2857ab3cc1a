"""Each bucket's access documents, parsed and kept briefly: its policy, canned ACL and owner,
PublicAccessBlock and object ownership setting. Every request on a bucket consults them, so they
are read from the store once per ``ttl`` seconds; a change made through this process is seen at
once, one made by another server in front of the same store within ``ttl`` seconds.

Documents, by bucket configuration name: ``policy`` (the JSON as put), ``acl`` (``{"owner",
"acl"}``: the creator and the canned ACL), ``public-access-block`` (its XML), ``ownership`` (the
ObjectOwnership value).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..iam import Policy, parse_bucket_policy
from ..store import NoSuchBucket, ObjectStore
from ..store.cache import SHARED_STATE_SECONDS, Cache
from . import public_access_block
from .acl import PRIVATE, Acl
from .errors import S3Error
from .public_access_block import PublicAccessBlock

if TYPE_CHECKING:
    from .handler import S3Handler

POLICY, ACL, OWNERSHIP = "policy", "acl", "ownership"


@dataclass(frozen=True)
class AccessRules:
    policy: Policy | None
    acl: Acl
    block: PublicAccessBlock
    ownership: str | None  # None: never set (ACLs are on)

    @property
    def acls_enabled(self) -> bool:
        return self.ownership != "BucketOwnerEnforced"


class BucketAccess:
    def __init__(self, store: ObjectStore, default_owner: str, *, ttl: float = SHARED_STATE_SECONDS, size: int = 1024):
        """``default_owner``: the owner of buckets that name none (the root user)."""
        self.store = store
        self.default_owner = default_owner
        self._cache: Cache[AccessRules | None] = Cache(size, ttl)

    def rules(self, bucket: str) -> AccessRules | None:
        """None when the bucket does not exist."""
        return self._cache.get_or_load(bucket, lambda: self._load(bucket))

    def forget(self, bucket: str) -> None:
        """Read the bucket's documents again at the next request (after this process changed one)."""
        self._cache.discard(bucket)

    def put(self, bucket: str, name: str, document: bytes | None) -> None:
        """Set (None: delete) one of the bucket's access documents."""
        self.store.put_bucket_config(bucket, name, document)
        self.forget(bucket)

    def put_acl(self, bucket: str, acl: Acl) -> None:
        self.put(bucket, ACL, json.dumps({"owner": acl.owner, "acl": acl.canned}).encode())

    async def of_request(self, req: S3Handler) -> AccessRules:
        """The rules of the request's bucket; NoSuchBucket when there is none."""
        rules = await req.run_read(self.rules, req.bucket)
        if rules is None:
            raise S3Error("NoSuchBucket", "The specified bucket does not exist")
        return rules

    def _load(self, bucket: str) -> AccessRules | None:
        try:
            policy = self.store.get_bucket_config(bucket, POLICY)
            acl = self.store.get_bucket_config(bucket, ACL)
            block = self.store.get_bucket_config(bucket, public_access_block.CONFIG_NAME)
            ownership = self.store.get_bucket_config(bucket, OWNERSHIP)
        except NoSuchBucket:
            return None
        acl_document = json.loads(acl) if acl else {}
        return AccessRules(
            policy=None if policy is None else parse_bucket_policy(policy, bucket),
            acl=Acl(acl_document.get("owner", self.default_owner), acl_document.get("acl", PRIVATE)),
            block=public_access_block.NONE if block is None else public_access_block.parse(block),
            ownership=None if ownership is None else ownership.decode(),
        )
