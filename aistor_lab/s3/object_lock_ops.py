"""S3 Object Lock over the wire: a bucket's lock configuration (PUT/GET ``?object-lock``), the retention
and legal hold of one object version (PUT/GET ``?retention`` and ``?legal-hold``), the lock a write
gives its new version (``x-amz-object-lock-*`` headers, else the bucket's default retention), the lock
headers of reads, and the governance bypass of deletes and retention changes.

What a lock forbids is the store's rule (store/object_lock.py), checked in the transaction of the
write it guards; this module decides what a request asks for and whether the caller may ask it.

A bucket has Object Lock exactly when its ``object-lock`` configuration document exists: CreateBucket
with ``x-amz-bucket-object-lock-enabled: true`` writes it, and so does the first
PutObjectLockConfiguration on a bucket whose versioning is enabled (as AWS allows). It cannot be
removed, and such a bucket's versioning cannot be suspended.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..store import NO_LOCK, VERSIONING_ENABLED, ObjectLock
from ..store.object_lock import MODES
from .errors import S3Error
from .object_versions import read_object, requested_version
from .xmlio import XmlWriter, child_text, iso8601, parse_xml

if TYPE_CHECKING:
    from .handler import S3Handler

CONFIG_NAME = "object-lock"
BYPASS_HEADER = "x-amz-bypass-governance-retention"
MODE_HEADER = "x-amz-object-lock-mode"
UNTIL_HEADER = "x-amz-object-lock-retain-until-date"
HOLD_HEADER = "x-amz-object-lock-legal-hold"
_DAY = 86400.0
_YEAR_DAYS = 365  # a default retention in years counts 365-day years
_MAX_DAYS, _MAX_YEARS = 36500, 100  # S3's longest default retention: 100 years

_MALFORMED = "The XML you provided was not well-formed or did not validate against our published schema"
_NOT_LOCKED = "Bucket is missing Object Lock Configuration"


@dataclass(frozen=True)
class LockConfiguration:
    """The Object Lock configuration of a bucket that has Object Lock: its default retention, if any
    (``mode`` with exactly one of ``days`` and ``years``)."""

    mode: str | None = None
    days: int | None = None
    years: int | None = None

    def default_retention(self, now: float) -> tuple[str | None, float | None]:
        """The retention a write without retention headers gets: (mode, until), or (None, None)."""
        if self.mode is None:
            return None, None
        days = self.days if self.days is not None else (self.years or 0) * _YEAR_DAYS
        return self.mode, now + days * _DAY

    def to_document(self) -> bytes:
        """The stored form: compact JSON, ``{}`` for a bucket with Object Lock and no default retention."""
        fields = {"mode": self.mode, "days": self.days, "years": self.years}
        return json.dumps({name: value for name, value in fields.items() if value is not None}).encode()

    @classmethod
    def from_document(cls, document: bytes) -> LockConfiguration:
        fields = json.loads(document)
        return cls(fields.get("mode"), fields.get("days"), fields.get("years"))

    def to_xml(self) -> bytes:
        xml = XmlWriter("ObjectLockConfiguration").element("ObjectLockEnabled", "Enabled")
        if self.mode is not None:
            xml.open("Rule").open("DefaultRetention").element("Mode", self.mode)
            xml.element("Days", self.days).element("Years", self.years)
            xml.close("DefaultRetention").close("Rule")
        return xml.to_bytes()


def parse_configuration(body: bytes) -> LockConfiguration:
    """A PutObjectLockConfiguration document, refused as S3 refuses it: a malformed document, a status
    other than Enabled, a mode not spelled as S3 spells it, or Days and Years both or neither are
    MalformedXML; a period that is not a positive number of at most 100 years is InvalidRetentionPeriod
    (AWS names it InvalidArgument; Ceph's conformance suite and RGW, InvalidRetentionPeriod)."""
    root = parse_xml(body, "ObjectLockConfiguration")
    if _text(root, "ObjectLockEnabled") != "Enabled":
        raise S3Error("MalformedXML", _MALFORMED)
    rule = root.find("Rule")
    if rule is None:
        return LockConfiguration()
    retention = rule.find("DefaultRetention")
    if retention is None:
        raise S3Error("MalformedXML", _MALFORMED)
    mode, days, years = (_text(retention, tag) for tag in ("Mode", "Days", "Years"))
    if mode not in MODES or (days is None) == (years is None):
        raise S3Error("MalformedXML", _MALFORMED)
    period, limit = (days, _MAX_DAYS) if days is not None else (years, _MAX_YEARS)
    try:
        number = int(period)
    except ValueError:
        raise S3Error("MalformedXML", _MALFORMED) from None
    if not 0 < number <= limit:
        raise S3Error("InvalidRetentionPeriod", "Default retention period must be a positive integer value "
                      f"of at most {limit} {'days' if days is not None else 'years'}.")  # fmt: skip
    return LockConfiguration(mode, number if days is not None else None, number if years is not None else None)


def _text(element, tag: str) -> str | None:
    text = child_text(element, tag)
    return None if text is None else text.strip()


async def bucket_configuration(req: S3Handler, bucket: str) -> LockConfiguration | None:
    """The bucket's Object Lock configuration; None when the bucket has no Object Lock. Raises NoSuchBucket."""
    document = await req.run_read(req.store.get_bucket_config, bucket, CONFIG_NAME)
    return None if document is None else LockConfiguration.from_document(document)


async def _require_object_lock(req: S3Handler) -> None:
    if await bucket_configuration(req, req.bucket) is None:
        raise S3Error("InvalidRequest", _NOT_LOCKED)


# -- the bucket's configuration -------------------------------------------------------------------
async def enable_on_new_bucket(req: S3Handler) -> None:
    """CreateBucket with ``x-amz-bucket-object-lock-enabled: true``: the store makes the bucket versioned
    and able to keep locked versions; its configuration says it has Object Lock. As in S3, asking for
    it takes s3:PutBucketObjectLockConfiguration and s3:PutBucketVersioning besides s3:CreateBucket."""
    req.authorize("s3:PutBucketObjectLockConfiguration", req.bucket)
    req.authorize("s3:PutBucketVersioning", req.bucket)
    await req.run_blocking(req.store.create_bucket, req.bucket, object_lock=True)
    await req.run_blocking(req.store.put_bucket_config, req.bucket, CONFIG_NAME, LockConfiguration().to_document())


def object_lock_requested(req: S3Handler) -> bool:
    return req.request.headers.get("x-amz-bucket-object-lock-enabled", "").strip().lower() == "true"


async def put_lock_configuration(req: S3Handler) -> None:
    configuration = parse_configuration(bytes(req.body))
    bucket = await req.run_read(req.store.get_bucket, req.bucket)
    if await bucket_configuration(req, req.bucket) is None and bucket.versioning != VERSIONING_ENABLED:
        raise S3Error("InvalidBucketState", "Versioning must be 'Enabled' on the bucket to apply a Object Lock "
                      "configuration")  # fmt: skip
    await req.run_blocking(req.store.put_bucket_config, req.bucket, CONFIG_NAME, configuration.to_document())
    req.send_empty()


async def get_lock_configuration(req: S3Handler) -> None:
    configuration = await bucket_configuration(req, req.bucket)
    if configuration is None:
        raise S3Error("ObjectLockConfigurationNotFoundError", "Object Lock configuration does not exist for this "
                      "bucket", 404)  # fmt: skip
    req.send_xml(configuration.to_xml())


# -- one version's retention and legal hold ----------------------------------------------------------
async def put_retention(req: S3Handler) -> None:
    await _require_object_lock(req)
    mode, until = _parse_retention(bytes(req.body))
    bypass = governance_bypass(req, req.key)
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    lock = ObjectLock(mode, until, info.lock.legal_hold)
    await req.run_blocking(
        req.store.set_object_lock, req.bucket, req.key, info.version_id, lock, bypass_governance=bypass
    )
    req.send_empty()


def _parse_retention(body: bytes) -> tuple[str | None, float | None]:
    """Mode and retain-until date of a PutObjectRetention document; both absent removes the retention
    (allowed once it has lapsed, or for GOVERNANCE with the bypass)."""
    root = parse_xml(body, "Retention")
    mode, date = _text(root, "Mode"), _text(root, "RetainUntilDate")
    if mode is None and date is None:
        return None, None
    if mode not in MODES or not date:
        raise S3Error("MalformedXML", _MALFORMED)
    return mode, _future_date(date, "MalformedXML")


def _future_date(text: str, malformed_code: str) -> float:
    """An ISO 8601 retain-until date (UTC when it names no zone), which must lie ahead."""
    try:
        date = datetime.fromisoformat(text)
    except ValueError:
        raise S3Error(malformed_code, f"The retain until date {text!r} is not an ISO 8601 date.") from None
    until = (date if date.tzinfo else date.replace(tzinfo=UTC)).timestamp()
    if until <= time.time():
        raise S3Error("InvalidArgument", "The retain until date must be in the future!")
    return until


async def get_retention(req: S3Handler) -> None:
    await _require_object_lock(req)
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    if info.lock.mode is None:
        raise S3Error("NoSuchObjectLockConfiguration", "The specified object does not have a ObjectLock "
                      "configuration", 404)  # fmt: skip
    xml = XmlWriter("Retention").element("Mode", info.lock.mode)
    req.send_xml(xml.element("RetainUntilDate", iso8601(info.lock.retain_until)).to_bytes())


async def put_legal_hold(req: S3Handler) -> None:
    await _require_object_lock(req)
    status = _text(parse_xml(bytes(req.body), "LegalHold"), "Status")
    if status not in ("ON", "OFF"):
        raise S3Error("MalformedXML", _MALFORMED)
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    lock = replace(info.lock, legal_hold=status == "ON")
    await req.run_blocking(req.store.set_object_lock, req.bucket, req.key, info.version_id, lock)
    req.send_empty()


async def get_legal_hold(req: S3Handler) -> None:
    """The version's legal hold, ON or OFF. A store keeps a hold as on or off, so a version whose hold
    was never set answers OFF, as one whose hold was lifted does."""
    await _require_object_lock(req)
    info = await read_object(req, req.store.get_object_info, requested_version(req))
    req.send_xml(XmlWriter("LegalHold").element("Status", "ON" if info.lock.legal_hold else "OFF").to_bytes())


# -- writes, reads and deletes of objects -------------------------------------------------------------
async def lock_of_write(req: S3Handler) -> ObjectLock:
    """The lock a PutObject, CopyObject or CreateMultipartUpload gives the version it makes: the
    request's ``x-amz-object-lock-*`` headers (which take s3:PutObjectRetention and
    s3:PutObjectLegalHold, as in S3), else the bucket's default retention. A bucket without Object Lock
    refuses the headers and locks nothing."""
    headers = req.request.headers
    mode, date, hold = (headers.get(name) for name in (MODE_HEADER, UNTIL_HEADER, HOLD_HEADER))
    configuration = await bucket_configuration(req, req.bucket)
    if configuration is None:
        if (mode, date, hold) != (None, None, None):
            raise S3Error("InvalidRequest", _NOT_LOCKED)
        return NO_LOCK
    if (mode is None) != (date is None):
        raise S3Error("InvalidArgument", f"{UNTIL_HEADER} and {MODE_HEADER} must both be supplied")
    if hold not in (None, "ON", "OFF"):
        raise S3Error("InvalidArgument", "Legal Hold must be either of 'ON' or 'OFF'")
    if mode is None:
        mode, until = configuration.default_retention(time.time())
    else:
        if mode not in MODES:
            raise S3Error("InvalidArgument", "Unknown wormMode directive.")
        until = _future_date(date, "InvalidArgument")
        req.authorize("s3:PutObjectRetention", req.bucket, req.key)
    if hold is not None:
        req.authorize("s3:PutObjectLegalHold", req.bucket, req.key)
    return ObjectLock(mode, until, hold == "ON")


def set_lock_headers(req: S3Handler, lock: ObjectLock) -> None:
    """The lock of the version a GET or HEAD answers. As in S3 (and MinIO), the retention headers go
    only to a caller allowed s3:GetObjectRetention, the legal hold only to one allowed s3:GetObjectLegalHold."""
    if lock.mode is not None and _allowed(req, "s3:GetObjectRetention", req.key):
        req.set_header(MODE_HEADER, lock.mode)
        req.set_header(UNTIL_HEADER, iso8601(lock.retain_until))
    if lock.legal_hold and _allowed(req, "s3:GetObjectLegalHold", req.key):
        req.set_header(HOLD_HEADER, "ON")


def governance_bypass(req: S3Handler, key: str) -> bool:
    """Whether a request asks to bypass GOVERNANCE retention (``x-amz-bypass-governance-retention:
    true``) and may: without s3:BypassGovernanceRetention the header changes nothing, so a governed
    version stays protected."""
    if req.request.headers.get(BYPASS_HEADER, "").strip().lower() != "true":
        return False
    return _allowed(req, "s3:BypassGovernanceRetention", key)


def _allowed(req: S3Handler, action: str, key: str) -> bool:
    try:
        req.authorize(action, req.bucket, key)
    except S3Error:
        return False
    return True
