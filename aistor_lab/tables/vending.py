"""Vended credentials: temporary S3 credentials for one table, handed out with ``loadTable`` and
``createTable`` when the client asks with ``X-Iceberg-Access-Delegation: vended-credentials``, and by
``GET .../tables/{table}/credentials``.

A vended session (iam/session_credentials.py) may only read (and, when its user may commit to the table, write
and delete) objects under the table's location ``s3://BUCKET/PREFIX/``, and list within it; its
parent's own policies bound it as well, at every request. The answer carries the credentials both in
``config`` (with the endpoint, path style and region the clients need) and as the spec's
``storage-credentials`` for the location's prefix.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from ..iam import s3_arn
from ..store.locations import OutsideScope, Scope

log = logging.getLogger(__name__)

DELEGATION_HEADER = "X-Iceberg-Access-Delegation"
VENDED_CREDENTIALS = "vended-credentials"
READ_ACTIONS = ["s3:GetObject"]
WRITE_ACTIONS = ["s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]


def wants_vended_credentials(headers: Mapping[str, str]) -> bool:
    """Whether the client listed ``vended-credentials`` among the access mechanisms it supports."""
    mechanisms = headers.get(DELEGATION_HEADER, "").split(",")
    return VENDED_CREDENTIALS in (mechanism.strip().lower() for mechanism in mechanisms)


@dataclass(frozen=True)
class TableScope:
    bucket: str
    prefix: str  # the object key prefix, ending in "/"

    @classmethod
    def of_location(cls, location: str) -> TableScope | None:
        """The scope of a table location ``s3://bucket/path`` (the rule of store.locations); None
        otherwise: a bucket root, another scheme or a path with dot segments is never vended."""
        if not location.startswith("s3://"):
            return None
        try:
            scope = Scope.of(location)
        except OutsideScope:
            return None
        return cls(scope.bucket, scope.folder + "/")

    @property
    def location(self) -> str:
        """The table location without its trailing slash, as clients compare it with the paths they use."""
        return f"s3://{self.bucket}/{self.prefix[:-1]}"

    def policy(self, writable: bool) -> dict:
        actions = READ_ACTIONS + (WRITE_ACTIONS if writable else [])
        return {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": actions, "Resource": [s3_arn(self.bucket, self.prefix + "*")]},
                {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [s3_arn(self.bucket)],
                 "Condition": {"StringLike": {"s3:prefix": [self.prefix + "*"]}}},
                {"Effect": "Allow", "Action": ["s3:GetBucketLocation"], "Resource": [s3_arn(self.bucket)]},
            ],
        }


class CredentialVendor:
    def __init__(self, iam, settings):
        self._iam = iam
        self._settings = settings

    def storage_credentials(self, user: str, location: str, *, writable: bool, fresh: bool = False) -> list[dict]:
        """The spec's ``storage-credentials`` for a table location: one entry, or none when the location
        cannot be scoped. ``fresh``: new credentials (a refresh), else the user's current ones for this
        location while at least half their lifetime is left."""
        scope = TableScope.of_location(location)
        if scope is None:
            log.warning("not vending credentials for the table location %r: no bucket and prefix", location)
            return []
        ttl = self._settings.vended_credentials_ttl_seconds
        sessions = self._iam.sessions
        session = (sessions.issue if fresh else sessions.reusable)(user, scope.policy(writable), ttl)
        config = {
            "s3.access-key-id": session.access_key,
            "s3.secret-access-key": session.secret_key,
            "s3.session-token": session.token,
            "s3.session-token-expires-at-ms": str(int(session.expires_at * 1000)),
        }
        return [{"prefix": scope.location, "config": config}]

    def table_config(self, credentials: list[dict], endpoint: str, refresh_path: str) -> dict[str, str]:
        """The LoadTableResult ``config`` keys that go with vended credentials: the credentials themselves
        (for clients that read only ``config``), where the S3 API is, and where to refresh them."""
        if not credentials:
            return {}
        return {
            **credentials[0]["config"],
            "s3.endpoint": endpoint,
            "s3.path-style-access": "true",
            "client.region": self._settings.region,
            # Java's S3FileIO fetches new credentials here (relative to the catalog URI) before expiry.
            "client.refresh-credentials-endpoint": refresh_path,
        }
