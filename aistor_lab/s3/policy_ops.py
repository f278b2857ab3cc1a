"""Bucket policies and the public access block on the wire: PutBucketPolicy, GetBucketPolicy,
DeleteBucketPolicy, GetBucketPolicyStatus (``?policy``, ``?policyStatus``) and Put/Get/Delete
PublicAccessBlock (``?publicAccessBlock``). How they take part in decisions: authorization.py.

A policy is answered as it was put (JSON, as S3 does); an invalid one is 400 MalformedPolicy with
what is wrong, and changes nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..iam import MalformedPolicy, is_public, parse_bucket_policy
from . import acl, public_access_block
from .bucket_access import POLICY
from .bucket_documents import send_document
from .errors import S3Error
from .xmlio import XmlWriter

if TYPE_CHECKING:
    from .handler import S3Handler


async def put_policy(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    try:
        policy = parse_bucket_policy(bytes(req.body), req.bucket)
    except MalformedPolicy as exc:
        raise S3Error("MalformedPolicy", exc.message) from None
    if rules.block.block_public_policy and is_public(policy):
        raise S3Error("AccessDenied", "Access Denied: the bucket's PublicAccessBlock blocks public policies.")
    await req.run_blocking(req.services.bucket_access.put, req.bucket, POLICY, bytes(req.body))
    req.send_empty(204)


async def get_policy(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    if rules.policy is None:
        raise S3Error("NoSuchBucketPolicy", "The bucket policy does not exist")
    req.set_header("Content-Type", "application/json")
    req.finish(json.dumps(rules.policy.document))


async def delete_policy(req: S3Handler) -> None:
    await req.services.bucket_access.of_request(req)
    await req.run_blocking(req.services.bucket_access.put, req.bucket, POLICY, None)
    req.send_empty(204)


async def get_policy_status(req: S3Handler) -> None:
    rules = await req.services.bucket_access.of_request(req)
    # Public by its policy or by a public canned ACL (as RGW reports it).
    public = (rules.policy is not None and is_public(rules.policy)) or (
        rules.acls_enabled and rules.acl.canned in acl.PUBLIC)
    xml = XmlWriter("PolicyStatus").element("IsPublic", public)
    req.send_xml(xml.to_bytes())


async def put_public_access_block(req: S3Handler) -> None:
    await req.services.bucket_access.of_request(req)
    block = public_access_block.parse(bytes(req.body))
    await req.run_blocking(req.services.bucket_access.put, req.bucket, public_access_block.CONFIG_NAME, block.to_xml())
    req.send_empty()


async def get_public_access_block(req: S3Handler) -> None:
    await req.services.bucket_access.of_request(req)
    await send_document(req, public_access_block.CONFIG_NAME, "NoSuchPublicAccessBlockConfiguration",
                        "The public access block configuration was not found")


async def delete_public_access_block(req: S3Handler) -> None:
    await req.services.bucket_access.of_request(req)
    await req.run_blocking(req.services.bucket_access.put, req.bucket, public_access_block.CONFIG_NAME, None)
    req.send_empty(204)
