"""A bucket's CORS configuration (``?cors``): its rules as values, their XML, and which rule a
cross-origin request matches, as S3 decides it.

A rule matches when the request's Origin matches one of its AllowedOrigin patterns (case-sensitive),
its method is one of the AllowedMethod (for a preflight, and for any request that carries one, the
``Access-Control-Request-Method`` header stands for the method, as S3 takes it), and every header of
``Access-Control-Request-Headers`` matches an AllowedHeader pattern (case-insensitive). A pattern
holds at most one ``*``, which stands for any run of characters, none included. The first matching
rule decides the answer's ``Access-Control-*`` headers.

Parsed configurations are kept briefly per bucket (``bucket_cors``), so a request with an Origin does
not read the document each time; one changed through this process is seen at once, one changed by
another server in front of the same store within ``ttl`` seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..store import ObjectStore
from ..store.parsed_configs import ParsedConfigs
from .errors import S3Error
from .xmlio import XmlWriter, child_text, parse_xml

CONFIG_NAME = "cors"
MAX_RULES = 100
MAX_ID_LENGTH = 255
METHODS = ("GET", "PUT", "POST", "DELETE", "HEAD")
# The request headers a cached answer depends on: every CORS answer names them.
VARY = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"
_MALFORMED = "The XML you provided was not well-formed or did not validate against our published schema"


def _pattern(value: str, what: str, *, ignore_case: bool) -> re.Pattern[str]:
    if value.count("*") > 1:
        raise S3Error("InvalidRequest", f'{what} "{value}" can not have more than one wildcard.')
    return re.compile(".*".join(map(re.escape, value.split("*"))), re.IGNORECASE if ignore_case else 0)


@dataclass(frozen=True)
class CorsRule:
    allowed_methods: tuple[str, ...]
    allowed_origins: tuple[str, ...]
    allowed_headers: tuple[str, ...] = ()
    expose_headers: tuple[str, ...] = ()
    max_age_seconds: int | None = None
    rule_id: str | None = None
    # The patterns, compiled once per parsed configuration (and checked by compiling them).
    _origins: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    _headers: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        origins = tuple(_pattern(o, "AllowedOrigin", ignore_case=False) for o in self.allowed_origins)
        headers = tuple(_pattern(h, "AllowedHeader", ignore_case=True) for h in self.allowed_headers)
        object.__setattr__(self, "_origins", origins)
        object.__setattr__(self, "_headers", headers)

    def matches(self, origin: str, method: str, requested_headers: list[str]) -> bool:
        return (
            method in self.allowed_methods
            and any(p.fullmatch(origin) for p in self._origins)
            and all(any(p.fullmatch(h) for p in self._headers) for h in requested_headers)
        )

    def answer_headers(self, origin: str, requested_headers: list[str]) -> dict[str, str]:
        """The ``Access-Control-*`` headers of an answer this rule allows, as S3 sends them: a rule
        allowing any origin answers ``*``, else the origin itself, with credentials allowed."""
        headers = {"Vary": VARY, "Access-Control-Allow-Methods": ", ".join(self.allowed_methods)}
        if "*" in self.allowed_origins:
            headers["Access-Control-Allow-Origin"] = "*"
        else:
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Allow-Credentials"] = "true"
        if requested_headers:
            headers["Access-Control-Allow-Headers"] = ", ".join(requested_headers)
        if self.expose_headers:
            headers["Access-Control-Expose-Headers"] = ", ".join(self.expose_headers)
        if self.max_age_seconds is not None:
            headers["Access-Control-Max-Age"] = str(self.max_age_seconds)
        return headers


@dataclass(frozen=True)
class CorsConfiguration:
    rules: tuple[CorsRule, ...]

    def match(self, origin: str, method: str, requested_headers: list[str]) -> CorsRule | None:
        return next((rule for rule in self.rules if rule.matches(origin, method, requested_headers)), None)


def requested_headers(value: str | None) -> list[str]:
    """The names of an ``Access-Control-Request-Headers`` value, lower-cased, as S3 echoes them."""
    return [name.strip().lower() for name in (value or "").split(",") if name.strip()]


def parse(document: bytes) -> CorsConfiguration:
    """A ``<CORSConfiguration>`` of 1 to 100 ``<CORSRule>``: MalformedXML unless each has an
    AllowedMethod and an AllowedOrigin; InvalidRequest for a method S3 does not allow or a pattern
    with two wildcards."""
    root = parse_xml(document, "CORSConfiguration")
    elements = root.findall("CORSRule")
    if not elements or len(elements) > MAX_RULES or len(elements) != len(root):
        raise S3Error("MalformedXML", _MALFORMED)
    return CorsConfiguration(tuple(_rule(element) for element in elements))


def _rule(element) -> CorsRule:
    def texts(tag: str) -> tuple[str, ...]:
        return tuple((child.text or "").strip() for child in element.findall(tag))

    methods, origins = texts("AllowedMethod"), texts("AllowedOrigin")
    if not methods or not origins:
        raise S3Error("MalformedXML", _MALFORMED)
    for method in methods:
        if method not in METHODS:
            raise S3Error("InvalidRequest",
                          f"Found unsupported HTTP method in CORS config. Unsupported method is {method}")
    rule_id = child_text(element, "ID")
    if rule_id is not None and len(rule_id) > MAX_ID_LENGTH:
        raise S3Error("InvalidArgument", f"The ID of a CORS rule can be at most {MAX_ID_LENGTH} characters.")
    max_age = child_text(element, "MaxAgeSeconds")
    if max_age is not None and not max_age.strip().isdigit():
        raise S3Error("MalformedXML", _MALFORMED)
    return CorsRule(
        allowed_methods=methods,
        allowed_origins=origins,
        allowed_headers=texts("AllowedHeader"),
        expose_headers=texts("ExposeHeader"),
        max_age_seconds=None if max_age is None else int(max_age),
        rule_id=rule_id,
    )


def to_xml(configuration: CorsConfiguration) -> bytes:
    """The document GetBucketCors answers (and the one kept)."""
    writer = XmlWriter("CORSConfiguration")
    for rule in configuration.rules:
        writer.open("CORSRule").element("ID", rule.rule_id)
        for tag, values in (("AllowedHeader", rule.allowed_headers), ("AllowedMethod", rule.allowed_methods),
                            ("AllowedOrigin", rule.allowed_origins), ("ExposeHeader", rule.expose_headers)):
            for value in values:
                writer.element(tag, value)
        writer.element("MaxAgeSeconds", rule.max_age_seconds).close("CORSRule")
    return writer.to_bytes()


def bucket_cors(store: ObjectStore) -> ParsedConfigs[CorsConfiguration]:
    """Each bucket's parsed CORS configuration, kept briefly (see the module docstring)."""
    return ParsedConfigs(store, CONFIG_NAME, parse)