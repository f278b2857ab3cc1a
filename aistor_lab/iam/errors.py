"""Errors of the IAM service: each carries a stable code and the HTTP status an API should answer."""

from __future__ import annotations


class IAMError(Exception):
    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


class _NamedError(IAMError):
    """An IAMError whose code is its class name and whose status is fixed by the class."""

    http_status = 400

    def __init__(self, message: str):
        super().__init__(type(self).__name__, message, self.http_status)


class NoSuchUser(_NamedError):
    http_status = 404


class UserAlreadyExists(_NamedError):
    http_status = 409


class NoSuchPolicy(_NamedError):
    http_status = 404


class PolicyInUse(_NamedError):
    """Refused: a named policy is deleted only once no user has it attached."""

    http_status = 409


class MalformedPolicy(_NamedError):
    pass


class InvalidArgument(_NamedError):
    pass
