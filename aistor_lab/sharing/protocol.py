"""Parsing what a Delta Sharing request carries: the capabilities header, timestamps, numbers, and
the page tokens this server hands out.

Page tokens are opaque to clients but not secret: base64url JSON with an HMAC, so a client cannot
forge one (say, another table's or another version's) and a mangled one is a clear 400.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
from dataclasses import dataclass

from .errors import InvalidParameter

PARQUET, DELTA = "parquet", "delta"
CAPABILITIES_HEADER = "delta-sharing-capabilities"
TABLE_VERSION_HEADER = "Delta-Table-Version"
FILE_ID_HASH_HEADER = "fileidhash"
DEFAULT_MAX_RESULTS = 500
MAX_RESULTS_CAP = 1000


@dataclass(frozen=True)
class Capabilities:
    """What the client said it can take: response formats (in its order), reader features, and
    whether it wants an EndStreamAction line."""

    formats: tuple[str, ...] = (PARQUET,)
    reader_features: frozenset[str] = frozenset()
    include_end_stream: bool = False

    @classmethod
    def parse(cls, header: str | None) -> Capabilities:
        values: dict[str, list[str]] = {}
        for item in (header or "").lower().split(";"):
            key, sep, value = item.partition("=")
            if sep:
                values[key.strip()] = [v.strip() for v in value.split(",") if v.strip()]
        formats = tuple(f for f in values.get("responseformat", []) if f in (PARQUET, DELTA)) or (PARQUET,)
        return cls(formats, frozenset(values.get("readerfeatures", [])),
                   values.get("includeendstreamaction", ["false"])[0] == "true")


def parse_timestamp(text: object, name: str) -> int:
    """ISO 8601 (``2022-01-01T00:00:00Z``; no zone means UTC) to epoch milliseconds."""
    if not isinstance(text, str):
        raise InvalidParameter(f"{name} must be a timestamp string like 2022-01-01T00:00:00Z")
    try:
        parsed = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidParameter(f"{name} {text!r} is not a timestamp like 2022-01-01T00:00:00Z") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return int(parsed.timestamp() * 1000)


def parse_int(value: object, name: str, *, minimum: int = 0) -> int | None:
    """An integer parameter (JSON number or query string), None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidParameter(f"{name} must be an integer")
    try:
        number = int(value)
    except ValueError:
        raise InvalidParameter(f"{name} must be an integer, got {value!r}") from None
    if number < minimum:
        raise InvalidParameter(f"{name} must be at least {minimum}, got {number}")
    return number


def parse_bool(value: str | None) -> bool:
    return value is not None and value.strip().lower() == "true"


def parse_flag(value: object, name: str) -> bool:
    """A boolean of a JSON body: true, false or absent."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InvalidParameter(f"{name} must be true or false")
    return value


def max_results(value: object) -> int:
    number = parse_int(value, "maxResults")
    return DEFAULT_MAX_RESULTS if number is None else min(number, MAX_RESULTS_CAP)


class PageTokens:
    def __init__(self, secret: bytes):
        self._key = hashlib.sha256(b"aistor delta sharing page tokens\0" + secret).digest()

    def encode(self, payload: dict) -> str:
        data = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        mac = hmac.new(self._key, data, hashlib.sha256).digest()[:16]
        return f"{_b64(data)}.{_b64(mac)}"

    def decode(self, token: object, kind: str) -> dict:
        """The payload of a token this server made for ``kind`` requests; InvalidParameter otherwise."""
        try:
            data_text, mac_text = token.split(".")  # type: ignore[union-attr]
            data, mac = _unb64(data_text), _unb64(mac_text)
            expected = hmac.new(self._key, data, hashlib.sha256).digest()[:16]
            payload = json.loads(data) if hmac.compare_digest(mac, expected) else None
        except (AttributeError, ValueError):
            payload = None
        if not isinstance(payload, dict) or payload.get("k") != kind:
            raise InvalidParameter("the page token is not valid for this request")
        return payload


def fingerprint(values: dict) -> str:
    """A short digest of the request parameters a page token must keep unchanged."""
    text = json.dumps(values, separators=(",", ":"), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
