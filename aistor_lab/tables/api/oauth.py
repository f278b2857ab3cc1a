"""The catalog's OAuth2 token endpoint, ``POST /_iceberg/v1/oauth/tokens``, for engines that only speak
OAuth2 (the spec's OAuthTokenRequest, form-encoded).

- ``client_credentials``: the client id and secret are an access key and its secret, in the form or
  in a Basic Authorization header. The answer is a short-lived bearer token for that user.
- token exchange (``urn:ietf:params:oauth:grant-type:token-exchange``), which Java clients use to
  refresh: a live ``subject_token`` of ours, or else valid client credentials, gets a new token for
  the same user.

Errors are the spec's OAuthError: 401 ``invalid_client``, 400 ``invalid_grant``,
``unsupported_grant_type`` or ``invalid_request``.
"""

from __future__ import annotations

import hmac
import json

from ...auth.oauth2 import CLIENT_CREDENTIALS, OAuthError, client_credentials, token_request_form
from ...http.limits import DEFAULT_BODY_LIMIT
from ...http.small_body import BodyRefused, SmallBodyHandler

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


class OAuthTokensHandler(SmallBodyHandler):
    SUPPORTED_METHODS = ("POST",)
    body_limit = DEFAULT_BODY_LIMIT  # a form of a few fields, sent by anyone

    def initialize(self, services) -> None:
        self.services = services

    def set_default_headers(self) -> None:
        self.set_header("Server", "aistor-lab")
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")

    def send_body_refusal(self, refusal: BodyRefused) -> None:
        self._send_error(OAuthError("invalid_request", refusal.message, refusal.status))

    def post(self) -> None:
        try:
            form = token_request_form(self.request.body)
            user = self._user_for(form)
        except OAuthError as exc:
            self._send_error(exc)
            return
        ttl = self.services.settings.oauth_token_ttl_seconds
        answer = {
            "access_token": self.services.iam.bearer_tokens.issue(user, ttl),
            "token_type": "bearer",
            "expires_in": ttl,
            "issued_token_type": ACCESS_TOKEN_TYPE,
        }
        if form.get("scope"):
            answer["scope"] = form["scope"]
        self.finish(json.dumps(answer))

    def _send_error(self, error: OAuthError) -> None:
        self.set_status(error.status)
        self.finish(json.dumps(error.body()))

    def _user_for(self, form: dict[str, str]) -> str:
        grant = form.get("grant_type")
        if grant == CLIENT_CREDENTIALS:
            return self._client(form, required=True)
        if grant == TOKEN_EXCHANGE:
            subject = self.services.iam.bearer_tokens.user_of(form.get("subject_token", ""))
            if subject is not None and self.services.iam.secret_for(subject) is not None:
                return subject
            client = self._client(form, required=False)
            if client is None:
                raise OAuthError("invalid_grant", "the subject token is unknown or expired")
            return client
        if not grant:
            raise OAuthError("invalid_request", "grant_type is required")
        raise OAuthError("unsupported_grant_type", f"grant_type {grant!r} is not supported; use {CLIENT_CREDENTIALS}")

    def _client(self, form: dict[str, str], *, required: bool) -> str | None:
        """The user whose access key and secret the request carries (form fields or Basic auth)."""
        credentials = client_credentials(self.request.headers.get("Authorization", ""), form)
        if credentials is None:
            if not required:
                return None
            raise OAuthError("invalid_client", "client_id and client_secret (an access key and its secret) "
                             "are required", 401)
        client_id, secret = credentials
        expected = self.services.iam.secret_for(client_id)
        if expected is None or not hmac.compare_digest(expected.encode(), secret.encode()):
            raise OAuthError("invalid_client", "unknown client or wrong client secret", 401)
        return client_id
