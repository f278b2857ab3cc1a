"""Errors of the sharing server, as Delta Sharing speaks them: ``{"errorCode", "message"}`` and a status.

The codes and statuses follow the reference server (delta-io/delta-sharing, DeltaSharingService):
unknown share/schema/table is RESOURCE_DOES_NOT_EXIST 404, a bad argument INVALID_PARAMETER_VALUE
400, an unreadable body MALFORMED_REQUEST 400, a table feature the client cannot read
UNSUPPORTED_OPERATION 400, anything unexpected INTERNAL_ERROR 500 (with no detail). Authentication
answers UNAUTHENTICATED 401 and PERMISSION_DENIED 403, as Databricks' sharing server does.

Table sources (Delta and Iceberg) raise these too; the message reaches the client, so it must
never carry secrets or stack traces.
"""

from __future__ import annotations


class SharingError(Exception):
    """An error the client sees. Subclasses fix the code and status."""

    code = "INTERNAL_ERROR"
    status = 500

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message

    def body(self) -> dict:
        return {"errorCode": self.code, "message": self.message}


class InvalidParameter(SharingError):
    """A parameter has a bad value: a version out of range, a bad page token or timestamp."""

    code = "INVALID_PARAMETER_VALUE"
    status = 400


class MalformedRequest(SharingError):
    """The request body is not the JSON the API expects."""

    code = "MALFORMED_REQUEST"
    status = 400


class UnsupportedOperation(SharingError):
    """The table needs something this server or the client cannot do (a reader feature, say)."""

    code = "UNSUPPORTED_OPERATION"
    status = 400


class NotFound(SharingError):
    """The share, schema or table does not exist (or the token may not see it)."""

    code = "RESOURCE_DOES_NOT_EXIST"
    status = 404


class AlreadyExists(SharingError):
    """The share, table, token or client exists already (admin API)."""

    code = "RESOURCE_ALREADY_EXISTS"
    status = 409


class Unauthenticated(SharingError):
    """The bearer token is missing, unknown, expired or revoked."""

    code = "UNAUTHENTICATED"
    status = 401


class PermissionDenied(SharingError):
    """The caller is known but may not do this."""

    code = "PERMISSION_DENIED"
    status = 403


class InternalError(SharingError):
    """A failure of the server (a table whose files are missing or unreadable, say)."""

    code = "INTERNAL_ERROR"
    status = 500
