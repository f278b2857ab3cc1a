"""Errors of the object store engine; the S3 layer maps each to its S3 error code."""


class StoreError(Exception):
    """Base of every store error. ``code`` is the matching S3 error code."""

    code = "InternalError"

    def __init__(self, message: str = ""):
        super().__init__(message or self.__class__.__doc__ or self.code)


class NoSuchBucket(StoreError):
    """The specified bucket does not exist."""

    code = "NoSuchBucket"


class NotSupportedByBackend(StoreError):
    """This store backend cannot do that."""

    code = "NotImplemented"


class BucketAlreadyOwnedByYou(StoreError):
    """The bucket already exists."""

    code = "BucketAlreadyOwnedByYou"


class BucketNotEmpty(StoreError):
    """The bucket you tried to delete is not empty."""

    code = "BucketNotEmpty"


class NoSuchKey(StoreError):
    """The specified key does not exist."""

    code = "NoSuchKey"

    def __init__(self, message: str = "", *, delete_marker: str | None = None):
        super().__init__(message)
        # The version id of the delete marker that is the key's latest version, if one is.
        self.delete_marker = delete_marker


class NoSuchVersion(StoreError):
    """The specified version does not exist."""

    code = "NoSuchVersion"


class DeleteMarkerVersion(StoreError):
    """The specified version is a delete marker: it has no content to read or copy."""

    code = "MethodNotAllowed"

    def __init__(self, version_id: str, last_modified: float):
        super().__init__("The specified method is not allowed against a delete marker.")
        self.version_id = version_id
        self.last_modified = last_modified


class InvalidBucketState(StoreError):
    """The request is not valid with the current state of the bucket."""

    code = "InvalidBucketState"


class PreconditionFailed(StoreError):
    """At least one of the preconditions you specified did not hold."""

    code = "PreconditionFailed"


class NoSuchUpload(StoreError):
    """The specified multipart upload does not exist."""

    code = "NoSuchUpload"


class InvalidPart(StoreError):
    """One or more of the specified parts could not be found or its ETag does not match."""

    code = "InvalidPart"


class InvalidPartOrder(StoreError):
    """The list of parts was not in ascending order."""

    code = "InvalidPartOrder"


class EntityTooSmall(StoreError):
    """Your proposed upload is smaller than the minimum allowed object size."""

    code = "EntityTooSmall"


class ObjectLocked(StoreError):
    """Access Denied because object protected by object lock."""

    code = "AccessDenied"
    # What S3 answers with the code: the one way to tell this refusal from a missing permission.
    wire_message = "Access Denied because object protected by object lock."
