"""OAuth 2.0 client credentials (RFC 6749 section 4.4) as a second way into a share.

An admin creates a client for a share and gets its id and secret once (with a
``shareCredentialsVersion`` 2 profile of type ``oauth_client_credentials``). The recipient's client
trades them at the token endpoint for a bearer token that lives ``ACCESS_TOKEN_SECONDS``; the
released Delta Sharing client renews tokens with less than ten minutes left, so they must live
longer than that. Access tokens are ordinary tokens of kind ``oauth`` in the token registry;
deleting a client revokes them.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..auth.oauth2 import CLIENT_CREDENTIALS, OAuthError, client_credentials, token_request_form
from ..store.base import ObjectStore
from ..store.documents import DocumentStore
from .errors import InvalidParameter, NotFound
from .shares import Share, ShareRegistry
from .tokens import OAUTH, TokenRegistry, iso_time, secret_hash

ACCESS_TOKEN_SECONDS = 3600


@dataclass(frozen=True)
class OAuthClient:
    id: str
    share_id: str
    share: str
    description: str
    created: float
    secret_sha256: str

    def info(self) -> dict:
        return {"clientId": self.id, "share": self.share, "description": self.description,
                "created": iso_time(self.created)}


class OAuthClients:
    def __init__(self, store: ObjectStore, tokens: TokenRegistry, shares: ShareRegistry, *,
                 clock: Callable[[], float] = time.time):
        self._documents = DocumentStore(store, "sharing/clients/", re.compile(r"[0-9a-f]{32}"))
        self._tokens = tokens
        self._shares = shares
        self._clock = clock

    def create(self, share: Share, description: str = "") -> tuple[OAuthClient, str]:
        if not isinstance(description, str):
            raise InvalidParameter("the description must be a string")
        secret = secrets.token_urlsafe(32)
        client = OAuthClient(uuid.uuid4().hex, share.id, share.name, description, self._clock(),
                             secret_hash(secret))
        self._documents.create(client.id, asdict(client))
        return client, secret

    def list(self, share: str) -> list[OAuthClient]:
        clients = [self._load(name) for name in self._documents.names()]
        return sorted((c for c in clients if c is not None and c.share.lower() == share.lower()),
                      key=lambda c: c.created)

    def delete(self, share: str, client_id: str) -> OAuthClient:
        client = self._load(client_id)
        if client is None or client.share.lower() != share.lower():
            raise NotFound(f"OAuth client {client_id!r} does not exist for share {share!r}")
        self._documents.delete(client_id)
        self._tokens.revoke_where(lambda t: t.client_id != client_id)
        return client

    def delete_all(self, share_id: str) -> None:
        for name in self._documents.names():
            client = self._load(name)
            if client is not None and client.share_id == share_id:
                self._documents.delete(name)

    def issue(self, headers: dict[str, str], body: bytes) -> dict:
        """The token endpoint: a client id and secret (Basic auth or form fields) for an access token."""
        form = token_request_form(body)
        if form.get("grant_type") != CLIENT_CREDENTIALS:
            raise OAuthError("unsupported_grant_type", "only grant_type=client_credentials is supported")
        credentials = client_credentials(headers.get("Authorization", ""), form)
        if credentials is None:
            raise OAuthError("invalid_client", "client credentials are missing", 401)
        client_id, client_secret = credentials
        client = self._load(client_id)
        if client is None or not hmac.compare_digest(client.secret_sha256, secret_hash(client_secret)):
            raise OAuthError("invalid_client", "unknown client or wrong secret", 401)
        try:
            share = self._shares.get(client.share)
        except NotFound:
            raise OAuthError("invalid_client", "the client's share no longer exists", 401) from None
        if share.id != client.share_id:
            raise OAuthError("invalid_client", "the client's share no longer exists", 401)
        now = self._clock()
        # Drop this client's expired access tokens so they do not pile up.
        self._tokens.revoke_where(lambda t: not (t.client_id == client.id and t.expires is not None
                                                 and t.expires <= now))
        _, access_token = self._tokens.create(share, expires_in=ACCESS_TOKEN_SECONDS, kind=OAUTH,
                                              client_id=client.id, description=f"OAuth client {client.id}")
        return {"access_token": access_token, "token_type": "bearer", "expires_in": ACCESS_TOKEN_SECONDS}

    def _load(self, client_id: str) -> OAuthClient | None:
        found = self._documents.read(client_id)
        return None if found is None else OAuthClient(**found[0])
