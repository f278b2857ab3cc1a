"""What lifecycle rules make due, as pure functions of a key's versions and a moment: the day count S3
and MinIO use, NewerNoncurrentVersions, delete markers, filters and uploads (the runner tests drive the
same rules through a server)."""

from __future__ import annotations

from datetime import UTC, datetime

from aistor_lab.lifecycle import parse
from aistor_lab.lifecycle.evaluation import (
    DELETE_NONCURRENT,
    EXPIRE_CURRENT,
    REMOVE_DELETE_MARKER,
    current_expiry,
    key_actions,
    upload_due,
)
from aistor_lab.lifecycle.rules import due_after_days
from aistor_lab.store import ObjectInfo, ObjectVersion, UploadInfo

DAY = 86400.0
T0 = datetime(2026, 3, 10, 15, 30, tzinfo=UTC).timestamp()


def rules(*xml: str):
    body = "".join(f"<Rule><ID>r{i}</ID><Status>Enabled</Status>{x}</Rule>" for i, x in enumerate(xml))
    return parse(f"<LifecycleConfiguration>{body}</LifecycleConfiguration>".encode()).enabled_rules()


def version(key: str, written: float, vid: str, *, latest: bool = False, marker: bool = False, size: int = 10,
            tags: dict[str, str] | None = None):
    info = ObjectInfo("b", key, size, f"etag-{vid}", written, version_id=vid, tags=tags or {})
    return ObjectVersion(info, is_latest=latest, is_delete_marker=marker)


def test_days_end_at_the_midnight_utc_after_them():
    assert due_after_days(T0, 1, DAY) == datetime(2026, 3, 12, tzinfo=UTC).timestamp()
    assert due_after_days(T0, 30, DAY) == datetime(2026, 4, 10, tzinfo=UTC).timestamp()
    # A shortened test day counts exactly, without rounding.
    assert due_after_days(T0, 3, 10) == T0 + 30


def test_current_versions_expire_by_days_date_and_filters():
    found = rules("<Filter><And><Prefix>logs/</Prefix><ObjectSizeGreaterThan>5</ObjectSizeGreaterThan></And>"
                  "</Filter><Expiration><Days>1</Days></Expiration>",
                  "<Filter><Prefix>old/</Prefix></Filter><Expiration><Date>2020-01-01T00:00:00Z</Date></Expiration>",
                  "<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Expiration><Days>1</Days></Expiration>")
    due = due_after_days(T0, 1, DAY)
    logs = [version("logs/a", T0, "v1", latest=True)]
    assert key_actions(found, logs, due - 1, DAY) == []
    [action] = key_actions(found, logs, due, DAY)
    assert (action.kind, action.version_id, action.etag, action.rule_id) == (EXPIRE_CURRENT, "v1", "etag-v1", "r0")
    assert key_actions(found, [version("logs/small", T0, "v1", latest=True, size=5)], due, DAY) == []
    assert key_actions(found, [version("old/a", T0, "v1", latest=True)], T0, DAY)[0].rule_id == "r1"
    # The tag rule matches only versions with that tag and value. And a version written after "now" waits.
    assert key_actions(found, [version("other", T0, "v1", latest=True)], T0 + 100 * DAY, DAY) == []
    assert key_actions(found, [version("other", T0, "v1", latest=True, tags={"k": "w"})], due, DAY) == []
    [tagged] = key_actions(found, [version("other", T0, "v1", latest=True, tags={"k": "v", "x": "y"})], due, DAY)
    assert tagged.rule_id == "r2"
    assert key_actions(found, [version("old/b", T0 + 1, "v1", latest=True)], T0, DAY) == []
    assert current_expiry(found, logs[0].info, DAY) == (due, "r0")


def test_noncurrent_versions_keep_the_newer_ones():
    found = rules("<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>"
                  "<NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration>")
    versions = [version("k", T0 + 3 * DAY, "v4", latest=True), version("k", T0 + 2 * DAY, "v3"),
                version("k", T0 + DAY, "v2"), version("k", T0, "v1")]
    # v2 became noncurrent when v3 was written, v1 when v2 was; v3, the newest noncurrent one, is kept.
    now = due_after_days(T0 + 2 * DAY, 1, DAY)
    assert [(a.kind, a.version_id) for a in key_actions(found, versions, now, DAY)] == [
        (DELETE_NONCURRENT, "v2"), (DELETE_NONCURRENT, "v1")]
    assert [a.version_id for a in key_actions(found, versions, now - 1, DAY)] == ["v1"]


def test_delete_markers_go_when_nothing_is_left_behind_them():
    markers = rules("<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>")
    alone = [version("k", T0, "m1", latest=True, marker=True)]
    [action] = key_actions(markers, alone, T0, DAY)
    assert (action.kind, action.version_id) == (REMOVE_DELETE_MARKER, "m1")
    assert key_actions(markers, alone + [version("k", T0 - DAY, "v1")], T0 + 9 * DAY, DAY) == []
    # A Days rule removes a lone marker once it is that old, and never expires a marker as a version.
    days = rules("<Expiration><Days>2</Days></Expiration>")
    assert key_actions(days, alone, due_after_days(T0, 2, DAY) - 1, DAY) == []
    assert key_actions(days, alone, due_after_days(T0, 2, DAY), DAY)[0].kind == REMOVE_DELETE_MARKER


def test_uploads_are_aborted_after_their_days_within_the_prefix():
    found = rules("<Filter><Prefix>tmp/</Prefix></Filter>"
                  "<AbortIncompleteMultipartUpload><DaysAfterInitiation>2</DaysAfterInitiation>"
                  "</AbortIncompleteMultipartUpload>")
    due = due_after_days(T0, 2, DAY)
    assert upload_due(found, UploadInfo("b", "tmp/x", "u1", T0), due - 1, DAY) is None
    assert upload_due(found, UploadInfo("b", "tmp/x", "u1", T0), due, DAY).id == "r0"
    assert upload_due(found, UploadInfo("b", "keep/x", "u2", T0), due, DAY) is None


def test_tag_filters_need_every_tag_of_the_rule():
    found = rules("<Filter><And><Prefix>d/</Prefix><Tag><Key>a</Key><Value>1</Value></Tag>"
                  "<Tag><Key>b</Key><Value></Value></Tag></And></Filter><Expiration><Days>1</Days></Expiration>"
                  "<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration>")
    now = due_after_days(T0 + DAY, 1, DAY)
    both = {"a": "1", "b": "", "c": "extra"}
    assert key_actions(found, [version("d/k", T0, "v1", latest=True, tags={"a": "1"})], now, DAY) == []
    assert key_actions(found, [version("x/k", T0, "v1", latest=True, tags=both)], now, DAY) == []
    assert [a.kind for a in key_actions(found, [version("d/k", T0, "v1", latest=True, tags=both)], now, DAY)] == [
        EXPIRE_CURRENT]
    # Each version is judged by its own tags; a delete marker has none.
    versions = [version("d/k", T0 + DAY, "m", latest=True, marker=True), version("d/k", T0, "v2", tags=both),
                version("d/k", T0 - DAY, "v1", tags={"a": "1"})]
    assert [(a.kind, a.version_id) for a in key_actions(found, versions, now, DAY)] == [(DELETE_NONCURRENT, "v2")]
    assert current_expiry(found, version("d/k", T0, "v1", tags=both).info, DAY) == (due_after_days(T0, 1, DAY), "r0")
    assert current_expiry(found, version("d/k", T0, "v1").info, DAY) is None
