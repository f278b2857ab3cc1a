"""What a verified request proves: who signed it, how, and what its body must still match."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AuthResult:
    access_key: str
    kind: str  # "header-v4" | "query-v4" | "header-v2" | "query-v2" | "anonymous"
    region: str  # "" for SigV2
    service: str
    date: str  # the credential scope's YYYYMMDD; "" for SigV2
    amz_date: str  # the signing time as YYYYMMDDTHHMMSSZ; "" for SigV2
    # The payload hash the signature covers: a SHA-256 hex digest the body must match,
    # UNSIGNED-PAYLOAD (presigned URLs too), or a STREAMING-* marker for aws-chunked bodies.
    payload: str
    signing_key: bytes = field(repr=False)  # b"" for SigV2; chunk signatures chain from it
    seed_signature: str

    @property
    def scope(self) -> str:
        return f"{self.date}/{self.region}/{self.service}/aws4_request"
