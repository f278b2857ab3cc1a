"""Virtual-host-style addressing, ``BUCKET.DOMAIN[:PORT]/KEY``, for the configured domains only
(``AISTOR_DOMAIN``, as MinIO's ``MINIO_DOMAIN``): without one, nothing is guessed from the Host.

A Host equal to a domain, or under none of them, is path style. The bucket is everything before
``.DOMAIN`` (bucket names may hold dots); with nested domains the longest one wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from tornado.httputil import HTTPServerRequest
from tornado.routing import Matcher


def bucket_of_host(host_name: str, domains: Sequence[str]) -> str | None:
    """The bucket a Host (lower case, without port) names, or None for a path-style request."""
    if host_name in domains:
        return None
    for domain in sorted(domains, key=len, reverse=True):
        if host_name.endswith("." + domain):
            return host_name[: -len(domain) - 1] or None  # ".DOMAIN" names no bucket
    return None


class VirtualHosts(Matcher):
    """Routes every request to a bucket's virtual host to the S3 API: there the whole path is a key,
    so ``/_iceberg/...`` is an object, not the catalog."""

    def __init__(self, domains: Sequence[str]) -> None:
        self.domains = tuple(domains)

    def match(self, request: HTTPServerRequest) -> dict | None:
        return {} if bucket_of_host(request.host_name, self.domains) is not None else None
