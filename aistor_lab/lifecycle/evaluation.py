"""What the rules ask of one key, given all its versions (newest first), at a moment: MinIO's and S3's
evaluation rules.

- The current version expires ``Days`` after it was written (see rules.due_after_days) or on
  ``Date``: deleted in an unversioned bucket, hidden behind a delete marker in a versioned one.
- A noncurrent version goes ``NoncurrentDays`` after it became noncurrent, i.e. after the next newer
  version was written, unless it is one of the ``NewerNoncurrentVersions`` newest noncurrent ones.
- A delete marker that is the key's only version left goes with ``ExpiredObjectDeleteMarker``, or
  ``Days`` after it was written (as MinIO and S3 clean them with a Days rule).
- An unfinished multipart upload is aborted ``DaysAfterInitiation`` after it started.
A rule with tag filters matches the versions that carry all its tags (ObjectInfo.tags of the entries).
When several rules match, any one that makes a version due is enough (the first is reported).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from ..store import ObjectInfo, ObjectVersion, UploadInfo
from .rules import Rule, due_after_days

EXPIRE_CURRENT = "expire current version"
DELETE_NONCURRENT = "delete noncurrent version"
REMOVE_DELETE_MARKER = "remove expired delete marker"


@dataclass(frozen=True)
class Action:
    kind: str  # EXPIRE_CURRENT, DELETE_NONCURRENT, REMOVE_DELETE_MARKER
    key: str
    version_id: str | None  # of the version to remove; for EXPIRE_CURRENT, of the current one
    etag: str  # of the current version, for EXPIRE_CURRENT's conditional delete
    rule_id: str


def _current_due(rule: Rule, written: float, day_seconds: float) -> float | None:
    expiration = rule.expiration
    if expiration is None:
        return None
    if expiration.date is not None:
        return expiration.date
    if expiration.days is not None:
        return due_after_days(written, expiration.days, day_seconds)
    return None


def _marker_due(rule: Rule, written: float, day_seconds: float) -> float | None:
    expiration = rule.expiration
    if expiration is None:
        return None
    if expiration.expired_object_delete_marker:
        return written
    if expiration.days is not None:
        return due_after_days(written, expiration.days, day_seconds)
    return None


def _noncurrent_due(rule: Rule, newer_noncurrent: int, noncurrent_since: float, day_seconds: float) -> float | None:
    noncurrent = rule.noncurrent_expiration
    if noncurrent is None:
        return None
    if noncurrent.newer_noncurrent_versions is not None and newer_noncurrent < noncurrent.newer_noncurrent_versions:
        return None
    return due_after_days(noncurrent_since, noncurrent.noncurrent_days or 0, day_seconds)


def _first_due(rules: list[Rule], key: str, size: int | None, tags: dict[str, str] | None, now: float,
               due) -> Rule | None:
    """``size`` and ``tags`` None: a delete marker or an upload."""
    for rule in rules:
        when = due(rule) if rule.matches(key, size, tags) else None
        if when is not None and when <= now:
            return rule
    return None


def key_actions(rules: list[Rule], versions: list[ObjectVersion], now: float, day_seconds: float) -> list[Action]:
    """The actions due on one key; ``versions`` are all of its versions, newest (the latest) first."""
    latest = versions[0]
    key = latest.info.key
    actions = []
    if latest.is_delete_marker:
        if len(versions) == 1 and (rule := _first_due(
                rules, key, None, None, now, lambda r: _marker_due(r, latest.info.last_modified, day_seconds))):
            actions.append(Action(REMOVE_DELETE_MARKER, key, latest.info.version_id, "", rule.id))
    # A version written after the run began (after it looked for live tables) waits for the next run.
    elif latest.info.last_modified <= now and (rule := _first_due(
            rules, key, latest.info.size, latest.info.tags, now,
            lambda r: _current_due(r, latest.info.last_modified, day_seconds))):
        actions.append(Action(EXPIRE_CURRENT, key, latest.info.version_id, latest.info.etag, rule.id))
    for newer_noncurrent, (successor, version) in enumerate(pairwise(versions)):
        size, tags = (None, None) if version.is_delete_marker else (version.info.size, version.info.tags)
        since = successor.info.last_modified
        rule = _first_due(rules, key, size, tags, now,
                          lambda r, n=newer_noncurrent, t=since: _noncurrent_due(r, n, t, day_seconds))
        if rule is not None:
            actions.append(Action(DELETE_NONCURRENT, key, version.info.version_id, "", rule.id))
    return actions


def current_expiry(rules: list[Rule], info: ObjectInfo, day_seconds: float) -> tuple[float, str] | None:
    """When the current version ``info`` falls due, and by which rule (the earliest due)."""
    dues = [(due, rule.id) for rule in rules if rule.matches(info.key, info.size, info.tags)
            and (due := _current_due(rule, info.last_modified, day_seconds)) is not None]
    return min(dues) if dues else None


def upload_due(rules: list[Rule], upload: UploadInfo, now: float, day_seconds: float) -> Rule | None:
    """The rule that aborts an unfinished multipart upload now, if one does."""
    return _first_due(rules, upload.key, None, None, now,
                      lambda r: None if r.abort_after_days is None
                      else due_after_days(upload.initiated, r.abort_after_days, day_seconds))
