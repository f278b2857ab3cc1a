"""S3 errors: the codes, their HTTP statuses, and the XML body S3 clients parse."""

from __future__ import annotations

from ..auth.errors import AuthError
from ..store import ObjectLocked, StoreError
from .xmlchars import escape_lossy

STATUS_BY_CODE = {
    "AccessControlListNotSupported": 400,
    "AccessDenied": 403,
    "AuthorizationHeaderMalformed": 400,
    "AuthorizationQueryParametersError": 400,
    "BadDigest": 400,
    "BucketAlreadyOwnedByYou": 409,
    "BucketNotEmpty": 409,
    "EntityTooLarge": 400,
    "EntityTooSmall": 400,
    "IncompleteBody": 400,
    "InternalError": 500,
    "InvalidAccessKeyId": 403,
    "InvalidArgument": 400,
    "InvalidBucketName": 400,
    "InvalidBucketState": 409,
    "InvalidDigest": 400,
    "InvalidPart": 400,
    "InvalidPartNumber": 416,
    "InvalidPartOrder": 400,
    "InvalidRange": 416,
    "InvalidRequest": 400,
    "InvalidRetentionPeriod": 400,
    "InvalidStorageClass": 400,
    "InvalidTag": 400,
    "KeyTooLongError": 400,
    "KMS.NotFoundException": 400,
    "MalformedXML": 400,
    "MethodNotAllowed": 405,
    "MissingContentLength": 411,
    "NoSuchBucket": 404,
    "NoSuchBucketPolicy": 404,
    "NoSuchPublicAccessBlockConfiguration": 404,
    "OwnershipControlsNotFoundError": 404,
    "NoSuchKey": 404,
    "NoSuchObjectLockConfiguration": 404,
    "NoSuchTagSet": 404,
    "NoSuchUpload": 404,
    "NoSuchVersion": 404,
    "NotImplemented": 501,
    "ObjectLockConfigurationNotFoundError": 404,
    "PreconditionFailed": 412,
    "RequestTimeTooSkewed": 403,
    "ServerSideEncryptionConfigurationNotFoundError": 404,
    "SignatureDoesNotMatch": 403,
    "XAmzContentSHA256Mismatch": 400,
}


class S3Error(Exception):
    def __init__(self, code: str, message: str, status: int | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status or STATUS_BY_CODE.get(code, 400)
        # Sent with the error (a delete marker's headers on a refused read).
        self.headers = headers or {}

    @classmethod
    def from_exception(cls, exc: Exception) -> S3Error:
        if isinstance(exc, S3Error):
            return exc
        if isinstance(exc, AuthError):
            return cls(exc.code, exc.message, exc.status)
        if isinstance(exc, ObjectLocked):
            return cls(exc.code, ObjectLocked.wire_message)
        if isinstance(exc, StoreError):
            return cls(exc.code, str(exc))
        return cls("InternalError", "We encountered an internal error, please try again.", 500)

    def to_xml(self, resource: str, request_id: str) -> bytes:
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{self.code}</Code><Message>{escape_lossy(self.message)}</Message>"
            f"<Resource>{escape_lossy(resource)}</Resource><RequestId>{request_id}</RequestId></Error>"
        ).encode()
