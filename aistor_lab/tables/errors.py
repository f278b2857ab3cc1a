"""Errors of the Iceberg catalog, each carrying the ``type`` and HTTP ``code`` of the REST ErrorModel."""

from __future__ import annotations


class IcebergError(Exception):
    """Base of every catalog error; ``to_json()`` is the spec's IcebergErrorResponse body."""

    type = "RuntimeException"
    code = 500

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "code": self.code}}


class BadRequestException(IcebergError):
    type = "BadRequestException"
    code = 400


class ValidationException(BadRequestException):
    """Well-formed input that breaks a rule of the table format (Java's ValidationException, which the
    reference REST server answers with 400 and this type)."""

    type = "ValidationException"


class NoSuchWarehouseException(IcebergError):
    type = "NoSuchWarehouseException"
    code = 404


class NoSuchNamespaceException(IcebergError):
    type = "NoSuchNamespaceException"
    code = 404


class NoSuchTableException(IcebergError):
    type = "NoSuchTableException"
    code = 404


class NoSuchViewException(IcebergError):
    type = "NoSuchViewException"
    code = 404


class AlreadyExistsException(IcebergError):
    type = "AlreadyExistsException"
    code = 409


class NamespaceNotEmptyException(IcebergError):
    type = "NamespaceNotEmptyException"
    code = 409


class WarehouseNotEmptyException(IcebergError):
    type = "WarehouseNotEmptyException"
    code = 409


class CommitFailedException(IcebergError):
    """A requirement did not hold (or the commit lost too many races); the client may retry."""

    type = "CommitFailedException"
    code = 409


class UnprocessableEntityException(IcebergError):
    type = "UnprocessableEntityException"
    code = 422


class CommitStateUnknownException(IcebergError):
    """The store failed in a way that leaves it unknown whether the commit landed."""

    type = "CommitStateUnknownException"
    code = 500


class ServiceFailureException(IcebergError):
    """Catalog state is unreadable (e.g. a metadata file the pointer names is missing)."""

    type = "ServiceFailureException"
    code = 500


class ServiceUnavailableException(IcebergError):
    type = "ServiceUnavailableException"
    code = 503


__all__ = [
    "AlreadyExistsException",
    "BadRequestException",
    "CommitFailedException",
    "CommitStateUnknownException",
    "IcebergError",
    "NamespaceNotEmptyException",
    "NoSuchNamespaceException",
    "NoSuchTableException",
    "NoSuchViewException",
    "NoSuchWarehouseException",
    "ServiceFailureException",
    "ServiceUnavailableException",
    "UnprocessableEntityException",
    "WarehouseNotEmptyException",
]
