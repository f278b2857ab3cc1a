"""What both OAuth2 token endpoints (the catalog's and Delta Sharing's) share: RFC 6749's error
answer (section 5.2), the form-encoded request body, and the client's id and secret, which come in
a Basic Authorization header or as form fields (section 2.3.1)."""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qs, unquote_plus

CLIENT_CREDENTIALS = "client_credentials"


class OAuthError(Exception):
    """An error of a token endpoint: ``invalid_client`` (401), ``invalid_grant``,
    ``unsupported_grant_type`` or ``invalid_request`` (400)."""

    def __init__(self, error: str, description: str, status: int = 400):
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def body(self) -> dict:
        return {"error": self.error, "error_description": self.description}


def token_request_form(body: bytes) -> dict[str, str]:
    """The form fields of a token request, the last value of each name."""
    try:
        pairs = parse_qs(body.decode(), keep_blank_values=True)
    except UnicodeDecodeError:
        raise OAuthError("invalid_request", "the request body must be form-encoded UTF-8") from None
    return {name: values[-1] for name, values in pairs.items()}


def client_credentials(authorization: str, form: dict[str, str]) -> tuple[str, str] | None:
    """The client id and secret of a request (Basic auth first, then the form), or None."""
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "basic":
        try:
            client_id, sep, secret = base64.b64decode(value.strip(), validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise OAuthError("invalid_client", "the Basic Authorization header is malformed", 401) from None
        if sep:
            # RFC 6749 form-encodes both before the Basic encoding; plain values decode to themselves.
            return unquote_plus(client_id), unquote_plus(secret)
    if form.get("client_id") and "client_secret" in form:
        return form["client_id"], form["client_secret"]
    return None
