"""Canonical forms of the parts of a request that signatures cover: path, query and headers.

AWS encodes everything but the unreserved characters ``A-Za-z0-9-._~`` as ``%XX`` of the UTF-8
bytes. Decoding goes to bytes, not text, so any byte sequence a client sent survives the round trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote_to_bytes


@dataclass(frozen=True)
class RequestParts:
    """The signed parts of a request, with its query parsed once for every verifier."""

    method: str
    raw_path: str
    raw_query: str
    query: list[tuple[bytes, bytes]]  # decoded pairs in wire order
    params: dict[str, str]  # the first value of each parameter, as text
    headers: Mapping[str, str]

    @classmethod
    def parse(cls, method: str, raw_path: str, raw_query: str, headers: Mapping[str, str]) -> RequestParts:
        pairs = query_pairs(raw_query)
        return cls(method, raw_path, raw_query, pairs, query_params(pairs), headers)


def aws_encode(value: bytes | str, *, keep_slash: bool = False) -> str:
    """Percent-encode as SigV4 does (``quote`` already keeps exactly the unreserved set)."""
    return quote(value, safe="/" if keep_slash else "")


def query_pairs(raw_query: str) -> list[tuple[bytes, bytes]]:
    """Decoded ``(name, value)`` pairs in wire order; ``+`` is a space, as servers parse queries."""
    pairs = []
    for part in raw_query.split("&"):
        if part:
            name, _, value = part.replace("+", " ").partition("=")
            pairs.append((unquote_to_bytes(name), unquote_to_bytes(value)))
    return pairs


def query_params(pairs: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The first value of every parameter, as text (for reading auth parameters)."""
    params: dict[str, str] = {}
    for name, value in pairs:
        params.setdefault(name.decode("utf-8", "replace"), value.decode("utf-8", "replace"))
    return params


def canonical_queries(request: RequestParts, exclude: str = "") -> list[str]:
    """The forms of the query a client may have signed, without repeats.

    First the SigV4 canonical query: decoded, AWS-encoded, sorted by name then value. Then the
    query as sent, only sorted: botocore's SigV4Auth signs that when the URL already carries the
    query, as PyIceberg's requests-built URLs do (``+`` for spaces, ``,`` left bare).
    """
    excluded = exclude.encode()
    encoded = sorted(
        (aws_encode(name), aws_encode(value)) for name, value in request.query if name != excluded
    )
    as_sent = sorted(
        (name, value)
        for name, _, value in (part.partition("=") for part in request.raw_query.split("&") if part)
        if name != exclude
    )
    candidates = ["&".join(f"{name}={value}" for name, value in pairs) for pairs in (encoded, as_sent)]
    return list(dict.fromkeys(candidates))


def canonical_uris(raw_path: str, *, double_encode: bool) -> list[str]:
    """The forms of the path a client may have signed, most likely first, without repeats.

    S3 signers sign the path as sent (normally already AWS-encoded); others may encode it
    differently, which the decoded-and-re-encoded form absorbs. Signers of every other service
    (botocore's SigV4Auth, the AWS Java SDK) normalize the sent path and encode it once more,
    so ``%1F`` is signed as ``%251F``. S3 never double-encodes, so that form is only tried when
    asked for: accepting it there would let a signature for ``/a%41`` pass for ``/a%2541``.
    """
    path = raw_path or "/"
    candidates = [path, aws_encode(unquote_to_bytes(path), keep_slash=True)]
    if double_encode:
        candidates.append(aws_encode(remove_dot_segments(path), keep_slash=True))
    return list(dict.fromkeys(candidates))


def remove_dot_segments(path: str) -> str:
    """RFC 3986 dot-segment removal plus the collapse of empty segments, as AWS signers do."""
    segments: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if segments:
                segments.pop()
        elif segment and segment != ".":
            segments.append(segment)
    lead = "/" if path.startswith("/") else ""
    trail = "/" if path.endswith("/") and segments else ""
    return lead + "/".join(segments) + trail


def header_values(headers: Mapping[str, str], name: str) -> list[str]:
    """Every value of a header: tornado's HTTPHeaders keeps repeats, a plain mapping has one."""
    get_list = getattr(headers, "get_list", None)
    if get_list is not None:
        return get_list(name)
    value = headers.get(name)
    return [] if value is None else [value]


def header_text(value: str) -> str:
    """The text a client sent in a header. HTTP servers (tornado) decode header bytes as latin-1,
    one character per byte, while clients send (and sign) text as UTF-8: the bytes are read again
    as UTF-8. A value that is not UTF-8 stays as it came."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


def canonical_headers(headers: Mapping[str, str], names: Iterable[str]) -> str:
    """``name:value\\n`` for each signed header; repeats joined by commas, runs of spaces folded.
    Values are the text the client signed (``header_text``)."""
    lines = []
    for name in names:
        value = ",".join(" ".join(header_text(v).split()) for v in header_values(headers, name))
        lines.append(f"{name}:{value}\n")
    return "".join(lines)
