"""The errors of encryption at rest, as store errors carrying the S3 code each answers with."""

from __future__ import annotations

from ..errors import StoreError


class KMSKeyNotFound(StoreError):
    """The KMS key does not exist in the server's key ring."""

    code = "KMS.NotFoundException"


class WrongCustomerKey(StoreError):
    """The SSE-C key given is not the one the object was written with."""

    code = "AccessDenied"


class EncryptionParametersInvalid(StoreError):
    """The encryption parameters do not fit the object (a missing, or a needless, SSE-C key)."""

    code = "InvalidRequest"


class EncryptionArgumentInvalid(StoreError):
    """A write asks for what encryption cannot give (reserved metadata names, an SSE-C object
    under a path the catalog or sharing must read)."""

    code = "InvalidArgument"


class EncryptionNotSupported(StoreError):
    """The store cannot encrypt this (no encryption layer, or a backend that loses what it needs)."""

    code = "NotImplemented"


class UnreadableEncryption(StoreError):
    """The object's encryption metadata or key cannot be read by this server."""

    code = "InternalError"
