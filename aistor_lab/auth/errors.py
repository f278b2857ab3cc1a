"""The one error type of authentication, carrying the S3 error code and HTTP status."""


class AuthError(Exception):
    def __init__(self, code: str, message: str, status: int = 403):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
