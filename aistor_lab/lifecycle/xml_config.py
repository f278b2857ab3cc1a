"""S3's ``LifecycleConfiguration`` XML: parsed and validated with the errors AWS gives, and written back
for GET (and for the copy kept with the bucket, which the runner parses again).

Refused as S3 refuses: a malformed document or rule (MalformedXML: no rule, a bad Status, an empty
Expiration, both Days and Date, both a rule Prefix and a Filter, an unknown element), values out of
range (InvalidArgument: Days, NoncurrentDays or DaysAfterInitiation not positive, a Date not at
midnight UTC, an ID over 255 characters, IDs not unique, more than 1000 rules), and tag filters on
the actions that cannot have them (InvalidRequest). Transitions need a second storage class, which
this server does not have: InvalidStorageClass, as S3 answers a class it does not know.
"""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from .rules import (
    DISABLED,
    ENABLED,
    Configuration,
    Expiration,
    Filter,
    NoncurrentExpiration,
    Predicates,
    Rule,
)

S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/"
MAX_RULES = 1000
MAX_ID_LENGTH = 255
MAX_NEWER_NONCURRENT_VERSIONS = 100
_TRANSITIONS = ("Transition", "NoncurrentVersionTransition")


class LifecycleError(Exception):
    """A configuration S3 would refuse: ``code`` is the S3 error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _malformed(detail: str = "") -> LifecycleError:
    message = "The XML you provided was not well-formed or did not validate against our published schema"
    return LifecycleError("MalformedXML", f"{message}{': ' + detail if detail else ''}.")


def _invalid(message: str) -> LifecycleError:
    return LifecycleError("InvalidArgument", message)


# -- reading ---------------------------------------------------------------------------------------
def _local(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""


def _children(element: ET.Element, allowed: tuple[str, ...], repeated: tuple[str, ...] = ()) -> dict:
    """The child elements by local name: one each, or a list for the ``repeated`` names. An element
    not ``allowed``, or a single one given twice, makes the document malformed."""
    found: dict[str, ET.Element | list[ET.Element]] = {name: [] for name in repeated}
    for child in element:
        name = _local(child)
        if name not in allowed and name not in repeated:
            raise _malformed(f"unexpected <{name}> in <{_local(element)}>")
        if name in repeated:
            found[name].append(child)
        elif name in found:
            raise _malformed(f"<{name}> given twice in <{_local(element)}>")
        else:
            found[name] = child
    return found


def _text(element: ET.Element | None) -> str | None:
    return None if element is None else (element.text or "").strip()


def _integer(element: ET.Element | None, name: str) -> int | None:
    text = _text(element)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise _malformed(f"{name} must be an integer") from None


def _positive(value: int | None, message: str) -> int | None:
    if value is not None and value <= 0:
        raise _invalid(message)
    return value


def _date(element: ET.Element | None) -> float | None:
    text = _text(element)
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise _invalid("Date must be provided in ISO 8601 format") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    if (moment.hour, moment.minute, moment.second, moment.microsecond) != (0, 0, 0, 0):
        raise _invalid("'Date' must be at midnight GMT")
    return moment.timestamp()


def _predicates(element: ET.Element, *, conjunction: bool) -> Predicates:
    sizes = ("ObjectSizeGreaterThan", "ObjectSizeLessThan")
    if conjunction:
        found = _children(element, ("Prefix", *sizes), repeated=("Tag",))
        tag_elements = found.pop("Tag")
    else:
        found = _children(element, ("Prefix", "Tag", "And", *sizes))
        tag_elements = [found["Tag"]] if "Tag" in found else []
    tags = tuple(_tag(tag) for tag in tag_elements)
    if len({key for key, _ in tags}) != len(tags):
        raise LifecycleError("InvalidRequest", "Duplicate Tag Keys are not allowed")
    greater = _integer(found.get("ObjectSizeGreaterThan"), "ObjectSizeGreaterThan")
    less = _integer(found.get("ObjectSizeLessThan"), "ObjectSizeLessThan")
    if (greater is not None and greater < 0) or (less is not None and less <= 0):
        raise _invalid("ObjectSizeGreaterThan must not be negative and ObjectSizeLessThan must be positive")
    predicates = Predicates(_text(found.get("Prefix")), tags, greater, less)
    if conjunction and predicates == Predicates():
        raise _malformed("<And> must hold at least one predicate")
    return predicates


def _tag(element: ET.Element) -> tuple[str, str]:
    found = _children(element, ("Key", "Value"))
    key = _text(found.get("Key"))
    if not key or len(key) > 128:
        raise LifecycleError("InvalidTag", "The TagKey you have provided is invalid")
    value = _text(found.get("Value")) or ""
    if len(value) > 256:
        raise LifecycleError("InvalidTag", "The TagValue you have provided is invalid")
    return key, value


def _filter(element: ET.Element) -> Filter:
    conjunction = element.find("{*}And")
    return Filter(
        own=_predicates(element, conjunction=False),
        conjunction=None if conjunction is None else _predicates(conjunction, conjunction=True),
    )


def _expiration(element: ET.Element) -> Expiration:
    found = _children(element, ("Days", "Date", "ExpiredObjectDeleteMarker"))
    days = _integer(found.get("Days"), "Days")
    date = _date(found.get("Date"))
    marker_text = _text(found.get("ExpiredObjectDeleteMarker"))
    if marker_text is not None and marker_text not in ("true", "false"):
        raise _malformed("ExpiredObjectDeleteMarker must be true or false")
    marker = None if marker_text is None else marker_text == "true"
    if days is None and date is None and marker is None:
        raise _malformed("<Expiration> needs Days, Date or ExpiredObjectDeleteMarker")
    if days is not None and date is not None:
        raise _malformed("<Expiration> takes Days or Date, not both")
    if marker is not None and (days is not None or date is not None):
        raise _invalid(
            "ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle Expiration Policy"
        )
    _positive(days, "'Days' for Expiration action must be a positive integer")
    return Expiration(days, date, marker)


def _noncurrent(element: ET.Element) -> NoncurrentExpiration:
    found = _children(element, ("NoncurrentDays", "NewerNoncurrentVersions"))
    days = _integer(found.get("NoncurrentDays"), "NoncurrentDays")
    newer = _integer(found.get("NewerNoncurrentVersions"), "NewerNoncurrentVersions")
    if days is None and newer is None:
        raise _malformed("<NoncurrentVersionExpiration> needs NoncurrentDays")
    _positive(days, "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer")
    if newer is not None and not 0 < newer <= MAX_NEWER_NONCURRENT_VERSIONS:
        raise _invalid(f"'NewerNoncurrentVersions' must be a positive integer up to {MAX_NEWER_NONCURRENT_VERSIONS}")
    return NoncurrentExpiration(days, newer)


def _abort_days(element: ET.Element) -> int:
    days = _integer(_children(element, ("DaysAfterInitiation",)).get("DaysAfterInitiation"), "DaysAfterInitiation")
    if days is None:
        raise _malformed("<AbortIncompleteMultipartUpload> needs DaysAfterInitiation")
    _positive(days, "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer")
    return days


def _rule(element: ET.Element) -> Rule:
    found = _children(element, ("ID", "Status", "Prefix", "Filter", "Expiration", "NoncurrentVersionExpiration",
                                "AbortIncompleteMultipartUpload"), repeated=_TRANSITIONS)
    if found["Transition"] or found["NoncurrentVersionTransition"]:
        raise LifecycleError("InvalidStorageClass", "The storage class you specified is not valid: this server "
                                                    "has one storage class, STANDARD, and no transitions")
    rule_id = _text(found.get("ID")) or uuid.uuid4().hex  # S3 names a rule put without an ID
    if len(rule_id) > MAX_ID_LENGTH:
        raise _invalid(f"ID length should not exceed allowed limit of {MAX_ID_LENGTH}")
    status = _text(found.get("Status"))
    if status not in (ENABLED, DISABLED):
        raise _malformed("Status must be Enabled or Disabled")
    if "Prefix" in found and "Filter" in found:
        raise _malformed("a rule takes a Prefix or a Filter, not both")
    rule = Rule(
        id=rule_id,
        status=status,
        legacy_prefix=_text(found.get("Prefix")),
        filter=_filter(found["Filter"]) if "Filter" in found else None,
        expiration=_expiration(found["Expiration"]) if "Expiration" in found else None,
        noncurrent_expiration=_noncurrent(found["NoncurrentVersionExpiration"])
        if "NoncurrentVersionExpiration" in found else None,
        abort_after_days=_abort_days(found["AbortIncompleteMultipartUpload"])
        if "AbortIncompleteMultipartUpload" in found else None,
    )
    if rule.expiration is None and rule.noncurrent_expiration is None and rule.abort_after_days is None:
        raise LifecycleError("InvalidRequest", "At least one action needs to be specified in a rule")
    tagged = rule.filter is not None and rule.filter.has_tags
    if tagged and rule.abort_after_days is not None:
        raise LifecycleError("InvalidRequest", "AbortIncompleteMultipartUpload cannot be specified with Tags.")
    if tagged and rule.expiration is not None and rule.expiration.expired_object_delete_marker is not None:
        raise LifecycleError("InvalidRequest", "ExpiredObjectDeleteMarker cannot be specified with Tags.")
    return rule


def parse(document: bytes) -> Configuration:
    """A ``LifecycleConfiguration`` document as values; LifecycleError when S3 would refuse it."""
    try:
        root = ET.fromstring(document)
    except ET.ParseError as exc:
        raise _malformed(str(exc)) from None
    if _local(root) != "LifecycleConfiguration":
        raise _malformed(f"expected <LifecycleConfiguration>, got <{_local(root)}>")
    rules = tuple(_rule(element) for element in _children(root, (), repeated=("Rule",))["Rule"])
    if not rules:
        raise _malformed("a lifecycle configuration needs at least one Rule")
    if len(rules) > MAX_RULES:
        raise _invalid(f"Lifecycle configuration allows a maximum of {MAX_RULES} rules")
    if len({rule.id for rule in rules}) != len(rules):
        raise _invalid("Rule ID must be unique. Found same ID for more than one rule")
    return Configuration(rules)


# -- writing ---------------------------------------------------------------------------------------
def _add(parent: ET.Element, tag: str, value: object = None) -> ET.Element:
    child = ET.SubElement(parent, tag)
    if value is not None:
        child.text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return child


def _write_predicates(parent: ET.Element, predicates: Predicates) -> None:
    if predicates.prefix is not None:
        _add(parent, "Prefix", predicates.prefix)
    for key, value in predicates.tags:
        tag = _add(parent, "Tag")
        _add(tag, "Key", key)
        _add(tag, "Value", value)
    if predicates.size_greater_than is not None:
        _add(parent, "ObjectSizeGreaterThan", predicates.size_greater_than)
    if predicates.size_less_than is not None:
        _add(parent, "ObjectSizeLessThan", predicates.size_less_than)


def _write_rule(parent: ET.Element, rule: Rule) -> None:
    element = _add(parent, "Rule")
    _add(element, "ID", rule.id)
    if rule.legacy_prefix is not None:
        _add(element, "Prefix", rule.legacy_prefix)
    if rule.filter is not None:
        filter_element = _add(element, "Filter")
        _write_predicates(filter_element, rule.filter.own)
        if rule.filter.conjunction is not None:
            _write_predicates(_add(filter_element, "And"), rule.filter.conjunction)
    _add(element, "Status", rule.status)
    if (expiration := rule.expiration) is not None:
        expiration_element = _add(element, "Expiration")
        if expiration.days is not None:
            _add(expiration_element, "Days", expiration.days)
        if expiration.date is not None:
            date = datetime.fromtimestamp(expiration.date, UTC)
            _add(expiration_element, "Date", date.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
        if expiration.expired_object_delete_marker is not None:
            _add(expiration_element, "ExpiredObjectDeleteMarker", expiration.expired_object_delete_marker)
    if (noncurrent := rule.noncurrent_expiration) is not None:
        noncurrent_element = _add(element, "NoncurrentVersionExpiration")
        if noncurrent.noncurrent_days is not None:
            _add(noncurrent_element, "NoncurrentDays", noncurrent.noncurrent_days)
        if noncurrent.newer_noncurrent_versions is not None:
            _add(noncurrent_element, "NewerNoncurrentVersions", noncurrent.newer_noncurrent_versions)
    if rule.abort_after_days is not None:
        _add(_add(element, "AbortIncompleteMultipartUpload"), "DaysAfterInitiation", rule.abort_after_days)


def to_xml(configuration: Configuration) -> bytes:
    """The document GET answers: the rules as put (generated IDs filled in)."""
    root = ET.Element("LifecycleConfiguration", xmlns=S3_NS)
    for rule in configuration.rules:
        _write_rule(root, rule)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)
