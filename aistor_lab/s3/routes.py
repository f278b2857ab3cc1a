"""Which S3 operation a request is: method, bucket/key level and sub-resource decide it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import (
    acl_ops,
    attributes_ops,
    bucket_ops,
    cors_ops,
    encryption_ops,
    lifecycle_ops,
    multipart_ops,
    object_lock_ops,
    object_ops,
    policy_ops,
    post_object,
    tagging_ops,
    versioning_ops,
)
from .errors import S3Error

if TYPE_CHECKING:
    from .handler import S3Handler

# How an operation takes its request body (FORM_BODY: a multipart/form-data upload, post_object).
NO_BODY, XML_BODY, STREAM_BODY, FORM_BODY = "none", "xml", "stream", "form"


@dataclass(frozen=True)
class Operation:
    name: str
    action: str | None  # the IAM action checked before anything else; None: checked per key
    run: Callable[[S3Handler], Awaitable[None]]
    body: str = NO_BODY


LIST_BUCKETS = Operation("ListBuckets", "s3:ListAllMyBuckets", bucket_ops.list_buckets)
CREATE_BUCKET = Operation("CreateBucket", "s3:CreateBucket", bucket_ops.create_bucket, XML_BODY)
DELETE_BUCKET = Operation("DeleteBucket", "s3:DeleteBucket", bucket_ops.delete_bucket)
HEAD_BUCKET = Operation("HeadBucket", "s3:ListBucket", bucket_ops.head_bucket)
GET_LOCATION = Operation("GetBucketLocation", "s3:GetBucketLocation", bucket_ops.get_location)
LIST_OBJECTS = Operation("ListObjects", "s3:ListBucket", bucket_ops.list_objects)
LIST_UPLOADS = Operation("ListMultipartUploads", "s3:ListBucketMultipartUploads", multipart_ops.list_uploads)
DELETE_OBJECTS = Operation("DeleteObjects", None, object_ops.delete_objects, XML_BODY)
GET_VERSIONING = Operation("GetBucketVersioning", "s3:GetBucketVersioning", versioning_ops.get_versioning)
PUT_VERSIONING = Operation("PutBucketVersioning", "s3:PutBucketVersioning", versioning_ops.put_versioning, XML_BODY)
LIST_VERSIONS = Operation("ListObjectVersions", "s3:ListBucketVersions", versioning_ops.list_versions)
GET_LIFECYCLE = Operation(
    "GetBucketLifecycleConfiguration", "s3:GetLifecycleConfiguration", lifecycle_ops.get_lifecycle
)
PUT_LIFECYCLE = Operation(
    "PutBucketLifecycleConfiguration", "s3:PutLifecycleConfiguration", lifecycle_ops.put_lifecycle, XML_BODY
)
# S3 authorizes removing the configuration as putting one.
DELETE_LIFECYCLE = Operation(
    "DeleteBucketLifecycle", "s3:PutLifecycleConfiguration", lifecycle_ops.delete_lifecycle
)
PUT_ENCRYPTION = Operation(
    "PutBucketEncryption", "s3:PutEncryptionConfiguration", encryption_ops.put_bucket_encryption, XML_BODY
)
GET_ENCRYPTION = Operation(
    "GetBucketEncryption", "s3:GetEncryptionConfiguration", encryption_ops.get_bucket_encryption
)
# S3 authorizes removing the default encryption as putting one.
DELETE_ENCRYPTION = Operation(
    "DeleteBucketEncryption", "s3:PutEncryptionConfiguration", encryption_ops.delete_bucket_encryption
)

PUT_LOCK_CONFIG = Operation(
    "PutObjectLockConfiguration", "s3:PutBucketObjectLockConfiguration", object_lock_ops.put_lock_configuration,
    XML_BODY,
)
GET_LOCK_CONFIG = Operation(
    "GetObjectLockConfiguration", "s3:GetBucketObjectLockConfiguration", object_lock_ops.get_lock_configuration
)

PUT_OBJECT = Operation("PutObject", "s3:PutObject", object_ops.put_object, STREAM_BODY)
# Authorized as s3:PutObject once the form's fields name the key and the caller.
POST_OBJECT = Operation("PostObject", None, post_object.post_object, FORM_BODY)
COPY_OBJECT = Operation("CopyObject", "s3:PutObject", object_ops.copy_object)
GET_OBJECT = Operation("GetObject", "s3:GetObject", object_ops.get_object)
HEAD_OBJECT = Operation("HeadObject", "s3:GetObject", object_ops.get_object)
GET_ATTRIBUTES = Operation("GetObjectAttributes", "s3:GetObjectAttributes", attributes_ops.get_object_attributes)
DELETE_OBJECT = Operation("DeleteObject", "s3:DeleteObject", object_ops.delete_object)
CREATE_UPLOAD = Operation("CreateMultipartUpload", "s3:PutObject", multipart_ops.create_upload)
UPLOAD_PART = Operation("UploadPart", "s3:PutObject", multipart_ops.upload_part, STREAM_BODY)
UPLOAD_PART_COPY = Operation("UploadPartCopy", "s3:PutObject", multipart_ops.upload_part_copy)
COMPLETE_UPLOAD = Operation("CompleteMultipartUpload", "s3:PutObject", multipart_ops.complete_upload, XML_BODY)
ABORT_UPLOAD = Operation("AbortMultipartUpload", "s3:AbortMultipartUpload", multipart_ops.abort_upload)
LIST_PARTS = Operation("ListParts", "s3:ListMultipartUploadParts", multipart_ops.list_parts)
PUT_RETENTION = Operation("PutObjectRetention", "s3:PutObjectRetention", object_lock_ops.put_retention, XML_BODY)
GET_RETENTION = Operation("GetObjectRetention", "s3:GetObjectRetention", object_lock_ops.get_retention)
PUT_LEGAL_HOLD = Operation("PutObjectLegalHold", "s3:PutObjectLegalHold", object_lock_ops.put_legal_hold, XML_BODY)
GET_LEGAL_HOLD = Operation("GetObjectLegalHold", "s3:GetObjectLegalHold", object_lock_ops.get_legal_hold)
PUT_TAGGING = Operation("PutObjectTagging", "s3:PutObjectTagging", tagging_ops.put_object_tagging, XML_BODY)
GET_TAGGING = Operation("GetObjectTagging", "s3:GetObjectTagging", tagging_ops.get_object_tagging)
DELETE_TAGGING = Operation("DeleteObjectTagging", "s3:DeleteObjectTagging", tagging_ops.delete_object_tagging)
PUT_BUCKET_TAGGING = Operation(
    "PutBucketTagging", "s3:PutBucketTagging", tagging_ops.put_bucket_tagging, XML_BODY
)
GET_BUCKET_TAGGING = Operation("GetBucketTagging", "s3:GetBucketTagging", tagging_ops.get_bucket_tagging)
# S3 authorizes removing a bucket's tags as putting them.
DELETE_BUCKET_TAGGING = Operation("DeleteBucketTagging", "s3:PutBucketTagging", tagging_ops.delete_bucket_tagging)

PUT_CORS = Operation("PutBucketCors", "s3:PutBucketCORS", cors_ops.put_bucket_cors, XML_BODY)
GET_CORS = Operation("GetBucketCors", "s3:GetBucketCORS", cors_ops.get_bucket_cors)
# MinIO's name; S3's, s3:PutBucketCORS, also authorizes it (iam/action_names.py).
DELETE_CORS = Operation("DeleteBucketCors", "s3:DeleteBucketCors", cors_ops.delete_bucket_cors)

PUT_POLICY = Operation("PutBucketPolicy", "s3:PutBucketPolicy", policy_ops.put_policy, XML_BODY)
GET_POLICY = Operation("GetBucketPolicy", "s3:GetBucketPolicy", policy_ops.get_policy)
DELETE_POLICY = Operation("DeleteBucketPolicy", "s3:DeleteBucketPolicy", policy_ops.delete_policy)
GET_POLICY_STATUS = Operation("GetBucketPolicyStatus", "s3:GetBucketPolicyStatus", policy_ops.get_policy_status)
PUT_PUBLIC_ACCESS_BLOCK = Operation(
    "PutPublicAccessBlock", "s3:PutBucketPublicAccessBlock", policy_ops.put_public_access_block, XML_BODY
)
GET_PUBLIC_ACCESS_BLOCK = Operation(
    "GetPublicAccessBlock", "s3:GetBucketPublicAccessBlock", policy_ops.get_public_access_block
)
# S3 authorizes removing the block as putting one; so for ownership controls below.
DELETE_PUBLIC_ACCESS_BLOCK = Operation(
    "DeletePublicAccessBlock", "s3:PutBucketPublicAccessBlock", policy_ops.delete_public_access_block
)
PUT_BUCKET_ACL = Operation("PutBucketAcl", "s3:PutBucketAcl", acl_ops.put_bucket_acl, XML_BODY)
GET_BUCKET_ACL = Operation("GetBucketAcl", "s3:GetBucketAcl", acl_ops.get_bucket_acl)
PUT_OWNERSHIP = Operation(
    "PutBucketOwnershipControls", "s3:PutBucketOwnershipControls", acl_ops.put_ownership, XML_BODY
)
GET_OWNERSHIP = Operation("GetBucketOwnershipControls", "s3:GetBucketOwnershipControls", acl_ops.get_ownership)
DELETE_OWNERSHIP = Operation(
    "DeleteBucketOwnershipControls", "s3:PutBucketOwnershipControls", acl_ops.delete_ownership
)
PUT_OBJECT_ACL = Operation("PutObjectAcl", "s3:PutObjectAcl", acl_ops.put_object_acl, XML_BODY)
GET_OBJECT_ACL = Operation("GetObjectAcl", "s3:GetObjectAcl", acl_ops.get_object_acl)

# With ?versionId, a read or delete is authorized as the action S3 names for a version.
_OF_A_VERSION = {
    GET_OBJECT: Operation("GetObject", "s3:GetObjectVersion", object_ops.get_object),
    HEAD_OBJECT: Operation("HeadObject", "s3:GetObjectVersion", object_ops.get_object),
    DELETE_OBJECT: Operation("DeleteObject", "s3:DeleteObjectVersion", object_ops.delete_object),
    GET_ATTRIBUTES: Operation(
        "GetObjectAttributes", "s3:GetObjectVersionAttributes", attributes_ops.get_object_attributes
    ),
    PUT_TAGGING: Operation(
        "PutObjectTagging", "s3:PutObjectVersionTagging", tagging_ops.put_object_tagging, XML_BODY
    ),
    GET_TAGGING: Operation("GetObjectTagging", "s3:GetObjectVersionTagging", tagging_ops.get_object_tagging),
    DELETE_TAGGING: Operation(
        "DeleteObjectTagging", "s3:DeleteObjectVersionTagging", tagging_ops.delete_object_tagging
    ),
    PUT_OBJECT_ACL: Operation("PutObjectAcl", "s3:PutObjectVersionAcl", acl_ops.put_object_acl, XML_BODY),
    GET_OBJECT_ACL: Operation("GetObjectAcl", "s3:GetObjectVersionAcl", acl_ops.get_object_acl),
}

# Bucket sub-resources we answer, keyed by (method, sub-resource).
_BUCKET_SUBRESOURCES = {
    ("GET", "location"): GET_LOCATION,
    ("GET", "uploads"): LIST_UPLOADS,
    ("POST", "delete"): DELETE_OBJECTS,
    ("GET", "versioning"): GET_VERSIONING,
    ("PUT", "versioning"): PUT_VERSIONING,
    ("GET", "versions"): LIST_VERSIONS,
    ("GET", "lifecycle"): GET_LIFECYCLE,
    ("PUT", "lifecycle"): PUT_LIFECYCLE,
    ("DELETE", "lifecycle"): DELETE_LIFECYCLE,
    ("PUT", "encryption"): PUT_ENCRYPTION,
    ("GET", "encryption"): GET_ENCRYPTION,
    ("DELETE", "encryption"): DELETE_ENCRYPTION,
    ("PUT", "object-lock"): PUT_LOCK_CONFIG,
    ("GET", "object-lock"): GET_LOCK_CONFIG,
    ("PUT", "tagging"): PUT_BUCKET_TAGGING,
    ("GET", "tagging"): GET_BUCKET_TAGGING,
    ("DELETE", "tagging"): DELETE_BUCKET_TAGGING,
    ("PUT", "policy"): PUT_POLICY,
    ("GET", "policy"): GET_POLICY,
    ("DELETE", "policy"): DELETE_POLICY,
    ("GET", "policyStatus"): GET_POLICY_STATUS,
    ("PUT", "publicAccessBlock"): PUT_PUBLIC_ACCESS_BLOCK,
    ("GET", "publicAccessBlock"): GET_PUBLIC_ACCESS_BLOCK,
    ("DELETE", "publicAccessBlock"): DELETE_PUBLIC_ACCESS_BLOCK,
    ("PUT", "acl"): PUT_BUCKET_ACL,
    ("GET", "acl"): GET_BUCKET_ACL,
    ("PUT", "ownershipControls"): PUT_OWNERSHIP,
    ("GET", "ownershipControls"): GET_OWNERSHIP,
    ("DELETE", "ownershipControls"): DELETE_OWNERSHIP,
    ("PUT", "cors"): PUT_CORS,
    ("GET", "cors"): GET_CORS,
    ("DELETE", "cors"): DELETE_CORS,
}
# Object sub-resources we answer, keyed the same way (a versionId names the version they act on).
_OBJECT_SUBRESOURCES = {
    ("PUT", "retention"): PUT_RETENTION,
    ("GET", "retention"): GET_RETENTION,
    ("PUT", "legal-hold"): PUT_LEGAL_HOLD,
    ("GET", "legal-hold"): GET_LEGAL_HOLD,
    ("PUT", "tagging"): PUT_TAGGING,
    ("GET", "tagging"): GET_TAGGING,
    ("DELETE", "tagging"): DELETE_TAGGING,
    ("PUT", "acl"): PUT_OBJECT_ACL,
    ("GET", "acl"): GET_OBJECT_ACL,
}
# Every sub-resource S3 has. One that no operation above takes for the request's method is answered
# with NotImplemented, never taken as the plain operation (PUT ?torrent is not CreateBucket).
_KNOWN_SUBRESOURCES = frozenset({
    "location", "uploads", "delete", "versioning",
    "accelerate", "acl", "analytics", "cors", "encryption", "intelligent-tiering", "inventory",
    "lifecycle", "logging", "metrics", "notification", "object-lock", "ownershipControls", "policy",
    "policyStatus", "publicAccessBlock", "replication", "requestPayment", "restore", "retention",
    "legal-hold", "select", "tagging", "torrent", "versions", "website", "attributes",
})


def resolve(method: str, bucket: str, key: str, query: dict[str, str], headers) -> Operation:
    if not bucket:
        if method in ("GET", "HEAD"):
            return LIST_BUCKETS
        raise S3Error("MethodNotAllowed", "The specified method is not allowed against this resource.")
    if not key:
        return _bucket_operation(method, query)
    operation = _object_operation(method, query, headers)
    return _OF_A_VERSION.get(operation, operation) if "versionId" in query else operation


def _bucket_operation(method: str, query: dict[str, str]) -> Operation:
    operation = _subresource(_BUCKET_SUBRESOURCES, method, query)
    if operation is not None:
        return operation
    _refuse_unimplemented(query)
    plain = {"GET": LIST_OBJECTS, "PUT": CREATE_BUCKET, "DELETE": DELETE_BUCKET, "HEAD": HEAD_BUCKET,
             "POST": POST_OBJECT}
    if method in plain:
        return plain[method]
    raise S3Error("MethodNotAllowed", "The specified method is not allowed against this resource.")


def _object_operation(method: str, query: dict[str, str], headers) -> Operation:
    operation = _subresource(_OBJECT_SUBRESOURCES, method, query)
    if operation is not None:
        return operation
    if "uploadId" in query:
        if method == "PUT":
            return UPLOAD_PART_COPY if "x-amz-copy-source" in headers else UPLOAD_PART
        by_method = {"POST": COMPLETE_UPLOAD, "DELETE": ABORT_UPLOAD, "GET": LIST_PARTS}
        if method in by_method:
            return by_method[method]
    elif "uploads" in query and method == "POST":
        return CREATE_UPLOAD
    elif "attributes" in query and method == "GET":
        return GET_ATTRIBUTES
    else:
        _refuse_unimplemented(query)
        if method == "PUT":
            return COPY_OBJECT if "x-amz-copy-source" in headers else PUT_OBJECT
        plain = {"GET": GET_OBJECT, "HEAD": HEAD_OBJECT, "DELETE": DELETE_OBJECT}
        if method in plain:
            return plain[method]
    raise S3Error("MethodNotAllowed", "The specified method is not allowed against this resource.")


def _subresource(table: dict[tuple[str, str], Operation], method: str, query: dict[str, str]) -> Operation | None:
    for (sub_method, subresource), operation in table.items():
        if subresource in query and method == sub_method:
            return operation
    return None


def _refuse_unimplemented(query: dict[str, str]) -> None:
    for name in query:
        if name in _KNOWN_SUBRESOURCES:
            raise S3Error("NotImplemented", f"The {name} sub-resource is not implemented by this server.")
