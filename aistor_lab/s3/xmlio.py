"""Reading the XML bodies S3 requests carry and writing the XML documents S3 answers with."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from email.utils import formatdate

from .errors import S3Error
from .xmlchars import escape_text

S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/"
MAX_XML_BODY = 2 * 1024 * 1024


def iso8601(epoch: float) -> str:
    """The timestamp format of S3 XML bodies, with milliseconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + f".{int(epoch * 1000) % 1000:03d}Z"


def http_date(epoch: float) -> str:
    return formatdate(epoch, usegmt=True)


def parse_xml(body: bytes, root_tag: str) -> ET.Element:
    """Parse a request document and check its root element; namespaces are dropped."""
    if not body.strip():
        raise S3Error("MalformedXML", "The XML you provided was not well-formed or did not validate.")
    try:
        body.decode("utf-8")  # S3 documents are UTF-8; keys in them must not be decoded lossily
    except UnicodeDecodeError:
        raise S3Error("InvalidArgument", "The XML you provided is not valid UTF-8.") from None
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise S3Error("MalformedXML", f"The XML you provided was not well-formed: {exc}") from None
    for element in root.iter():
        if isinstance(element.tag, str) and "}" in element.tag:
            element.tag = element.tag.split("}", 1)[1]
    if root.tag != root_tag:
        raise S3Error("MalformedXML", f"Expected a <{root_tag}> document, got <{root.tag}>.")
    return root


def child_text(element: ET.Element, tag: str) -> str | None:
    found = element.find(tag)
    return None if found is None else (found.text or "")


def _text(value: str) -> str:
    try:
        return escape_text(value)
    except ValueError as exc:
        raise S3Error(
            "InvalidArgument",
            f"The answer would hold a character XML cannot carry ({exc}); ask with encoding-type=url.",
        ) from None


class XmlWriter:
    """A small writer for response documents; values are escaped, tags are trusted. A value
    XML cannot carry makes the whole answer a clean InvalidArgument error, never a broken document.
    ``namespace=None``: a root without the S3 namespace (POST Object's PostResponse, as S3 sends it)."""

    def __init__(self, root: str, namespace: str | None = S3_NS):
        self._root = root
        opening = f'<{root} xmlns="{namespace}">' if namespace else f"<{root}>"
        self._parts: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n' + opening]

    def element(self, tag: str, value: object) -> XmlWriter:
        if value is None:
            return self
        if isinstance(value, bool):
            value = "true" if value else "false"
        self._parts.append(f"<{tag}>{_text(str(value))}</{tag}>")
        return self

    def text(self, value: str) -> XmlWriter:
        self._parts.append(_text(value))
        return self

    def open(self, tag: str) -> XmlWriter:
        self._parts.append(f"<{tag}>")
        return self

    def close(self, tag: str) -> XmlWriter:
        self._parts.append(f"</{tag}>")
        return self

    def to_bytes(self) -> bytes:
        return ("".join(self._parts) + f"</{self._root}>").encode()
