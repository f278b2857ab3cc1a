"""The one settings object of a running service, read from arguments and the environment."""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_ADDRESS = "127.0.0.1:9000"
DEFAULT_ROOT_USER = "minioadmin"
DEFAULT_ROOT_PASSWORD = "minioadmin"
_KMS_KEY_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_DOMAIN = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")


def parse_address(address: str) -> tuple[str, int]:
    """Split ``host:port`` (``:port`` means all interfaces); raises ValueError on nonsense."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"address must be HOST:PORT, got {address!r}")
    return (host.strip("[]") or "0.0.0.0"), int(port)


def parse_kms_secret_key(text: str, variable: str = "AISTOR_KMS_SECRET_KEY") -> tuple[str, bytes]:
    """MinIO's single-key KMS format, ``KEY-NAME:BASE64`` of 32 bytes -> (name, key); ValueError
    (which does not repeat the key) otherwise."""
    name, sep, encoded = text.strip().partition(":")
    try:
        key = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        key = b""
    if not sep or not _KMS_KEY_NAME.fullmatch(name) or len(key) != 32:
        raise ValueError(f"{variable} must be KEY-NAME:BASE64 of 32 random bytes, "
                         "e.g. my-key:$(head -c 32 /dev/urandom | base64)")
    return name, key


def parse_kms_keys(text: str) -> dict[str, bytes]:
    """More named keys of the local key ring, ``NAME:BASE64,NAME:BASE64`` -> {name: key}; ValueError
    on a malformed entry or a name given twice."""
    keys: dict[str, bytes] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, key = parse_kms_secret_key(entry, "each entry of AISTOR_KMS_KEYS")
        if name in keys:
            raise ValueError(f"AISTOR_KMS_KEYS names the key {name!r} twice")
        keys[name] = key
    return keys


def parse_domains(text: str) -> tuple[str, ...]:
    """The domains of virtual-host-style S3 requests, ``s3.example,other.example`` -> a tuple (lower
    case); ValueError on an entry that is not a bare host name."""
    domains = tuple(filter(None, (part.strip().lower() for part in text.split(","))))
    for domain in domains:
        if not _DOMAIN.fullmatch(domain):
            raise ValueError(f"each entry of AISTOR_DOMAIN must be a host name without port, got {domain!r}")
    return domains


@dataclass
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(".data"))
    host: str = "127.0.0.1"
    port: int = 9000
    root_user: str = DEFAULT_ROOT_USER
    root_password: str = field(default=DEFAULT_ROOT_PASSWORD, repr=False)
    # Seals the secrets kept in the store (MinIO's MINIO_KMS_SECRET_KEY): (name, 32 bytes). None: a
    # key derived from the root credentials, which then cannot change without losing those secrets.
    kms_key: tuple[str, bytes] | None = field(default=None, repr=False)
    # More named keys of the local key ring (AISTOR_KMS_KEYS), for SSE-KMS with a key id; ``kms_key``
    # is the key ring's default key (SSE-S3, and SSE-KMS without a key id).
    kms_keys: dict[str, bytes] = field(default_factory=dict, repr=False)
    # Take SSE-C keys over plain HTTP (AISTOR_SSE_C_OVER_HTTP=on), for tests on loopback; AWS and
    # MinIO take them over TLS only.
    sse_c_over_http: bool = False
    region: str = "us-east-1"
    # Domains of virtual-host-style S3 requests (MinIO's MINIO_DOMAIN): ``BUCKET.DOMAIN/KEY``.
    domains: tuple[str, ...] = ()
    # Serve HTTPS with public.crt and private.key of this directory (aistor_lab.tls); None = plain HTTP.
    certs_dir: Path | None = None
    # The address clients outside this machine use (profiles, presigned URLs); None = our own.
    public_endpoint: str | None = None
    # Allowed difference between a request's signing time and ours, as S3 does (15 minutes).
    max_clock_skew_seconds: int = 15 * 60
    # An existing S3-compatible endpoint to keep everything in instead of the local disk.
    store_endpoint: str | None = None
    store_access_key: str | None = None
    store_secret_key: str | None = field(default=None, repr=False)
    store_region: str = "us-east-1"
    store_system_bucket: str = "aistor-system"
    # The Delta Sharing endpoint recipients use (profiles and presigned data URLs); None = our own.
    delta_sharing_endpoint: str | None = None
    # How long the presigned data URLs of Delta Sharing answers stay valid.
    delta_sharing_url_expiry_seconds: int = 3600
    # Lifetime of the temporary S3 credentials the catalog vends, and of its OAuth2 access tokens.
    vended_credentials_ttl_seconds: int = 3600
    oauth_token_ttl_seconds: int = 3600
    # Stop when this process is no longer our parent: a supervisor (the Jupyter extension) that was
    # SIGKILLed cannot stop its child, and an orphaned service would hold the port.
    parent_pid: int | None = None
    # Limits against clients that never finish (http/limits.py), MinIO's timeouts: connections open at
    # once, in all and from one address; the time a connection has to send a request's headers after
    # it opened or its previous answer (idle keep-alive included); the time a body may stall.
    max_connections: int = 4096
    max_connections_per_client: int = 512
    header_timeout_seconds: float = 30
    body_timeout_seconds: float = 60
    # Bucket lifecycle (aistor_lab.lifecycle): how often the rules run (0: never), how many versions
    # and uploads of a bucket one run looks at, and how long a rule's "day" is (shorter only in tests).
    lifecycle_interval_seconds: float = 3600
    lifecycle_batch_size: int = 1000
    lifecycle_day_seconds: float = 86400
    # Table maintenance (aistor_lab.tables.maintenance): how often the background pass maintains
    # each table (0: never; runs on request still work).
    maintenance_interval_seconds: float = 3600

    @property
    def endpoint(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        scheme = "https" if self.certs_dir else "http"
        return f"{scheme}://{host}:{self.port}"

    @classmethod
    def from_env(cls, address: str | None = None, data_dir: str | None = None) -> Settings:
        host, port = parse_address(address or os.environ.get("AISTOR_ADDRESS", DEFAULT_ADDRESS))
        return cls(
            data_dir=Path(data_dir or os.environ.get("AISTOR_DATA_DIR", ".data")),
            host=host,
            port=port,
            root_user=os.environ.get("AISTOR_ROOT_USER", DEFAULT_ROOT_USER),
            root_password=os.environ.get("AISTOR_ROOT_PASSWORD", DEFAULT_ROOT_PASSWORD),
            kms_key=parse_kms_secret_key(kms) if (kms := os.environ.get("AISTOR_KMS_SECRET_KEY")) else None,
            kms_keys=parse_kms_keys(os.environ.get("AISTOR_KMS_KEYS", "")),
            sse_c_over_http=os.environ.get("AISTOR_SSE_C_OVER_HTTP", "").lower() in ("on", "true", "1"),
            region=os.environ.get("AISTOR_REGION", "us-east-1"),
            domains=parse_domains(os.environ.get("AISTOR_DOMAIN", "")),
            certs_dir=Path(os.environ["AISTOR_CERTS_DIR"]) if os.environ.get("AISTOR_CERTS_DIR") else None,
            public_endpoint=os.environ.get("AISTOR_PUBLIC_ENDPOINT") or None,
            store_endpoint=os.environ.get("AISTOR_STORE_ENDPOINT") or None,
            store_access_key=os.environ.get("AISTOR_STORE_ACCESS_KEY") or None,
            store_secret_key=os.environ.get("AISTOR_STORE_SECRET_KEY") or None,
            store_region=os.environ.get("AISTOR_STORE_REGION", "us-east-1"),
            store_system_bucket=os.environ.get("AISTOR_STORE_SYSTEM_BUCKET", "aistor-system"),
            delta_sharing_endpoint=os.environ.get("AISTOR_DELTA_SHARING_ENDPOINT") or None,
            delta_sharing_url_expiry_seconds=int(os.environ.get("AISTOR_DELTA_SHARING_URL_EXPIRY", "3600")),
            vended_credentials_ttl_seconds=int(os.environ.get("AISTOR_VENDED_CREDENTIALS_TTL", "3600")),
            oauth_token_ttl_seconds=int(os.environ.get("AISTOR_OAUTH_TOKEN_TTL", "3600")),
            parent_pid=int(os.environ["AISTOR_PARENT_PID"]) if os.environ.get("AISTOR_PARENT_PID") else None,
            max_connections=int(os.environ.get("AISTOR_MAX_CONNECTIONS", "4096")),
            max_connections_per_client=int(os.environ.get("AISTOR_MAX_CONNECTIONS_PER_CLIENT", "512")),
            header_timeout_seconds=float(os.environ.get("AISTOR_HEADER_TIMEOUT", "30")),
            body_timeout_seconds=float(os.environ.get("AISTOR_BODY_TIMEOUT", "60")),
            lifecycle_interval_seconds=float(os.environ.get("AISTOR_LIFECYCLE_INTERVAL_SECONDS", "3600")),
            lifecycle_batch_size=int(os.environ.get("AISTOR_LIFECYCLE_BATCH_SIZE", "1000")),
            lifecycle_day_seconds=float(os.environ.get("AISTOR_LIFECYCLE_DAY_SECONDS", "86400")),
            maintenance_interval_seconds=float(os.environ.get("AISTOR_MAINTENANCE_INTERVAL_SECONDS", "3600")),
        )
